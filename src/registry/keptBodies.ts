/**
 * What a network keeps of each exchange when asked to (`NetworkOptions.keepBodies`), for a HAR
 * export that imports back to the same bytes: the request's body, the answer's status, headers
 * and body, each body at most `KEPT_BODY` bytes (a longer one is cut, and the record says so).
 * What is kept counts against the log's byte bound like the rest of the record, so a long run
 * drops its oldest records rather than growing. Off by default: keeping passes every answer's
 * body through one more stream and copies its head.
 */
import { Effect } from "effect"
import type { KeptExchange, KeptResponse, PendingRecord, RequestLog } from "./requestLog.ts"
import { type Answer, type Settled, streamed, type Whole } from "./answer.ts"
import type { SimRequest } from "./route.ts"
import type { SimnetError } from "../SimnetError.ts"

const encoder = new TextEncoder()
const EMPTY = new Uint8Array(0)

/** The most bytes kept of one body. */
export const KEPT_BODY = 1024 * 1024

/** At most `KEPT_BODY` bytes of a body simnet owns and never changes (a held answer): a view, not a copy. */
const upTo = (bytes: Uint8Array) => (bytes.byteLength > KEPT_BODY ? bytes.subarray(0, KEPT_BODY) : bytes)

/** Starts keeping `record`'s exchange: its request body now (copied: the caller's bytes), its answer when one comes. */
export const keepRequest = (log: RequestLog, record: PendingRecord, request: SimRequest): void => {
  const body = request.body
  const kept: KeptExchange = { requestBody: body?.slice(0, KEPT_BODY), response: undefined }
  if (log.grow(record, kept.requestBody?.byteLength ?? 0)) record.kept = kept
}

/** Keeps what `answer` answers with: a whole body as it is, a streamed one as the caller reads it. */
export const keepAnswer = (log: RequestLog, record: PendingRecord, answer: Answer, now: () => number): Answer => {
  if (record.kept === undefined) return answer
  const keep = (settled: Settled): Settled =>
    settled._tag === "Whole"
      ? keepWhole(log, record, settled, now())
      : streamed(keepResponse(log, record, settled.response, now))
  switch (answer._tag) {
    case "Whole":
    case "Streamed":
      return keep(answer)
    case "Pending": {
      if (answer.promise === undefined) return { _tag: "Pending", effect: Effect.map(answer.effect, keep) }
      const promise = answer.promise.then(keep)
      return {
        _tag: "Pending",
        promise,
        effect: Effect.tryPromise({ try: () => promise, catch: (error) => error as SimnetError })
      }
    }
    case "Refused":
      return answer
  }
}

/** A whole answer as the log keeps one, its body whole (a view of it: simnet never changes a body it holds), no time spent. */
export const wholeResponse = (answer: Whole, at: number): KeptResponse => {
  const body =
    answer.body === undefined ? EMPTY : typeof answer.body === "string" ? encoder.encode(answer.body) : answer.body
  const headers: Array<readonly [string, string]> =
    answer.headers instanceof Headers ? [...answer.headers] : Object.entries(answer.headers)
  return { status: answer.status, headers, body, cut: false, headAt: at, doneAt: at }
}

/** Keeps a whole answer's head and body, at most `KEPT_BODY` of it. */
const keepWhole = (log: RequestLog, record: PendingRecord, answer: Whole, at: number): Whole => {
  const response = wholeResponse(answer, at)
  keepHead(log, record, { ...response, body: upTo(response.body), cut: response.body.byteLength > KEPT_BODY })
  return answer
}

const keepHead = (log: RequestLog, record: PendingRecord, response: KeptResponse): void => {
  const kept = record.kept
  if (kept === undefined) return
  let bytes = response.body.byteLength
  for (const [name, value] of response.headers) bytes += 2 * (name.length + value.length) + 32
  if (log.grow(record, bytes)) kept.response = response
  else record.kept = undefined
}

/**
 * Keeps a `Response`'s head now and its body as the caller reads it: the caller gets a new
 * `Response` (same status and headers) whose body passes the route's through, copying its first
 * `KEPT_BODY` bytes. A caller that cancels cancels the route's body, as it would without keeping
 * (a tee would hold a model stream open for its copy); what was read until then is kept.
 */
const keepResponse = (log: RequestLog, record: PendingRecord, response: Response, now: () => number): Response => {
  const headers: Array<readonly [string, string]> = []
  response.headers.forEach((value, name) => {
    headers.push([name, value])
  })
  const headAt = now()
  const head: KeptResponse = { status: response.status, headers, body: EMPTY, cut: false, headAt, doneAt: headAt }
  keepHead(log, record, head)
  if (record.kept === undefined) return response
  if (response.body === null || response.bodyUsed) return response
  const reader = response.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  let cut = false
  let ended = false
  const end = (complete: boolean) => {
    if (ended) return
    ended = true
    const kept = record.kept
    const body = join(chunks, size)
    chunks.length = 0
    if (kept?.response === undefined || !log.grow(record, body.byteLength)) return
    kept.response = { ...head, body, cut, doneAt: now(), ...(complete ? {} : { broken: true as const }) }
  }
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch (error) {
        end(false)
        controller.error(error)
        return
      }
      if (read.done) {
        end(true)
        controller.close()
        return
      }
      const chunk = read.value
      if (!cut && !ended) {
        const room = KEPT_BODY - size
        if (chunk.byteLength > room) cut = true
        const part = chunk.byteLength > room ? chunk.slice(0, room) : chunk.slice()
        chunks.push(part)
        size += part.byteLength
      }
      controller.enqueue(chunk)
    },
    cancel(reason) {
      end(false)
      return reader.cancel(reason)
    }
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** The kept chunks (already cut to `size` bytes in all) as one body. */
const join = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}
