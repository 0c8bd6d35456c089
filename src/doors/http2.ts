/**
 * HTTP/2 under whole-process interception: while installed, `http2.connect` to a host that is
 * not let through (`passthrough`/`allowHosts`) opens its session over an in-memory connection
 * into a private HTTP/2 server (never listening), whose streams are answered by the network's
 * `fetch` — so a client that speaks only HTTP/2 (the AWS SDK's Bedrock runtime client, by
 * default) is answered like any other, its frames, flow control and stream resets spoken by
 * Node's own HTTP/2 on both ends. A request no route answers gets a 404 whose JSON body names it
 * and the nearest routes (as `simnet run` answers a refusal): HTTP/2 has no way to hand the
 * client the typed error itself, and no common client retries a 404.
 */
import type * as Http2 from "node:http2"
import { syncBuiltinESMExports } from "node:module"
import { inMemoryPair } from "./connection.ts"

/** Headers HTTP/2 forbids in a response (connection-specific) and the pseudo-headers of a request. */
const CONNECTION_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "host"
])

const requestHeaders = (headers: Http2.IncomingHttpHeaders): Headers => {
  const out = new Headers()
  for (const name in headers) {
    if (name.startsWith(":") || CONNECTION_HEADERS.has(name)) continue
    const value = headers[name]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const one of value) out.append(name, one)
    else out.set(name, value)
  }
  return out
}

const responseHeaders = (response: Response): Http2.OutgoingHttpHeaders => {
  const out: Http2.OutgoingHttpHeaders = { ":status": response.status }
  response.headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name) && name !== "set-cookie") out[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) out["set-cookie"] = cookies
  return out
}

/** The JSON of a request `fetch` refused: its error's message (which names the request and the nearest routes). */
const refusal = (error: unknown): string => {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  const tag =
    typeof (cause as { _tag?: unknown } | undefined)?._tag === "string"
      ? (cause as { _tag: string })._tag
      : "RouteFailed"
  const message = cause instanceof Error ? cause.message : String(cause)
  // `message` at the top too: where an SDK (the AWS SDK's) reads an error's message.
  return JSON.stringify({ message, error: { tag, message } })
}

/** Answers one stream through `fetch`; a client that goes away aborts the call. */
const answer = (
  fetch: typeof globalThis.fetch,
  stream: Http2.ServerHttp2Stream,
  headers: Http2.IncomingHttpHeaders
): void => {
  const method = String(headers[":method"] ?? "GET")
  const url = `${String(headers[":scheme"] ?? "https")}://${String(headers[":authority"] ?? headers.host ?? "")}${String(headers[":path"] ?? "/")}`
  const aborted = new AbortController()
  stream.once("close", () => aborted.abort(new DOMException("The client closed the stream", "AbortError")))
  const chunks: Array<Buffer> = []
  let size = 0
  stream.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size > MAX_BODY)
      return void stream.close(
        (process.getBuiltinModule("node:http2") as typeof Http2).constants.NGHTTP2_REFUSED_STREAM
      )
    chunks.push(chunk)
  })
  stream.once("end", () =>
    respond(fetch, stream, url, {
      method,
      headers: requestHeaders(headers),
      signal: aborted.signal,
      ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks, size) })
    })
  )
}

/** The largest request body taken (as `simnet serve`'s default limit). */
const MAX_BODY = 32 * 1024 * 1024

const respond = (
  fetch: typeof globalThis.fetch,
  stream: Http2.ServerHttp2Stream,
  url: string,
  init: RequestInit
): void => {
  fetch(url, init).then(
    async (response) => {
      if (stream.destroyed) return void response.body?.cancel().catch(() => undefined)
      stream.respond(responseHeaders(response), { endStream: response.body === null })
      if (response.body === null) return
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          if (stream.destroyed) break
          if (!stream.write(chunk)) await new Promise((resolve) => stream.once("drain", resolve).once("close", resolve))
        }
        if (!stream.destroyed) stream.end()
      } catch {
        // A body that breaks mid-way (a reset fault, a failed stream) resets the stream, as a server's would.
        if (!stream.destroyed)
          stream.close((process.getBuiltinModule("node:http2") as typeof Http2).constants.NGHTTP2_INTERNAL_ERROR)
      }
    },
    (error: unknown) => {
      if (stream.destroyed) return
      const text = refusal(error)
      stream.respond({
        ":status": 404,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        "x-should-retry": "false"
      })
      stream.end(text)
    }
  )
}

/**
 * Routes `http2.connect` through `fetch` for every authority `letThrough` does not name; returns
 * the function that puts the original back.
 */
export const installHttp2 = (fetch: typeof globalThis.fetch, letThrough: (url: URL) => boolean): (() => void) => {
  const http2 = process.getBuiltinModule("node:http2") as typeof Http2
  const original = http2.connect
  let server: Http2.Http2Server | undefined
  const serverOf = (): Http2.Http2Server => {
    if (server !== undefined) return server
    server = http2.createServer()
    server.on("stream", (stream, headers) => answer(fetch, stream, headers))
    server.on("sessionError", () => undefined)
    return server
  }
  const connect = function (this: unknown, authority: string | URL, ...rest: Array<unknown>) {
    const url = typeof authority === "string" ? URL.parse(authority) : authority
    const listener = typeof rest[0] === "function" ? rest[0] : rest[1]
    const options = typeof rest[0] === "object" && rest[0] !== null ? (rest[0] as Http2.SecureClientSessionOptions) : {}
    if (url === null || letThrough(url) || options.createConnection !== undefined)
      return Reflect.apply(original, this, [authority, ...rest])
    const createConnection = () => {
      const [client, inside] = inMemoryPair()
      serverOf().emit("connection", inside)
      return client
    }
    return Reflect.apply(original, this, [
      authority,
      { ...options, createConnection },
      ...(listener === undefined ? [] : [listener])
    ])
  } as typeof Http2.connect
  http2.connect = connect
  syncBuiltinESMExports()
  return () => {
    if (http2.connect === connect) http2.connect = original
    syncBuiltinESMExports()
    server?.close()
    server = undefined
  }
}
