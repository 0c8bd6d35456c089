/**
 * Replay traces read back: `replayTrace` reads the text of a `simnet serve --trace` file, and
 * `replayOver` sends it to a fresh server, which answers the same requests with the same bodies.
 * A trace of a command in a terminal (`simnet run --tty`, `simnet mcp -- CMD`) also holds every
 * `ui.*` call that acted, whichever door it came through; replayed against a server running the
 * same command in a terminal of the same size, they drive it again, and the command makes its
 * requests itself. Kept apart from the recording (`trace.ts`) so that replaying loads no server
 * or router.
 */
import type { FileContent } from "../fileSystem/workspace.ts"
import { STARTED } from "../registry/scenarios.ts"
import { CONTROL_BASE } from "./service.ts"
import { UI_LOOKS } from "./ui.ts"

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
  /** The GraphQL operation a `graphql` route answered (its name, else its type). */
  readonly operation?: string | undefined
  /** The status the client saw; none for a reset (`outcome: "reset"`). */
  readonly status?: number | undefined
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
 * (`path` under `/experimental/simulation`), a request to the network, or a `ui.*` call that
 * acted on the command's terminal (its params, and the screen it answered then).
 */
export type ReplayStep =
  | {
      readonly kind: "control"
      readonly method: "POST" | "PUT" | "DELETE"
      readonly path: string
      readonly body?: unknown
    }
  | { readonly kind: "request"; readonly request: RequestReport }
  | { readonly kind: "ui"; readonly method: string; readonly params: unknown; readonly screen: unknown }

/**
 * A trace read back: `start` is the server's state when the trace began (restore it with
 * `POST snapshot`), `steps` the control calls and requests in order, `requests` the requests
 * alone (control calls left out), and `snapshot` the start with every control change applied (for
 * a replay that sends only the requests).
 */
export interface TraceReplay {
  readonly start: Record<string, unknown>
  /**
   * A sealed run's workspace (`simnet run --isolate`): the files it was seeded with — what a
   * replay lays out first; files added while it ran (`filesystem/seed`) are steps — and what the
   * run changed in it (`created`, `changed`, `deleted`), when the trace says.
   */
  readonly files: Readonly<Record<string, FileContent>>
  readonly workspace?:
    | {
        readonly created: ReadonlyArray<string>
        readonly changed: ReadonlyArray<string>
        readonly deleted: ReadonlyArray<string>
      }
    | undefined
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
  const lines = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
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
  const driven = new DrivenAnswers()
  let restored: Record<string, unknown> | undefined
  const steps: Array<ReplayStep> = []
  const requests: Array<RequestReport> = []
  const files: Record<string, FileContent> = {}
  let workspace: TraceReplay["workspace"]
  // Where the first action on the terminal since the last request is among the steps: a call a
  // driver answered after it was caused by one of those actions, so its answer must be in place
  // before them when the terminal is driven again.
  let firstAction: number | undefined
  // The scenarios' states as control calls set them (requests move them again when replayed).
  const scenarios: Record<string, string> = { ...(start["scenarios"] as Record<string, string> | undefined) }
  for (const line of lines) {
    switch (line["type"]) {
      case "filesystem.seed":
        Object.assign(files, line["files"])
        break
      case "control.filesystem.seed":
        steps.push({ kind: "control", method: "POST", path: "filesystem/seed", body: { files: line["files"] } })
        break
      case "filesystem":
        workspace = {
          created: line["created"] as Array<string>,
          changed: line["changed"] as Array<string>,
          deleted: line["deleted"] as Array<string>
        }
        break
      case "control.register":
        steps.push({ kind: "control", method: "POST", path: "network/register", body: line["specs"] })
        routes.push(
          ...(Array.isArray(line["specs"]) ? line["specs"] : [line["specs"]]).map((spec) => ({
            source: "control",
            spec
          }))
        )
        break
      case "control.unregister":
        steps.push({
          kind: "control",
          method: "DELETE",
          path: `network/routes/${encodeURIComponent(String(line["id"]))}`
        })
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
        for (const name in scenarios) scenarios[name] = STARTED
        restored = undefined
        break
      case "control.restore":
        steps.push({ kind: "control", method: "POST", path: "snapshot", body: line["state"] })
        restored = line["state"] as Record<string, unknown>
        break
      case "control.scenario":
        steps.push({
          kind: "control",
          method: "PUT",
          path: `scenarios/${encodeURIComponent(String(line["name"]))}/state`,
          body: { state: line["state"] }
        })
        scenarios[String(line["name"])] = String(line["state"])
        break
      case "control.scenarios.reset":
        steps.push({ kind: "control", method: "POST", path: "scenarios/reset" })
        for (const name in scenarios) scenarios[name] = STARTED
        break
      case "control.mcp":
        steps.push({
          kind: "control",
          method: "POST",
          path: `mcp/${encodeURIComponent(String(line["id"]))}`,
          body: line["server"]
        })
        break
      case "control.drive":
        driven.command(
          String(line["method"]),
          line["params"],
          typeof line["url"] === "string" ? line["url"] : undefined
        )
        break
      case "control.ui": {
        const method = String(line["method"])
        // Looking at the screen is not an action (older traces have such lines).
        if (UI_LOOKS.has(method)) break
        firstAction ??= steps.length
        steps.push({ kind: "ui", method, params: line["params"] ?? {}, screen: line["screen"] })
        break
      }
      case "request": {
        if (line["route"] === "control") break
        // A call a driver answered is answered again by a one-use rule with what the driver sent,
        // before the terminal's action that made the call when there is one.
        const answer = driven.take(String(line["url"]))
        const rule = { kind: "control" as const, method: "POST" as const, path: "llm/rules", body: answer }
        if (answer !== undefined && firstAction !== undefined) steps.splice(firstAction, 0, rule)
        else if (answer !== undefined) steps.push(rule)
        firstAction = undefined
        steps.push({ kind: "request", request: line as unknown as RequestReport })
        requests.push(line as unknown as RequestReport)
        break
      }
    }
  }
  const llm = start.llm === undefined ? undefined : { ...start.llm, scripts: { ...start.llm.scripts, queued }, rules }
  return {
    start,
    files,
    ...(workspace === undefined ? {} : { workspace }),
    steps,
    requests,
    snapshot: restored ?? { ...start, routes, llm, scenarios }
  }
}

