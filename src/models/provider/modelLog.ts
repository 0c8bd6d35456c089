/**
 * The provider's request log and counts: a bounded ring of entries, recorded as requests arrive,
 * and exact counts per canonical request key, kept compactly (the key's 64 bits and a count, a
 * few dozen bytes per distinct key).
 */
import { KeyCounts } from "../../registry/keyCounts.ts"
import { Ring } from "../../registry/ring.ts"
import type { LlmApi } from "./conversation.ts"
import type { Outcome } from "./plan.ts"

/**
 * One logged model request. `at` is the `Clock` time of arrival in milliseconds; `source` says
 * what served it and `outcome` how (`answer`, `http_error`, `fault`, `timeout`, `raw`, `driven`,
 * `refused`, or `invalid-request` for a body that is not a request of its API, answered with a
 * 400). `body` is the request body as parsed, deeply frozen.
 */
export interface LlmLogEntry {
  readonly seq: number
  readonly id: string
  readonly at: number
  readonly api: LlmApi
  readonly url: string
  readonly model: string
  readonly stream: boolean
  readonly key: string
  readonly toolResultRounds: number
  readonly lastUserMessage: string | undefined
  readonly body: unknown
  readonly source: "script" | "rule" | "driver" | "none"
  readonly rule: string | undefined
  readonly step: number | undefined
  readonly outcome: Outcome
  readonly status: number | undefined
  readonly rawSha256: string | undefined
  /**
   * For a call that asks for structured output and got scripted text: why that text is not what
   * the call asks for (not JSON, or not valid against its schema, naming the path). The answer is
   * sent as scripted; this flags it, in the log and the inspector.
   */
  readonly structuredMismatch?: string | undefined
}

/**
 * The log and the counts.
 */
/**
 * The default bound of the model's log in bytes (16 MiB): entries are counted as their request
 * body's size plus a fixed overhead, and the oldest are dropped past the bound (the latest entry
 * is always kept; one whose body alone passes the bound is kept without it). Counts stay exact
 * whatever is dropped.
 */
export const DEFAULT_MODEL_LOG_BYTES = 16 * 1024 * 1024

/** What an entry costs besides its body (fields, strings, objects). */
const ENTRY_OVERHEAD = 512

/** How much of the last user message an entry whose body was omitted keeps. */
const OMITTED_TEXT = 4096

/**
 * What an entry shows in place of a body too large for the log's bound:
 * `{ "simnet": "body omitted", "bytes": N, "logBytes": L }`.
 */
const omittedBody = (bytes: number, logBytes: number) =>
  Object.freeze({ simnet: "body omitted: over the model log's byte bound", bytes, logBytes })

export class ModelLog {
  readonly #ring: Ring<LlmLogEntry>
  readonly #byteLimit: number
  /** The bytes each held entry is counted as, in its ring slot (`Ring.slotOf`). */
  #sizes: Array<number> = []
  #bytes = 0
  /** The ring's entries in call order, built on first read after a change. */
  #view: ReadonlyArray<LlmLogEntry> | undefined
  #counts = new KeyCounts()
  /** How many requests came for each API, exact past the ring's bound (for metrics). */
  #byApi = new Map<string, number>()

  /** `limit`: how many entries the ring keeps (at least 1); `byteLimit`: what they may hold in all. */
  constructor(limit: number, byteLimit: number = DEFAULT_MODEL_LOG_BYTES) {
    this.#ring = new Ring(Math.max(1, limit))
    this.#byteLimit = byteLimit
  }

  /** The bytes the held entries are counted as. */
  get bytes(): number {
    return this.#bytes
  }

  /** How many requests were recorded, whatever became of them. */
  get count(): number {
    return this.#ring.latest
  }

