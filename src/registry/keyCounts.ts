/**
 * Compact occurrence counts per distinct key. Determinism needs to know how many earlier
 * requests had the same canonical key, for every key ever seen; keeping the key strings (a URL,
 * a canonical JSON body) would grow without bound. A `KeyCounts` keeps a 64-bit hash of each key
 * and its count in typed arrays (open addressing, load at most 1/2): 12 bytes a slot, 24 bytes a
 * key at most, whatever the keys' length. Two keys collide with probability about n²/2⁶⁵ (one in
 * ten million for a million keys).
 */

import { avalanche } from "./seed.ts"

const FNV_PRIME = 0x01000193

/**
 * A 64-bit hash of a string as two unsigned 32-bit halves: FNV-1a over its UTF-16 code units from
 * two offset bases, each finished with the murmur3 avalanche step.
 */
export const hash64 = (input: string): readonly [number, number] => {
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i)
    a = Math.imul(a ^ c, FNV_PRIME)
    b = Math.imul(b ^ c, 0x01000193 + 0x2e) // a second odd multiplier keeps the halves independent
  }
  return [avalanche(a), avalanche(b ^ 0x9e3779b9)]
}

/**
 * Counts per key, stored by 64-bit hash.
 */
export class KeyCounts {
  private hi: Uint32Array
  private lo: Uint32Array
  private counts: Uint32Array
  private used = 0

  constructor(capacity = 8) {
    let n = 8
    while (n < capacity * 2) n *= 2
    this.hi = new Uint32Array(n)
    this.lo = new Uint32Array(n)
    this.counts = new Uint32Array(n)
  }

  /** How many distinct keys were counted. */
  get size(): number {
    return this.used
  }

  /** The bytes the table holds (for the bench's per-key figure). */
  get byteLength(): number {
    return this.hi.byteLength + this.lo.byteLength + this.counts.byteLength
  }

  private slot(hi: number, lo: number): number {
    const mask = this.hi.length - 1
    let i = lo & mask
    while (this.counts[i] !== 0 && (this.hi[i] !== hi || this.lo[i] !== lo)) i = (i + 1) & mask
    return i
  }

  /** How many times `key` was counted. */
  get(key: string): number {
    const [hi, lo] = hash64(key)
    return this.counts[this.slot(hi, lo)]
  }

  /** Counts `key` once more and returns how many times it had been counted before. */
  increment(key: string): number {
    const [hi, lo] = hash64(key)
    return this.incrementHash(hi, lo)
  }

  /** `increment` for a key given by its hash halves. */
  incrementHash(hi: number, lo: number): number {
    let i = this.slot(hi, lo)
    const before = this.counts[i]
    if (before === 0) {
      if ((this.used + 1) * 2 > this.hi.length) {
        this.grow()
        i = this.slot(hi, lo)
      }
      this.hi[i] = hi
      this.lo[i] = lo
      this.used++
    }
    this.counts[i] = before + 1
    return before
  }

  /** `get` for a key given by its hash halves. */
  getHash(hi: number, lo: number): number {
    return this.counts[this.slot(hi, lo)]
  }

  /** Every counted hash with its count. */
  *entries(): IterableIterator<readonly [number, number, number]> {
    for (let i = 0; i < this.counts.length; i++)
      if (this.counts[i] !== 0) yield [this.hi[i], this.lo[i], this.counts[i]]
  }

  /** The counts as a plain record keyed by each hash in hex (16 digits), for snapshots. */
  toRecord(): Record<string, number> {
    const out: Record<string, number> = {}
    for (const [hi, lo, count] of this.entries()) {
      out[hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0")] = count
    }
    return out
  }

  /** Counts restored from `toRecord`'s form; entries whose key is not 16 hex digits are skipped. */
  static fromRecord(record: Readonly<Record<string, number>>): KeyCounts {
    const entries = Object.entries(record).filter(
      ([key, count]) => /^[0-9a-f]{16}$/.test(key) && Number.isInteger(count) && count > 0
    )
    const table = new KeyCounts(entries.length)
    for (const [key, count] of entries) {
      const hi = Number.parseInt(key.slice(0, 8), 16)
      const lo = Number.parseInt(key.slice(8), 16)
      const i = table.slot(hi, lo)
      if (table.counts[i] === 0) table.used++
      table.hi[i] = hi
      table.lo[i] = lo
      table.counts[i] = count
    }
    return table
  }

  private grow(): void {
    const { hi, lo, counts } = this
    const n = hi.length * 2
    this.hi = new Uint32Array(n)
    this.lo = new Uint32Array(n)
    this.counts = new Uint32Array(n)
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue
      const j = this.slot(hi[i], lo[i])
      this.hi[j] = hi[i]
      this.lo[j] = lo[i]
      this.counts[j] = counts[i]
    }
  }
}
