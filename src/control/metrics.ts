/**
 * `GET /experimental/simulation/metrics`: the network's exact tallies (`SimulationNetworkApi.metrics`)
 * in Prometheus text format, written by `prom-client` into a registry of the network's own (never
 * prom-client's global one, so two networks in a process never mix):
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `simnet_requests_total` | `route`, `outcome` (`answered`, `denied`, `faulted`) | requests, as the log's counters count them |
 * | `simnet_request_duration_seconds` | | histogram of the time from a request's arrival to its answer's head, on the network's `Clock` |
 * | `simnet_refusals_total` | `reason` (the error's tag) | refused requests |
 * | `simnet_chaos_total` | `effect` | requests seeded chaos hit |
 * | `simnet_model_calls_total` | `api` | calls to the simulated model |
 *
 * Every value is read at the scrape from the network's tallies, which are counted where the log's
 * counters are: they equal the log's past its ring's bound, and start again with it on `reset`.
 * `route` is a route id (the table bounds them; past 1 000 ids, `(other)`), `(none)` for a request no
 * route took, whatever its URL: an unknown host makes no label of its own.
 */
import { Counter, Registry } from "prom-client"
import type { Effect } from "effect"
import { DURATION_BUCKETS } from "../registry/tally.ts"
import type { NetworkMetrics } from "../network/network.ts"

/** What the metrics read of a network: its tallies. */
export interface MeteredNetwork {
  readonly metrics: Effect.Effect<NetworkMetrics>
}

const DURATION = "simnet_request_duration_seconds"

/**
 * A registry of the network's metrics; `text(metrics)` writes the tallies read at a scrape.
 * Counters are prom-client's, set from the tallies when prom-client collects them. The histogram's
 * buckets are exact counts the log keeps (prom-client's `Histogram` takes observations one at a
 * time), handed to the registry in the shape its own histograms give it, so prom-client writes
 * them as it writes its own.
 */
export const metricsRegistry = () => {
  const registry = new Registry()
  let current: NetworkMetrics | undefined
  const counter = <L extends string>(
    name: string,
    help: string,
    labelNames: ReadonlyArray<L>,
    values: (metrics: NetworkMetrics) => ReadonlyArray<readonly [Record<L, string>, number]>
  ) =>
    new Counter<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset()
        if (current !== undefined) for (const [labels, count] of values(current)) this.inc(labels as never, count)
      }
    })
  counter(
    "simnet_requests_total",
    "Requests by the route that took them and how they ended.",
    ["route", "outcome"],
    (m) => m.requests.map((r) => [{ route: r.route, outcome: r.outcome }, r.count])
  )
  counter("simnet_refusals_total", "Refused requests by the error's tag.", ["reason"], (m) =>
    m.refusals.map((r) => [{ reason: r.reason }, r.count])
  )
  counter("simnet_chaos_total", "Requests seeded chaos hit, by effect.", ["effect"], (m) =>
    m.chaos.map((c) => [{ effect: c.effect }, c.count])
  )
  counter("simnet_model_calls_total", "Calls to the simulated model by API.", ["api"], (m) =>
    m.modelCalls.map((c) => [{ api: c.api }, c.count])
  )
  const help = "Time from a request's arrival to its answer's head, on the network's clock."
  const histogram = {
    name: DURATION,
    help,
    type: "histogram",
    aggregator: "sum",
    reset: () => {},
    get: async () => ({
      name: DURATION,
      help,
      type: "histogram",
      aggregator: "sum",
      values:
        current === undefined
          ? []
          : [
              ...DURATION_BUCKETS.map((le, i) => ({
                labels: { le },
                value: current!.durations.buckets[i],
                metricName: `${DURATION}_bucket`
              })),
              { labels: { le: "+Inf" }, value: current.durations.count, metricName: `${DURATION}_bucket` },
              { labels: {}, value: current.durations.sum, metricName: `${DURATION}_sum` },
              { labels: {}, value: current.durations.count, metricName: `${DURATION}_count` }
            ]
    })
  }
  registry.registerMetric(histogram as never)
  return {
    contentType: registry.contentType,
    text: (metrics: NetworkMetrics): Promise<string> => {
      current = metrics
      return registry.metrics()
    }
  }
}
