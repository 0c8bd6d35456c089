/**
 * The two doors into a network: a WHATWG `fetch` and an Effect `HttpClient`. Both turn the
 * caller's request into a `SimRequest`, dispatch it, and report denials the way the real
 * transport would (`TypeError("fetch failed")` with a cause; `HttpClientError` with a cause).
 */
import { Effect, Stream } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import type { SimnetError } from "../SimnetError.ts"
import type { Network } from "./network.ts"
import { makeSimRequest } from "./request.ts"
import type { SimRequest } from "./route.ts"

const encoder = new TextEncoder()

const abortError = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError")

const fetchFailed = (error: SimnetError): TypeError => new TypeError("fetch failed", { cause: error })

type BodyResult = Uint8Array | undefined | Promise<{ body: Uint8Array | undefined; contentType: string | null }>

const readBody = (body: BodyInit | null | undefined, url: string, method: string, headers: Headers): BodyResult => {
  if (body === null || body === undefined) return undefined
  if (typeof body === "string") {
    if (!headers.has("content-type")) headers.set("content-type", "text/plain;charset=UTF-8")
    return encoder.encode(body)
  }
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  const request = new Request(url, { method, body, duplex: "half" } as RequestInit)
  return request.arrayBuffer().then((buffer) => ({
    body: new Uint8Array(buffer),
    contentType: request.headers.get("content-type")
  }))
}

const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 20

/** Gives a constructed `Response` the `url` and `redirected` a network response has. */
const asFetched = (response: Response, url: string, redirected: boolean): Response => {
  Object.defineProperty(response, "url", { value: url })
  if (redirected) Object.defineProperty(response, "redirected", { value: true })
  return response
}

const redirectFailed = (message: string): TypeError => new TypeError("fetch failed", { cause: new Error(message) })

/**
 * A WHATWG `fetch` that answers from the network. Unregistered requests reject with
 * `TypeError("fetch failed")` whose `cause` is the `UnregisteredRequest`. Like undici's fetch it
 * follows redirects (`redirect: "follow"`, at most 20; 303, and 301/302 after a POST, become a
 * GET without a body; credentials are dropped across origins), returns them as they are with
 * `redirect: "manual"`, and fails with `redirect: "error"`. Responses carry `url` and
 * `redirected`.
 */
export const makeFetch = (network: Network): typeof globalThis.fetch => {
  const answer = (request: SimRequest, signal: AbortSignal | undefined | null): Response | Promise<Response> => {
    const dispatched = network.dispatch(request)
    switch (dispatched._tag) {
      case "Response":
        return dispatched.response
      case "Denied":
        return Promise.reject(fetchFailed(dispatched.error))
      case "Effect":
        return network.run(Effect.mapError(dispatched.effect, fetchFailed), signal ?? undefined).catch((error) => {
          if (signal?.aborted) throw abortError(signal)
          throw error
        })
    }
  }

  const simFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let url: string
    let method: string
    let headers: Headers | HeadersInit | undefined
    let body: BodyResult = undefined
    let signal: AbortSignal | null | undefined
    let redirect: RequestRedirect = init?.redirect ?? "follow"
    if (typeof input === "string" || input instanceof URL) {
      url = typeof input === "string" ? input : input.href
      method = init?.method ?? "GET"
      signal = init?.signal
      headers = init?.headers
      if (init?.body !== undefined && init.body !== null) {
        const mutable = new Headers(headers)
        body = readBody(init.body, url, method, mutable)
        headers = mutable
      }
    } else {
      const request = init === undefined ? input : new Request(input, init)
      url = request.url
      method = request.method
      headers = new Headers(request.headers)
      signal = request.signal
      redirect = request.redirect
      body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer())
    }
    if (signal?.aborted) throw abortError(signal)
    if (body instanceof Promise) {
      const read = await body
      const mutable = headers as Headers
      if (read.contentType !== null && !mutable.has("content-type")) mutable.set("content-type", read.contentType)
      body = read.body
    }
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch (cause) {
      throw new TypeError(`Failed to parse URL from ${url}`, { cause })
    }
    const first = answer(makeSimRequest({ method, url: parsed, headers, body, signal: signal ?? undefined }), signal)
    let response = first instanceof Response ? first : await first
    let redirects = 0
    while (redirect !== "manual" && REDIRECT_STATUS.has(response.status)) {
      const location = response.headers.get("location")
      if (location === null) break
      if (redirect === "error") throw redirectFailed(`unexpected redirect to ${location}`)
      if (++redirects > MAX_REDIRECTS) throw redirectFailed("redirect count exceeded")
      let next: URL
      try {
        next = new URL(location, parsed)
      } catch {
        throw redirectFailed(`invalid redirect location ${location}`)
      }
      await response.body?.cancel()
      const nextHeaders = new Headers(headers)
      if ((response.status === 303 && method !== "GET" && method !== "HEAD") || (response.status <= 302 && method === "POST")) {
        method = "GET"
        body = undefined
        for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) {
          nextHeaders.delete(name)
        }
      }
      if (next.origin !== parsed.origin) {
        for (const name of ["authorization", "proxy-authorization", "cookie", "host"]) nextHeaders.delete(name)
      }
      parsed = next
      headers = nextHeaders
      response = await answer(makeSimRequest({ method, url: parsed, headers, body: body as Uint8Array | undefined, signal: signal ?? undefined }), signal)
    }
    return asFetched(response, parsed.href, redirects > 0)
  }
  return simFetch as typeof globalThis.fetch
}

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
  HttpClient.make((request, url, signal) =>
    Effect.flatMap(requestBody(request), ({ body, contentType }) => {
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
      }
    })
  )
