/**
 * What the model APIs spoken over a WebSocket share (the Responses WebSocket, OpenAI Realtime,
 * Gemini Live): each turn is answered as the API's streamed HTTP call would be — a request made
 * from the upgrade's headers and the turn's body, answered by the same wire, script, rules or
 * driver — and the events of that stream are read back one `data:` payload at a time, to be sent
 * on (or translated into the socket API's own events) frame by frame.
 */
import { createHash } from "../../registry/util.ts"
import { settle, toResponse } from "../../registry/answer.ts"
import { makeSimRequest } from "../../registry/request.ts"
import type { RespondContext, Responder, SimRequest } from "../../registry/route.ts"
import { type Frame, HANDSHAKE_HEADERS, type SocketPeer } from "../../registry/socket.ts"

/** The headers of the upgrade that a turn's HTTP request keeps (its credentials, its betas), without the handshake's. */
export const turnHeaders = (upgrade: SimRequest): Headers => {
  const headers = new Headers(upgrade.headers)
  for (const name of HANDSHAKE_HEADERS) headers.delete(name)
  headers.set("content-type", "application/json")
  return headers
}

/** Answers one turn: `body` posted to `url` with `headers`, through `answer`, as a `Response`. */
export const answerTurn = async (
  answer: Responder,
  context: RespondContext,
  turn: { readonly url: URL | string; readonly headers: Headers; readonly body: unknown; readonly signal: AbortSignal }
): Promise<Response> => {
  const request = makeSimRequest({
    method: "POST",
    url: turn.url,
    headers: turn.headers,
    body: JSON.stringify(turn.body),
    signal: turn.signal
  })
  return toResponse(settle(await context.run(answer(request, context), turn.signal)))
}

/**
 * Calls `each` with every `data:` payload of an SSE body, in order, as it arrives (`[DONE]` left
 * out); `signal` stops the reading (the body is cancelled). `socket`, the WebSocket the payloads
 * go out on: the body is not read on while its client has more than the high-water mark waiting.
 */
export const eachSseData = async (
  body: ReadableStream<Uint8Array>,
  each: (data: string) => void,
  signal?: AbortSignal,
  socket?: SocketPeer
): Promise<void> => {
  const decoder = new TextDecoder()
  let buffered = ""
  const flush = (block: string) => {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n")
    if (data !== "" && data !== "[DONE]") each(data)
  }
  const reader = body.getReader()
  const stop = () => void reader.cancel().catch(() => undefined)
  signal?.addEventListener("abort", stop, { once: true })
  for (;;) {
    const drained = socket?.writable()
    if (drained !== undefined) await drained
    const read = await reader.read()
    if (read.done) break
    buffered += decoder.decode(read.value, { stream: true })
    let end = buffered.search(/\r?\n\r?\n/)
    while (end >= 0) {
      flush(buffered.slice(0, end))
      buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, "")
      end = buffered.search(/\r?\n\r?\n/)
    }
  }
  signal?.removeEventListener("abort", stop)
  if (buffered.trim() !== "" && signal?.aborted !== true) flush(buffered)
}

/** A frame as a JSON object, or undefined when it is not one. */
export const jsonFrame = (frame: Frame): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(typeof frame === "string" ? frame : Buffer.from(frame).toString("utf8"))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The error body's `error` (or the whole text) of a turn answered with an error status. */
export const turnError = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  try {
    const parsed = JSON.parse(text) as { readonly error?: unknown }
    return parsed.error ?? parsed
  } catch {
    return { message: text }
  }
}

/**
 * Seeded PCM16 audio (24 kHz) for a piece of transcript: 20 ms (960 bytes) a word, quiet samples
 * (within 1/16 of full scale), the same bytes for the same `seed` — what a spoken answer's audio
 * deltas carry.
 */
export const seededAudio = (seed: string, text: string): string => {
  const words = Math.max(1, text.trim().split(/\s+/).length)
  const bytes = Buffer.alloc(960 * words)
  let block = createHash("sha256").update(seed).digest()
  for (let at = 0; at < bytes.length; at += block.length) {
    block.copy(bytes, at)
    block = createHash("sha256").update(block).digest()
  }
  for (let at = 1; at < bytes.length; at += 2) bytes[at] = (bytes[at]! & 0x07) | (bytes[at]! & 0x80 ? 0xf8 : 0)
  return bytes.toString("base64")
}
