/**
 * Seeded chaos and quiescence (issue 25, the network's part): whether a request is hit, and how,
 * is a pure function of (seed, route, request, occurrence) — the same seed replays the same
 * faults in any order of unrelated requests, a snapshot carries on where it stopped — every hit
 * is in its log record, and `quiescent` completes when nothing is in flight.
 */
import { it as effectIt } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import * as TestClock from "effect/testing/TestClock"
import OpenAI from "openai"
import { Route, Routes, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const routes = () => [
  Route.text("GET https://api.example.com/items/:id", '{"ok":true}', { id: "items", contentType: "application/json" }),
  Route.text("GET https://api.example.com/health", "ok", { id: "health" })
]

/**
 * What a client saw of one GET: a status, or how the body broke. A request the network holds
 * without answer (a `timeout` fault, which its log records at once) is "timeout": the client then
 * gives up, as one with its own timeout would.
 */
const outcome = async (
  network: { fetch: typeof fetch; log: () => ReadonlyArray<{ readonly fault?: string | undefined }> },
  url: string
): Promise<string> => {
  const abort = new AbortController()
  const before = network.log().length
  const held = (async () => {
    for (let turn = 0; turn < 10_000 && !abort.signal.aborted; turn++) {
      if (
        network
          .log()
          .slice(before)
          .some((record) => record.fault === "timeout")
      )
        return abort.abort()
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  try {
    const response = await network.fetch(url, { signal: abort.signal })
    const text = await response.text()
    if (response.status !== 200) return `status ${response.status}`
    try {
      JSON.parse(text)
      return "ok"
    } catch {
      return "malformed"
    }
  } catch (error) {
    return abort.signal.aborted ? "timeout" : `failed: ${String((error as Error).cause ?? error)}`
  } finally {
    if (!abort.signal.aborted) abort.abort()
    await held
  }
}

describe("seeded chaos", () => {
  it("the same seed hits the same requests the same way, in any order of unrelated requests; another seed otherwise", async () => {
    const chaos = { rate: 0.4, faults: ["reset", "malformed", "serverError", "rateLimit"] as const }
    const urls = Array.from({ length: 30 }, (_, i) => `https://api.example.com/items/${i % 10}`)
    const run = async (seed: number, order: ReadonlyArray<string>) => {
      const network = await SimulationNetwork.start({
        seed,
        routes: routes(),
        chaos: { ...chaos, faults: [...chaos.faults] }
      })
      const seen = new Map<string, Array<string>>()
      for (const url of order) seen.set(url, [...(seen.get(url) ?? []), await outcome(network, url)])
      return { seen, log: network.log() }
    }
    const first = await run(7, urls)
    const again = await run(7, urls)
    expect([...again.seen]).toEqual([...first.seen])
    // Unrelated requests in another order: each URL's own sequence of outcomes is unchanged.
    const shuffled = [...urls].sort((a, b) => a.localeCompare(b))
    const reordered = await run(7, shuffled)
    for (const [url, outcomes] of first.seen) expect(reordered.seen.get(url)).toEqual(outcomes)
    const other = await run(8, urls)
    expect([...other.seen]).not.toEqual([...first.seen])
    const all = [...first.seen.values()].flat()
    expect(all.filter((o) => o !== "ok").length).toBeGreaterThan(3)
    expect(new Set(all)).toEqual(
      new Set(
        ["ok", "status 500", "status 429", "malformed", "failed: Error: read ECONNRESET"].filter((o) => all.includes(o))
      )
    )
    const hit = first.log.filter((r) => r.chaos !== undefined)
    expect(hit.length).toBe(all.filter((o) => o !== "ok").length)
    expect(hit.every((r) => ["reset", "malformed", "status"].includes(r.chaos!.effect))).toBe(true)
  })

  it("rate 1 with one fault hits every request; routes limits it; a 429 says when to retry", async () => {
    const network = await SimulationNetwork.start({
      routes: routes(),
      chaos: { rate: 1, faults: ["rateLimit"], routes: ["items"] }
    })
    const limited = await network.fetch("https://api.example.com/items/1")
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "1"])
    expect(await limited.json()).toMatchObject({ error: { type: "simnet_chaos", code: 429 } })
    expect((await network.fetch("https://api.example.com/health")).status).toBe(200)
    expect(network.log().map((r) => r.chaos)).toEqual([{ effect: "status", status: 429 }, undefined])
  })

  it("reset and timeout break as real networks do and are counted as faulted; streamCut cuts a model's stream mid-way", async () => {
    const reset = await SimulationNetwork.start({ routes: routes(), chaos: { rate: 1, faults: ["reset"] } })
    expect(await outcome(reset, "https://api.example.com/items/1")).toBe("failed: Error: read ECONNRESET")
    const hanging = await SimulationNetwork.start({ routes: routes(), chaos: { rate: 1, faults: ["timeout"] } })
    expect(await outcome(hanging, "https://api.example.com/items/1")).toBe("timeout")
    expect(Effect.runSync(reset.network.counters)).toMatchObject({ faulted: 1, answered: 0 })
    const model = await SimulationNetwork.start({
      routes: Routes.openai(),
      llm: [
        {
          steps: [
            [
              {
                type: "text",
                content:
                  "A long answer that the network will cut somewhere in the middle of its stream, well before the end."
              }
            ]
          ]
        }
      ],
      chaos: { rate: 1, faults: ["streamCut"] }
    })
    const client = new OpenAI({ apiKey: "sk-test", fetch: model.fetch, maxRetries: 0 })
    let text = ""
    await expect(
      (async () => {
        const stream = await client.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content: "hi" }],
          stream: true
        })
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
      })()
    ).rejects.toThrow()
    expect(text.length).toBeLessThan(80)
    expect(model.log()[0].chaos).toEqual({ effect: "streamCut" })
  })

  it("malformed breaks what the client parses: a frame of a model's stream, an NDJSON record, a JSON document; the same bytes for the same seed", async () => {
    const answer = "A long answer whose stream the network will break at one of its frames, well before the end of it."
    const start = () =>
      SimulationNetwork.start({
        routes: Routes.openai(),
        llmRules: [{ match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: answer }]] } }],
        chaos: { rate: 1, faults: ["malformed"] }
      })
    const model = await start()
    const client = new OpenAI({ apiKey: "sk-test", fetch: model.fetch, maxRetries: 0 })
    let text = ""
    const streamed = await (async () => {
      const stream = await client.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        stream: true
      })
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    })().then(
      () => undefined,
      (error: unknown) => error
    )
    // The SDK's own SSE parser meets a frame whose JSON is cut short, and says so.
    expect(streamed).toBeInstanceOf(SyntaxError)
    expect(answer.startsWith(text)).toBe(true)
    expect(text.length).toBeLessThan(answer.length)
    const whole = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => undefined,
        (error: unknown) => error
      )
    expect(whole).toBeInstanceOf(SyntaxError)
    expect(model.log().map((record) => [record.chaos?.effect, record.fault])).toEqual([
      ["malformed", "malformed"],
      ["malformed", "malformed"]
    ])

    // The same seed breaks the same bytes (two fresh networks, each its first call).
    const [again, third] = [await start(), await start()]
    const raw = async (network: typeof model) =>
      (
        await network.fetch("https://api.openai.com/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] })
        })
      ).text()
    const bytes = await raw(again)
    expect(await raw(third)).toBe(bytes)
    const frames = bytes.split("\n\n").filter((frame) => frame !== "")
    expect(frames.slice(0, -1).every((frame) => JSON.parse(frame.slice(6)) !== undefined)).toBe(true)
    expect(() => JSON.parse(frames.at(-1)!.slice(6))).toThrow()

    const lines =
      Array.from({ length: 40 }, (_, i) => JSON.stringify({ line: i, text: "a record of an NDJSON stream" })).join(
        "\n"
      ) + "\n"
    const other = await SimulationNetwork.start({
      routes: [
        Route.text("GET https://api.example.com/events", lines, { contentType: "application/x-ndjson" }),
        Route.text(
          "GET https://api.example.com/doc",
          JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ i })) }),
          { contentType: "application/json" }
        )
      ],
      chaos: { rate: 1, faults: ["malformed"] }
    })
    const records = (await (await other.fetch("https://api.example.com/events")).text())
      .split("\n")
      .filter((line) => line !== "")
    expect(records.length).toBeGreaterThan(0)
    expect(records.slice(0, -1).map((line) => (JSON.parse(line) as { line: number }).line)).toEqual(
      records.slice(0, -1).map((_, i) => i)
    )
    expect(() => JSON.parse(records.at(-1)!)).toThrow()
    expect(await outcome(other, "https://api.example.com/doc")).toBe("malformed")
    await Promise.all([model.close(), again.close(), third.close(), other.close()])
  })

  it("a snapshot carries chaos and its counts: a restored network draws what the original would have drawn next", async () => {
    const chaos = { rate: 0.5, faults: ["serverError" as const] }
    // Routes as RouteSpec JSON: a snapshot holds those (a route built in code is not in one).
    const original = await SimulationNetwork.start({ seed: 3, chaos })
    await original.registerSpec({
      id: "items",
      match: "GET https://api.example.com/items/:id",
      respond: { kind: "text", body: "{}" }
    })
    for (let i = 0; i < 5; i++) await original.fetch("https://api.example.com/items/1")
    const state = Effect.runSync(original.network.state)
    expect(state).toMatchObject({ chaos })
    const restored = await SimulationNetwork.start({ routes: [] })
    await Effect.runPromise(restored.network.restore(state))
    const next = async (network: typeof original) => {
      const out: Array<number> = []
      for (let i = 0; i < 10; i++) out.push((await network.fetch("https://api.example.com/items/1")).status)
      return out
    }
    expect(await next(restored)).toEqual(await next(original))
  })

  it("bad chaos options are refused naming the field, in code and in a fixture", async () => {
    await expect(SimulationNetwork.start({ chaos: { rate: 2 } })).rejects.toMatchObject({
      _tag: "InvalidNetworkOption",
      option: "chaos.rate"
    })
    await expect(SimulationNetwork.start({ chaos: { rate: 0.1, latencyMs: [50, 10] } })).rejects.toMatchObject({
      option: "chaos.latencyMs"
    })
    const { decodeFixture } = await import("../src/network/fixture.ts")
    const fixture = await Effect.runPromise(
      decodeFixture({ routes: [], chaos: { rate: 0.2, faults: [{ status: 503 }] } })
    )
    expect(fixture.chaos).toEqual({ rate: 0.2, faults: [{ status: 503 }] })
    await expect(Effect.runPromise(decodeFixture({ chaos: { rate: 0.2, faults: ["explode"] } }))).rejects.toMatchObject(
      { path: expect.stringContaining("chaos.faults[0]") }
    )
  })
})

