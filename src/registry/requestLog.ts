/**
 * The request log: a bounded ring of request records with exact counters. Every request the
 * network sees is recorded, answered or denied. Credentials are redacted when a record is read;
 * records keep references to the request's own headers and body so that logging costs nothing
 * on the hot path.
 */

/**
 * Header names whose values never appear in the log.
 */
export const REDACTED_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
  "set-cookie"
])

import { Ring } from "./ring.ts"
import type { SimRequest } from "./request.ts"

const BODY_SUMMARY_LIMIT = 256
const decoder = new TextDecoder()

/**
 * One request as the log shows it.
 */
export interface RequestRecord {
  readonly seq: number
  /** Milliseconds from Effect's `Clock` when the request arrived. */
  readonly time: number
  readonly method: string
  readonly url: string
  /** Request headers, credentials replaced by `"<redacted>"`. */
  readonly headers: Readonly<Record<string, string>>
  /** The first 256 characters of the body, and its size in bytes. */
  readonly body: { readonly size: number; readonly preview: string } | undefined
  /** The route that answered, when one did. */
  readonly route: { readonly id: string; readonly kind: string; readonly source: string } | undefined
  /** The `_tag` of the error that denied the request (e.g. `UnregisteredRequest`), if any. */
  readonly denial: string | undefined
  /** The response status, once the route produced one. */
  readonly status: number | undefined
  /** The seed the route answered with (seeded routes only), to regenerate the response. */
  readonly seed: number | undefined
  /** How many earlier requests with the same canonical key the route had answered. */
  readonly occurrence: number | undefined
}

/**
 * Exact counters that survive the ring's bound. Every request ends answered (a route produced a
 * response) or denied (an error), so `requests` is `answered + denied` plus those still in flight;
 * `byRoute` counts the requests each route matched, whatever became of them.
 */
export interface RequestCounters {
  readonly requests: number
  readonly answered: number
  readonly denied: number
  readonly byRoute: Readonly<Record<string, number>>
}

/**
 * A record being filled in while the request is answered. Internal to the network.
 */
export class PendingRecord {
  readonly seq: number
  readonly time: number
  readonly request: SimRequest
  route: RequestRecord["route"] = undefined
  denial: string | undefined = undefined
  status: number | undefined = undefined
  seed: number | undefined = undefined
  occurrence: number | undefined = undefined

  constructor(seq: number, time: number, request: SimRequest) {
    this.seq = seq
    this.time = time
    this.request = request
  }

  /** The record as users see it, with credentials redacted. */
  toRecord(): RequestRecord {
    const headers: Record<string, string> = {}
    const request = this.request
    request.headers.forEach((value, name) => {
      headers[name] = REDACTED_HEADERS.has(name) ? "<redacted>" : value
    })
    const bytes = request.body
    return {
      seq: this.seq,
      time: this.time,
      method: request.method,
      url: request.url.href,
      headers,
      body: bytes === undefined
        ? undefined
        : { size: bytes.length, preview: decoder.decode(bytes.subarray(0, BODY_SUMMARY_LIMIT * 4)).slice(0, BODY_SUMMARY_LIMIT) },
      route: this.route,
      denial: this.denial,
      status: this.status,
      seed: this.seed,
      occurrence: this.occurrence
    }
  }
}

/**
 * A record brought back from a snapshot: already redacted, shown as it was.
 */
class RestoredRecord {
  readonly seq: number
  readonly record: RequestRecord

  constructor(record: RequestRecord) {
    this.seq = record.seq
    this.record = record
  }

  toRecord(): RequestRecord {
    return this.record
  }
}

/**
 * The ring itself: the last `limit` records, and counters over every request ever seen.
 */
export class RequestLog {
  private ring: Ring<PendingRecord | RestoredRecord>
  private answered = 0
  private denied = 0

  constructor(limit: number) {
    this.ring = new Ring(limit)
  }

  /** How many records the ring keeps. */
  get limit(): number {
    return this.ring.limit
  }

  /** Starts a record for a new request. */
  open(time: number, request: SimRequest): PendingRecord {
    const record = new PendingRecord(this.ring.latest + 1, time, request)
    this.ring.push(record)
    return record
  }

  /** Names the route a request matched. */
  match(record: PendingRecord, route: NonNullable<RequestRecord["route"]>): void {
    record.route = route
  }

  /** Records the status a request was answered with, and counts it as answered. */
  answer(record: PendingRecord, status: number): void {
    record.status = status
    this.answered++
  }

  /** Counts a record as denied with the given error tag. */
  deny(record: PendingRecord, tag: string): void {
    record.denial = tag
    this.denied++
  }

  /** The records still in the ring with `seq > since`, oldest first. */
  records(since = 0): ReadonlyArray<RequestRecord> {
    return this.ring.since(since).map((record) => record.toRecord())
  }

  /** Exact counters since the network was made or last reset. */
  counters(): Omit<RequestCounters, "byRoute"> {
    return {
      requests: this.ring.latest,
      answered: this.answered,
      denied: this.denied
    }
  }

  /**
   * Replaces the records and counters with a snapshot's (records oldest first); later requests
   * are numbered after `counters.requests`.
   */
  restore(records: ReadonlyArray<RequestRecord>, counters: Omit<RequestCounters, "byRoute">): void {
    this.ring.restore(records.map((record) => new RestoredRecord(record)), counters.requests)
    this.answered = counters.answered
    this.denied = counters.denied
  }

  /** Forgets every record and counter. */
  clear(): void {
    this.ring.clear()
    this.answered = 0
    this.denied = 0
  }
}
