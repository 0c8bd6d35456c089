/**
 * The request log's exact tallies by label, behind `GET /experimental/simulation/metrics`: requests
 * by route and outcome, answer times (a histogram), refusals by error tag and chaos hits by effect. They are counted where the log's counters are (`requestLog.ts`), so they agree with
 * them at every moment and, like them, outlive the ring's bound and start again when the log is
 * cleared. Labels are bounded: route ids come from the route table (at most `MAX_LABELS` of them,
 * the rest counted as `(other)`), a request no route took is `(none)`, whatever its URL.
 */

/** The upper bounds, in seconds, of the answer-time histogram's buckets (Prometheus client defaults). */
export const DURATION_BUCKETS: ReadonlyArray<number> = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** How a request ended, as the counters count it. */
export const OUTCOMES = ["answered", "denied", "faulted"] as const
export type Outcome = (typeof OUTCOMES)[number]

/** The most distinct values a label takes; past it, values are counted as `(other)`. */
export const MAX_LABELS = 1_000

/** The route label of a request no route took. */
export const NO_ROUTE = "(none)"
/** The route label of requests counted before a restore, whose routes the snapshot does not say. */
export const RESTORED = "(restored)"

/** The tallies as read (`SimulationNetworkApi.metrics`). */
export interface RequestTallies {
  /** Requests by route label and outcome. */
  readonly requests: ReadonlyArray<{ readonly route: string; readonly outcome: Outcome; readonly count: number }>
  /** Answer times: counts per `DURATION_BUCKETS` bound (cumulative, as Prometheus reads them), how many, and their sum in seconds. */
  readonly durations: { readonly buckets: ReadonlyArray<number>; readonly sum: number; readonly count: number }
  /** Refused requests by the error's tag (`UnregisteredRequest`, `RouteFailed`, `Interrupted`, …). */
  readonly refusals: ReadonlyArray<{ readonly reason: string; readonly count: number }>
  /** Requests seeded chaos hit, by effect (`reset`, `status`, `latency`, …), counted as they settle. */
  readonly chaos: ReadonlyArray<{ readonly effect: string; readonly count: number }>
}

/** A label value kept within `MAX_LABELS` distinct values in `map`. */
const labelIn = (map: Map<string, unknown>, value: string): string =>
  map.has(value) || map.size < MAX_LABELS ? value : "(other)"

/**
 * The tallies themselves. Internal to the log.
 */
export class Tally {
  private requests = new Map<string, [number, number, number]>()
  /** Answers per `DURATION_BUCKETS` bound (not cumulative), their sum in seconds, and how many. */
  private readonly buckets: Array<number> = DURATION_BUCKETS.map(() => 0)
  private sum = 0
  private answers = 0
  private refusals = new Map<string, number>()
  private chaos = new Map<string, number>()

  /** Counts a request's outcome at its route (`undefined`: no route took it). */
  count(route: string | undefined, outcome: 0 | 1 | 2): void {
    const label = labelIn(this.requests, route ?? NO_ROUTE)
    let counts = this.requests.get(label)
    if (counts === undefined) this.requests.set(label, (counts = [0, 0, 0]))
    counts[outcome]++
  }

  /** Counts an answer's time, in milliseconds. */
  answered(ms: number): void {
    const seconds = ms / 1000
    const bucket = DURATION_BUCKETS.findIndex((bound) => seconds <= bound)
    if (bucket !== -1) this.buckets[bucket]++
    this.sum += seconds
    this.answers++
  }

  /** Counts a refusal by the error's tag. */
  refused(tag: string): void {
    const label = labelIn(this.refusals, tag)
    this.refusals.set(label, (this.refusals.get(label) ?? 0) + 1)
  }

  /** Counts a chaos hit by its effect. */
  hit(effect: string): void {
    this.chaos.set(effect, (this.chaos.get(effect) ?? 0) + 1)
  }

  /** The tallies now, as plain data. */
  read(): RequestTallies {
    return {
      requests: Array.from(this.requests, ([route, counts]) =>
        OUTCOMES.map((outcome, i) => ({ route, outcome, count: counts[i] }))
      ).flat(),
      durations: {
        buckets: this.buckets.map(
          (
            (total) => (n: number) =>
              (total += n)
          )(0)
        ),
        sum: this.sum,
        count: this.answers
      },
      refusals: Array.from(this.refusals, ([reason, count]) => ({ reason, count })),
      chaos: Array.from(this.chaos, ([effect, count]) => ({ effect, count }))
    }
  }

  /**
   * A tally of the log's counters alone (a restored snapshot's, which say no route or tag): each
   * outcome under the route `(restored)`.
   */
  static restored(counters: {
    readonly answered: number
    readonly denied: number
    readonly faulted?: number | undefined
  }): Tally {
    const tally = new Tally()
    if (counters.answered + counters.denied + (counters.faulted ?? 0) > 0)
      tally.requests.set(RESTORED, [counters.answered, counters.denied, counters.faulted ?? 0])
    if (counters.denied > 0) tally.refusals.set(RESTORED, counters.denied)
    return tally
  }
}
