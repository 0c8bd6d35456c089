/**
 * `simnet serve`: a loopback HTTP server that answers from a simulated network. A request to
 * `http://127.0.0.1:PORT/HOST/PATH?QUERY` is dispatched as `https://HOST/PATH?QUERY` through the
 * network's own `HttpClient`, so an SDK's base URL becomes `http://127.0.0.1:PORT/api.openai.com/v1`.
 * It binds 127.0.0.1 only, and is built on `effect/http`'s router so that the control endpoint can
 * mount beside it.
 *
 * A request no route answers gets `502` with `{ "error": { "tag", "message", "method", "url",
 * "candidates" } }`, so a process on the other side of the socket still learns which request
 * failed and which routes came closest. Every error body shows the request through the network's
 * redactor: no credential header, userinfo or credential-like query value is sent back.
 *
 * A client that goes away interrupts its request (the network logs it as `Interrupted`), and
 * closing the server's scope (SIGTERM, SIGINT) destroys the connections in flight instead of
 * waiting for them.
 */
import * as http from "node:http"
import { Effect, Layer, Option, Stream } from "effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpMethod from "effect/http/HttpMethod"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Redaction from "../Redaction.ts"
import { isSimnetError, type SimnetError } from "../SimnetError.ts"
import { answerAtOnce, takeHeldBody, type SimulationNetworkApi } from "../SimulationNetwork.ts"

/**
 * Maps a loopback path `/HOST/PATH?QUERY` to `https://HOST/PATH?QUERY`, or undefined when the
 * path names no host.
 */
export const targetUrl = (path: string): string | undefined => {
  const match = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(path)
  if (match === null || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(match[1])) return undefined
  return `https://${match[1]}${match[2] ?? "/"}${match[3] ?? ""}`
}

/** Statuses and methods whose responses carry no body. */
const bodiless = (method: string, status: number) => method === "HEAD" || status === 204 || status === 205 || status === 304

/**
 * The 502 body of a request the network refused: the error's tag and message, the request, and
 * for an unregistered request its nearest candidates.
 */
const refusal = (error: SimnetError, method: string, url: string) =>
  HttpServerResponse.jsonUnsafe(
    {
      error: {
        tag: error._tag,
        message: error.message,
        method,
        url,
        ...(error._tag === "UnregisteredRequest" ? { candidates: error.candidates } : {})
      }
    },
    { status: 502 }
  )

/** The largest body sent in one write; a longer one is streamed. */
const WHOLE_BODY_LIMIT = 64 * 1024

const STILL_ARRIVING = Symbol("stillArriving")

/** The read's result when it settles before the event loop turns, else `STILL_ARRIVING`. */
const readNow = (read: Promise<ReadableStreamReadResult<Uint8Array>>) =>
  new Promise<ReadableStreamReadResult<Uint8Array> | typeof STILL_ARRIVING>((resolve) => {
    const turn = setImmediate(resolve, STILL_ARRIVING)
    read.then((result) => {
      clearImmediate(turn)
      resolve(result)
    }, () => resolve(STILL_ARRIVING))
  })

/**
 * What a web body holds before the event loop turns: every chunk, and whether the body ended. A
 * body still arriving (a model's stream fed by a driver, a delayed route) or past the limit is
 * left with the read under way, for the stream that relays the rest.
 */
const takeReady = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const read = reader.read()
    const result = await readNow(read)
    if (result === STILL_ARRIVING) return { chunks, ended: false, read }
    if (result.done) return { chunks, ended: true, read: undefined }
    chunks.push(result.value)
    size += result.value.byteLength
    if (size > WHOLE_BODY_LIMIT) return { chunks, ended: false, read: undefined }
  }
}

/** The most bytes of a still-arriving body gathered into one write. */
const COALESCE_LIMIT = 16 * 1024

const SETTLED_LATER = Symbol("settledLater")
const settledLater = Promise.resolve(SETTLED_LATER)

