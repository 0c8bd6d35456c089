/**
 * What a client sees of a network that breaks: the answers of the `fault` route kind and of
 * seeded chaos. `reset`: headers, part of a body, then the connection drops; `malformed`: status
 * 200 and a JSON document cut short; `timeout` has no answer (the caller waits forever). And a
 * route's own answer cut mid-way (`cut`): its first bytes arrive, then the connection drops.
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
