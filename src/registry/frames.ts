/**
 * What is kept for speed between a model's streamed answer and the Node door, in one labelled
 * place: a body of text frames that are all known when it is made (a scripted stream with no
 * pacing and no fault) is registered here with its frames, and the Node door, when nobody has
 * read the body yet, takes the frames and writes them straight to the socket instead of reading
 * them back through a web `ReadableStream` one event at a time. Every other door reads the body
 * as a stream, one event per read. `test/internal/frames.test.ts` checks that both ways put the
 * same status, headers and bytes on the wire.
 */

/** The frames behind a body, and what to call once they are written or given up. */
export interface FramesSource {
  readonly frames: Iterator<string>
  /** Called once: the frames were all written, or the client went away. */
  readonly end: () => void
}

const sources = new WeakMap<ReadableStream<Uint8Array>, FramesSource>()

/** Registers `body` as made of `source`'s frames. */
export const registerFrames = (body: ReadableStream<Uint8Array>, source: FramesSource): void => {
  sources.set(body, source)
}

/** The frames of `body`, taken once, when it was registered and nobody has read it yet. */
export const takeFrames = (body: ReadableStream<Uint8Array> | null): FramesSource | undefined => {
  if (body === null || body.locked) return undefined
  const source = sources.get(body)
  if (source !== undefined) sources.delete(body)
  return source
}
