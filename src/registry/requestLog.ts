/**
 * The request log: a bounded ring of request records with exact counters. Every request the
 * network sees is recorded, answered or denied. A record keeps what it will show and no more: the
 * URL, a reference to the request's headers, the body's size and a copy of its first bytes (never
 * the whole body). The ring is bounded in records (`logLimit`) and in bytes (`logBytes`): the
 * oldest records are dropped first. Credentials are redacted by the network's `Redactor` when a
 * record is read.
 */
import type { Settled, SocketLog, Whole } from "./answer.ts"
import type { ChaosHit } from "./chaos.ts"
import type { ScenarioStep } from "./scenarios.ts"
import {
  type KeptExchange,
  type KeptResponse,
  type LoggedExchange,
  type RequestCounters,
  type RequestFault,
  type RequestRecord,
  type RequestViolation,
  wasReset
} from "./requestRecord.ts"
import { bounded, MAX_SHOWN_URL, type Redactor } from "./redact.ts"
import { Ring } from "./ring.ts"
import { Tally } from "./tally.ts"
import type { SimnetError } from "../SimnetError.ts"
import { bodyForLog, headersSource, type SimRequest } from "./request.ts"

/** Characters of a refusal's message a record keeps. */
const MAX_REFUSAL_MESSAGE = 2_000
/** Characters of body shown in a record. */
const BODY_SUMMARY_LIMIT = 256
/** Bytes of body a record copies: enough for `BODY_SUMMARY_LIMIT` characters of UTF-8. */
const BODY_COPY_BYTES = BODY_SUMMARY_LIMIT * 4
/** What a record costs besides its URL, headers and body copy (fields, objects), as counted against `logBytes`. */
const RECORD_OVERHEAD = 256
const decoder = new TextDecoder()

/**
 * The default bound of the log in bytes (16 MiB): records, URLs, headers and body previews as
 * counted by the log.
 */
export const DEFAULT_LOG_BYTES = 16 * 1024 * 1024

export { REQUEST_FAULTS, wasReset } from "./requestRecord.ts"
export type {
  KeptExchange,
  KeptResponse,
  LoggedExchange,
  RequestCounters,
  RequestFault,
  RequestRecord,
  RequestViolation
} from "./requestRecord.ts"

/** What one header costs the log, as counted against `logBytes`. */
const headerCost = (name: string, value: string) => 2 * (String(name).length + String(value).length) + 32

/**
 * A request's headers as the log keeps them, and what they cost it. Pairs and records are kept
 * as given. A `Headers` is copied into a flat list of names and values while its size is counted
 * (one walk either way): the record then holds two strings a header rather than the caller's
 * `Headers` and its internals, which matters to the collector when thousands of records are kept.
 */
const headersForLog = (
  headers: Headers | HeadersInit | undefined
): { readonly kept: KeptHeaders; readonly bytes: number } => {
  if (headers === undefined) return { kept: undefined, bytes: 0 }
  let bytes = 0
  if (headers instanceof Headers) {
    const flat: Array<string> = []
    headers.forEach((value, name) => {
      flat.push(name, value)
      bytes += headerCost(name, value)
    })
    return { kept: new FlatHeaders(flat), bytes }
  }
  if (Array.isArray(headers)) for (const pair of headers) bytes += headerCost(pair[0], pair[1])
  else for (const name in headers) bytes += headerCost(name, (headers as Record<string, string>)[name])
  return { kept: headers, bytes }
}

/** Names and values in turn, as a `Headers` walks them. */
class FlatHeaders {
  readonly list: ReadonlyArray<string>
  constructor(list: ReadonlyArray<string>) {
    this.list = list
  }
}

type KeptHeaders = HeadersInit | FlatHeaders | undefined

/** The headers a record kept, as a `Headers` again. */
const headersOf = (kept: KeptHeaders): Headers => {
  if (!(kept instanceof FlatHeaders)) return new Headers(kept)
  const headers = new Headers()
  for (let i = 0; i < kept.list.length; i += 2) headers.append(kept.list[i], kept.list[i + 1])
  return headers
}

/**
 * A record being filled in while the request is answered. Internal to the network.
 */
