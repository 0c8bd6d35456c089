/**
 * Response bodies of the simulated provider. A streamed body hands over exactly one SSE event per
 * read: the `openai` SDK's decoder is fast on event-sized reads and about 70 times slower when a
 * whole stream arrives in one buffer, so the shape of the reads is part of the fidelity. The
 * bodies are written by a `StreamWriter`, so every wire format streams the same way.
 */
import type { TokenUsage } from "./parts.ts"
import { hashString } from "../../registry/seed.ts"
import { connectionReset } from "../../registry/transport.ts"
import { registerFrames } from "../../registry/frames.ts"
import type { LlmPace } from "../../schemas/llmScript.ts"
import { type Finish, type Part, partFrames, type StreamFault, type StreamItem, type StreamWriter } from "./parts.ts"

const encoder = new TextEncoder()

/**
 * How a frame goes on the wire: UTF-8 text (SSE, NDJSON) unless a wire frames its stream in
 * binary (Bedrock's AWS event stream), when it gives its own.
 */
export type FrameEncoder = (frame: string) => Uint8Array

const utf8: FrameEncoder = (frame) => encoder.encode(frame)

/**
 * The frames of a scripted stream, produced lazily: the opening frames, each part, then the
 * closing frames — or, with a `fault`, a malformed frame (`malformed`) or nothing more
 * (`truncate`, `reset`). An `error` part ends the stream right after its error event.
 */
export function* scriptedFrames(
  writer: StreamWriter,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage | undefined,
  fault: StreamFault | undefined,
  opening: ReadonlyArray<string> = writer.open()
): Generator<string> {
  yield* opening
  for (const part of parts) {
    yield* partFrames(writer, part)
    if (part.kind === "error") return
  }
  if (fault === undefined) yield* writer.finish(finish, usage)
  else if (fault === "malformed") yield writer.malformed()
}

const BATCH = 64

/**
 * A body that hands over one frame of `frames` per read; when `reset` is set, the last read fails
 * with a connection reset instead of ending the body. `onEnd` runs once, when the body ends,
 * fails or is cancelled. Frames are taken from the iterator up to 64 at a time and encoded in one
 * go (encoding is most of the cost of a small frame); each read still carries exactly one frame,
 * a view into the batch.
 */
export const framesBody = (
  frames: Iterator<string>,
  options: { readonly reset?: boolean; readonly onEnd?: () => void; readonly encode?: FrameEncoder | undefined } = {}
): ReadableStream<Uint8Array> => {
  if (options.encode !== undefined) return encodedBody(frames, options.encode, options.reset === true)
  let ended = false
  let exhausted = false
  let batch: Uint8Array = new Uint8Array(0)
  const ends: Array<number> = []
  let at = 0
  let start = 0
  const end = () => {
    if (ended) return
    ended = true
    options.onEnd?.()
  }
  const refill = (): boolean => {
    ends.length = 0
    at = 0
    start = 0
    let text = ""
    let bytes = 0
    while (!exhausted && ends.length < BATCH) {
      const next = frames.next()
      if (next.done === true) {
        exhausted = true
        break
      }
      text += next.value
      bytes += Buffer.byteLength(next.value, "utf8")
      ends.push(bytes)
    }
    if (ends.length === 0) return false
    batch = encoder.encode(text)
    return true
  }
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at < ends.length || refill()) {
          const stop = ends[at++]
          controller.enqueue(batch.subarray(start, stop))
          start = stop
          return
        }
        end()
        if (options.reset === true) controller.error(connectionReset())
        else controller.close()
      },
      cancel() {
        end()
      }
    },
    { highWaterMark: 0 }
  )
  // The Node door may write these frames itself (`registry/frames.ts`); a body that breaks is always read.
  if (options.reset !== true) registerFrames(body, { frames, end })
  return body
}

/** A body of frames in a binary framing: one encoded frame a read, as `framesBody`. */
const encodedBody = (frames: Iterator<string>, encode: FrameEncoder, reset: boolean): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = frames.next()
        if (next.done !== true) return controller.enqueue(encode(next.value))
        if (reset) controller.error(connectionReset())
        else controller.close()
      }
    },
    { highWaterMark: 0 }
  )

/**
 * A body that hands over one frame of `frames` per read, each after its delay: `delayOf(i)`
 * milliseconds before frame `i`, slept with `sleep` (the network's `Clock`, so `TestClock`
 * controls it). As `framesBody`, a `reset` fails the last read with a connection reset.
 */
