/**
 * What `simnet serve` reports about the requests it serves: one line per request on stdout
 * (method, URL, route, status, time) unless `--quiet`, and with `--trace FILE` a replay trace as
 * JSON lines — the start (seed and the whole state: routes as RouteSpecs, scripts, rules, logs),
 * every change made through the control endpoint (with its body), and every request with its
 * route, outcome and what it takes to send it again: method, URL, headers and body, credentials
 * redacted (credential headers, credential-like query parameters and JSON or form fields).
 * `replayTrace` reads a trace back; `replayOver` sends it to a fresh server, which answers the
 * same requests with the same bodies.
 */
import * as fs from "node:fs"
import { Clock, Effect, Layer, Stream } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Redaction from "../registry/redact.ts"
import { CONTROL_BASE, type ControlEvent } from "./endpoint.ts"
import { type Handovers, targetUrl } from "./handover.ts"
import type { LaneReport } from "./serve/lane.ts"

/** A record of the network's log, as the reporter reads it. */
interface LoggedRequest {
  readonly seq: number
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly route: { readonly id: string } | undefined
  readonly status: number | undefined
  readonly denial: string | undefined
}

/**
 * What the reporter needs of a network.
 */
export interface ReportedNetwork {
  readonly redactor: Redaction.Redactor
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<LoggedRequest>>
  readonly counters: Effect.Effect<{ readonly requests: number }>
}

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

/** The largest request body a trace holds whole. */
const TRACED_BODY_LIMIT = 1024 * 1024

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A request body for a trace: UTF-8 text with credential-like JSON and form fields redacted, else base64. */
export const traceBody = (bytes: Uint8Array, redactor: Redaction.Redactor, truncated: boolean): TracedBody => {
  const more = truncated ? { truncated: true } : {}
  try {
    return { text: redactor.bodyText(utf8.decode(bytes)), ...more }
  } catch {
    return { base64: Buffer.from(bytes).toString("base64"), ...more }
  }
}

/**
 * The request as the handlers see it, its body copied (up to the limit) as it is read, so the
 * trace holds what the network was sent without reading it twice.
 */
const tapped = (request: HttpServerRequest.HttpServerRequest, redactor: Redaction.Redactor) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  let truncated = false
  const view: HttpServerRequest.HttpServerRequest = Object.create(request, {
    stream: {
      get: () =>
        Stream.map(request.stream, (chunk) => {
          if (size + chunk.length <= TRACED_BODY_LIMIT) chunks.push(chunk)
          else truncated = true
          size += chunk.length
          return chunk
        })
    }
  })
  return { view, body: () => (size === 0 ? undefined : traceBody(Buffer.concat(chunks), redactor, truncated)) }
}

/**
 * A sink of trace lines: a file opened for the life of the scope, written line by line in order.
 */
export const traceFile = (file: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const fd = fs.openSync(file, "w")
      return { fd, write: (value: unknown) => fs.writeSync(fd, `${JSON.stringify(value)}\n`) }
    }),
    ({ fd }) => Effect.sync(() => fs.closeSync(fd))
  )

/**
 * The trace line of a control change.
 */
export const controlLine = (event: ControlEvent) => ({ ...event, type: `control.${event.type}` })

/**
 * Reports every request once its response starts: `report` receives the request's method, the
 * URL it was dispatched to, the network route (from the network's log) and the status; with
 * `bodies`, also its headers and body for a replay. `layer` is a router middleware that sees the
 * requests the router answers; `lane` is told of those `simnet serve`'s lane answered before the
 * router (requests with no body, so no body to copy).
 */
export const reportRequests = (
  network: ReportedNetwork,
  report: (line: RequestReport) => void,
  options: { readonly bodies?: boolean; readonly handovers?: Handovers | undefined } = {}
): { readonly layer: Layer.Layer<never, never, HttpRouter.HttpRouter>; readonly lane: LaneReport } => {
  const claimed = new Set<number>()
  /** The line of one request; `before` is the network's request count before it was dispatched. */
  const emit = (method: string, path: string, target: string | undefined, status: number, ms: number, before: number, body: (() => TracedBody | undefined) | undefined) => {
    const control = path.startsWith(CONTROL_BASE)
    // The log shows URLs through the network's redactor.
    const shown = control || target === undefined ? undefined : network.redactor.url(target)
    let record: LoggedRequest | undefined
    if (shown !== undefined) {
      record = Effect.runSync(network.logSince(before)).find((r) => !claimed.has(r.seq) && r.method === method && r.url === shown)
      if (record !== undefined) {
        claimed.add(record.seq)
        if (claimed.size > 10_000) claimed.clear()
      }
    }
    report({
      type: "request",
      seq: record?.seq,
      method,
      url: shown ?? (control ? path.split("?")[0] : network.redactor.url(path)),
      route: control ? "control" : record?.route?.id,
      status,
      outcome: record?.denial ?? (status >= 400 ? "refused" : "answered"),
      ms,
      ...(options.bodies === true && !control ? { headers: record?.headers ?? {}, body: body?.() } : {})
    })
  }
  const layer = HttpRouter.use((router) =>
    router.addGlobalMiddleware((effect) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const started = yield* Clock.currentTimeMillis
        const before = options.handovers?.requestsBefore(request.source) ?? (yield* network.counters).requests
        const control = request.url.startsWith(CONTROL_BASE)
        const copy = options.bodies === true && !control ? tapped(request, network.redactor) : undefined
        const response = yield* (copy === undefined ? effect : Effect.provideService(effect, HttpServerRequest.HttpServerRequest, copy.view))
        const ms = (yield* Clock.currentTimeMillis) - started
        emit(request.method, request.url, control ? undefined : targetUrl(request.url), response.status, ms, before, copy?.body)
        return response
      })
    ))
  const lane: LaneReport = (request, status, startedMs, before) =>
    emit(request.method, request.path, request.url, status, Date.now() - startedMs, before, undefined)
  return { layer, lane }
}

/**
 * The stdout line of a request.
 */
export const requestLine = (line: RequestReport): string =>
  `${line.method} ${line.url} -> ${line.route ?? (line.outcome === "answered" ? "-" : line.outcome)} ${line.status} ${line.ms}ms`

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
    llm?: { scripts: { queued: Array<unknown> } }
  }
  let routes = [...start.routes]
  let queued = [...(start.llm?.scripts.queued ?? [])]
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
      case "control.reset":
        steps.push({ kind: "control", method: "POST", path: "reset" })
        routes = [...start.routes]
        queued = [...(start.llm?.scripts.queued ?? [])]
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
  const llm = start.llm === undefined ? undefined : { ...start.llm, scripts: { ...start.llm.scripts, queued } }
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
