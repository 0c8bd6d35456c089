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
import * as Redaction from "../registry/redact.ts"
import { isSimnetError, type SimnetError } from "../SimnetError.ts"
import { answerAtOnce, takeHeldBody, type SimulationNetworkApi } from "../network/network.ts"
import { CONTROL_BASE } from "./endpoint.ts"
import { declaredOver, limitedStream } from "./body.ts"
import { handOver, takeHandedOver, targetUrl } from "./handover.ts"

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

/**
 * The request's headers without `host` (the network sees the target's host in the URL), from the
 * router's request or straight from Node's (whose repeated headers come as arrays).
 */
const withoutHost = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (name !== "host" && value !== undefined) out[name] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

/**
 * The handler that forwards one request into the network. A route that answers at once (a
 * static one) is answered without the fiber yielding: no promise, no turn of the event loop.
 */
export const forward = (network: SimulationNetworkApi, bodyLimit: number = DEFAULT_BODY_LIMIT) => {
  const client = network.httpClient
  return (request: HttpServerRequest.HttpServerRequest) => {
    const handed = takeHandedOver(request.source)
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
    if (hasBody && declaredOver(headers["content-length"], bodyLimit)) return Effect.succeed(tooLarge(network, method, target, bodyLimit))
    const limited = hasBody ? limitedStream(request.stream, bodyLimit) : undefined
    // The server hands over whatever method the client sent; the network decides whether a route takes it.
    const outgoing = HttpClientRequest.make(method as HttpMethod.HttpMethod)(target, {
      headers,
      body: limited === undefined ? undefined : HttpBody.stream(limited.stream, headers["content-type"])
    })
    const answered = answer(network, client, method, target, outgoing)
    return limited === undefined ? answered : Effect.map(answered, (response) => (limited.over() ? tooLarge(network, method, target, bodyLimit) : response))
  }
}

/**
 * The default largest request body `simnet serve` takes on a network path (32 MiB): past it the
 * answer is 413 and the body is not kept. `--body-limit BYTES` changes it.
 */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

/** The 413 of a request whose body is over the limit: the request (redacted) and the limit. */
const tooLarge = (network: SimulationNetworkApi, requestMethod: string, target: string, limit: number) => {
  const url = network.redactor.url(target)
  const method = Redaction.bounded(requestMethod)
  return HttpServerResponse.jsonUnsafe(
    { error: { tag: "PayloadTooLarge", message: `simnet: the body of ${method} ${url} is over the limit of ${limit} bytes (simnet serve --body-limit)`, method, url, limit } },
    { status: 413, headers: { connection: "close" } }
  )
}

/** The network's answer to one request, relayed; a refusal or a failed route as its 502. */
const answer = (network: SimulationNetworkApi, client: HttpClient.HttpClient, method: string, target: string, outgoing: HttpClientRequest.HttpClientRequest) =>
  client.execute(outgoing).pipe(
    Effect.provideService(HttpClient.TracerDisabledWhen, untraced),
    Effect.flatMap((response) => relay(method, response)),
    Effect.catchTag("HttpClientError", (error) => Effect.succeed(failed(network, error, method, target)))
  )

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
type Lane = (request: http.IncomingMessage, response: http.ServerResponse) => boolean

const makeLane = (network: SimulationNetworkApi, prefix: string, report: LaneReport | undefined, watched: (() => boolean) | undefined): Lane => {
  const requestsSoFar = () => Effect.runSync(network.counters).requests
  return (req, res) => {
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
    const started = report === undefined ? 0 : Date.now()
    const before = report === undefined ? 0 : requestsSoFar()
    const answered = answerAtOnce(network, method, url, withoutHost(incoming))
    if (answered._tag === "HandedOver") {
      handOver(req, { method, target, request: answered.request, before: report === undefined ? undefined : before })
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
      res.writeHead(status, { "content-type": "application/json" })
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
class LaneServer extends http.Server {
  readonly #lane: Lane
  constructor(lane: Lane) {
    super()
    this.#lane = lane
  }

  override emit(event: string | symbol, ...args: Array<any>): boolean {
    if (event === "request" && this.#lane(args[0], args[1])) return true
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
  return HttpServerResponse.jsonUnsafe(routeFailed(network, requestMethod, target, `${reason._tag} answering`, reason.cause), { status: 502 })
}

/** The 502 body of a request that failed on its way back: what failed, for which request (redacted), and why. */
const routeFailed = (network: SimulationNetworkApi, requestMethod: string, target: string, what: string, cause: unknown) => {
  const shown = network.redactor.url(target)
  const method = Redaction.bounded(requestMethod)
  const detail = cause instanceof Error ? `: ${Redaction.bounded(cause.message)}` : ""
  return { error: { tag: "RouteFailed", message: `simnet: ${what} ${method} ${shown}${detail}`, method, url: shown } }
}

/**
 * The router layer of `simnet serve`: every path not claimed by a more specific route (such as
 * the control endpoint) is forwarded into the network.
 */
export const networkRoutes = (network: SimulationNetworkApi, bodyLimit?: number) => HttpRouter.add("*", "/*", forward(network, bodyLimit))

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

/**
 * Options of `serveLayer`: `routerPrefix`, the path under which every mounted route lives (the
 * lane leaves those paths to the router; default `CONTROL_BASE`), and `report`, told
 * of each request the lane answered (the router's middleware sees the others), and `watched`.
 */
export interface ServeOptions {
  readonly routerPrefix?: string | undefined
  readonly report?: LaneReport | undefined
  /** While this answers true (an inspector page listens), the lane leaves every request to the router. */
  readonly watched?: (() => boolean) | undefined
  /** The largest request body taken on a network path, in bytes (default `DEFAULT_BODY_LIMIT`); 413 past it. */
  readonly bodyLimit?: number | undefined
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
    const server = new LaneServer(makeLane(network, options.routerPrefix ?? CONTROL_BASE, options.report, options.watched))
    return stopAtOnce(server).pipe(
      Layer.provideMerge(HttpRouter.serve(Layer.mergeAll(networkRoutes(network, options.bodyLimit), routes), { disableLogger: true, disableListenLog: true })),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host: "127.0.0.1", gracefulShutdownTimeout: 0 }))
    )
  }))