export class PendingRecord {
  readonly seq: number
  readonly time: number
  readonly method: string
  /**
   * The URL as sent (its `href`: a string costs the log less than the parsed `URL`), or for a
   * very long one its redacted, bounded form; `shown` says which.
   */
  readonly url: string
  readonly shown: boolean
  /** The request's headers (see `headersForLog`); a `Headers` is built from them when the record is read. */
  readonly headers: KeptHeaders
  readonly bodySize: number | undefined
  /** The body's first bytes, copied (a short string body is kept as it is). */
  readonly bodyHead: Uint8Array | string | undefined
  /** What the record costs, as counted against the log's byte bound (grows as bodies are kept). */
  bytes: number
  route: RequestRecord["route"] = undefined
  denial: string | undefined = undefined
  fault: RequestFault | undefined = undefined
  chaos: ChaosHit | undefined = undefined
  scenario: ScenarioStep | undefined = undefined
  /** The exchange's bodies and the answer's headers, when the network keeps them (`keptBodies.ts`). */
  kept: KeptExchange | undefined = undefined
  /** Whether the request has been answered or refused (it no longer counts as in flight). */
  settled = false
  status: number | undefined = undefined
  seed: number | undefined = undefined
  occurrence: number | undefined = undefined
  detail: Readonly<Record<string, unknown>> | undefined = undefined
  violations: ReadonlyArray<RequestViolation> | undefined = undefined
  refusal: RequestRecord["refusal"] = undefined
  answeredAt: number | undefined = undefined

  /** `kept`: whether the log holds records; a log that holds none keeps no headers or body of one. */
  constructor(seq: number, time: number, request: SimRequest, redactor: Redactor, kept = true) {
    this.seq = seq
    this.time = time
    this.method = request.method.length > 64 ? bounded(request.method, 64) : request.method
    const href = request.url.href
    this.shown = href.length > MAX_SHOWN_URL
    this.url = this.shown ? redactor.url(request.url) : href
    if (!kept) {
      this.headers = undefined
      this.bytes = RECORD_OVERHEAD
      return
    }
    const headers = headersForLog(headersSource(request))
    this.headers = headers.kept
    let bytes = RECORD_OVERHEAD + 2 * Math.min(href.length, MAX_SHOWN_URL + 64) + headers.bytes
    const body = bodyForLog(request, BODY_COPY_BYTES)
    if (body !== undefined) {
      this.bodySize = body.size
      this.bodyHead = body.head
      bytes += typeof body.head === "string" ? 2 * body.head.length : body.head.length
    }
    this.bytes = bytes
  }

  /** The record as users see it, with credentials redacted. */
  toRecord(redactor: Redactor): RequestRecord {
    const head = this.bodyHead
    return {
      seq: this.seq,
      time: this.time,
      method: this.method,
      url: this.shown ? this.url : redactor.url(this.url),
      headers: redactor.headers(headersOf(this.headers)),
      body:
        head === undefined
          ? undefined
          : {
              size: this.bodySize!,
              preview: redactor
                .bodyText(typeof head === "string" ? head : decoder.decode(head))
                .slice(0, BODY_SUMMARY_LIMIT)
            },
      route: this.route,
      denial: this.denial,
      ...(this.fault === undefined ? {} : { fault: this.fault }),
      ...(this.chaos === undefined ? {} : { chaos: this.chaos }),
      ...(this.scenario === undefined ? {} : { scenario: this.scenario }),
      status: this.status,
      seed: this.seed,
      occurrence: this.occurrence,
      detail: this.detail,
      ...(this.violations === undefined ? {} : { violations: this.violations }),
      ...(this.refusal === undefined ? {} : { refusal: this.refusal }),
      ...(this.answeredAt === undefined ? {} : { answeredMs: Math.max(0, this.answeredAt - this.time) })
    }
  }
}

/**
 * A record brought back from a snapshot: already redacted, shown as it was.
 */
class RestoredRecord {
  readonly seq: number
  readonly record: RequestRecord
  readonly bytes: number

  constructor(record: RequestRecord) {
    this.seq = record.seq
    this.record = record
    this.bytes = RECORD_OVERHEAD + 2 * JSON.stringify(record).length
  }

  toRecord(_redactor: Redactor): RequestRecord {
    return this.record
  }
}

/**
 * The ring itself: the last `limit` records within `byteLimit` bytes, and counters over every
 * request ever seen.
 */
