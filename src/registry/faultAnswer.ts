/**
 * What a client sees of a network that breaks: the answers of the `fault` route kind and of
 * seeded chaos. `reset`: headers, part of a body, then the connection drops; `malformed`: status
 * 200 and a JSON document cut short; `timeout` has no answer (the caller waits forever). And a
 * route's own answer cut mid-way (`cut`): its first bytes arrive, then the connection drops; or
 * broken where its client parses it (`broken`): a frame of a stream, or the document itself.
 */
import { connectionReset } from "./transport.ts"

const encoder = new TextEncoder()
export const PARTIAL_BODY = '{"id":"sim_0001","object":"partial","data":[{"index":0,"value":"trunc'
const JSON_HEADERS = { "content-type": "application/json" }

/** A body that yields part of a JSON document, then fails as a reset connection does. */
const resetBody = (): ReadableStream<Uint8Array> => {
  let sent = false
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true
        controller.enqueue(encoder.encode(PARTIAL_BODY))
      } else {
        controller.error(connectionReset())
      }
    }
  })
}

/** The answer of a reset connection: 200, JSON headers, a body that fails mid-way. */
export const resetAnswer = (): Response => new Response(resetBody(), { status: 200, headers: JSON_HEADERS })

/** The answer of a malformed body: 200, JSON headers, a document cut short. */
export const malformedAnswer = (): Response => new Response(PARTIAL_BODY, { status: 200, headers: JSON_HEADERS })

/** `response` with the same head and a body that fails after `bytes` bytes (or at its end, when shorter). */
export const cut = (response: Response, bytes: number): Response => {
  const source = response.body
  if (source === null) return response
  const reader = source.getReader()
  let left = bytes
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        await reader.cancel().catch(() => {})
        controller.error(connectionReset())
        return
      }
      const { done, value } = await reader.read()
      if (done) {
        controller.error(connectionReset())
        return
      }
      const part = value.byteLength > left ? value.subarray(0, left) : value
      left -= part.byteLength
      controller.enqueue(part)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** How a streamed body is framed, by its content type: SSE events end with a blank line, NDJSON records with a newline. */
const framingOf = (type: string): string | undefined =>
  /event-stream/i.test(type) ? "\n\n" : /ndjson|jsonl|json-seq|jsonlines/i.test(type) ? "\n" : undefined

/** The most of one frame held while waiting for its end: past it, the frame is broken where it stands. */
const MAX_FRAME = 65_536

/** Half of `text` (at least one character, and never all of it when it has two or more). */
const half = (text: string): string => text.slice(0, Math.max(1, Math.floor(text.length / 2)))

/**
 * One frame broken where its client parses it: an SSE event whose last `data:` payload is cut
 * short (a `[DONE]` or an event without data becomes a cut JSON object), or an NDJSON record cut
 * short. `frame` is the frame the stream would have sent next, undefined when it had ended.
 */
const brokenFrame = (frame: string | undefined, framing: string): string => {
  const fallback = '{"simnet":"malformed","partial":"trunc'
  if (framing === "\n") return `${frame === undefined || frame.trim() === "" ? fallback : half(frame.trimEnd())}\n`
  const lines = (frame ?? "").split(/\r?\n/).filter((line) => line !== "")
  const data = lines.findLastIndex((line) => line.startsWith("data:"))
  const payload = data === -1 ? "" : lines[data].slice(5).trim()
  const cutPayload = payload === "" || payload === "[DONE]" ? fallback : half(payload)
  const head = data === -1 ? lines.filter((line) => !line.startsWith("data:")) : lines.slice(0, data)
  return `${[...head, `data: ${cutPayload}`].join("\n")}\n\n`
}

/**
 * `response` broken where its client parses it (chaos `malformed`), after about `bytes` bytes of
 * it: a streamed body (SSE, NDJSON) sends its whole frames up to there, then one broken frame
 * (`brokenFrame`), then ends as if complete; any other body is cut at `bytes` (or at half its
 * length when shorter) and ends as if complete, so a JSON client reads a document cut short. The
 * head stays the route's own (without its `content-length`); a response without a body is the
 * cut JSON document of `malformedAnswer`.
 */
export const broken = (response: Response, bytes: number): Response => {
  const source = response.body
  if (source === null) return malformedAnswer()
  const framing = framingOf(response.headers.get("content-type") ?? "")
  const headers = new Headers(response.headers)
  headers.delete("content-length")
  const reader = source.getReader()
  const decoder = new TextDecoder()
  let held = ""
  let sent = 0
  let done = false
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (framing !== undefined) {
          const end = held.indexOf(framing)
          // A frame that never ends is broken once it runs past what a frame may be (no unbounded holding).
          if (end !== -1 || done || held.length > bytes + MAX_FRAME) {
            const frame = end === -1 ? (held === "" ? undefined : held) : held.slice(0, end + framing.length)
            const size = frame === undefined ? 0 : encoder.encode(frame).byteLength
            if (frame === undefined || end === -1 || sent + size > bytes) {
              controller.enqueue(encoder.encode(brokenFrame(frame, framing)))
              controller.close()
              await reader.cancel().catch(() => {})
              return
            }
            held = held.slice(frame.length)
            sent += size
            controller.enqueue(encoder.encode(frame))
            return
          }
        } else if (encoder.encode(held).byteLength > bytes || done) {
          const whole = encoder.encode(held)
          controller.enqueue(
            whole.byteLength > bytes
              ? whole.subarray(0, bytes)
              : encoder.encode(whole.byteLength === 0 ? PARTIAL_BODY : half(held))
          )
          controller.close()
          await reader.cancel().catch(() => {})
          return
        }
        const next = await reader.read()
        if (next.done) {
          held += decoder.decode()
          done = true
        } else {
          held += decoder.decode(next.value, { stream: true })
        }
      }
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}
