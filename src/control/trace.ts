/**
 * What `simnet serve` reports about the requests it serves: one line per request on stdout
 * (method, URL, route, status, time) unless `--quiet`, and with `--trace FILE` a replay trace as
 * JSON lines — the start (seed, routes as RouteSpecs, scripts), every change made through the
 * control endpoint, and every request with its route and outcome. `replayTrace` turns a trace
 * back into a snapshot that a fresh server restores (`POST snapshot`) to answer the same
 * requests with the same bodies.
 */
import * as fs from "node:fs"
import { Clock, Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { CONTROL_BASE, type ControlEvent } from "./endpoint.ts"
import { targetUrl } from "./serve.ts"

/** A record of the network's log, as the reporter reads it. */
interface LoggedRequest {
  readonly seq: number
  readonly method: string
  readonly url: string
  readonly route: { readonly id: string } | undefined
  readonly status: number | undefined
  readonly denial: string | undefined
}

/**
 * What the reporter needs of a network.
 */
export interface ReportedNetwork {
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<LoggedRequest>>
  readonly counters: Effect.Effect<{ readonly requests: number }>
}

/**
 * One served request as reported: `route` is the network route that answered (or `control`),
 * `outcome` the denial's tag when the network refused it.
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
 * A router layer that reports every request once its response starts: `report` receives the
 * request's method, the URL it was dispatched to, the network route (from the network's log)
 * and the status.
 */
export const reportRequests = (network: ReportedNetwork, report: (line: RequestReport) => void): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const claimed = new Set<number>()
  return HttpRouter.use((router) =>
    router.addGlobalMiddleware((effect) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const started = yield* Clock.currentTimeMillis
        const before = (yield* network.counters).requests
        const response = yield* effect
        const ms = (yield* Clock.currentTimeMillis) - started
        const control = request.url.startsWith(CONTROL_BASE)
        const target = control ? request.url : targetUrl(request.url)
        let record: LoggedRequest | undefined
        if (!control && target !== undefined) {
          record = (yield* network.logSince(before)).find((r) => !claimed.has(r.seq) && r.method === request.method && r.url === target)
          if (record !== undefined) {
            claimed.add(record.seq)
            if (claimed.size > 10_000) claimed.clear()
          }
        }
        report({
          type: "request",
          seq: record?.seq,
          method: request.method,
          url: target ?? request.url,
          route: control ? "control" : record?.route?.id,
          status: response.status,
          outcome: record?.denial ?? (response.status >= 400 ? "refused" : "answered"),
          ms
        })
        return response
      })
    ))
}

/**
 * The stdout line of a request.
 */
export const requestLine = (line: RequestReport): string =>
  `${line.method} ${line.url} -> ${line.route ?? (line.outcome === "answered" ? "-" : line.outcome)} ${line.status} ${line.ms}ms`

/**
 * A snapshot rebuilt from a trace's lines: the start's state, then the control changes in order
 * (registrations, removals, scripts, resets). Restore it into a fresh server and send the trace's
 * requests again to get the same answers.
 */
export const replayTrace = (text: string): { readonly snapshot: Record<string, unknown>; readonly requests: ReadonlyArray<RequestReport> } => {
  const lines = text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as Record<string, unknown>)
  const start = lines.find((line) => line["type"] === "start")
  if (start === undefined) throw new Error("not a simnet trace: no start line")
  const initial = start["state"] as { seed: number; routes: Array<{ source: string; spec: unknown }>; llm?: { callCount: number; scripts: { queued: Array<unknown>; consumed: number }; rules: Array<unknown> } }
  let routes = [...initial.routes]
  let queued = [...(initial.llm?.scripts.queued ?? [])]
  const requests: Array<RequestReport> = []
  for (const line of lines) {
    switch (line["type"]) {
      case "control.register":
        routes.push(...(Array.isArray(line["specs"]) ? line["specs"] : [line["specs"]]).map((spec) => ({ source: "control", spec })))
        break
      case "control.unregister":
        routes = routes.filter((route) => (route.spec as { id?: unknown }).id !== line["id"])
        break
      case "control.enqueue":
        queued.push(...(line["scripts"] as Array<unknown>))
        break
      case "control.reset":
        routes = [...initial.routes]
        queued = [...(initial.llm?.scripts.queued ?? [])]
        break
      case "request":
        requests.push(line as unknown as RequestReport)
        break
    }
  }
  return {
    snapshot: { seed: initial.seed, routes, llm: { callCount: 0, scripts: { queued, consumed: 0 }, rules: initial.llm?.rules ?? [] } },
    requests
  }
}