export const pacedBody = (
  frames: Iterator<string>,
  delayOf: (index: number) => number,
  sleep: (ms: number) => Promise<void>,
  options: { readonly reset?: boolean; readonly encode?: FrameEncoder | undefined } = {}
): ReadableStream<Uint8Array> => {
  const encode = options.encode ?? utf8
  let index = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = frames.next()
        if (next.done === true) {
          if (options.reset === true) controller.error(connectionReset())
          else controller.close()
          return
        }
        const ms = delayOf(index++)
        if (ms > 0) await sleep(ms)
        controller.enqueue(encode(next.value))
      }
    },
    { highWaterMark: 0 }
  )
}

/**
 * The delay before each frame of a paced answer: none before the opening frames (`openFrames`
 * of them), `ttftMs` before the first after them, then a token's time (`1000 / tokensPerSecond`)
 * before each, varied by up to `jitter` of itself by a seeded draw per frame, so the same call
 * streams at the same pace on every run.
 */
export const paceDelays = (pace: LlmPace, openFrames: number, seed: number): ((index: number) => number) => {
  const gap = pace.tokensPerSecond === undefined ? 0 : 1000 / pace.tokensPerSecond
  const jitter = pace.jitter ?? 0
  return (index) => {
    if (index < openFrames) return 0
    if (index === openFrames) return pace.ttftMs ?? 0
    if (gap === 0) return 0
    const draw = hashString(`${seed}\u0000${index}`) / 0x1_0000_0000
    return gap * (1 + jitter * (2 * draw - 1))
  }
}

/**
 * Splits a raw SSE body into its events (each with its blank-line terminator) so that it can be
 * handed over one event per read; the bytes are unchanged.
 */
export const splitEvents = (text: string): ReadonlyArray<string> => {
  const events: Array<string> = []
  let start = 0
  for (;;) {
    const at = text.indexOf("\n\n", start)
    if (at === -1) break
    events.push(text.slice(start, at + 2))
    start = at + 2
  }
  if (start < text.length) events.push(text.slice(start))
  return events
}

/**
 * The mailbox behind a driven stream: items are pushed as driver commands arrive; the body
 * renders them with the route's `StreamWriter` and hands over one frame per read.
 */
export class Mailbox {
  readonly #items: Array<StreamItem> = []
  #head = 0
  #end: { readonly error: unknown } | "closed" | undefined
  #wake: (() => void) | undefined
  #onCancel: () => void

  constructor(onCancel: () => void) {
    this.#onCancel = onCancel
  }

  /** Adds items to send. */
  push(items: ReadonlyArray<StreamItem>): void {
    for (const item of items) this.#items.push(item)
    this.#notify()
  }

  /** Ends the body after the items already pushed. */
  close(): void {
    if (this.#end === undefined) this.#end = "closed"
    this.#notify()
  }

  /** Fails the body after the items already pushed. */
  fail(error: unknown): void {
    if (this.#end === undefined) this.#end = { error }
    this.#notify()
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  /** The body that reads this mailbox, written by `writer`, each frame encoded by `encode`. */
  body(writer: StreamWriter, encode: FrameEncoder = utf8): ReadableStream<Uint8Array> {
    const frames: Array<string> = [...writer.open()]
    let at = 0
    const take = (): string | undefined => {
      while (at === frames.length) {
        if (this.#head === this.#items.length) return undefined
        const item = this.#items[this.#head]
        this.#items[this.#head++] = undefined as never
        frames.length = 0
        at = 0
        for (const f of item.kind === "finish" ? writer.finish(item.finish, item.usage) : partFrames(writer, item))
          frames.push(f)
      }
      return frames[at++]
    }
    const pull = (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | void => {
      const next = take()
      if (next !== undefined) {
        controller.enqueue(encode(next))
        return
      }
      const end = this.#end
      if (end === "closed") return controller.close()
      if (end !== undefined) return controller.error(end.error)
      return new Promise<void>((resolve) => {
        this.#wake = resolve
      }).then(() => pull(controller))
    }
    return new ReadableStream<Uint8Array>(
      {
        pull,
        cancel: () => {
          this.#end ??= "closed"
          this.#onCancel()
        }
      },
      { highWaterMark: 0 }
    )
  }
}