/**
 * The answers a driver gave, read back from a trace's `control.drive` lines: each invocation's
 * items, and once it ended, the rule that answers the same call the same way (`times: 1`), waiting
 * for the traced request with its URL. Items become script actions (`textDelta` text, `toolCall`
 * a tool call, …); a `raw` item has no script form and is left out. A driven answer streams
 * word by word on replay, not in the driver's chunks: the same content, not the same bytes.
 */
class DrivenAnswers {
  readonly #actions = new Map<string, Array<Record<string, unknown>>>()
  readonly #ended: Array<{ readonly url: string | undefined; readonly rule: Record<string, unknown> }> = []

  /** One traced command; `url` comes with the command that ends its invocation. */
  command(method: string, params: unknown, url: string | undefined): void {
    const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>
    const id = String(p["id"])
    const actions = this.#actions.get(id) ?? []
    this.#actions.set(id, actions)
    // What the driver had sent when the invocation ended (a step needs at least one action).
    const sent = () => (actions.length > 0 ? actions : [{ type: "text", content: "" }])
    const end = (behaviour: Record<string, unknown>) => {
      this.#actions.delete(id)
      this.#ended.push({ url, rule: { match: "any", times: 1, behaviour } })
    }
    switch (method) {
      case "llm.chunk":
        for (const item of Array.isArray(p["items"]) ? (p["items"] as Array<Record<string, unknown>>) : []) {
          const action = actionOf(item)
          if (action !== undefined) actions.push(action)
        }
        return
      case "llm.finish": {
        const reason = p["reason"]
        // A finish "error" fails the call with a 500, as the provider does.
        if (reason === "error") {
          end({ type: "serverError", status: 500, message: "The model stopped with an error." })
          return
        }
        const finish =
          reason === "tool_calls"
            ? "tool-calls"
            : reason === "stop" || reason === "length" || reason === "tool-calls" || reason === "unknown"
              ? reason
              : undefined
        end({ type: "respond", steps: [sent()], ...(finish === undefined ? {} : { finish }) })
        return
      }
      case "llm.fail": {
        const status = Number(p["status"])
        const message = typeof p["message"] === "string" ? p["message"] : undefined
        end(
          status === 429
            ? { type: "rateLimit", ...(message === undefined ? {} : { message }) }
            : status >= 500 && status <= 599
              ? { type: "serverError", status, ...(message === undefined ? {} : { message }) }
              : {
                  type: "respond",
                  steps: [
                    [
                      {
                        type: "http_error",
                        status,
                        message: message ?? `The model failed with status ${status} (simulated).`
                      }
                    ]
                  ]
                }
        )
        return
      }
      case "llm.disconnect":
        end({ type: "fault", fault: "reset", steps: [sent()] })
        return
    }
  }

