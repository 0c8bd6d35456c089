/**
 * The provider's request log and counts: a bounded ring of entries, recorded as requests arrive,
 * and exact counts per canonical request key.
 */
import { Ring } from "../registry/ring.ts"
import type { Outcome } from "./plan.ts"

/**
 * One logged model request. `at` is the `Clock` time of arrival in milliseconds; `source` says
 * what served it and `outcome` how (`answer`, `http_error`, `fault`, `timeout`, `raw`, `driven`,
 * `refused`, or `invalid-request` for a body that is not a chat request, answered with a 400).
 */
export interface LlmLogEntry {
  readonly seq: number
  readonly id: string
  readonly at: number
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
  #counts = new Map<string, number>()

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
    this.#counts.set(entry.key, (this.#counts.get(entry.key) ?? 0) + 1)
  }

  /** The entries held, oldest first; a snapshot later requests do not change. */
  get entries(): ReadonlyArray<LlmLogEntry> {
    return (this.#view ??= Object.freeze(this.#ring.since(0)))
  }

  /** How many requests had `key`. */
  countFor(key: string): number {
    return this.#counts.get(key) ?? 0
  }

  /** Every key seen, with its count. */
  counts(): ReadonlyMap<string, number> {
    return new Map(this.#counts)
  }

  /**
   * Replaces the entries and counts with a snapshot's; later entries are numbered after
   * `latest`.
   */
  restore(entries: ReadonlyArray<LlmLogEntry>, counts: ReadonlyMap<string, number>, latest: number): void {
    this.#ring.restore(entries.map((entry) => Object.freeze({ ...entry })), latest)
    this.#view = undefined
    this.#counts = new Map(counts)
  }

  /** Forgets every entry, count and the numbering. */
  clear(): void {
    this.#ring.clear()
    this.#view = undefined
    this.#counts = new Map()
  }
}
