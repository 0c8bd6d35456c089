/**
 * The `fetch` door into a network: a WHATWG `fetch` that turns the caller's request into a
 * `SimRequest`, dispatches it, and reports denials as undici's `fetch` does
 * (`TypeError("fetch failed")` whose `cause` is the typed error).
 */
import { type Settled, withoutUpgrade } from "../registry/answer.ts"
import { wholeResponse } from "../registry/heldResponse.ts"
import { isSimnetError, type SimnetError } from "../SimnetError.ts"
import type { Network } from "../registry/engine.ts"
import { bounded } from "../registry/redact.ts"
import { refusalResponse } from "../registry/refusal.ts"
import { makeSimRequest, type SimRequest } from "../registry/request.ts"
import { abortableResponse, abortReason, fetchFailed, refusedRequest } from "../registry/transport.ts"

/** A string body stays a string: the request encodes it only if a route asks for its bytes. */
type BodyResult =
  | Uint8Array
  | string
  | undefined
  | Promise<{ body: Uint8Array | undefined; contentType: string | null }>

const readBody = (
  body: BodyInit | null | undefined,
  url: string,
  method: string,
  headers: Headers,
  signal: AbortSignal | null | undefined
): BodyResult => {
  if (body === null || body === undefined) return undefined
  if (typeof body === "string") {
    if (!headers.has("content-type")) headers.set("content-type", "text/plain;charset=UTF-8")
    return body
  }
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof ReadableStream)
    return readStream(body, signal).then((bytes) => ({ body: bytes, contentType: null }))
  const request = new Request(url, { method, body, duplex: "half" } as RequestInit)
  return request.arrayBuffer().then((buffer) => ({
    body: new Uint8Array(buffer),
    contentType: request.headers.get("content-type")
  }))
}

/** Reads a streamed upload to its end; chunks that are not bytes fail it, as in undici. */
const readStream = async (
  stream: ReadableStream<unknown>,
  signal: AbortSignal | null | undefined
): Promise<Uint8Array> => {
  const reader = stream.getReader()
  // An abort cancels the upload at its source (`awaitBody` has already rejected the fetch).
  const onAbort = () => reader.cancel(abortReason(signal!)).catch(() => undefined)
  signal?.addEventListener("abort", onAbort, { once: true })
  try {
    return await readAll(reader)
  } finally {
    signal?.removeEventListener("abort", onAbort)
  }
}

const readAll = async (reader: ReadableStreamDefaultReader<unknown>): Promise<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!(value instanceof Uint8Array)) {
      const error = new TypeError("Received non-Uint8Array chunk")
      await reader.cancel(error).catch(() => undefined)
      throw error
    }
    chunks.push(value)
    size += value.length
  }
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/**
 * Waits for a streamed body as undici does: an abort while it is pending rejects with the abort
 * reason (and cancels the stream), and a stream that errors rejects `TypeError("fetch failed")`
 * whose `cause` is the stream's error.
 */
const awaitBody = <A>(read: Promise<A>, signal: AbortSignal | null | undefined): Promise<A> => {
  const failed = (error: unknown) => {
    if (signal?.aborted) throw abortReason(signal)
    throw fetchFailed(error instanceof Error ? error : new Error(String(error)))
  }
  if (signal === undefined || signal === null) return read.catch(failed)
  return new Promise<A>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal))
    signal.addEventListener("abort", onAbort, { once: true })
    read
      .catch(failed)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort))
  })
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

type Render = (request: SimRequest, signal: AbortSignal | undefined) => Response | Promise<Response>

/** An answer had now as `fetch` resolves it. */
const responseOf = (settled: Settled, signal: AbortSignal | undefined): Response => {
  const answer = withoutUpgrade(settled)
  return answer._tag === "Whole" ? wholeResponse(answer, signal) : abortableResponse(answer.response, signal)
}

/**
 * The `fetch` door's rendering of an answer. A refusal (an unregistered request, a route that
 * failed) rejects `TypeError("fetch failed")` whose `cause` is the typed error, as undici's does
 * when it cannot connect; with `refusals: "502"` it resolves as `simnet serve`'s 502
 * (`refusal.ts`), which no SDK retries and whose message is simnet's. An answer to come is
 * awaited (its promise, or its Effect run with the network's services); an abort while it is
 * pending rejects with the abort reason.
 */
