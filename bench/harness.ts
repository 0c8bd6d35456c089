/**
 * A small benchmark harness: each measurement runs a warm-up, then repeats its body until a time
 * budget is spent, and reports operations per second. Every bench prints a table whose ratios
 * compare figures measured in the same process.
 */

/**
 * One measured figure.
 */
export interface Measure {
  readonly name: string
  readonly opsPerSec: number
  readonly iterations: number
}

/**
 * Runs `body(i)` for `warmup` iterations, then for at least `minMs` milliseconds (and at least
 * `minIterations`), and returns operations per second.
 */
export const measure = async (
  name: string,
  body: (i: number) => Promise<unknown> | unknown,
  options: {
    readonly warmup?: number
    readonly minMs?: number
    readonly minIterations?: number
    readonly maxIterations?: number
  } = {}
): Promise<Measure> => {
  const warmup = options.warmup ?? 2_000
  const minMs = options.minMs ?? 1_000
  const minIterations = options.minIterations ?? 1_000
  const maxIterations = options.maxIterations ?? Number.POSITIVE_INFINITY
  for (let i = 0; i < warmup; i++) await body(i)
  let iterations = 0
  const start = performance.now()
  let elapsed = 0
  while ((elapsed < minMs || iterations < minIterations) && iterations < maxIterations) {
    for (let k = 0; k < 256 && iterations < maxIterations; k++) await body(warmup + iterations++)
    elapsed = performance.now() - start
  }
  return { name, opsPerSec: (iterations * 1000) / elapsed, iterations }
}

/**
 * A deterministic permutation of `0 .. n-1` (xorshift-driven Fisher–Yates), so every run and every
 * tool sees the same request order and neither end of a linear scan is favoured.
 */
export const permutation = (n: number, seed = 0x9e3779b9): ReadonlyArray<number> => {
  const out = Array.from({ length: n }, (_, i) => i)
  let x = seed >>> 0 || 1
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    const j = x % (i + 1)
    const t = out[i]
    out[i] = out[j]
    out[j] = t
  }
  return out
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2))

/**
 * Prints a table of measures with each one's ratio to `baseline` (by name).
 */
export const report = (title: string, measures: ReadonlyArray<Measure>, baseline: string): void => {
  const base = measures.find((m) => m.name === baseline)
  console.log(`\n${title}`)
  const width = Math.max(...measures.map((m) => m.name.length))
  for (const m of measures) {
    const ratio = base === undefined ? "" : `  ${(m.opsPerSec / base.opsPerSec).toFixed(2)}× ${baseline}`
    console.log(`  ${m.name.padEnd(width)}  ${fmt(m.opsPerSec).padStart(12)} ops/s${ratio}`)
  }
}

/**
 * A ~150-byte JSON body for item `i`.
 */
export const itemBody = (i: number): string =>
  JSON.stringify({
    id: `item-${i}`,
    name: `Simulated item number ${i}`,
    price: 1999 + i,
    tags: ["alpha", "beta", "gamma"],
    inStock: true,
    updatedAt: "2026-11-30T00:00:00.000Z"
  })

/**
 * A bare `fetch` answering every call with `events`, one per read: the floor the SDK benches
 * measure against (an SDK reading prebuilt events as fast as it can).
 */
export const perEventFetch =
  (events: ReadonlyArray<Uint8Array>, contentType = "text/event-stream"): typeof globalThis.fetch =>
  async () => {
    let i = 0
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (i < events.length) controller.enqueue(events[i++])
          else controller.close()
        }
      },
      { highWaterMark: 0 }
    )
    return new Response(body, { headers: { "content-type": contentType } })
  }

/** The `fetch` this process started with, before any bench swaps it. */
export const realFetch: typeof globalThis.fetch = globalThis.fetch

/**
 * Runs `run` with `fetch` as `globalThis.fetch` (the AWS SDK's fetch handler reads it there), then
 * puts the real one back. Never run two at once.
 */
export const withGlobalFetch = async <A>(fetch: typeof globalThis.fetch, run: () => Promise<A>): Promise<A> => {
  globalThis.fetch = fetch
  try {
    return await run()
  } finally {
    globalThis.fetch = realFetch
  }
}
