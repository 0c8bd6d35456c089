/**
 * A bounded ring of numbered entries: entry `seq` (1, 2, 3, ...) sits in slot `(seq - 1) % limit`,
 * so recording one costs a single store once the ring is full, and the newest `limit` entries are
 * read back oldest first. The oldest entries can also be dropped early (`dropOldest`), for logs
 * bounded in bytes as well as in entries. The request log and the model's log both keep their
 * entries here.
 */
export class Ring<A extends { readonly seq: number }> {
  readonly limit: number
  private slots: Array<A | undefined> = []
  private last = 0
  /** The lowest sequence number still held (`last + 1` when none is). */
  private first = 1

  constructor(limit: number) {
    this.limit = Math.max(0, Math.floor(limit))
  }

  /** The highest sequence number recorded so far (0 when none). */
  get latest(): number {
    return this.last
  }

  /** How many entries the ring holds. */
  get size(): number {
    return this.last - this.first + 1
  }

  /**
   * Records an entry; its `seq` must be the previous one plus 1. Returns the entry it pushed out
   * of the ring, if any.
   */
  push(entry: A): A | undefined {
    this.last = entry.seq
    if (this.limit === 0) {
      this.first = this.last + 1
      return undefined
    }
    const slot = this.slotOf(entry.seq)
    let evicted: A | undefined
    if (slot === this.slots.length) this.slots.push(entry)
    else {
      evicted = this.slots[slot]
      this.slots[slot] = entry
    }
    if (this.last - this.first + 1 > this.limit) this.first = this.last - this.limit + 1
    return evicted
  }

  /**
   * The slot entry `seq` sits in (the ring must keep at least one entry): a log that keeps
   * something per entry beside the ring keeps it in a list laid out alike.
   */
  slotOf(seq: number): number {
    return (seq - 1) % this.limit
  }

  /** Drops the oldest entry held and returns it (undefined when the ring is empty). */
  dropOldest(): A | undefined {
    if (this.first > this.last || this.limit === 0) return undefined
    const slot = this.slotOf(this.first)
    const entry = this.slots[slot]
    this.slots[slot] = undefined
    this.first++
    return entry
  }

  /** Whether `entry` is still held. */
  holds(entry: A): boolean {
    return (
      this.limit > 0 &&
      entry.seq >= this.first &&
      entry.seq <= this.last &&
      this.slots[this.slotOf(entry.seq)] === entry
    )
  }

  /** The entries still held with `seq > since`, oldest first. */
  since(since = 0): Array<A> {
    const out: Array<A> = []
    if (this.limit === 0) return out
    const first = Math.max(since + 1, this.first, 1)
    for (let seq = first; seq <= this.last; seq++) {
      const entry = this.slots[this.slotOf(seq)]
      if (entry !== undefined && entry.seq === seq) out.push(entry)
    }
    return out
  }

  /**
   * Replaces the ring's content with `entries` (in `seq` order; gaps allowed) and continues the
   * numbering after `latest` (at least the last entry's `seq`), as a restored snapshot does.
   */
  restore(entries: ReadonlyArray<A>, latest: number): void {
    this.clear()
    const kept = this.limit === 0 ? [] : entries.slice(-this.limit)
    for (const entry of kept) this.push(entry)
    this.last = Math.max(this.last, latest)
    this.first = kept.length === 0 ? this.last + 1 : kept[0].seq
  }

  /** Forgets every entry and the numbering. */
  clear(): void {
    this.slots = []
    this.last = 0
    this.first = 1
  }
}