const renderOf = (network: Network, refusals: "reject" | "502" | undefined): Render => {
  const refusal =
    refusals !== "502"
      ? (error: SimnetError): Promise<Response> => Promise.reject(fetchFailed(error))
      : (error: SimnetError, request: SimRequest): Response =>
          refusalResponse(error, bounded(request.method), network.redactor.url(request.url))
  return (request, signal) => {
    const answer = network.dispatch(request)
    switch (answer._tag) {
      case "Whole":
      case "Streamed":
        return responseOf(answer, signal)
      case "Refused":
        return refusal(answer.error, request)
      case "Pending":
        return (answer.promise ?? network.run(answer.effect, signal)).then(
          (settled) => responseOf(settled, signal),
          (error: unknown) => {
            if (signal?.aborted) throw abortReason(signal)
            return isSimnetError(error)
              ? refusal(error, request)
              : Promise.reject(fetchFailed(error instanceof Error ? error : new Error(String(error))))
          }
        )
    }
  }
}

/**
 * A WHATWG `fetch` that answers from the network. Unregistered requests reject with
 * `TypeError("fetch failed")` whose `cause` is the `UnregisteredRequest`. Like undici's fetch it
 * follows redirects (`redirect: "follow"`, at most 20; 303, and 301/302 after a POST, become a
 * GET without a body; credentials are dropped across origins), returns them as they are with
 * `redirect: "manual"`, and fails with `redirect: "error"`. Responses carry `url` and
 * `redirected`.
 */
export const makeFetch = (
  network: Network,
  options: { readonly refusals?: "reject" | "502" | undefined } = {}
): typeof globalThis.fetch => {
  const answer = renderOf(network, options.refusals)
  const simFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let url: string
    let method: string
    let headers: Headers | HeadersInit | undefined
    let body: BodyResult
    let signal: AbortSignal | null | undefined
    let redirect: RequestRedirect = init?.redirect ?? "follow"
    if (typeof input === "string" || input instanceof URL) {
      url = typeof input === "string" ? input : input.href
      method = init?.method === undefined ? "GET" : String(init.method)
      signal = init?.signal
      headers = init?.headers
      // What undici's `Request` constructor refuses, refused here with its own errors.
      const refused = refusedRequest(method, init?.body !== undefined && init.body !== null)
      if (refused !== undefined) throw refused
      if (init?.body !== undefined && init.body !== null) {
        // A string body needs a content type when none is given; a `Headers` that has one is
        // kept as it is (as a request without a body keeps its headers).
        const mutable = headers instanceof Headers && headers.has("content-type") ? headers : new Headers(headers)
        body = readBody(init.body, url, method, mutable, signal)
        headers = mutable
      }
    } else {
      const request = init === undefined ? input : new Request(input, init)
      url = request.url
      method = request.method
      headers = new Headers(request.headers)
      signal = request.signal
      redirect = request.redirect
      if (signal.aborted) throw abortReason(signal)
      body = request.body === null ? undefined : new Uint8Array(await awaitBody(request.arrayBuffer(), signal))
    }
    if (signal?.aborted) throw abortReason(signal)
    if (body instanceof Promise) {
      const read = await awaitBody(body, signal)
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
    const first = answer(
      makeSimRequest({ method, url: parsed, headers, body, signal: signal ?? undefined }),
      signal ?? undefined
    )
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
      if (
        (response.status === 303 && method !== "GET" && method !== "HEAD") ||
        (response.status <= 302 && method === "POST")
      ) {
        method = "GET"
        body = undefined
        for (const name of [
          "content-type",
          "content-length",
          "content-encoding",
          "content-language",
          "content-location"
        ]) {
          nextHeaders.delete(name)
        }
      }
      if (next.origin !== parsed.origin) {
        for (const name of ["authorization", "proxy-authorization", "cookie", "host"]) nextHeaders.delete(name)
      }
      parsed = next
      headers = nextHeaders
      response = await answer(
        makeSimRequest({
          method,
          url: parsed,
          headers,
          body: body as Uint8Array | string | undefined,
          signal: signal ?? undefined
        }),
        signal ?? undefined
      )
    }
    return asFetched(response, parsed.href, redirects > 0)
  }
  return simFetch as typeof globalThis.fetch
}