/**
 * The chunks taken, then the rest of the body as it arrives; cancelling it cancels the body.
 * Whatever the body already holds when a chunk arrives (a driver's deltas received before the
 * server's next write) goes out with it in one write: the bytes, and so the events, are the
 * same, in fewer writes of at most `COALESCE_LIMIT` bytes.
 */
const rest = (reader: ReadableStreamDefaultReader<Uint8Array>, taken: ReadonlyArray<Uint8Array>, read: Promise<ReadableStreamReadResult<Uint8Array>> | undefined) => {
  let next = read
  let ended = false
  return Stream.fromReadableStream({
    evaluate: () =>
      new ReadableStream<Uint8Array>({
        start: (controller) => {
          if (taken.length > 0) controller.enqueue(concat(taken))
        },
        pull: async (controller) => {
          if (ended) return controller.close()
          const first = await (next ?? reader.read())
          next = undefined
          if (first.done) return controller.close()
          const chunks = [first.value]
          let size = first.value.byteLength
          while (size < COALESCE_LIMIT) {
            const pending = reader.read()
            const result = await Promise.race([pending, settledLater])
            if (result === SETTLED_LATER) {
              next = pending
              break
            }
            if (result.done) {
              ended = true
              break
            }
            chunks.push(result.value)
            size += result.value.byteLength
          }
          controller.enqueue(concat(chunks))
        },
        cancel: (reason) => reader.cancel(reason)
      }, { highWaterMark: 0 }),
    onError: (cause) => cause
  })
}

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))

/**
 * The network's answer as the server's response. A body the network held whole (a static or
 * generated route) is written at once with its `content-length`, without a turn of the event
 * loop; so is any other body that is complete before the loop turns; a body still arriving (a
 * model's stream) is relayed as it arrives.
 */
const relay = (method: string, response: HttpClientResponse.HttpClientResponse) => {
  const options = { status: response.status, headers: response.headers }
  // A body whose route named no type goes out without one (not as application/octet-stream).
  const whole = (bytes: Uint8Array) =>
    options.headers["content-type"] === undefined
      ? HttpServerResponse.raw(bytes, { ...options, contentLength: bytes.byteLength })
      : HttpServerResponse.uint8Array(bytes, options)
  if (bodiless(method, response.status)) return Effect.succeed(HttpServerResponse.empty(options))
  const web = HttpClientResponse.toWeb(response)
  if (Option.isNone(web)) return Effect.succeed(HttpServerResponse.stream(response.stream, options))
  const held = takeHeldBody(web.value)
  if (held !== undefined) return Effect.succeed(whole(held))
  const body = web.value.body
  if (body === null) return Effect.succeed(HttpServerResponse.empty(options))
  const reader = body.getReader()
  return Effect.map(Effect.promise(() => takeReady(reader)), ({ chunks, ended, read }) =>
    ended
      ? whole(concat(chunks))
      : HttpServerResponse.stream(rest(reader, chunks, read), options))
}

/** The forwarder opens no client span per request: `simnet serve` reports requests its own way. */
const untraced = () => true

const transportCause = (error: HttpClientError.HttpClientError): SimnetError | undefined =>
  error.reason._tag === "TransportError" && isSimnetError(error.reason.cause) ? error.reason.cause : undefined

/** The request's headers without `host`: the network sees the target's host in the URL. */
const withoutHost = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) if (name !== "host") out[name] = headers[name]
  return out
}

/**
 * The handler that forwards one request into the network. A route that answers at once (a
 * static one) is answered without the fiber yielding: no promise, no turn of the event loop.
 */
