/**
 * The inspector's request feed: the network's log as rows for a live page. While at least one
 * page listens, a tick reads the records that arrived since the last one (each record is read
 * once) and the server's middleware tells the feed what only the HTTP side knows — how long the
 * answer took, and for a refused request the error's message and nearest candidates — which is
 * joined to the record with the same method and URL. Pages receive one batch of new rows and
 * updates per tick, as a server-sent event; a page that falls behind loses batches (its queue is
 * bounded) and sees the gap in the sequence numbers.
 *
 * Gotchas: records that arrived while no page listened carry no duration or candidates (the
 * middleware is idle then, so `simnet serve` pays nothing for an inspector nobody opened). Two
 * requests with the same method and URL in flight at once may have their durations swapped.
 */
import { Effect } from "effect"
import { type RequestRecord, wasReset } from "../../registry/requestLog.ts"

/**
 * A record of the network's log, as the feed reads it.
 */
export type LogRecord = RequestRecord

/**
 * What the feed needs of a network.
 */
export interface FedNetwork {
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<LogRecord>>
}

/**
 * A refusal as the server answered it (the body of its 502).
 */
export interface Refusal {
  readonly tag: string
  readonly message: string
  readonly candidates?: ReadonlyArray<unknown> | undefined
}

/**
 * What the HTTP side learned about one request: `ttfb` when the response started, `ms` once its
 * body ended.
 */
export interface Extra {
  status?: number
  ttfb?: number
  ms?: number
  refusal?: Refusal
}

/**
 * One request as the page's list shows it.
 */
export interface Row {
  readonly seq: number
  readonly time: number
  readonly method: string
  readonly url: string
  readonly route: string | undefined
  readonly kind: string | undefined
  /** The GraphQL operation a `graphql` route answered (its name, else its type: `query`, `mutation`). */
  readonly operation?: string | undefined
  readonly status: number | undefined
  readonly denial: string | undefined
  /** What the client saw when a fault route took the request (`reset`, `timeout`, `malformed`). */
  readonly fault: string | undefined
  readonly ttfb: number | undefined
  readonly ms: number | undefined
  readonly seeded: boolean
}

interface Entry {
  record: LogRecord
  readonly extra: Extra
}

/**
 * A request the middleware is watching: the last sequence number read when it started, and once
 * joined, the record's.
 */
export interface Observation {
  readonly method: string
  readonly url: string
  readonly after: number
  seq: number | undefined
  readonly extra: Extra
}

/** How many records the feed keeps for new pages and for details. */
export const FEED_LIMIT = 5_000
/** How many rows a page that connects is sent first. */
const BACKLOG = 2_000
/** How many observations wait for their record before the oldest is dropped. */
const WAITING_LIMIT = 5_000

/**
 * What the record itself says of its answer's head and its refusal (the network keeps them with
 * every record), under what the HTTP side saw while a page listened (`extra`): so a request made
 * before the page opened is explained too. A reset request (`wasReset`) shows no status and no
 * first byte, whatever head the HTTP side wrote before the drop: it is over, not streaming.
 */
export const extraOf = (record: LogRecord, extra: Extra = {}): Extra => {
  const merged: Extra = {
    ...(record.answeredMs === undefined ? {} : { ttfb: record.answeredMs }),
    ...(record.refusal === undefined || record.denial === undefined
      ? {}
      : { refusal: { tag: record.denial, ...record.refusal } }),
    ...extra
  }
  if (!wasReset(record)) return merged
  const { status: _status, ttfb: _ttfb, ...over } = merged
  return over
}

/** The GraphQL operation a record's route wrote into its `detail`, as a row field (none for other routes). */
export const operationOf = (record: {
  readonly detail?: Readonly<Record<string, unknown>> | undefined
}): { readonly operation?: string } => {
  const graphql = record.detail?.["graphql"] as { readonly operation?: unknown; readonly type?: unknown } | undefined
  const name = graphql?.operation ?? graphql?.type
  return typeof name === "string" ? { operation: name } : {}
}

