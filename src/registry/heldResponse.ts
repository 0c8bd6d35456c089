/**
 * A WHATWG `Response` for a body simnet already holds whole, as a string (a generated JSON body,
 * a static text route) or as bytes (a static bytes route). A `Response` built from a body in
 * undici pushes it through a `ReadableStream` that `text()` and `json()` then read back chunk by
 * chunk; that costs more than generating a 20-field body. This one hands the body over directly
 * when it is read as text or JSON, and builds the stream only when someone asks for `body`,
 * `arrayBuffer()`, `bytes()`, `blob()`, `formData()` or a clone. It is a `Response`
 * (`instanceof Response`), and a body reads once, as any other.
 */

import { abortReason, BIND_SIGNAL } from "./transport.ts"

const unusable = () => new TypeError("Body is unusable: Body has already been read")
const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * The class, made the first time a held response is: reading the global `Response` loads Node's
 * fetch implementation (about 12 ms and 7 MB), which `import("simnet")` should not pay before a
 * request needs it.
 */
const makeHeldResponse = () => {
  class HeldResponse extends Response {
    #held: string | Uint8Array
    #used = false
    #full: Response | undefined = undefined
    /** The headers as the route gave them, when it gave a plain record: a server writes them as they are. */
    readonly #record: Readonly<Record<string, string>> | undefined

    /** The request's signal: once it aborts, a body not yet read errors with its reason. */
    #signal: AbortSignal | undefined

    constructor(held: string | Uint8Array, init: ResponseInit, signal?: AbortSignal) {
      super(null, init)
      this.#held = held
      this.#signal = signal
      const headers = init.headers
      this.#record =
        headers !== undefined && !(headers instanceof Headers) && !Array.isArray(headers)
          ? (headers as Record<string, string>)
          : undefined
    }

    /** The record the headers were made from, unless someone may have changed them since. */
    get record(): Readonly<Record<string, string>> | undefined {
      return this.#used || this.#full !== undefined ? undefined : this.#record
    }

    /** The same response as undici builds it, made the first time the body is needed as a stream. */
    #stream(): Response {
      const init = { status: this.status, statusText: this.statusText, headers: this.headers }
      return (this.#full ??=
        this.#signal === undefined
          ? new Response(this.#held as BodyInit, init)
          : abortableBody(this.#held, init, this.#signal))
    }

    /**
     * Whether the body errors on the request's abort by itself: it was made with the request's
     * signal, or takes `signal` now (when nobody has read or streamed the body yet), as
     * `abortableResponse` would make it.
     */
    [BIND_SIGNAL](signal: AbortSignal): boolean {
      if (this.#signal !== undefined) return true
      if (this.#used || this.#full !== undefined) return false
      this.#signal = signal
      return true
    }

    /** The abort reason, when the request was aborted before the body was read. */
    #aborted(): unknown {
      return this.#signal?.aborted === true ? abortReason(this.#signal) : undefined
    }

    #text(): string {
      return typeof this.#held === "string" ? this.#held : decoder.decode(this.#held)
    }

    /** The held body, left unread (for a copy kept beside it), unless it was read or streamed already. */
    peek(): string | Uint8Array | undefined {
      return this.#used || this.#full !== undefined ? undefined : this.#held
    }

    override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
      return this.#used ? null : this.#stream().body
    }

    override get bodyUsed(): boolean {
      return this.#used || (this.#full?.bodyUsed ?? false)
    }

    override text(): Promise<string> {
      if (this.#full !== undefined) return this.#full.text()
      if (this.#used) return Promise.reject(unusable())
      if (this.#signal?.aborted === true) return Promise.reject(this.#aborted())
      this.#used = true
      return Promise.resolve(this.#text())
    }

    override json(): Promise<unknown> {
      if (this.#full !== undefined) return this.#full.json()
      if (this.#used) return Promise.reject(unusable())
      if (this.#signal?.aborted === true) return Promise.reject(this.#aborted())
      this.#used = true
      try {
        return Promise.resolve(JSON.parse(this.#text()))
      } catch (error) {
        return Promise.reject(error)
      }
    }

    override arrayBuffer(): Promise<ArrayBuffer> {
      return this.#used ? Promise.reject(unusable()) : this.#stream().arrayBuffer()
    }

    override bytes(): Promise<Uint8Array<ArrayBuffer>> {
      return this.#used ? Promise.reject(unusable()) : this.#stream().bytes()
    }

    override blob(): Promise<Blob> {
      return this.#used ? Promise.reject(unusable()) : this.#stream().blob()
    }

    override formData(): Promise<FormData> {
      return this.#used ? Promise.reject(unusable()) : this.#stream().formData()
    }

    override clone(): Response {
      if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.")
      if (this.#full !== undefined) return this.#full.clone()
      const copy = new HeldResponse(
        typeof this.#held === "string" ? this.#held : this.#held.slice(),
        { status: this.status, statusText: this.statusText, headers: this.headers },
        this.#signal
      )
      if (Object.hasOwn(this, "url")) Object.defineProperty(copy, "url", { value: this.url })
      return copy
    }
  }

  /**
   * A body made a stream that errors with the abort reason when `signal` aborts before it is read.
   */
  return HeldResponse
}

type HeldResponse = InstanceType<ReturnType<typeof makeHeldResponse>>

let HeldClass: ReturnType<typeof makeHeldResponse> | undefined

/** The class of held responses (made on first use). */
const held = (): ReturnType<typeof makeHeldResponse> => (HeldClass ??= makeHeldResponse())

/** Whether `response` is a held response; false before the class exists (nothing can be one then). */
const isHeldResponse = (response: Response): response is HeldResponse =>
  HeldClass !== undefined && response instanceof HeldClass

const abortableBody = (held: string | Uint8Array, init: ResponseInit, signal: AbortSignal): Response => {
  let bytes: Uint8Array | undefined = typeof held === "string" ? encoder.encode(held) : held
  let onAbort: (() => void) | undefined
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onAbort = () => {
          onAbort = undefined
          bytes = undefined
          controller.error(abortReason(signal))
        }
        if (signal.aborted) onAbort()
        else signal.addEventListener("abort", onAbort, { once: true })
      },
      pull(controller) {
        if (onAbort !== undefined) signal.removeEventListener("abort", onAbort)
        onAbort = undefined
        if (bytes !== undefined && bytes.length > 0) controller.enqueue(bytes)
        bytes = undefined
        controller.close()
      },
      cancel() {
        if (onAbort !== undefined) signal.removeEventListener("abort", onAbort)
        onAbort = undefined
        bytes = undefined
      }
    },
    PULL_ON_READ
  )
  return new Response(stream, init)
}

/** A queue that holds nothing: the body is pulled only when read, so an abort before then errors it. */
const PULL_ON_READ: QueuingStrategy<Uint8Array> = { highWaterMark: 0 }

/**
 * A response with an in-memory body that answers a request with `signal` as `abortableResponse`
 * would make it: its body errors with the abort reason when the signal aborts before the body is
 * read. Held, so read as text or JSON it is handed over directly. For route kinds that hold the
 * whole body (the MCP engine's JSON answers).
 */
export const bufferedResponse = (
  body: string | Uint8Array,
  init: ResponseInit,
  signal: AbortSignal | undefined
): Response => new (held())(body, init, signal)

/**
 * A `Response` whose body is `text` (not for the statuses that carry no body: 204, 205, 304).
 */
export const textResponse = (text: string, init: ResponseInit): Response => new (held())(text, init)

/**
 * A whole answer (`answer.ts`) as a `Response`: its body handed over without a stream when read
 * as text or JSON; once `signal` aborts, a body not yet read errors with its reason.
 */
export const wholeResponse = (
  answer: {
    readonly status: number
    readonly headers: Readonly<Record<string, string>> | Headers
    readonly body: Uint8Array | string | undefined
    readonly text?: string | undefined
  },
  signal: AbortSignal | undefined
): Response => {
  const init = { status: answer.status, headers: answer.headers as HeadersInit }
  return answer.body === undefined ? new Response(null, init) : new (held())(answer.text ?? answer.body, init, signal)
}

/**
 * What a held response holds, without reading it: its body and the header record it was built
 * from (when it was). Undefined for any other response, or once its body was read or streamed.
 */
export const peekHeld = (
  response: Response
):
  | { readonly body: string | Uint8Array; readonly headers: Readonly<Record<string, string>> | undefined }
  | undefined => {
  if (!isHeldResponse(response)) return undefined
  const body = response.peek()
  return body === undefined ? undefined : { body, headers: response.record }
}
