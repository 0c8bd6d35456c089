/**
 * `GET /experimental/simulation/metrics`: Prometheus text through prom-client, read back by a
 * Prometheus text parser (`parse-prometheus-text-format`, not one written here), whose counts equal
 * the log's counters past the log's ring bound, behind the control endpoint's checks, with labels
 * bounded whatever URLs come.
 */
import * as http from "node:http"
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import parse from "parse-prometheus-text-format"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { Route, Routes, SimulationNetwork, type SimulationNetworkApi } from "../src/index.ts"

const TOKEN = "metrics-token"
const bearer = { authorization: `Bearer ${TOKEN}` }

/** A network with a small log behind the control layer of an app's server, and `use` run against it. */
const served = <A>(use: (base: string, network: SimulationNetworkApi) => Promise<A>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const app = HttpRouter.serve(SimulationNetwork.layerControl({ token: TOKEN }), {
          disableLogger: true,
          disableListenLog: true
        }).pipe(
          Layer.provideMerge(
            SimulationNetwork.layer({
              logLimit: 4,
              routes: [
                Route.text("GET https://api.example.com/hi", "hi", { id: "hi" }),
                Route.fault("GET https://api.example.com/drop", "reset", { id: "drop" }),
                Route.text("GET https://api.example.com/flaky", "never", { id: "flaky" }),
                ...Routes.openai()
              ],
              llm: [{ steps: [[{ type: "text", content: "hello" }]] }],
              chaos: { rate: 1, faults: [{ status: 503 }], routes: ["flaky"] }
            })
          ),
          Layer.provideMerge(NodeHttpServer.layer(http.createServer, { port: 0, host: "127.0.0.1" }))
        )
        const context = yield* Layer.build(app)
        const server = yield* Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))
        const network = yield* Effect.provide(Effect.service(SimulationNetwork), Layer.succeedContext(context))
        return yield* Effect.promise(() => use(HttpServer.formatAddress(server.address), network))
      })
    )
  )

describe("GET metrics", () => {
  it("counts requests by route and outcome, refusals, chaos and model calls as the log counts them, past its bound", async () => {
    const seen = await served(async (base, network) => {
      const fetch = network.fetch
      for (let i = 0; i < 5; i++) await fetch("https://api.example.com/hi")
      for (let i = 0; i < 10; i++)
        await fetch(`https://unknown-${i}.example.net/path/${i}?q=${i}`).catch(() => undefined)
      await fetch("https://api.example.com/drop").catch(() => undefined)
      for (let i = 0; i < 3; i++) await fetch("https://api.example.com/flaky")
      const openai = new OpenAI({ apiKey: "sk-test", fetch, maxRetries: 0 })
      await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      await Effect.runPromise(network.quiescent)
      const response = await globalThis.fetch(`${base}/experimental/simulation/metrics`, { headers: bearer })
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        text: await response.text(),
        counters: Effect.runSync(network.counters),
        held: Effect.runSync(network.log).length,
        unauthorized: (await globalThis.fetch(`${base}/experimental/simulation/metrics`)).status,
        foreign: (
          await globalThis.fetch(`${base}/experimental/simulation/metrics`, {
            headers: { ...bearer, origin: "https://evil.example" }
          })
        ).status
      }
    })
    expect(seen.status).toBe(200)
    expect(seen.type).toBe("text/plain; version=0.0.4; charset=utf-8")
    expect(seen.unauthorized).toBe(401)
    expect(seen.foreign).toBe(403)
    const families = new Map(parse(seen.text).map((family) => [family.name, family]))
    const samples = (name: string) => families.get(name)?.metrics ?? []
    const sum = (name: string, where: Record<string, string> = {}) =>
      samples(name)
        .filter((s) => Object.entries(where).every(([k, v]) => s.labels?.[k] === v))
        .reduce((total, s) => total + Number(s.value), 0)
    // Past the ring's bound: the log holds 4 records, the counters and the metrics every request.
    expect(seen.held).toBe(4)
    expect(seen.counters.requests).toBe(20)
    for (const outcome of ["answered", "denied", "faulted"] as const)
      expect(sum("simnet_requests_total", { outcome }), outcome).toBe(seen.counters[outcome])
    expect(sum("simnet_requests_total")).toBe(seen.counters.requests)
    expect(sum("simnet_requests_total", { route: "hi", outcome: "answered" })).toBe(5)
    // Ten unknown hosts and URLs make one label, not ten.
    expect(
      samples("simnet_requests_total")
        .filter((s) => s.labels?.route === "(none)")
        .map((s) => [s.labels?.outcome, s.value])
    ).toEqual([
      ["answered", "0"],
      ["denied", "10"],
      ["faulted", "0"]
    ])
    expect(sum("simnet_requests_total", { route: "drop", outcome: "faulted" })).toBe(1)
    expect(sum("simnet_refusals_total")).toBe(seen.counters.denied)
    expect(sum("simnet_refusals_total", { reason: "UnregisteredRequest" })).toBe(10)
    expect(sum("simnet_chaos_total", { effect: "status" })).toBe(3)
    expect(sum("simnet_model_calls_total", { api: "openai.chat" })).toBe(1)
    expect(families.get("simnet_request_duration_seconds")?.type).toBe("HISTOGRAM")
    // Every answer with a status is in the histogram (the times are the machine's: only counts
    // and the buckets' order are checked): 5 of hi, 3 of flaky (chaos's 503s), 1 model call.
    const durations = families.get("simnet_request_duration_seconds")?.metrics[0]
    expect(durations?.count).toBe("9")
    const buckets = Object.entries(durations?.buckets ?? {})
      .filter(([le]) => le !== "+Inf")
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, n]) => Number(n))
    expect(buckets).toHaveLength(11)
    expect(buckets.every((n, i) => i === 0 || n >= buckets[i - 1])).toBe(true)
    expect(durations?.buckets?.["+Inf"]).toBe("9")
  })

  it("starts again with the log on reset", async () => {
    const after = await served(async (base, network) => {
      await network.fetch("https://api.example.com/hi")
      await Effect.runPromise(network.reset)
      await network.fetch("https://api.example.com/hi")
      return parse(
        await (await globalThis.fetch(`${base}/experimental/simulation/metrics`, { headers: bearer })).text()
      )
    })
    const requests = after.find((family) => family.name === "simnet_requests_total")!.metrics
    expect(
      requests.filter((s) => s.labels?.route === "hi" && s.labels.outcome === "answered").map((s) => s.value)
    ).toEqual(["1"])
  })
})
