/**
 * A request body with a limit, as the control endpoint and `simnet serve`'s network paths read
 * it: the declared length is checked before anything is read, and the stream fails as soon as
 * more than `limit` bytes have arrived, so nothing past the limit is ever held.
 */
import type * as http from "node:http"
import { Effect, Stream } from "effect"

/** The failure of a body stream past its limit. */
class BodyOverLimit {
  readonly _tag = "BodyOverLimit"
  readonly message = "the request body is over the body limit"
}

/** Whether a declared `content-length` is over `limit`. */
export const declaredOver = (contentLength: string | undefined, limit: number): boolean => {
  const declared = Number(contentLength)
  return Number.isFinite(declared) && declared > limit
}

/** A body's stream that fails once more than `limit` bytes have arrived, and whether it did. */
export const limitedStream = <E>(stream: Stream.Stream<Uint8Array, E>, limit: number) => {
  let size = 0
  let over = false
  return {
    stream: Stream.mapEffect(stream, (chunk): Effect.Effect<Uint8Array, BodyOverLimit> => {
      size += chunk.byteLength
      if (size <= limit) return Effect.succeed(chunk)
      over = true
      return Effect.fail(new BodyOverLimit())
    }),
    over: () => over
  }
}

/** What `readBody` gives for a body over its limit. */
export const OVER = Symbol("over")

/**
 * Reads a request's body: `done` is told the body, whole, or `OVER` once more than `limit` bytes
 * arrived (the rest is not read); `failed` that the request broke off first. Each is told once.
 */
export const readBody = (
  req: http.IncomingMessage,
  limit: number,
  done: (body: Uint8Array | typeof OVER) => void,
  failed: () => void
): void => {
  const chunks: Array<Buffer> = []
  let size = 0
  let settled = false
  const settle = (then: () => void) => {
    if (settled) return
    settled = true
    then()
  }
  const onData = (chunk: Buffer) => {
    size += chunk.byteLength
    if (size > limit) {
      req.off("data", onData)
      req.pause()
      chunks.length = 0
      return settle(() => done(OVER))
    }
    chunks.push(chunk)
  }
  req.on("data", onData)
  req.once("end", () => settle(() => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))))
  req.once("error", () => settle(failed))
  req.once("aborted", () => settle(failed))
}