  /** The rule of the first ended answer to a call to `url`, taken. */
  take(url: string): Record<string, unknown> | undefined {
    const at = this.#ended.findIndex((answer) => answer.url === url)
    return at === -1 ? undefined : this.#ended.splice(at, 1)[0].rule
  }
}

/** A driver item as a script action; undefined for one with no script form (`raw`). */
const actionOf = (item: Record<string, unknown>): Record<string, unknown> | undefined => {
  switch (item["type"]) {
    case "textDelta":
      return { type: "text", content: String(item["text"]) }
    case "reasoningDelta":
      return { type: "thinking", content: String(item["text"]) }
    case "toolCall": {
      let input: unknown = item["input"] ?? {}
      if (typeof item["arguments"] === "string") {
        try {
          input = JSON.parse(item["arguments"])
        } catch {
          input = {}
        }
      }
      return { type: "tool_call", name: String(item["name"]), input }
    }
    case "text":
    case "thinking":
    case "tool_call":
      return item
    default:
      return undefined
  }
}

/** Headers that belong to one connection, not to the request: a replay does not send them again. */
const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "keep-alive",
  "content-length",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection"
])

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
 *
 * A trace with `ui` steps drove a command in a terminal: replay it against a server running the
 * same command in a terminal of the same size (`simnet run --tty`). Each `ui` step is sent to
 * `…/ui/ACTION` in its turn, and its answer (the screen, as JSON) takes its place in the result,
 * with the method as `method`; the requests are the command's to make again, so they are not sent.
 */
export const replayOver = async (
  replay: TraceReplay,
  base: string,
  options: { readonly fetch?: typeof globalThis.fetch; readonly headers?: Readonly<Record<string, string>> } = {}
): Promise<
  ReadonlyArray<{ readonly method: string; readonly url: string; readonly status: number; readonly body: string }>
> => {
  const send = options.fetch ?? globalThis.fetch
  const extra = options.headers ?? {}
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await send(`${base}${CONTROL_BASE}/${path}`, {
      method,
      headers: { ...extra, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`replay: ${method} ${path} answered ${response.status}: ${text}`)
    return { status: response.status, text }
  }
  const driven = replay.steps.some((step) => step.kind === "ui")
  await control("POST", "snapshot", replay.start)
  // A sealed run's files first, as it began (a server without a workspace refuses them, saying so).
  if (Object.keys(replay.files).length > 0) await control("POST", "filesystem/seed", { files: replay.files })
  const answers: Array<{ method: string; url: string; status: number; body: string }> = []
  for (const step of replay.steps) {
    if (step.kind === "control") {
      await control(step.method, step.path, step.body)
      continue
    }
    if (step.kind === "ui") {
      const path = `ui/${step.method.replace(/^ui\./, "")}`
      const { status, text } = await control("POST", path, step.params)
      answers.push({ method: step.method, url: `${base}${CONTROL_BASE}/${path}`, status, body: text })
      continue
    }
    if (driven) continue
    const { method, url, headers, body } = step.request
    const target = new URL(url)
    const response = await send(`${base}/${target.host}${target.pathname}${target.search}`, {
      method,
      headers: {
        ...Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !HOP_BY_HOP.has(name))),
        ...extra
      },
      body: bodyOf(body) as BodyInit | undefined
    })
    answers.push({ method, url, status: response.status, body: await response.text() })
  }
  return answers
}
