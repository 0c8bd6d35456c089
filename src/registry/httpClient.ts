/**
 * The `HttpClient` door into a network: an Effect `HttpClient` whose unregistered requests fail
 * with an `HttpClientError` (a `TransportError`) whose `cause` is the typed error.
 */
import { Effect, Stream } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import type { SimnetError } from "../SimnetError.ts"
import type { Network } from "./network.ts"
import { makeSimRequest } from "./request.ts"
import { refusedRequest } from "./transport.ts"
import { NULL_BODY_STATUSES } from "./util.ts"

const encoder = new TextEncoder()

/**
 * A route's response as a client receives it over HTTP: one built with no body (`new
 * Response(null, { status: 202 })`, as the MCP SDK answers a notification) for a status and
 * method that carry one arrives with an empty body, as undici delivers it, so reading its stream
 * (as `simnet serve` does to relay it) yields nothing rather than failing.
 */
const received = (request: HttpClientRequest.HttpClientRequest, response: Response): HttpClientResponse.HttpClientResponse =>
  HttpClientResponse.fromWeb(
    request,
    response.body === null && request.method !== "HEAD" && !NULL_BODY_STATUSES.has(response.status) && response.status >= 200
      ? new Response(new Uint8Array(0), { status: response.status, statusText: response.statusText, headers: response.headers })
      : response
  )

const requestBody = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<
  { body: Uint8Array | undefined; contentType: string | undefined },
  HttpClientError.HttpClientError
> => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return Effect.succeed({ body: undefined, contentType: undefined })
    case "Uint8Array":
      return Effect.succeed({ body: body.body, contentType: body.contentType })
    case "Raw": {
      const raw = body.body
      if (typeof raw === "string") return Effect.succeed({ body: encoder.encode(raw), contentType: body.contentType })
      if (raw instanceof Uint8Array) return Effect.succeed({ body: raw, contentType: body.contentType })
      return Effect.promise(() => new Response(raw as BodyInit).arrayBuffer()).pipe(
        Effect.map((buffer) => ({ body: new Uint8Array(buffer), contentType: body.contentType }))
      )
    }
    case "FormData": {
      const response = new Response(body.formData)
      return Effect.promise(() => response.arrayBuffer()).pipe(
        Effect.map((buffer) => ({ body: new Uint8Array(buffer), contentType: response.headers.get("content-type") ?? undefined }))
      )
    }
    case "Stream":
      return Stream.mkUint8Array(body.stream).pipe(
        Effect.map((bytes) => ({ body: bytes as Uint8Array, contentType: body.contentType })),
        Effect.mapError((cause) => new HttpClientError.HttpClientError({ reason: new HttpClientError.EncodeError({ request, cause }) }))
      )
  }
}

/**
 * An Effect `HttpClient` that answers from the network. Unregistered requests fail with an
 * `HttpClientError` (a `TransportError`) whose `cause` is the `UnregisteredRequest`.
 */
export const makeHttpClient = (network: Network): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) => {
    // What undici's `fetch` refuses (a method that is not a token, CONNECT/TRACE/TRACK, a body
    // with GET or HEAD) fails as Effect's `FetchHttpClient` would report it: a `TransportError`
    // whose cause is undici's own `TypeError`.
    const refused = refusedRequest(String(request.method), request.body._tag !== "Empty")
    if (refused !== undefined) {
      return Effect.fail(new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({ request, cause: refused, description: refused.message })
      }))
    }
    return Effect.flatMap(requestBody(request), ({ body, contentType }) => {
      const headers = contentType !== undefined && request.headers["content-type"] === undefined
        ? { ...request.headers, "content-type": contentType }
        : request.headers
      const dispatched = network.dispatch(makeSimRequest({ method: request.method, url, headers: headers as Record<string, string>, body, signal }))
      const transportError = (error: SimnetError) =>
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause: error, description: error.message })
        })
      switch (dispatched._tag) {
        case "Response":
          return Effect.succeed(received(request, dispatched.response))
        case "Denied":
          return Effect.fail(transportError(dispatched.error))
        case "Effect":
          return Effect.mapBoth(dispatched.effect, {
            onFailure: transportError,
            onSuccess: (response) => received(request, response)
          })
        case "Promise":
          return Effect.map(
            Effect.tryPromise({ try: () => dispatched.promise, catch: (error) => transportError(error as SimnetError) }),
            (response) => received(request, response)
          )
      }
    })
  })
