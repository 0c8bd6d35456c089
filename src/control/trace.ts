/**
 * What `simnet serve` reports about the requests it serves: one line per request on stdout
 * (method, URL, route, status, time) unless `--quiet`, and with `--trace FILE` a replay trace as
 * JSON lines — the start (seed and the whole state: routes as RouteSpecs, scripts, rules, logs),
 * every change made through the control endpoint (with its body), and every request with its
 * route, outcome and what it takes to send it again: method, URL, headers and body, credentials
 * redacted (credential headers, credential-like query parameters and JSON or form fields).
 * `replay.ts` reads a trace back and sends it to a fresh server.
 */
import * as fs from "node:fs"
import { Clock, Effect, type Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as Redaction from "../registry/redact.ts"
import { wasReset } from "../registry/requestRecord.ts"
import type { ControlEvent } from "./endpoint.ts"
import type { RequestReport, TracedBody } from "./replay.ts"

export type { ReplayStep, RequestReport, TraceReplay, TracedBody } from "./replay.ts"
export { replayOver, replayTrace } from "./replay.ts"
import { CONTROL_BASE } from "./service.ts"
import { operationOf } from "./inspector/feed.ts"
import type { DoorWatch } from "../doors/node.ts"

/** A record of the network's log, as the reporter reads it. */
interface LoggedRequest {
  readonly seq: number
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly route: { readonly id: string } | undefined
  readonly status: number | undefined
  readonly denial: string | undefined
  readonly fault?: string | undefined
  readonly chaos?: unknown
  readonly scenario?: unknown
  readonly detail?: Readonly<Record<string, unknown>> | undefined
}

/**
 * What the reporter needs of a network.
 */
export interface ReportedNetwork {
  readonly redactor: Redaction.Redactor
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<LoggedRequest>>
  readonly counters: Effect.Effect<{ readonly requests: number }>
}

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
 * control requests; `watch` is told of the requests for the network by the server's Node door.
 */
export const reportRequests = (
  network: ReportedNetwork,
  report: (line: RequestReport) => void,
  options: { readonly bodies?: boolean } = {}
): { readonly layer: Layer.Layer<never, never, HttpRouter.HttpRouter>; readonly watch: DoorWatch } => {
  const claimed = new Set<number>()
  /** The line of one request; `before` is the network's request count before it was dispatched. */
  const emit = (
    method: string,
    path: string,
    target: string | undefined,
    status: number,
    ms: number,
    before: number,
    body: TracedBody | undefined
  ) => {
    const control = target === undefined && path.startsWith(CONTROL_BASE)
    // The log shows URLs through the network's redactor.
    const shown = target === undefined ? undefined : network.redactor.url(target)
    let record: LoggedRequest | undefined
    if (shown !== undefined) {
      record = Effect.runSync(network.logSince(before)).find(
        (r) => !claimed.has(r.seq) && r.method === method && r.url === shown
      )
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
      ...(record === undefined ? {} : operationOf(record)),
      // A reset has no status, whatever head went out before the drop.
      ...(record !== undefined && wasReset(record) ? {} : { status }),
      // A route's own 4xx or 5xx is an answer; only a request no route took (a bad path, a body over the limit) is refused by status.
      outcome:
        record?.fault ?? record?.denial ?? (record?.route !== undefined || status < 400 ? "answered" : "refused"),
      ...(record?.chaos === undefined ? {} : { chaos: record.chaos }),
      ...(record?.scenario === undefined ? {} : { scenario: record.scenario }),
      ms,
      ...(options.bodies === true && !control ? { headers: record?.headers ?? {}, body } : {})
    })
  }
  const layer = HttpRouter.use((router) =>
    router.addGlobalMiddleware((effect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const started = yield* Clock.currentTimeMillis
        const response = yield* effect
        emit(
          request.method,
          request.url,
          undefined,
          response.status,
          (yield* Clock.currentTimeMillis) - started,
          0,
          undefined
        )
        return response
      })
    )
  )
  const watch: DoorWatch = (request) => {
    const started = Date.now()
    const before = request.url === undefined ? 0 : Effect.runSync(network.counters).requests
    return {
      head: (status) => {
        const body =
          options.bodies === true && request.body !== undefined && request.body.byteLength > 0
            ? traceBody(
                request.body.byteLength > TRACED_BODY_LIMIT
                  ? request.body.subarray(0, TRACED_BODY_LIMIT)
                  : request.body,
                network.redactor,
                request.body.byteLength > TRACED_BODY_LIMIT
              )
            : undefined
        emit(request.method, request.path, request.url, status, Date.now() - started, before, body)
      },
      end: () => {}
    }
  }
  return { layer, watch }
}

/**
 * The stdout line of a request: its route and status, or what broke it when it has no status (a reset).
 */
export const requestLine = (line: RequestReport): string =>
  `${line.method} ${line.url} -> ${line.route ?? (line.outcome === "answered" ? "-" : line.outcome)}${line.operation === undefined ? "" : ` (${line.operation})`} ${line.status ?? line.outcome} ${line.ms}ms`