export const forward = (network: SimulationNetworkApi, lane?: Lane) => {
  const client = network.httpClient
  return (request: HttpServerRequest.HttpServerRequest) => {
    const handed = lane?.take(request.source)
    if (handed !== undefined) return answer(network, client, handed.method, handed.target, handed.request)
    const target = targetUrl(request.url)
    if (target === undefined) {
      return Effect.succeed(HttpServerResponse.jsonUnsafe(
        { error: { tag: "BadRequest", message: `expected /HOST/PATH (e.g. /api.openai.com/v1/models), got ${Redaction.bounded(request.url.split("?")[0])}` } },
        { status: 400 }
      ))
    }
    const method = request.method
    const headers = withoutHost(request.headers)
    const hasBody = method !== "GET" && method !== "HEAD"
    // The server hands over whatever method the client sent; the network decides whether a route takes it.
    const outgoing = HttpClientRequest.make(method as HttpMethod.HttpMethod)(target, {
      headers,
      body: hasBody ? HttpBody.stream(request.stream, headers["content-type"]) : undefined
    })
    return answer(network, client, method, target, outgoing)
  }
}

/** The network's answer to one request, relayed; a refusal or a failed route as its 502. */
const answer = (network: SimulationNetworkApi, client: HttpClient.HttpClient, method: string, target: string, outgoing: HttpClientRequest.HttpClientRequest) =>
  client.execute(outgoing).pipe(
    Effect.provideService(HttpClient.TracerDisabledWhen, untraced),
    Effect.flatMap((response) => relay(method, response)),
    Effect.catchTag("HttpClientError", (error) => Effect.succeed(failed(network, error, method, target)))
  )

/** A request the lane dispatched but did not answer, for the router's handler to finish. */
interface HandedOver {
  readonly method: string
  readonly target: string
  readonly request: HttpClientRequest.HttpClientRequest
}

/** Told of every request the lane answered itself, for the line per request and the trace. */
export type LaneReport = (request: { readonly method: string; readonly path: string; readonly url: string }, status: number, startedMs: number, before: number) => void

/**
 * The lane in front of the router. A request for the network that has no body is dispatched as
 * soon as Node has parsed it; when the network answered it whole (a static or generated route),
 * the answer is written at once, with no fiber, no router and no web `Response` read back. Any
 * other answer (a refusal, a stream, one still to come) is handed to the router's handler, which
 * executes the request through `network.httpClient`: the dispatch already made is picked up,
 * never repeated. Requests with a body, the control endpoint and paths that name no host go to
 * the router untouched.
 */
interface Lane {
  readonly handle: (request: http.IncomingMessage, response: http.ServerResponse) => boolean
  readonly take: (source: object) => HandedOver | undefined
}

const makeLane = (network: SimulationNetworkApi, prefix: string, report: LaneReport | undefined, watched: (() => boolean) | undefined): Lane => {
  const handedOver = new WeakMap<object, HandedOver>()
  const requestsSoFar = () => Effect.runSync(network.counters).requests
  return {
    take: (source) => {
      const handed = handedOver.get(source)
      if (handed !== undefined) handedOver.delete(source)
      return handed
    },
    handle: (req, res) => {
      const path = req.url
      const incoming = req.headers
      if (path === undefined || path.startsWith(prefix) || watched?.() === true || incoming["content-length"] !== undefined || incoming["transfer-encoding"] !== undefined) return false
      const target = targetUrl(path)
      if (target === undefined) return false
      let url: URL
      try {
        url = new URL(target)
      } catch {
        return false
      }
      const method = req.method ?? "GET"
      const headers: Record<string, string> = {}
      for (const name in incoming) {
        const value = incoming[name]
        if (name !== "host" && value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
      }
      const started = report === undefined ? 0 : Date.now()
      const before = report === undefined ? 0 : requestsSoFar()
      const answered = answerAtOnce(network, method, url, headers)
      if (answered._tag === "HandedOver") {
        handedOver.set(req, { method, target, request: answered.request })
        if (report !== undefined) countsBefore.set(req, before)
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
        const message = `simnet: Node refused the answer to ${Redaction.bounded(method)} ${network.redactor.url(target)}: ${Redaction.bounded(cause instanceof Error ? cause.message : String(cause))}`
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { tag: "RouteFailed", message, method: Redaction.bounded(method), url: network.redactor.url(target) } }))
      }
      report?.({ method, path, url: target }, status, started, before)
      return true
    }
  }
}

