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
import { type Answer, type Settled, withoutUpgrade } from "../registry/answer.ts"
import type { Network } from "../registry/engine.ts"
import { wholeResponse } from "../registry/heldResponse.ts"
import { makeSimRequest } from "../registry/request.ts"
import { refusedRequest } from "../registry/transport.ts"
import { NULL_BODY_STATUSES } from "../registry/util.ts"

const encoder = new TextEncoder()

/**
 * An answer as a client receives it over HTTP: one with no body (`new Response(null, { status:
 * 202 })`, as the MCP SDK answers a notification) for a status and method that carry one
 * arrives with an empty body, as undici delivers it, so reading its stream yields nothing
 * rather than failing.
 */
const received = (
  request: HttpClientRequest.HttpClientRequest,
  settled: Settled
): HttpClientResponse.HttpClientResponse => {
  const answer = withoutUpgrade(settled)
  if (answer._tag === "Whole") {
    // No body, for a status and method that carry one, arrives empty, as undici delivers it.
    const body =
      answer.body === undefined && request.method !== "HEAD" && !NULL_BODY_STATUSES.has(answer.status)
        ? EMPTY
        : answer.body
    return HttpClientResponse.fromWeb(request, wholeResponse({ ...answer, body }, undefined))
  }
  const response = answer.response
  return HttpClientResponse.fromWeb(
    request,
    response.body === null &&
      request.method !== "HEAD" &&
      !NULL_BODY_STATUSES.has(response.status) &&
      response.status >= 200
      ? new Response(EMPTY, { status: response.status, statusText: response.statusText, headers: response.headers })
      : response
  )
}

const EMPTY = new Uint8Array(0)

const requestBody = (
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<
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
        Effect.map((buffer) => ({
          body: new Uint8Array(buffer),
          contentType: response.headers.get("content-type") ?? undefined
        }))
      )
    }
    case "Stream":
      return Stream.mkUint8Array(body.stream).pipe(
        Effect.map((bytes) => ({ body: bytes as Uint8Array, contentType: body.contentType })),
        Effect.mapError(
          (cause) =>
            new HttpClientError.HttpClientError({ reason: new HttpClientError.EncodeError({ request, cause }) })
        )
      )
  }
}

const transportError = (request: HttpClientRequest.HttpClientRequest, error: SimnetError) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({ request, cause: error, description: error.message })
  })

const withContentType = (request: HttpClientRequest.HttpClientRequest, contentType: string | undefined) =>
  contentType !== undefined && request.headers["content-type"] === undefined
    ? { ...request.headers, "content-type": contentType }
    : request.headers

/**
 * The `HttpClient` door's rendering of an answer: a response had now wrapped for the request, a
 * refusal as a `TransportError` whose `cause` is the typed error, an answer to come run in the
 * caller's fiber (its `Clock` among its services).
 */
const render = (
  request: HttpClientRequest.HttpClientRequest,
  answer: Answer
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  switch (answer._tag) {
    case "Whole":
    case "Streamed":
      return Effect.succeed(received(request, answer))
    case "Refused":
      return Effect.fail(transportError(request, answer.error))
    case "Pending":
      return Effect.mapBoth(answer.effect, {
        onFailure: (error) => transportError(request, error),
        onSuccess: (settled) => received(request, settled)
      })
  }
}

/**
 * The `HttpClient` door: an Effect `HttpClient` that answers from the network. Unregistered
 * requests fail with an `HttpClientError` (a `TransportError`) whose `cause` is the
 * `UnregisteredRequest`. `HttpClient.make` wires interruption (of the request, or of reading the
 * body) to the route's signal.
 */
export const makeHttpClient = (network: Network): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) => {
    // What undici's `fetch` refuses (a method that is not a token, CONNECT/TRACE/TRACK, a body
    // with GET or HEAD) fails as Effect's `FetchHttpClient` would report it: a `TransportError`
    // whose cause is undici's own `TypeError`.
    const refused = refusedRequest(String(request.method), request.body._tag !== "Empty")
    if (refused !== undefined) {
      return Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause: refused, description: refused.message })
        })
      )
    }
    return Effect.flatMap(requestBody(request), ({ body, contentType }) =>
      render(
        request,
        network.dispatch(
          makeSimRequest({
            method: request.method,
            url,
            headers: withContentType(request, contentType) as Record<string, string>,
            body,
            signal
          })
        )
      )
    )
  })
