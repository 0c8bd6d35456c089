/**
 * A WHATWG `Response` for a body simnet already holds as a string (a generated JSON body). A
 * `Response` built from a string in undici pushes it through a `ReadableStream` that `text()` and
 * `json()` then read back chunk by chunk; that costs more than generating a 20-field body. This
 * one hands the string over directly when it is read as text or JSON, and builds the stream only
 * when someone asks for `body`, `arrayBuffer()`, `bytes()`, `blob()`, `formData()` or a clone.
 * It is a `Response` (`instanceof Response`), and a body reads once, as any other.
 */

const unusable = () => new TypeError("Body is unusable: Body has already been read")

class TextResponse extends Response {
  #text: string
  #used = false
  #full: Response | undefined = undefined

  constructor(text: string, init: ResponseInit) {
    super(null, init)
    this.#text = text
  }

  /** The same response as undici builds it, made the first time the body is needed as bytes. */
  #stream(): Response {
    return (this.#full ??= new Response(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers }))
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
    this.#used = true
    return Promise.resolve(this.#text)
  }

  override json(): Promise<any> {
    if (this.#full !== undefined) return this.#full.json()
    if (this.#used) return Promise.reject(unusable())
    this.#used = true
    try {
      return Promise.resolve(JSON.parse(this.#text))
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
    const copy = new TextResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers })
    if (Object.prototype.hasOwnProperty.call(this, "url")) Object.defineProperty(copy, "url", { value: this.url })
    return copy
  }
}

/**
 * A `Response` whose body is `text` (not for the statuses that carry no body: 204, 205, 304).
 */
export const textResponse = (text: string, init: ResponseInit): Response => new TextResponse(text, init)
