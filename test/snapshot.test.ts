import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SimulationNetwork, type SimulationNetworkApi } from "simnet"

const chat = "https://api.openai.com/v1/chat/completions"
const body = { model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }

const ask = (network: SimulationNetworkApi) =>
  Effect.promise(async () => {
    const response = await network.fetch(chat, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-secret" },
      body: JSON.stringify(body)
    })
    return `${response.status} ${await response.text()}`
  })

/** The snapshot as another process receives it: JSON text. */
const overTheWire = (network: SimulationNetworkApi) => Effect.map(network.state, (state) => JSON.parse(JSON.stringify(state)) as unknown)

describe("snapshots", () => {
  it.effect("restore brings back the request log, the model's log and counts per key, and a failThenRespond rule's progress", () =>
    Effect.gen(function*() {
      const a = yield* SimulationNetwork.make({ seed: 3 })
      yield* a.registerSpec({ family: "openai" })
      yield* a.registerSpec({ id: "item", match: "GET https://api.example.com/item", respond: { kind: "text", body: "item" } })
      a.llm.rule("any", {
        type: "failThenRespond",
        times: 2,
        failure: { type: "serverError" },
        then: { type: "respond", steps: [[{ type: "text", content: "finally" }]] }
      })
      expect((yield* ask(a)).startsWith("500 ")).toBe(true)
      yield* Effect.promise(() => a.fetch("https://api.example.com/item").then((r) => r.text()))
      yield* Effect.promise(() => a.fetch("https://api.example.com/nowhere").catch(() => undefined))
      const state = yield* overTheWire(a)

      const b = yield* SimulationNetwork.make()
      yield* b.restore(state)
      expect(JSON.parse(JSON.stringify(yield* b.log))).toEqual(JSON.parse(JSON.stringify(yield* a.log)))
      expect((yield* b.counters)).toMatchObject({ requests: 3, answered: 2, denied: 1 })
      expect(JSON.parse(JSON.stringify(b.llm.log))).toEqual(JSON.parse(JSON.stringify(a.llm.log)))
      expect(b.llm.countFor(body)).toBe(1)
      expect(b.llm.rules[0]).toMatchObject({ failures: 1 })
      // The log is credential-free in the snapshot too.
      expect(JSON.stringify(state)).not.toContain("sk-secret")

      // Both networks go on the same way: one more failure, then the answer, byte for byte.
      const fromA = [yield* ask(a), yield* ask(a)]
      const fromB = [yield* ask(b), yield* ask(b)]
      expect(fromB).toEqual(fromA)
      expect(fromA[0].startsWith("500 ")).toBe(true)
      expect(fromA[1]).toContain("finally")
      expect(b.llm.countFor(body)).toBe(3)
      // New requests are numbered after the restored ones.
      expect((yield* b.log).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5])
    }))

  it.effect("a snapshot without a log (written by hand or by an older simnet) still restores", () =>
    Effect.gen(function*() {
      const b = yield* SimulationNetwork.make()
      yield* b.restore({ seed: 1, routes: [{ source: "control", spec: { id: "x", match: "GET https://x.example/", respond: { kind: "text", body: "x" } } }] })
      expect(yield* b.log).toEqual([])
      expect(yield* Effect.promise(() => b.fetch("https://x.example/").then((r) => r.text()))).toBe("x")
    }))
})