export class RequestLog {
  private ring: Ring<PendingRecord | RestoredRecord>
  private answered = 0
  private denied = 0
  private faulted = 0
  private bytes = 0
  /** The counters by label (`tally.ts`), counted where the counters are. */
  tally = new Tally()
  readonly byteLimit: number
  readonly redactor: Redactor

  constructor(limit: number, byteLimit: number, redactor: Redactor) {
    this.ring = new Ring(limit)
    this.byteLimit = byteLimit
    this.redactor = redactor
  }

  /** How many records the ring keeps. */
  get limit(): number {
    return this.ring.limit
  }

  /** The bytes the records held are counted as (at most `byteLimit`, past one oversized record). */
  get size(): { readonly records: number; readonly bytes: number } {
    return { records: this.ring.size, bytes: this.bytes }
  }

  /** Starts a record for a new request. */
  open(time: number, request: SimRequest): PendingRecord {
    const record = new PendingRecord(this.ring.latest + 1, time, request, this.redactor, this.ring.limit > 0)
    this.inFlight++
    if (this.ring.limit === 0) {
      this.ring.push(record)
      return record
    }
    const evicted = this.ring.push(record)
    this.bytes += record.bytes - (evicted?.bytes ?? 0)
    this.dropPastBound()
    return record
  }

  /** Drops the oldest records while the log is over its byte bound (the newest always stays). */
  private dropPastBound(): void {
    while (this.bytes > this.byteLimit && this.ring.size > 1) {
      const dropped = this.ring.dropOldest()
      if (dropped !== undefined) this.bytes -= dropped.bytes
    }
  }

  /**
   * Counts `bytes` more against `record` (kept bodies), dropping the oldest records past the byte
   * bound. False when the record has already left the ring: nothing is then to be kept.
   */
  grow(record: PendingRecord, bytes: number): boolean {
    if (!this.ring.holds(record)) return false
    record.bytes += bytes
    this.bytes += bytes
    this.dropPastBound()
    return this.ring.holds(record)
  }

  /** Names the route a request matched. */
  match(record: PendingRecord, route: NonNullable<RequestRecord["route"]>): void {
    record.route = route
  }

  /**
   * Records the status a request was answered with, and when (`now`), and counts it as answered
   * (unless a fault took it). A reset request keeps neither (`wasReset`): it is only settled.
   */
  answer(record: PendingRecord, status: number): void {
    if (!wasReset(record)) {
      record.status = status
      record.answeredAt = this.now?.()
      if (record.answeredAt !== undefined) this.tally.answered(record.answeredAt - record.time)
    }
    if (record.fault === undefined) {
      this.answered++
      this.tally.count(record.route?.id, 0)
    }
    this.settle(record)
  }

  /**
   * Counts a record as denied with the given error tag (unless a fault took it), keeping why
   * (`error`'s message and candidates, counted against the byte bound).
   */
  deny(record: PendingRecord, tag: string, error?: SimnetError): void {
    record.denial = tag
    if (error !== undefined) {
      const message =
        error.message.length > MAX_REFUSAL_MESSAGE ? `${error.message.slice(0, MAX_REFUSAL_MESSAGE)}…` : error.message
      const candidates =
        error._tag === "UnregisteredRequest" && error.candidates.length > 0 ? error.candidates : undefined
      record.refusal = candidates === undefined ? { message } : { message, candidates }
      // Counted against the byte bound; past it, the oldest records go (this one is kept).
      this.grow(record, 2 * message.length + (candidates === undefined ? 0 : 2 * JSON.stringify(candidates).length))
    }
    if (record.fault === undefined) {
      this.denied++
      this.tally.count(record.route?.id, 1)
      this.tally.refused(tag)
    }
    this.settle(record)
  }

  /** The `Clock`'s milliseconds, when the network gives it: when each answer's head came. */
  now: (() => number) | undefined = undefined

  /** Requests opened whose answer (or refusal) has not come yet: a route still working, a delay armed, a model call waiting. */
  inFlight = 0
  /** Told each time the last request in flight settles. */
  onIdle: (() => void) | undefined = undefined

  private settle(record: PendingRecord): void {
    if (record.settled) return
    record.settled = true
    if (record.chaos !== undefined) this.tally.hit(record.chaos.effect)
    if (--this.inFlight === 0) this.onIdle?.()
  }

