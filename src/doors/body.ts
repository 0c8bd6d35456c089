/**
 * A request body with a limit, as the control endpoint and `simnet serve`'s network paths read
 * it: the declared length is checked before anything is read, and the stream fails as soon as
 * more than `limit` bytes have arrived, so nothing past the limit is ever held.
 */
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