const EMPTY = new Uint8Array(0)

/** The network's request count before the lane dispatched a request it then handed to the router. */
const countsBefore = new WeakMap<object, number>()

/**
 * For a request the lane dispatched and handed to the router (by its Node request, the server
 * request's `source`): the network's request count before that dispatch, which a reporter needs to
 * find its record; undefined for a request the router dispatches itself.
 */
export const requestsBefore = (source: object): number | undefined => countsBefore.get(source)

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
class LaneServer extends http.Server {
  lane: Lane | undefined = undefined
  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (event === "request" && this.lane !== undefined && this.lane.handle(args[0], args[1])) return true
    return super.emit(event as string, ...args)
  }
}

/** The 502 of a request the network refused (by tag) or a route that failed on the way. */
const failed = (network: SimulationNetworkApi, error: HttpClientError.HttpClientError, requestMethod: string, target: string) => {
  const cause = transportCause(error)
  const shown = network.redactor.url(target)
  const method = Redaction.bounded(requestMethod)
  if (cause !== undefined) return refusal(cause, method, shown)
  const reason = error.reason as { readonly _tag: string; readonly cause?: unknown }
  const detail = reason.cause instanceof Error ? `: ${Redaction.bounded(reason.cause.message)}` : ""
  return HttpServerResponse.jsonUnsafe(
    { error: { tag: "RouteFailed", message: `simnet: ${reason._tag} answering ${method} ${shown}${detail}`, method, url: shown } },
    { status: 502 }
  )
}

/**
 * The router layer of `simnet serve`: every path not claimed by a more specific route (such as
 * the control endpoint) is forwarded into the network.
 */
export const networkRoutes = (network: SimulationNetworkApi, lane?: Lane) => HttpRouter.add("*", "/*", forward(network, lane))

/**
 * Stops the server at once when its scope closes: no new connections, and every open one is
 * destroyed, so the requests in flight (a hanging route, a delay, a stalled upload) are
 * interrupted and logged as `Interrupted` rather than waited for. A simulated network has no
 * work worth a graceful drain, and SIGTERM/SIGINT must exit promptly.
 */
const stopAtOnce = (server: http.Server) =>
  Layer.effectDiscard(Effect.addFinalizer(() =>
    Effect.sync(() => {
      if (server.listening) server.close()
      server.closeAllConnections()
    })
  ))

/** The base under which the mounted routes (the control endpoint, the inspector) live. */
const CONTROL_PREFIX = "/experimental/simulation"

/**
 * Options of `serveLayer`: `routerPrefix`, the path under which every mounted route lives (the
 * lane leaves those paths to the router; default `/experimental/simulation`), and `report`, told
 * of each request the lane answered (the router's middleware sees the others), and `watched`.
 */
export interface ServeOptions {
  readonly routerPrefix?: string | undefined
  readonly report?: LaneReport | undefined
  /** While this answers true (an inspector page listens), the lane leaves every request to the router. */
  readonly watched?: (() => boolean) | undefined
}

/**
 * A layer serving the network on 127.0.0.1 at `port` (0 for any free port), with `routes` (more
 * router layers, such as the control endpoint) mounted beside the network. Closing its scope
 * returns promptly whatever is in flight.
 */
export const serveLayer = (
  network: SimulationNetworkApi,
  port: number,
  routes: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.empty,
  options: ServeOptions = {}
) =>
  Layer.unwrap(Effect.sync(() => {
    const server = new LaneServer()
    const lane = makeLane(network, options.routerPrefix ?? CONTROL_PREFIX, options.report, options.watched)
    server.lane = lane
    return stopAtOnce(server).pipe(
      Layer.provideMerge(HttpRouter.serve(Layer.mergeAll(networkRoutes(network, lane), routes), { disableLogger: true, disableListenLog: true })),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host: "127.0.0.1", gracefulShutdownTimeout: 0 }))
    )
  }))
