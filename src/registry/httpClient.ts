/**
 * The `HttpClient` door into a network: an Effect `HttpClient` whose unregistered requests fail
 * with an `HttpClientError` (a `TransportError`) whose `cause` is the typed error.
 */
import { Effect, Option, Result, Stream } from "effect"
import * as Tracer from "effect/Tracer"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpMethod from "effect/http/HttpMethod"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Url from "effect/http/Url"
import { isSimnetError, RouteFailed, type SimnetError } from "../SimnetError.ts"
import type { Dispatched, Network } from "./network.ts"
import { isHeld, takeHeld } from "./heldResponse.ts"
import { LazySignal, makeSimRequest } from "./request.ts"
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
    // A held body is a body: asking a held response for `body` would build the stream it saves.
    !isHeld(response) && response.body === null && request.method !== "HEAD" && !NULL_BODY_STATUSES.has(response.status) && response.status >= 200
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

const transportError = (request: HttpClientRequest.HttpClientRequest, error: SimnetError) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({ request, cause: error, description: error.message })
  })

const withContentType = (request: HttpClientRequest.HttpClientRequest, contentType: string | undefined) =>
  contentType !== undefined && request.headers["content-type"] === undefined
    ? { ...request.headers, "content-type": contentType }
    : request.headers

/** The Effect a dispatch stands for, its web response wrapped for the request. */
const answerOf = (request: HttpClientRequest.HttpClientRequest, dispatched: Dispatched): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  switch (dispatched._tag) {
    case "Response":
      return Effect.succeed(received(request, dispatched.response))
    case "Denied":
      return Effect.fail(transportError(request, dispatched.error))
    case "Effect":
      return Effect.mapBoth(dispatched.effect, {
        onFailure: (error) => transportError(request, error),
        onSuccess: (response) => received(request, response)
      })
    case "Promise": {
      const promise = dispatched.promise
      return Effect.map(
        Effect.tryPromise({ try: () => promise, catch: (error) => transportError(request, asSimnetError(error)) }),
        (response) => received(request, response)
      )
    }
  }
}

/** What a dispatch's promise rejects with: a typed error (the network wraps any other throw in a `RouteFailed`), or, should that ever break, a `RouteFailed` naming it. */
const asSimnetError = (error: unknown): SimnetError =>
  isSimnetError(error) ? error : new RouteFailed({ route: "(unknown)", message: "simnet: a route failed with an untyped error", cause: error })

/** A dispatch already made by the fast path, handed to `HttpClient.make` for its abort wiring. */
interface HandedOver {
  readonly dispatched: Dispatched
  readonly signal: LazySignal
}

/**
 * The `HttpClient` door: an Effect `HttpClient` that answers from the network. Unregistered requests fail with an
 * `HttpClientError` (a `TransportError`) whose `cause` is the `UnregisteredRequest`.
 *
 * A request whose body is at hand (none, bytes or a string) and whose client span is disabled
 * (`HttpClient.TracerDisabledWhen`, as `simnet serve` sets it) is dispatched at once, with an
 * abort signal made only if the route asks for one: a route that answers at once (a static
 * route) costs no `AbortController`, no response tracking and no interruption wiring. Every
 * other answer (one still to come, or traced) goes through `HttpClient.make`, whose abort on
 * interruption (of the request, or of reading the body) reaches the route's signal.
 */
/**
 * What a server gets when it asks the network for an answer at once: the answer itself, when the
 * route held it whole (a static or generated body, or no body; the server leaves the body out
 * where the method or status carries none), or the request to execute through
 * the door's `HttpClient` for anything else (an answer still to come, a refusal, a stream). A
 * request handed over has been dispatched already: executing it picks up that dispatch.
 */
export type AtOnce =
  | { readonly _tag: "Answered"; readonly status: number; readonly headers: Readonly<Record<string, string>> | Headers; readonly body: Uint8Array | undefined }
  | { readonly _tag: "HandedOver"; readonly request: HttpClientRequest.HttpClientRequest }

/** A server's way in to one network (see `makeHttpDoor`'s `atOnce`). */
export type ServerDoor = (method: string, url: URL, headers: Readonly<Record<string, string>>) => AtOnce

/**
 * The key of a network instance's `ServerDoor`: the network owns its way in for servers, which
 * is no part of its public API (`answerAtOnce` reads it).
 */
export const ServerDoorKey: unique symbol = Symbol.for("simnet/ServerDoor")

