/**
 * Replay traces read back: `replayTrace` reads the text of a `simnet serve --trace` file, and
 * `replayOver` sends it to a fresh server, which answers the same requests with the same bodies.
 * Kept apart from the recording (`trace.ts`) so that replaying loads no server or router.
 */
import { CONTROL_BASE } from "./service.ts"

/**
 * One served request as reported: `route` is the network route that answered (or `control`),
 * `outcome` the denial's tag when the network refused it. In a trace it also carries what it
 * takes to send it again: `headers` (as the network logged them, credentials redacted) and
 * `body` (UTF-8 `text`, else `base64`; credential-like fields redacted; `truncated` past 1 MiB).
 */
export interface RequestReport {
  readonly type: "request"
  readonly seq: number | undefined
  readonly method: string
  readonly url: string
  readonly route: string | undefined
  readonly status: number
  readonly outcome: string
  readonly ms: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: TracedBody | undefined
}

/**
 * A request body as a trace holds it.
 */
export type TracedBody =
  | { readonly text: string; readonly truncated?: boolean }
  | { readonly base64: string; readonly truncated?: boolean }

/**
 * One step of a replay, in the order the trace recorded it: a call to the control endpoint
 * (`path` under `/experimental/simulation`), or a request to the network.
 */
export type ReplayStep =
  | { readonly kind: "control"; readonly method: "POST" | "DELETE"; readonly path: string; readonly body?: unknown }
  | { readonly kind: "request"; readonly request: RequestReport }

/**
 * A trace read back: `start` is the server's state when the trace began (restore it with
 * `POST snapshot`), `steps` the control calls and requests in order, `requests` the requests
 * alone (control calls left out), and `snapshot` the start with every control change applied (for
 * a replay that sends only the requests).
 */
export interface TraceReplay {
  readonly start: Record<string, unknown>
  readonly steps: ReadonlyArray<ReplayStep>
  readonly requests: ReadonlyArray<RequestReport>
  readonly snapshot: Record<string, unknown>
}

/**
 * Reads a trace (the text of a `--trace` file).
 *
 * @throws {Error} when the text is not a simnet trace (no start line) or a line is not JSON.
 */
export const replayTrace = (text: string): TraceReplay => {
  const lines = text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Record<string, unknown>)
  const startLine = lines.find((line) => line["type"] === "start")
  if (startLine === undefined) throw new Error("not a simnet trace: no start line")
  const start = startLine["state"] as Record<string, unknown> & {
    seed: number
    routes: Array<{ source: string; spec: unknown }>
    llm?: { scripts: { queued: Array<unknown> }; rules?: Array<{ id: string }> }
  }
  let routes = [...start.routes]
  let queued = [...(start.llm?.scripts.queued ?? [])]
  let rules = [...(start.llm?.rules ?? [])]
  let restored: Record<string, unknown> | undefined
  const steps: Array<ReplayStep> = []
  const requests: Array<RequestReport> = []
  for (const line of lines) {
    switch (line["type"]) {
      case "control.register":
        steps.push({ kind: "control", method: "POST", path: "network/register", body: line["specs"] })
        routes.push(...(Array.isArray(line["specs"]) ? line["specs"] : [line["specs"]]).map((spec) => ({ source: "control", spec })))
        break
      case "control.unregister":
        steps.push({ kind: "control", method: "DELETE", path: `network/routes/${encodeURIComponent(String(line["id"]))}` })
        routes = routes.filter((route) => (route.spec as { id?: unknown }).id !== line["id"])
        break
      case "control.enqueue":
        steps.push({ kind: "control", method: "POST", path: "llm/enqueue", body: line["scripts"] })
        queued.push(...(line["scripts"] as Array<unknown>))
        break
      case "control.rules": {
        steps.push({ kind: "control", method: "POST", path: "llm/rules", body: line["specs"] })
        const specs = (Array.isArray(line["specs"]) ? line["specs"] : [line["specs"]]) as Array<Record<string, unknown>>
        const ids = line["ids"] as Array<string>
        rules.push(...specs.map((spec, i) => ({ ...spec, id: ids[i] })))
        break
      }
      case "control.unrule":
        steps.push({ kind: "control", method: "DELETE", path: `llm/rules/${encodeURIComponent(String(line["id"]))}` })
        rules = rules.filter((rule) => rule.id !== line["id"])
        break
      case "control.reset":
        steps.push({ kind: "control", method: "POST", path: "reset" })
        routes = [...start.routes]
        queued = [...(start.llm?.scripts.queued ?? [])]
        rules = [...(start.llm?.rules ?? [])]
        restored = undefined
        break
      case "control.restore":
        steps.push({ kind: "control", method: "POST", path: "snapshot", body: line["state"] })
        restored = line["state"] as Record<string, unknown>
        break
      case "request":
        if (line["route"] === "control") break
        steps.push({ kind: "request", request: line as unknown as RequestReport })
        requests.push(line as unknown as RequestReport)
        break
    }
  }
  const llm = start.llm === undefined ? undefined : { ...start.llm, scripts: { ...start.llm.scripts, queued }, rules }
  return { start, steps, requests, snapshot: restored ?? { ...start, routes, llm } }
}

/** Headers that belong to one connection, not to the request: a replay does not send them again. */
const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "content-length", "transfer-encoding", "upgrade", "te", "trailer", "proxy-connection"])

/**
 * The bytes of a traced body, as sent again.
 */
const bodyOf = (body: TracedBody | undefined): Uint8Array | string | undefined =>
  body === undefined ? undefined : "text" in body ? body.text : Buffer.from(body.base64, "base64")

/**
 * Replays a trace against a server at `base` (`http://127.0.0.1:PORT`): restores the trace's
 * start, then sends the control calls and the requests in order, each request to
 * `base/HOST/PATH`. Resolves to every request's status and body, in order. `headers` are added to
 * every call (an `Authorization` for a server that has `SIMNET_TOKEN` set, say).
 */
export const replayOver = async (
  replay: TraceReplay,
  base: string,
  options: { readonly fetch?: typeof globalThis.fetch; readonly headers?: Readonly<Record<string, string>> } = {}
): Promise<ReadonlyArray<{ readonly method: string; readonly url: string; readonly status: number; readonly body: string }>> => {
  const send = options.fetch ?? globalThis.fetch
  const extra = options.headers ?? {}
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await send(`${base}${CONTROL_BASE}/${path}`, {
      method,
      headers: { ...extra, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`replay: ${method} ${path} answered ${response.status}: ${await response.text()}`)
  }
  await control("POST", "snapshot", replay.start)
  const answers: Array<{ method: string; url: string; status: number; body: string }> = []
  for (const step of replay.steps) {
    if (step.kind === "control") {
      await control(step.method, step.path, step.body)
      continue
    }
    const { method, url, headers, body } = step.request
    const target = new URL(url)
    const response = await send(`${base}/${target.host}${target.pathname}${target.search}`, {
      method,
      headers: { ...Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !HOP_BY_HOP.has(name))), ...extra },
      body: bodyOf(body) as BodyInit | undefined
    })
    answers.push({ method, url, status: response.status, body: await response.text() })
  }
  return answers
}
