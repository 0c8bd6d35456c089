/**
 * Building the `SimRequest` a route sees from the parts of an incoming request.
 */
import { parseJson } from "./util.ts"

/**
 * A request as a route sees it: method upper-cased, URL parsed, headers as WHATWG `Headers`,
 * the body buffered, and the path parameters of the route's pattern.
 */
export interface SimRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Headers
  readonly body: Uint8Array | undefined
  readonly params: Readonly<Record<string, string>>
  /** Aborts when the client gives up on the request. */
  readonly signal: AbortSignal | undefined
  /** The body decoded as UTF-8 ("" when there is none). */
  text(): string
  /**
   * The body parsed as JSON (`undefined` when absent, not JSON, or nested deeper than
   * `MAX_JSON_DEPTH`).
   */
  json(): unknown
}

/**
 * An abort signal made the first time a route asks for it. A route answered at once never
 * looks, and so the request needs no `AbortController` (the `HttpClient` door's fast path).
 */
export class LazySignal {
  #controller: AbortController | undefined

  /** Whether a route has asked for the signal. */
  get used(): boolean {
    return this.#controller !== undefined
  }

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal
  }

  /** Aborts the signal, if a route has asked for it. */
  abort(reason?: unknown): void {
    this.#controller?.abort(reason)
  }
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** A string as a UTF-8 round trip gives it back: lone surrogates become U+FFFD. */
const wellFormed = (text: string): string => {
  const string = text as string & { isWellFormed(): boolean; toWellFormed(): string }
  return string.isWellFormed() ? text : string.toWellFormed()
}
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

class SimRequestImpl implements SimRequest {
  readonly method: string
  readonly url: URL
  /** The body as given: a string (a `fetch` body, say) is encoded only when a route asks for bytes. */
  #body: Uint8Array | string | undefined
  params: Readonly<Record<string, string>>
  private signalSource: AbortSignal | LazySignal | undefined
  private headersInit: HeadersInit | LazyHeaders | undefined
  private headersCache: Headers | undefined
  private textCache: string | undefined
  private jsonCache: { value: unknown } | undefined

  constructor(
    method: string,
    url: URL,
    headers: HeadersInit | LazyHeaders | undefined,
    body: Uint8Array | string | undefined,
    signal: AbortSignal | LazySignal | undefined,
    params: Readonly<Record<string, string>>
  ) {
    this.method = method
    this.url = url
    if (headers instanceof Headers) this.headersCache = headers
    else this.headersInit = headers
    this.#body = body
    this.signalSource = signal
    this.params = params
  }

  get signal(): AbortSignal | undefined {
    const source = this.signalSource
    return source instanceof LazySignal ? source.signal : source
  }

  /** The headers as given (read from a `LazyHeaders` now), or the `Headers` built from them. */
  headersSource(): Headers | HeadersInit | undefined {
    if (this.headersCache !== undefined) return this.headersCache
    const init = this.headersInit
    return typeof init === "function" ? (this.headersInit = init()) : init
  }

  /** Built on first use: most static routes never look at headers. */
  get headers(): Headers {
    if (this.headersCache === undefined) {
      this.headersCache = new Headers(this.headersSource())
      this.headersInit = undefined
    }
    return this.headersCache
  }

  get body(): Uint8Array | undefined {
    const body = this.#body
    if (typeof body !== "string") return body
    const bytes = encoder.encode(body)
    this.textCache ??= wellFormed(body)
    this.#body = bytes
    return bytes
  }

  text(): string {
    if (this.textCache === undefined) {
      const body = this.#body
      this.textCache = body === undefined ? "" : typeof body === "string" ? wellFormed(body) : decoder.decode(body)
    }
    return this.textCache
  }

  /**
   * The body's size in bytes and its first `bytes` bytes, without encoding a string body whole:
   * a copy taken from Node's pool of small buffers (a kept record costs no buffer of its own), or
   * a short string body itself.
   */
  bodyForLog(bytes: number): { readonly size: number; readonly head: Uint8Array | string } | undefined {
    const body = this.#body
    if (body === undefined) return undefined
    if (typeof body !== "string") return { size: body.length, head: Buffer.from(body.subarray(0, bytes)) }
    const size = Buffer.byteLength(body, "utf8")
    // A short string is kept whole; a longer one is cut and copied, never kept as a slice that
    // would hold the whole body alive.
    return {
      size,
      head: size <= bytes ? wellFormed(body) : Buffer.from(body.slice(0, bytes), "utf8").subarray(0, bytes)
    }
  }

  json(): unknown {
    if (this.jsonCache === undefined) {
      const body = this.#body
      this.jsonCache = { value: body !== undefined && body.length > 0 ? parseJson(this.text()) : undefined }
    }
    return this.jsonCache.value
  }
}

/**
 * Headers read the first time anything asks for them: a door whose client's headers come in
 * another form (Node's `req.headers`) copies them only for a route, matcher or log that reads them.
 */
export type LazyHeaders = () => Record<string, string>

/**
 * Makes a `SimRequest`. `body` may be a string (encoded as UTF-8) or bytes.
 */
export const makeSimRequest = (options: {
  readonly method?: string | undefined
  readonly url: string | URL
  readonly headers?: HeadersInit | LazyHeaders | undefined
  readonly body?: string | Uint8Array | undefined
  readonly signal?: AbortSignal | LazySignal | undefined
  readonly params?: Readonly<Record<string, string>> | undefined
}): SimRequest =>
  new SimRequestImpl(
    (options.method ?? "GET").toUpperCase(),
    typeof options.url === "string" ? new URL(options.url) : options.url,
    options.headers,
    options.body,
    options.signal,
    options.params ?? NO_PARAMS
  )

/**
 * The request with the path parameters of the route that matched it. A request made by
 * `makeSimRequest` belongs to one dispatch, so it is updated in place rather than copied.
 */
export const withParams = (request: SimRequest, params: Readonly<Record<string, string>>): SimRequest => {
  if (params === request.params) return request
  if (request instanceof SimRequestImpl) {
    request.params = params
    return request
  }
  return { ...request, params, text: () => request.text(), json: () => request.json() }
}

/**
 * The headers of a request as they were given (a `Headers`, a record or pairs), without building
 * a `Headers` when none was built yet: the log keeps this and builds one only when it is read.
 */
export const headersSource = (request: SimRequest): Headers | HeadersInit | undefined =>
  request instanceof SimRequestImpl ? request.headersSource() : request.headers

/** A request's body size and first bytes for its log record (see `SimRequestImpl.bodyForLog`). */
export const bodyForLog = (
  request: SimRequest,
  bytes: number
): { readonly size: number; readonly head: Uint8Array | string } | undefined => {
  if (request instanceof SimRequestImpl) return request.bodyForLog(bytes)
  const body = request.body
  return body === undefined ? undefined : { size: body.length, head: Buffer.from(body.subarray(0, bytes)) }
}
