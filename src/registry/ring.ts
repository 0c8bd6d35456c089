/**
 * A bounded ring of numbered entries: entry `seq` (1, 2, 3, ...) sits in slot `(seq - 1) % limit`,
 * so recording one costs a single store once the ring is full, and the newest `limit` entries are
 * read back oldest first. The request log and the model's log both keep their entries here.
 */
export class Ring<A extends { readonly seq: number }> {
  readonly limit: number
  private slots: Array<A | undefined> = []
  private last = 0

  constructor(limit: number) {
    this.limit = Math.max(0, Math.floor(limit))
  }

  /** The highest sequence number recorded so far (0 when none). */
  get latest(): number {
    return this.last
  }

  /** Records an entry; its `seq` must be the previous one plus 1. */
  push(entry: A): void {
    this.last = entry.seq
    if (this.limit === 0) return
    const slot = (entry.seq - 1) % this.limit
    if (slot === this.slots.length) this.slots.push(entry)
    else this.slots[slot] = entry
  }

  /** The entries still held with `seq > since`, oldest first. */
  since(since = 0): Array<A> {
    const out: Array<A> = []
    if (this.limit === 0) return out
    const first = Math.max(since + 1, this.last - this.limit + 1, 1)
    for (let seq = first; seq <= this.last; seq++) {
      const entry = this.slots[(seq - 1) % this.limit]
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
    for (const entry of entries.slice(-Math.max(1, this.limit))) this.push(entry)
    this.last = Math.max(this.last, latest)
  }

  /** Forgets every entry and the numbering. */
  clear(): void {
    this.slots = []
    this.last = 0
  }
}