  /** Records what the client of a fault route sees, and counts the request as faulted. */
  fault(record: PendingRecord, fault: RequestFault): void {
    record.fault = fault
    this.faulted++
    this.tally.count(record.route?.id, 2)
  }

  /**
   * The records still in the ring with `seq > since`, oldest first, at most `limit` of them: only
   * those are redacted into records.
   */
  records(since = 0, limit = Infinity): ReadonlyArray<RequestRecord> {
    return this.held(since, limit).map((record) => record.toRecord(this.redactor))
  }

  /** The records still in the ring with `seq > since`, oldest first, at most `limit` of them, as held. */
  private held(since: number, limit: number): ReadonlyArray<PendingRecord | RestoredRecord> {
    const held = this.ring.since(since)
    return held.length > limit ? held.slice(0, limit) : held
  }

  /** `records`, each with what was kept of its exchange (redacted as records are). */
  exchanges(since = 0, limit = Infinity): ReadonlyArray<LoggedExchange> {
    return this.held(since, limit).map((entry) => {
      const record = entry.toRecord(this.redactor)
      const kept = entry instanceof PendingRecord ? entry.kept : undefined
      if (kept === undefined)
        return {
          record,
          requestBody: undefined,
          response: undefined,
          kept: false,
          restored: !(entry instanceof PendingRecord)
        }
      const response = kept.response === undefined ? undefined : this.shown(kept.response)
      return {
        record,
        requestBody: kept.requestBody === undefined ? undefined : this.redactor.bodyBytes(kept.requestBody),
        response,
        kept: true,
        restored: false
      }
    })
  }

  /** An answer as the log shows it: its headers redacted, no `set-cookie`. */
  shown(response: KeptResponse): KeptResponse {
    return {
      ...response,
      headers: Object.entries(
        this.redactor.headers(
          new Headers(response.headers.filter(([name]) => name !== "set-cookie") as Array<[string, string]>)
        )
      )
    }
  }

  /** Exact counters since the network was made or last reset. */
  counters(): Omit<RequestCounters, "byRoute"> {
    return {
      requests: this.ring.latest,
      answered: this.answered,
      denied: this.denied,
      faulted: this.faulted
    }
  }

  /**
   * Replaces the records and counters with a snapshot's (records oldest first); later requests
   * are numbered after `counters.requests`.
   */
  restore(records: ReadonlyArray<RequestRecord>, counters: Omit<RequestCounters, "byRoute">): void {
    this.ring.restore(
      records.map((record) => new RestoredRecord(record)),
      counters.requests
    )
    this.bytes = this.ring.since(0).reduce((sum, record) => sum + record.bytes, 0)
    this.dropPastBound()
    this.answered = counters.answered
    this.denied = counters.denied
    this.faulted = counters.faulted ?? 0
    this.tally = Tally.restored(counters)
  }

  /** Forgets every record and counter. */
  clear(): void {
    this.setAside()
  }

  /**
   * Empties the log (records, numbering, counters), keeping what it held aside: the function
   * returned puts it all back, for a change that fails half way (a restore whose routes are
   * refused).
   */
  setAside(): () => void {
    const { ring, answered, denied, faulted, bytes, tally } = this
    this.ring = new Ring(ring.limit)
    this.tally = new Tally()
    this.answered = 0
    this.denied = 0
    this.faulted = 0
    this.bytes = 0
    return () => {
      this.ring = ring
      this.answered = answered
      this.denied = denied
      this.faulted = faulted
      this.bytes = bytes
      this.tally = tally
    }
  }
}

/**
 * A WebSocket answer whose door writes what became of the socket (`SocketLog`) into the
 * request's record, as `detail.webSocket`; any other answer as it is.
 */
export const withSocketLog = <A extends Settled>(answer: A, record: PendingRecord): A | Whole => {
  if (answer._tag !== "Whole" || answer.upgrade === undefined) return answer
  const log = (event: SocketLog) => {
    const before = record.detail?.["webSocket"] as SocketLog | undefined
    record.detail = { ...record.detail, webSocket: { ...before, ...event } }
  }
  return { ...answer, upgrade: { ...answer.upgrade, log } }
}