describe("quiescence", () => {
  effectIt.effect(
    "completes at once when idle; after a delayed answer and a chaos pause, on the Effect clock, only once they are answered",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork
        yield* network.quiescent
        yield* network.register(Route.text("GET https://slow.example/x", "late", { delay: "2 seconds" }))
        const request = yield* Effect.forkChild(
          Effect.promise(() => network.fetch("https://slow.example/x").then((r) => r.text()))
        )
        yield* Effect.yieldNow
        const waiting = yield* Effect.forkChild(network.quiescent)
        yield* TestClock.adjust(Duration.seconds(1))
        for (let i = 0; i < 3; i++) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        expect(waiting.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.seconds(1))
        yield* Fiber.join(waiting)
        expect(yield* Fiber.join(request)).toBe("late")
      }).pipe(Effect.provide(SimulationNetwork.layer()))
  )

  effectIt.effect("SimulationNetwork.quiescent waits for a chaos pause drawn on the Effect clock", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* network.register(Route.text("GET https://paused.example/x", "after a pause", { id: "paused" }))
      const request = yield* Effect.forkChild(
        Effect.promise(() => network.fetch("https://paused.example/x").then((r) => r.text()))
      )
      yield* Effect.yieldNow
      const waiting = yield* Effect.forkChild(SimulationNetwork.quiescent)
      yield* TestClock.adjust(Duration.millis(299))
      for (let i = 0; i < 3; i++) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(waiting.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(Duration.millis(1))
      yield* Fiber.join(waiting)
      expect(yield* Fiber.join(request)).toBe("after a pause")
      expect((yield* network.log).at(-1)?.chaos).toEqual({ effect: "latency", ms: 300 })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({ chaos: { rate: 1, faults: [], latencyMs: [300, 300], routes: ["paused"] } })
      )
    )
  )

  effectIt.effect("waits for a paced model stream's pause too, after its answer began", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* network.register(Routes.openai())
      network.llm.enqueue({ steps: [[{ type: "text", content: "slowly" }]], pace: { ttftMs: 5_000 } })
      const response = yield* Effect.promise(() =>
        network.fetch("https://api.openai.com/v1/chat/completions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] })
        })
      )
      expect(response.status).toBe(200)
      const text = yield* Effect.forkChild(Effect.promise(() => response.text()))
      yield* Effect.yieldNow
      const waiting = yield* Effect.forkChild(network.quiescent)
      // Let every promise settle that can without the clock moving.
      for (let i = 0; i < 3; i++) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      expect(waiting.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(waiting)
      expect(yield* Fiber.join(text)).toContain("slowly")
    }).pipe(Effect.provide(SimulationNetwork.layer()))
  )
})
