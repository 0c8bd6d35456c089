/**
 * Response bodies of the simulated provider. A streamed body hands over exactly one SSE event per
 * read: the `openai` SDK's decoder is fast on event-sized reads and about 70 times slower when a
 * whole stream arrives in one buffer, so the shape of the reads is part of the fidelity.
 */
import { Effect } from "effect"
import type { CompletionUsage, FinishReason } from "../schemas/openai.ts"
import { connectionReset } from "../registry/transport.ts"
import { RouteFailed } from "../SimnetError.ts"
import type { ChunkWriter, Part, StreamFault } from "./wire.ts"

const encoder = new TextEncoder()

/**
 * How a scripted stream ends: with its finish, usage and `[DONE]` frames, or with a fault.
 */
export type StreamEnd =
  | {
    readonly _tag: "Finish"
    readonly finish: FinishReason | null
    readonly usage: (outputTokens: number) => CompletionUsage
  }
  | { readonly _tag: "Fault"; readonly fault: StreamFault }

/**
 * The frames of a scripted stream, produced lazily: the role chunk, each part, then the end. An
 * `error` part ends the stream right after its error event.
 */
export function* streamFrames(writer: ChunkWriter, parts: ReadonlyArray<Part>, end: StreamEnd): Generator<string> {
  yield writer.role()
  for (const part of parts) {
    yield* writer.part(part)
    if (part.kind === "error") return
  }
  if (end._tag === "Finish") {
    yield* writer.finish(end.finish, end.usage(writer.outputTokens))
  } else if (end.fault === "malformed") {
    yield writer.malformed()
  }
}

/**
 * A body that pulls one frame per read from `frames`; when `reset` is set, the last read fails
 * with a connection reset instead of ending the body. `onEnd` runs once, when the body ends,
 * fails or is cancelled.
 */
export const framesBody = (
  frames: Iterator<string>,
  options: { readonly reset?: boolean; readonly onEnd?: () => void } = {}
): ReadableStream<Uint8Array> => {
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    options.onEnd?.()
  }
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = frames.next()
        if (next.done !== true) {
          controller.enqueue(encoder.encode(next.value))
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
 * The mailbox behind a driven stream: frames are pushed as driver commands arrive and pulled by
 * the reader one per read.
 */
export class Mailbox {
  readonly #frames: Array<string> = []
  #head = 0
  #end: { readonly error: unknown } | "closed" | undefined
  #wake: (() => void) | undefined
  #onCancel: () => void

  constructor(onCancel: () => void) {
    this.#onCancel = onCancel
  }

  /** Adds frames to send. */
  push(frames: ReadonlyArray<string>): void {
    for (const f of frames) this.#frames.push(f)
    this.#notify()
  }

  /** Ends the body after the frames already pushed. */
  close(): void {
    if (this.#end === undefined) this.#end = "closed"
    this.#notify()
  }

  /** Fails the body after the frames already pushed. */
  fail(error: unknown): void {
    if (this.#end === undefined) this.#end = { error }
    this.#notify()
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  /** The body that reads this mailbox. */
  body(): ReadableStream<Uint8Array> {
    const pull = (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | void => {
      if (this.#head < this.#frames.length) {
        const next = this.#frames[this.#head]
        this.#frames[this.#head++] = ""
        controller.enqueue(encoder.encode(next))
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

/**
 * Fails with `RouteFailed` when the client aborts (`signal`); never completes otherwise. Raced
 * against latency, a timeout or a driver, it ends the wait as soon as nobody is listening.
 */
export const untilAborted = (signal: AbortSignal | undefined, id: string): Effect.Effect<never, RouteFailed> =>
  Effect.callback<never, RouteFailed>((resume) => {
    if (signal === undefined) return
    const abort = () => resume(Effect.fail(new RouteFailed({ route: "openai", message: `simnet: the client abandoned ${id}` })))
    if (signal.aborted) return abort()
    signal.addEventListener("abort", abort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", abort))
  })