/**
 * The `HttpClient` door and, beside it, the way in for a server that has a request with no body
 * in hand: `atOnce` dispatches it at once, without an Effect, a client request or a web
 * `Response` read back, and answers it when the network answered it whole.
 */
export const makeHttpDoor = (network: Network): {
  readonly client: HttpClient.HttpClient
  readonly atOnce: ServerDoor
} => {
  const handedOver = new WeakMap<HttpClientRequest.HttpClientRequest, HandedOver>()
  const general = HttpClient.make((request, url, signal) => {
    const handed = handedOver.get(request)
    if (handed !== undefined) {
      handedOver.delete(request)
      signal.addEventListener("abort", () => handed.signal.abort(signal.reason), { once: true })
      return answerOf(request, handed.dispatched)
    }
    // What undici's `fetch` refuses (a method that is not a token, CONNECT/TRACE/TRACK, a body
    // with GET or HEAD) fails as Effect's `FetchHttpClient` would report it: a `TransportError`
    // whose cause is undici's own `TypeError`.
    const refused = refusedRequest(String(request.method), request.body._tag !== "Empty")
    if (refused !== undefined) {
      return Effect.fail(new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({ request, cause: refused, description: refused.message })
      }))
    }
    return Effect.flatMap(requestBody(request), ({ body, contentType }) =>
      answerOf(request, network.dispatch(makeSimRequest({ method: request.method, url, headers: withContentType(request, contentType) as Record<string, string>, body, signal }))))
  })
  const postprocess = general.postprocess
  const client = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (effect) =>
      Effect.flatMap(effect, (request) =>
        Effect.withFiber((fiber) => {
          // A request `atOnce` dispatched already is answered by that dispatch.
          if (handedOver.has(request)) return postprocess(Effect.succeed(request))
          const body = bodyAtHand(request)
          if (body === undefined || !(fiber.getRef(Tracer.DisablePropagation) || fiber.getRef(HttpClient.TracerDisabledWhen)(request))) {
            return postprocess(Effect.succeed(request))
          }
          if (refusedRequest(String(request.method), request.body._tag !== "Empty") !== undefined) return postprocess(Effect.succeed(request))
          const url = Url.make(request.url, request.urlParams, Option.getOrUndefined(request.hash))
          if (Result.isFailure(url)) return postprocess(Effect.succeed(request))
          const signal = new LazySignal()
          const dispatched = network.dispatch(makeSimRequest({
            method: request.method,
            url: url.success,
            headers: withContentType(request, body.contentType) as Record<string, string>,
            body: body.body,
            signal
          }))
          if (dispatched._tag !== "Effect" && !signal.used) return answerOf(request, dispatched)
          handedOver.set(request, { dispatched, signal })
          return postprocess(Effect.succeed(request))
        })),
    Effect.succeed
  )
  const atOnce = (method: string, url: URL, headers: Readonly<Record<string, string>>): AtOnce => {
    const clientRequest = () => HttpClientRequest.make(method as HttpMethod.HttpMethod)(url, { headers })
    // What undici refuses is refused by the client, undispatched.
    if (refusedRequest(method, false) !== undefined) return { _tag: "HandedOver", request: clientRequest() }
    const signal = new LazySignal()
    const dispatched = network.dispatchHeld(makeSimRequest({ method, url, headers, body: undefined, signal }))
    if (dispatched._tag === "Held") return { _tag: "Answered", ...dispatched.answer }
    if (dispatched._tag === "Response" && !signal.used) {
      const response = dispatched.response
      const held = takeHeld(response)
      if (held !== undefined) return { _tag: "Answered", status: response.status, headers: held.headers ?? response.headers, body: held.body }
      if (response.body === null) return { _tag: "Answered", status: response.status, headers: response.headers, body: undefined }
    }
    const request = clientRequest()
    handedOver.set(request, { dispatched, signal })
    return { _tag: "HandedOver", request }
  }
  return { client, atOnce }
}

/** The body of a request when it is at hand without waiting; undefined when it must be read. */
const bodyAtHand = (request: HttpClientRequest.HttpClientRequest): { body: Uint8Array | undefined; contentType: string | undefined } | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return NO_BODY
    case "Uint8Array":
      return { body: body.body, contentType: body.contentType }
    case "Raw":
      if (typeof body.body === "string") return { body: encoder.encode(body.body), contentType: body.contentType }
      if (body.body instanceof Uint8Array) return { body: body.body, contentType: body.contentType }
      return undefined
    default:
      return undefined
  }
}

const NO_BODY = { body: undefined, contentType: undefined }
