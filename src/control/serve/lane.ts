/**
 * The lane in front of `simnet serve`'s router: a bodiless request for the network is dispatched
 * as soon as Node has parsed it, and answered at once when the network held the answer whole.
 */
import * as http from "node:http"
import { Effect } from "effect"
import { answerAtOnce, type SimulationNetworkApi } from "../../network/network.ts"
import type { Handovers } from "../handover.ts"
import { NO_RETRY } from "../../registry/refusal.ts"
import { routeFailed, withoutHost } from "./forward.ts"
import { bodiless } from "./relay.ts"

/** Told of every request the lane answered itself, for the line per request and the trace. */
export type LaneReport = (request: { readonly method: string; readonly path: string; readonly url: string }, status: number, startedMs: number, before: number) => void

/**
 * The lane in front of the router. A request for the network that has no body is dispatched as
 * soon as Node has parsed it; when the network answered it whole (a static or generated route),
 * the answer is written at once, with no fiber, no router and no web `Response` read back. Any
 * other answer (a refusal, a stream, one still to come) is handed to the router's handler, which
 * executes the request through `network.httpClient`: the dispatch already made is picked up,
 * never repeated. Requests with a body, the control endpoint and paths that name no host go to
 * the router untouched. It answers whether it took the request.
 */
export type Lane = (request: http.IncomingMessage, response: http.ServerResponse) => boolean

export const makeLane = (network: SimulationNetworkApi, handovers: Handovers, prefix: string, report: LaneReport | undefined, watched: (() => boolean) | undefined): Lane => {
  const requestsSoFar = () => Effect.runSync(network.counters).requests
  return (req, res) => {
    const path = req.url
    const incoming = req.headers
    if (path === undefined || path.startsWith(prefix) || watched?.() === true || incoming["content-length"] !== undefined || incoming["transfer-encoding"] !== undefined) return false
    const target = handovers.targetOf(req, path)
    if (target === undefined) return false
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return false
    }
    const method = req.method ?? "GET"
    const started = report === undefined ? 0 : Date.now()
    const before = report === undefined ? 0 : requestsSoFar()
    const answered = answerAtOnce(network, method, url, withoutHost(incoming))
    if (answered._tag === "HandedOver") {
      handovers.handOver(req, { method, target, request: answered.request, before: report === undefined ? undefined : before })
      return false
    }
    let status = answered.status
    const body = bodiless(method, status) ? undefined : answered.body ?? EMPTY
    try {
      res.writeHead(status, nodeHeaders(answered.headers, body))
      res.end(body)
    } catch (cause) {
      // Node refused the answer's head (a route whose headers it will not write): the client
      // learns as much, as the router would tell it, and the server goes on.
      status = 502
      res.writeHead(status, { "content-type": "application/json", ...NO_RETRY })
      res.end(JSON.stringify(routeFailed(network, method, target, "Node refused the answer to", cause)))
    }
    report?.({ method, path, url: target }, status, started, before)
    return true
  }
}

const EMPTY = new Uint8Array(0)

/** A response's headers as Node writes them, with the body's length when there is a body. */
const nodeHeaders = (headers: Readonly<Record<string, string>> | Headers, body: Uint8Array | undefined): Record<string, string | number | Array<string>> => {
  const out: Record<string, string | number | Array<string>> = {}
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      if (name !== "set-cookie") out[name] = value
    })
    const cookies = headers.getSetCookie()
    if (cookies.length > 0) out["set-cookie"] = cookies
  } else {
    for (const name in headers) out[name] = headers[name]
  }
  delete out["transfer-encoding"]
  if (body !== undefined) out["content-length"] = body.byteLength
  else delete out["content-length"]
  return out
}

/** A Node server whose requests pass the lane before the router sees them. */
export class LaneServer extends http.Server {
  readonly #lane: Lane
  readonly #proxy: ((event: string, args: Array<any>) => boolean) | undefined
  constructor(lane: Lane, proxy?: (event: string, args: Array<any>) => boolean) {
    super()
    this.#lane = lane
    this.#proxy = proxy
    // Node destroys a CONNECT's socket when the server has no `connect` listener; `emit` answers it.
    if (proxy !== undefined) this.on("connect", () => {})
  }

  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (this.#proxy !== undefined && (event === "request" || event === "upgrade" || event === "connect") && this.#proxy(event, args)) return true
    if (event === "request" && this.#lane(args[0], args[1])) return true
    return super.emit(event as string, ...args)
  }
}
