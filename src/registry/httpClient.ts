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

const encoder = new TextEncoder()

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
          return Effect.succeed(HttpClientResponse.fromWeb(request, dispatched.response))
        case "Denied":
          return Effect.fail(transportError(dispatched.error))
        case "Effect":
          return Effect.mapBoth(dispatched.effect, {
            onFailure: transportError,
            onSuccess: (response) => HttpClientResponse.fromWeb(request, response)
          })
        case "Promise":
          return Effect.map(
            Effect.tryPromise({ try: () => dispatched.promise, catch: (error) => transportError(error as SimnetError) }),
            (response) => HttpClientResponse.fromWeb(request, response)
          )
      }
    })
  })
