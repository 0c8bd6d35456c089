/**
 * The provider's request log and counts: a bounded ring of entries, recorded as requests arrive,
 * and exact counts per canonical request key, kept compactly (the key's 64 bits and a count, a
 * few dozen bytes per distinct key).
 */
import { KeyCounts } from "../registry/keyCounts.ts"
import { Ring } from "../registry/ring.ts"
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
}

/**
 * The log and the counts.
 */
export class ModelLog {
  readonly #ring: Ring<LlmLogEntry>
  /** The ring's entries in call order, built on first read after a change. */
  #view: ReadonlyArray<LlmLogEntry> | undefined
  #counts = new KeyCounts()

  /** `limit`: how many entries the ring keeps (at least 1). */
  constructor(limit: number) {
    this.#ring = new Ring(Math.max(1, limit))
  }

  /** How many requests were recorded, whatever became of them. */
  get count(): number {
    return this.#ring.latest
  }

  /** Records the entry of the latest request and counts its key. */
  record(entry: LlmLogEntry): void {
    this.#ring.push(Object.freeze(entry))
    this.#view = undefined
    const bits = keyBits(entry.key)
    if (bits !== undefined) this.#counts.incrementHash(bits[0], bits[1])
    else this.#counts.increment(entry.key)
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
    this.#ring.restore(entries.map((entry) => Object.freeze({ ...entry })), latest)
    this.#view = undefined
    const record: Record<string, number> = {}
    for (const [key, count] of counts) if (KEY.test(key)) record[key.slice(4)] = count
    this.#counts = KeyCounts.fromRecord(record)
  }

  /** Forgets every entry, count and the numbering. */
  clear(): void {
    this.#ring.clear()
    this.#view = undefined
    this.#counts = new KeyCounts()
  }
}

const KEY = /^llm_([0-9a-f]{8})([0-9a-f]{8})$/

/** The 64 bits of a model request key (`llm_` and 16 hex digits), or undefined for any other string. */
const keyBits = (key: string): readonly [number, number] | undefined => {
  const m = KEY.exec(key)
  return m === null ? undefined : [parseInt(m[1], 16), parseInt(m[2], 16)]
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0")
