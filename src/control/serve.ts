/**
 * `simnet serve`: a loopback HTTP server that answers from a simulated network. A request to
 * `http://127.0.0.1:PORT/HOST/PATH?QUERY` is dispatched as `https://HOST/PATH?QUERY`, so an SDK's
 * base URL becomes `http://127.0.0.1:PORT/api.openai.com/v1`. It binds 127.0.0.1 only.
 *
 * A request no route answers gets `502` with `{ "error": { "tag", "message", "method", "url",
 * "candidates" } }`, so a process on the other side of the socket still learns which request
 * failed and which routes came closest.
 */
import * as http from "node:http"
import { Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { SimulationNetworkApi } from "../SimulationNetwork.ts"

const errorBody = (cause: unknown, method: string, url: string) => {
  const error = cause instanceof TypeError && cause.cause !== undefined ? cause.cause : cause
  const tagged = typeof error === "object" && error !== null && "_tag" in error ? (error as { _tag: string; message: string }) : undefined
  return {
    error: {
      tag: tagged?._tag ?? "RouteFailed",
      message: tagged?.message ?? String(error),
      method,
      url,
      ...(tagged !== undefined && "candidates" in tagged ? { candidates: (tagged as { candidates: unknown }).candidates } : {})
    }
  }
}

/**
 * Maps a loopback path `/HOST/PATH?QUERY` to `https://HOST/PATH?QUERY`, or undefined when the
 * path names no host.
 */
export const targetUrl = (path: string): string | undefined => {
  const match = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(path)
  if (match === null || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(match[1])) return undefined
  return `https://${match[1]}${match[2] ?? "/"}${match[3] ?? ""}`
}

/**
 * The HTTP app that forwards every request into the network.
 */
export const networkApp = (network: SimulationNetworkApi) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const target = targetUrl(request.url)
    if (target === undefined) {
      return HttpServerResponse.jsonUnsafe(
        { error: { tag: "BadRequest", message: `expected /HOST/PATH (e.g. /api.openai.com/v1/models), got ${request.url}` } },
        { status: 400 }
      )
    }
    const web = yield* HttpServerRequest.toWeb(request)
    const headers = new Headers(web.headers)
    headers.delete("host")
    const hasBody = request.method !== "GET" && request.method !== "HEAD"
    return yield* Effect.tryPromise({
      try: (signal) =>
        network.fetch(target, {
          method: request.method,
          headers,
          body: hasBody ? web.body : undefined,
          duplex: "half",
          signal
        } as RequestInit),
      catch: (cause) => cause
    }).pipe(
      Effect.map(HttpServerResponse.fromWeb),
      Effect.catch((cause) => Effect.succeed(HttpServerResponse.jsonUnsafe(errorBody(cause, request.method, target), { status: 502 })))
    )
  })

/**
 * A layer serving the network on 127.0.0.1 at `port` (0 for any free port).
 */
export const serveLayer = (network: SimulationNetworkApi, port: number) =>
  HttpServer.serve(networkApp(network)).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port, host: "127.0.0.1" }))
  )
