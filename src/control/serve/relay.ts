/**
 * How `simnet serve` writes the network's answer: a body the network held whole (a static or
 * generated route), or complete before the event loop turns, in one write with its
 * `content-length`; a body still arriving (a model's stream) relayed as it arrives, what the body
 * already holds gathered into each write.
 */
import { Effect, Option, Stream } from "effect"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { takeHeldBody } from "../../registry/heldResponse.ts"

/** Statuses and methods whose responses carry no body. */
export const bodiless = (method: string, status: number) => method === "HEAD" || status === 204 || status === 205 || status === 304

/** The largest body sent in one write; a longer one is streamed. */
const WHOLE_BODY_LIMIT = 64 * 1024

const STILL_ARRIVING = Symbol("stillArriving")

/** The read's result when it settles before the event loop turns, else `STILL_ARRIVING`. */
const readNow = (read: Promise<ReadableStreamReadResult<Uint8Array>>) =>
  new Promise<ReadableStreamReadResult<Uint8Array> | typeof STILL_ARRIVING>((resolve) => {
    const turn = setImmediate(resolve, STILL_ARRIVING)
    read.then((result) => {
      clearImmediate(turn)
      resolve(result)
    }, () => resolve(STILL_ARRIVING))
  })

/**
 * What a web body holds before the event loop turns: every chunk, and whether the body ended. A
 * body still arriving (a model's stream fed by a driver, a delayed route) or past the limit is
 * left with the read under way, for the stream that relays the rest.
 */
const takeReady = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const read = reader.read()
    const result = await readNow(read)
    if (result === STILL_ARRIVING) return { chunks, ended: false, read }
    if (result.done) return { chunks, ended: true, read: undefined }
    chunks.push(result.value)
    size += result.value.byteLength
    if (size > WHOLE_BODY_LIMIT) return { chunks, ended: false, read: undefined }
  }
}

/** The most bytes of a still-arriving body gathered into one write. */
const COALESCE_LIMIT = 16 * 1024

const SETTLED_LATER = Symbol("settledLater")
const settledLater = Promise.resolve(SETTLED_LATER)

/**
 * The chunks taken, then the rest of the body as it arrives; cancelling it cancels the body.
 * Whatever the body already holds when a chunk arrives (a driver's deltas received before the
 * server's next write) goes out with it in one write: the bytes, and so the events, are the
 * same, in fewer writes of at most `COALESCE_LIMIT` bytes.
 */
const rest = (reader: ReadableStreamDefaultReader<Uint8Array>, taken: ReadonlyArray<Uint8Array>, read: Promise<ReadableStreamReadResult<Uint8Array>> | undefined, onHead: (() => void) | undefined) => {
  let next = read
  let ended = false
  return Stream.fromReadableStream({
    evaluate: () =>
      new ReadableStream<Uint8Array>({
        start: (controller) => {
          // Run once the head is written: with no byte to send yet, the head goes out now (an
          // event stream with no event yet is still a 200 its client can see).
          if (taken.length > 0) controller.enqueue(concat(taken))
          else onHead?.()
        },
        pull: async (controller) => {
          if (ended) return controller.close()
          const first = await (next ?? reader.read())
          next = undefined
          if (first.done) return controller.close()
          const chunks = [first.value]
          let size = first.value.byteLength
          while (size < COALESCE_LIMIT) {
            const pending = reader.read()
            const result = await Promise.race([pending, settledLater])
            if (result === SETTLED_LATER) {
              next = pending
              break
            }
            if (result.done) {
              ended = true
              break
            }
            chunks.push(result.value)
            size += result.value.byteLength
          }
          controller.enqueue(concat(chunks))
        },
        cancel: (reason) => reader.cancel(reason)
      }, { highWaterMark: 0 }),
    onError: (cause) => cause
  })
}

export const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))

/**
 * The network's answer as the server's response. A body the network held whole (a static or
 * generated route) is written at once with its `content-length`, without a turn of the event
 * loop; so is any other body that is complete before the loop turns; a body still arriving (a
 * model's stream) is relayed as it arrives. `onHead` sends the head when nothing of such a body
 * has come yet (Node holds a head until the first write otherwise).
 */
export const relay = (method: string, response: HttpClientResponse.HttpClientResponse, onHead?: () => void) => {
  const options = { status: response.status, headers: response.headers }
  // A body whose route named no type goes out without one (not as application/octet-stream).
  const whole = (bytes: Uint8Array) =>
    options.headers["content-type"] === undefined
      ? HttpServerResponse.raw(bytes, { ...options, contentLength: bytes.byteLength })
      : HttpServerResponse.uint8Array(bytes, options)
  if (bodiless(method, response.status)) return Effect.succeed(HttpServerResponse.empty(options))
  const web = HttpClientResponse.toWeb(response)
  if (Option.isNone(web)) return Effect.succeed(HttpServerResponse.stream(response.stream, options))
  const held = takeHeldBody(web.value)
  if (held !== undefined) return Effect.succeed(whole(held))
  const body = web.value.body
  if (body === null) return Effect.succeed(HttpServerResponse.empty(options))
  const reader = body.getReader()
  return Effect.map(Effect.promise(() => takeReady(reader)), ({ chunks, ended, read }) =>
    ended
      ? whole(concat(chunks))
      : HttpServerResponse.stream(rest(reader, chunks, read, onHead), options))
}
