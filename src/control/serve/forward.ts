/**
 * The router's handler of `simnet serve`: forwards one request into the network through its own
 * `HttpClient` (or finishes the one the lane dispatched), relays the answer, and answers a
 * refusal, a failed route or a body over the limit with its JSON error (the request redacted).
 */
import { Effect } from "effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpMethod from "effect/http/HttpMethod"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { SimulationNetworkApi } from "../../network/network.ts"
import { bounded } from "../../registry/redact.ts"
import { NO_RETRY, refusalBody } from "../../registry/refusal.ts"
import { isSimnetError, type SimnetError } from "../../SimnetError.ts"
import { declaredOver, limitedStream } from "../body.ts"
import type { Handovers } from "../handover.ts"
import { relay } from "./relay.ts"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"

/** The 502 of a request the network refused (`registry/refusal.ts`). */
const refusal = (error: SimnetError, method: string, url: string) =>
  HttpServerResponse.jsonUnsafe(refusalBody(error, method, url), { status: 502, headers: NO_RETRY })

/** The forwarder opens no client span per request: `simnet serve` reports requests its own way. */
const untraced = () => true

const transportCause = (error: HttpClientError.HttpClientError): SimnetError | undefined =>
  error.reason._tag === "TransportError" && isSimnetError(error.reason.cause) ? error.reason.cause : undefined

/**
 * The request's headers without `host` (the network sees the target's host in the URL), from the
 * router's request or straight from Node's (whose repeated headers come as arrays).
 */
export const withoutHost = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): Record<string, string> => {
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
export const forward = (network: SimulationNetworkApi, handovers: Handovers, bodyLimit: number = DEFAULT_BODY_LIMIT) => {
  const client = network.httpClient
  return (request: HttpServerRequest.HttpServerRequest) => {
    const flushHead = () => {
      const response = NodeHttpServerRequest.toServerResponse(request)
      if ("flushHeaders" in response) response.flushHeaders()
    }
    const handed = handovers.take(request.source)
    if (handed !== undefined) return answer(network, client, handed.method, handed.target, handed.request, flushHead)
    const target = handovers.targetOf(request.source as object, request.url)
    if (target === undefined) {
      return Effect.succeed(HttpServerResponse.jsonUnsafe(
        { error: { tag: "BadRequest", message: `expected /HOST/PATH (e.g. /api.openai.com/v1/models), got ${bounded(request.url.split("?")[0])}` } },
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
    const answered = answer(network, client, method, target, outgoing, flushHead)
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
  const method = bounded(requestMethod)
  return HttpServerResponse.jsonUnsafe(
    { error: { tag: "PayloadTooLarge", message: `simnet: the body of ${method} ${url} is over the limit of ${limit} bytes (simnet serve --body-limit)`, method, url, limit } },
    { status: 413, headers: { connection: "close" } }
  )
}

/** The network's answer to one request, relayed; a refusal or a failed route as its 502. */
const answer = (network: SimulationNetworkApi, client: HttpClient.HttpClient, method: string, target: string, outgoing: HttpClientRequest.HttpClientRequest, onHead: () => void) =>
  client.execute(outgoing).pipe(
    Effect.provideService(HttpClient.TracerDisabledWhen, untraced),
    Effect.flatMap((response) => relay(method, response, onHead)),
    Effect.catchTag("HttpClientError", (error) => Effect.succeed(failed(network, error, method, target)))
  )

/** The 502 of a request the network refused (by tag) or a route that failed on the way. */
const failed = (network: SimulationNetworkApi, error: HttpClientError.HttpClientError, requestMethod: string, target: string) => {
  const cause = transportCause(error)
  const shown = network.redactor.url(target)
  const method = bounded(requestMethod)
  if (cause !== undefined) return refusal(cause, method, shown)
  const reason = error.reason as { readonly _tag: string; readonly cause?: unknown }
  return HttpServerResponse.jsonUnsafe(routeFailed(network, requestMethod, target, `${reason._tag} answering`, reason.cause), { status: 502, headers: NO_RETRY })
}

/** The 502 body of a request that failed on its way back: what failed, for which request (redacted), and why. */
export const routeFailed = (network: SimulationNetworkApi, requestMethod: string, target: string, what: string, cause: unknown) => {
  const shown = network.redactor.url(target)
  const method = bounded(requestMethod)
  const detail = cause instanceof Error ? `: ${bounded(cause.message)}` : ""
  return { error: { tag: "RouteFailed", message: `simnet: ${what} ${method} ${shown}${detail}`, method, url: shown } }
}