const rowOf = (entry: Entry): Row => {
  const record = entry.record
  const extra = extraOf(record, entry.extra)
  return {
    seq: record.seq,
    time: record.time,
    method: record.method,
    url: record.url,
    route: record.route?.id,
    kind: record.route?.kind,
    ...operationOf(record),
    status: record.status ?? extra.status,
    denial: record.denial ?? extra.refusal?.tag,
    fault: record.fault,
    ttfb: extra.ttfb,
    ms: extra.ms,
    seeded: record.seed !== undefined
  }
}

const keyOf = (method: string, url: string) => `${method} ${url}`

/**
 * The feed of one network. `listen` adds a page; `tick` reads new records and sends each page
 * the batch; `observe` and `ended` are called by the server's middleware.
 */
export class Feed {
  readonly #network: FedNetwork
  readonly #entries = new Map<number, Entry>()
  /** Records not yet joined to an observation, by method and URL, oldest first. */
  readonly #unjoined = new Map<string, Array<number>>()
  /** Observations whose record has not been read yet. */
  readonly #waiting: Array<Observation> = []
  readonly #listeners = new Set<(event: string, data: string) => void>()
  readonly #fresh: Array<number> = []
  readonly #dirty = new Set<number>()
  #last: LogRecord | undefined

  constructor(network: FedNetwork) {
    this.#network = network
  }

  /** Whether a page listens (the middleware does nothing otherwise). */
  get active(): boolean {
    return this.#listeners.size > 0
  }

  /** The highest sequence number read. */
  get latest(): number {
    return this.#last?.seq ?? 0
  }