  /**
   * Records the entry of the latest request and counts its key. `bodySize` (the request body's
   * bytes) counts against the byte bound; the oldest entries are dropped past it.
   */
  record(logged: LlmLogEntry, bodySize = 0): void {
    let entry = logged
    let cost = ENTRY_OVERHEAD + 2 * bodySize
    if (cost > this.#byteLimit) {
      // An entry that alone would pass the bound keeps its place and fields, not its body: the
      // log holds no more than its bound, whatever one request brings.
      entry = {
        ...logged,
        body: omittedBody(bodySize, this.#byteLimit),
        lastUserMessage: logged.lastUserMessage?.slice(0, OMITTED_TEXT)
      }
      cost = ENTRY_OVERHEAD + 2 * OMITTED_TEXT
    }
    const evicted = this.#ring.push(Object.freeze(entry))
    if (evicted !== undefined) this.#forget(evicted.seq)
    this.#sizes[this.#ring.slotOf(entry.seq)] = cost
    this.#bytes += cost
    while (this.#bytes > this.#byteLimit && this.#ring.size > 1) {
      const dropped = this.#ring.dropOldest()
      if (dropped === undefined) break
      this.#forget(dropped.seq)
    }
    this.#view = undefined
    this.#byApi.set(entry.api, (this.#byApi.get(entry.api) ?? 0) + 1)
    const bits = keyBits(entry.key)
    if (bits !== undefined) this.#counts.incrementHash(bits[0], bits[1])
    else this.#counts.increment(entry.key)
  }

  #forget(seq: number): void {
    const slot = this.#ring.slotOf(seq)
    this.#bytes -= this.#sizes[slot] ?? 0
    this.#sizes[slot] = 0
  }

  /** The entries held, oldest first; a snapshot later requests do not change. */
  get entries(): ReadonlyArray<LlmLogEntry> {
    return (this.#view ??= Object.freeze(this.#ring.since(0)))
  }

  /** How many requests had `key`. */
  countFor(key: string): number {
    const bits = keyBits(key)
    return bits !== undefined ? this.#counts.getHash(bits[0], bits[1]) : this.#counts.get(key)
  }

  /** How many requests came for each API (a restored log counts the entries it holds). */
  get byApi(): ReadonlyMap<string, number> {
    return this.#byApi
  }

  /** Every key seen, with its count. */
  counts(): ReadonlyMap<string, number> {
    const out = new Map<string, number>()
    for (const [hi, lo, count] of this.#counts.entries()) out.set(`llm_${hex8(hi)}${hex8(lo)}`, count)
    return out
  }

  /**
   * Replaces the entries and counts with a snapshot's; later entries are numbered after
   * `latest`.
   */
  restore(entries: ReadonlyArray<LlmLogEntry>, counts: ReadonlyMap<string, number>, latest: number): void {
    this.#ring.restore(
      entries.map((entry) => Object.freeze({ ...entry })),
      latest
    )
    this.#sizes = []
    this.#bytes = 0
    for (const entry of this.#ring.since(0)) {
      this.#sizes[this.#ring.slotOf(entry.seq)] = ENTRY_OVERHEAD
      this.#bytes += ENTRY_OVERHEAD
    }
    this.#view = undefined
    const record: Record<string, number> = {}
    for (const [key, count] of counts) if (keyBits(key) !== undefined) record[key.slice(4)] = count
    this.#counts = KeyCounts.fromRecord(record)
    this.#byApi = new Map()
    for (const entry of entries) this.#byApi.set(entry.api, (this.#byApi.get(entry.api) ?? 0) + 1)
  }

  /** Forgets every entry, count and the numbering. */
  clear(): void {
    this.#ring.clear()
    this.#sizes = []
    this.#bytes = 0
    this.#view = undefined
    this.#counts = new KeyCounts()
    this.#byApi = new Map()
  }
}

/** The value of the hex digit at `i` in `key` (lower case, as keys are written), or -1. */
const hexAt = (key: string, i: number): number => {
  const c = key.charCodeAt(i)
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
}

/** The 32 bits of the 8 hex digits at `from`, or -1 when one is not a digit. */
const word = (key: string, from: number): number => {
  let n = 0
  for (let i = from; i < from + 8; i++) {
    const digit = hexAt(key, i)
    if (digit < 0) return -1
    n = n * 16 + digit
  }
  return n
}

/**
 * The 64 bits of a model request key (`llm_` and 16 hex digits), or undefined for any other
 * string. Read digit by digit: this runs on every call, where a regular expression's match and
 * its groups were strings made to be thrown away.
 */
const keyBits = (key: string): readonly [number, number] | undefined => {
  if (key.length !== 20 || !key.startsWith("llm_")) return undefined
  const hi = word(key, 4)
  const lo = word(key, 12)
  return hi < 0 || lo < 0 ? undefined : [hi, lo]
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0")