  /**
   * Adds a page: `send` receives the `hello` (the latest rows) at once, then every batch;
   * returns the function that removes it.
   */
  listen(send: (event: string, data: string) => void): Effect.Effect<() => void> {
    // The pages already listening get what arrived so far first, so the new page's `hello`
    // holds every row and its first batch only later ones.
    return Effect.map(this.tick, () => {
      const rows = Array.from(this.#entries.values()).slice(-BACKLOG).map(rowOf)
      send("hello", JSON.stringify({ latest: this.latest, rows }))
      this.#listeners.add(send)
      return () => {
        this.#listeners.delete(send)
      }
    })
  }

  /** Sends a named event to every page. */
  broadcast(event: string, data: string): void {
    for (const send of this.#listeners) send(event, data)
  }

  /** The record with that sequence number and what the HTTP side learned of it, if kept. */
  entry(seq: number): { readonly record: LogRecord; readonly extra: Extra } | undefined {
    return this.#entries.get(seq)
  }

  /**
   * Reads the records that arrived since the last read, then sends every page the new rows and
   * the rows whose status or duration changed.
   */
  get tick(): Effect.Effect<void> {
    return Effect.map(this.#read, () => {
      if (this.#fresh.length === 0 && this.#dirty.size === 0) return
      if (this.#listeners.size === 0) {
        this.#fresh.length = 0
        this.#dirty.clear()
        return
      }
      const rows = this.#fresh.splice(0).flatMap((seq) => {
        this.#dirty.delete(seq)
        const entry = this.#entries.get(seq)
        return entry === undefined ? [] : [rowOf(entry)]
      })
      const updates = Array.from(this.#dirty).flatMap((seq) => {
        const entry = this.#entries.get(seq)
        return entry === undefined ? [] : [rowOf(entry)]
      })
      this.#dirty.clear()
      this.broadcast("batch", JSON.stringify({ rows, updates }))
    })
  }

  /** Starts watching a request, before the network sees it. */
  observe(method: string, url: string): Observation {
    return { method, url, after: this.latest, seq: undefined, extra: {} }
  }

  /** The response started: joins the observation to its record (reading the log first). */
  started(observation: Observation, status: number, ttfb: number, refusal: Refusal | undefined): Effect.Effect<void> {
    observation.extra.status = status
    observation.extra.ttfb = ttfb
    if (refusal !== undefined) observation.extra.refusal = refusal
    return Effect.map(this.#read, () => {
      if (!this.#join(observation)) {
        this.#waiting.push(observation)
        if (this.#waiting.length > WAITING_LIMIT) this.#waiting.shift()
      }
    })
  }

  /** The response's body ended. */
  ended(observation: Observation, ms: number): void {
    observation.extra.ms = ms
    if (observation.seq !== undefined) this.#dirty.add(observation.seq)
  }

  #join(observation: Observation): boolean {
    const seqs = this.#unjoined.get(keyOf(observation.method, observation.url))
    if (seqs === undefined) return false
    const i = seqs.findIndex((seq) => seq > observation.after)
    if (i === -1) return false
    const seq = seqs[i]
    seqs.splice(i, 1)
    if (seqs.length === 0) this.#unjoined.delete(keyOf(observation.method, observation.url))
    const entry = this.#entries.get(seq)
    if (entry === undefined) return false
    Object.assign(entry.extra, observation.extra)
    // Later changes (the body's end) land on the entry itself.
    ;(observation as { extra: Extra }).extra = entry.extra
    observation.seq = seq
    this.#dirty.add(seq)
    return true
  }

  /**
   * Reads new records. A log that was reset (or restored) since the last read starts over: the
   * pages are told (`reset`) and the feed forgets what it kept.
   */
  get #read(): Effect.Effect<void> {
    return Effect.suspend(() => {
      const last = this.#last
      return Effect.flatMap(this.#network.logSince(last === undefined ? 0 : last.seq - 1), (records) => {
        if (last !== undefined) {
          const first = records[0]
          const same =
            first !== undefined &&
            first.seq === last.seq &&
            first.time === last.time &&
            first.url === last.url &&
            first.method === last.method
          if (first !== undefined && first.seq > last.seq) {
            this.#take(records)
            return Effect.void
          }
          if (!same) {
            this.#forget()
            this.broadcast("reset", "{}")
            return Effect.map(this.#network.logSince(0), (all) => this.#take(all))
          }
          this.#take(records.slice(1))
          return Effect.void
        }
        this.#take(records)
        return Effect.void
      })
    })
  }

  #take(records: ReadonlyArray<LogRecord>): void {
    if (records.length === 0) return
    for (const record of records) {
      const entry: Entry = { record, extra: {} }
      this.#entries.set(record.seq, entry)
      this.#fresh.push(record.seq)
      const key = keyOf(record.method, record.url)
      const seqs = this.#unjoined.get(key)
      if (seqs === undefined) this.#unjoined.set(key, [record.seq])
      else seqs.push(record.seq)
    }
    this.#last = records[records.length - 1]
    if (this.#waiting.length > 0) {
      const still = this.#waiting.filter((observation) => !this.#join(observation))
      this.#waiting.splice(0, this.#waiting.length, ...still)
    }
    this.#evict()
  }

  #evict(): void {
    if (this.#entries.size <= FEED_LIMIT) return
    const floor = this.latest - FEED_LIMIT
    for (const seq of this.#entries.keys()) {
      if (seq > floor) break
      this.#entries.delete(seq)
    }
    for (const [key, seqs] of this.#unjoined) {
      const kept = seqs.filter((seq) => seq > floor)
      if (kept.length === 0) this.#unjoined.delete(key)
      else if (kept.length !== seqs.length) this.#unjoined.set(key, kept)
    }
    if (this.#fresh.length > FEED_LIMIT) this.#fresh.splice(0, this.#fresh.length - FEED_LIMIT)
  }

  #forget(): void {
    this.#entries.clear()
    this.#unjoined.clear()
    this.#waiting.length = 0
    this.#fresh.length = 0
    this.#dirty.clear()
    this.#last = undefined
  }
}
