/**
 * Scenarios, with WireMock's semantics: a cart that is empty until an item is posted, in process
 * and through `simnet serve` (its control endpoint resets and sets them), the miss that names the
 * current state, snapshots, `reset`, and moves in dispatch order under concurrency.
 */
import { it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Duration, Effect, Fiber } from "effect"
import parse from "parse-prometheus-text-format"
import * as TestClock from "effect/testing/TestClock"
import { afterAll, describe, expect } from "vitest"
import { replayTrace, Route, SimulationNetwork, UnregisteredRequest } from "../src/index.ts"
import { serve, stopAll } from "./support/serve.ts"

const base = "https://shop.example.com"

/** The cart: empty until a POST puts an item in it; a DELETE empties it again. */
const cart = [
  Route.text(`GET ${base}/cart`, `{"items":[]}`, {
    id: "empty",
    scenario: "cart",
    requiredState: "Started",
    contentType: "application/json"
  }),
  Route.status(`POST ${base}/cart`, 201, { id: "add", scenario: "cart", newState: "Has item" }),
  Route.text(`GET ${base}/cart`, `{"items":["tea"]}`, {
    id: "full",
    scenario: "cart",
    requiredState: "Has item",
    contentType: "application/json"
  }),
  Route.status(`DELETE ${base}/cart`, 204, {
    id: "empty it",
    scenario: "cart",
    requiredState: "Has item",
    newState: "Started"
  })
]

const items = async (fetch: typeof globalThis.fetch) =>
  ((await (await fetch(`${base}/cart`)).json()) as { items: Array<string> }).items

afterAll(stopAll)

describe("a cart scenario in process", () => {
  it("is empty until POST /cart, then has one item; the log says what each request found and moved", async () => {
    const network = await SimulationNetwork.start({ routes: cart })
    expect(await items(network.fetch)).toEqual([])
    expect((await network.fetch(`${base}/cart`, { method: "POST" })).status).toBe(201)
    expect(await items(network.fetch)).toEqual(["tea"])
    expect(network.scenarios.list()).toEqual([{ name: "cart", state: "Has item", states: ["Started", "Has item"] }])
    expect(network.log().map((r) => r.scenario)).toEqual([
      { name: "cart", state: "Started" },
      { name: "cart", state: "Started", newState: "Has item" },
      { name: "cart", state: "Has item" }
    ])
    expect((await network.fetch(`${base}/cart`, { method: "DELETE" })).status).toBe(204)
    expect(await items(network.fetch)).toEqual([])
    await network.close()
  })

  it("a route whose state is not current does not match, and the refusal names the current state", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.status(`DELETE ${base}/cart`, 204, { id: "empty it", scenario: "cart", requiredState: "Has item" })
      ]
    })
    const error = await network.fetch(`${base}/cart`, { method: "DELETE" }).catch((e: TypeError) => e.cause)
    expect(error).toBeInstanceOf(UnregisteredRequest)
    expect((error as UnregisteredRequest).candidates).toEqual([
      {
        id: "empty it",
        match: `DELETE ${base}/cart`,
        reason: "state",
        detail: `scenario "cart" is in state "Started"; this route needs "Has item"`
      }
    ])
    expect(network.log()[0].refusal?.candidates?.[0].reason).toBe("state")
    await network.close()
  })

  it("reset, scenarios.reset and scenarios.set move the cart; a snapshot carries its state to a fresh network", async () => {
    const specs = [
      {
        id: "empty",
        match: `GET ${base}/cart`,
        respond: { kind: "text", body: "empty" },
        scenario: "cart",
        requiredState: "Started"
      },
      {
        id: "add",
        match: `POST ${base}/cart`,
        respond: { kind: "status", status: 201 },
        scenario: "cart",
        newState: "Has item"
      },
      {
        id: "full",
        match: `GET ${base}/cart`,
        respond: { kind: "text", body: "full" },
        scenario: "cart",
        requiredState: "Has item"
      }
    ]
    const network = await SimulationNetwork.start()
    await network.registerSpec(specs)
    const body = async (n = network) => (await n.fetch(`${base}/cart`)).text()
    await network.fetch(`${base}/cart`, { method: "POST" })
    expect(await body()).toBe("full")
    const state = Effect.runSync(network.network.state)
    expect(state.scenarios).toEqual({ cart: "Has item" })
    network.scenarios.reset()
    expect(await body()).toBe("empty")
    expect(network.scenarios.set("cart", "Has item")).toBe(true)
    expect(network.scenarios.set("wishlist", "Has item")).toBe(false)
    expect(await body()).toBe("full")
    await network.reset()
    expect(network.scenarios.list()).toEqual([])
    await network.registerSpec(specs)
    expect(await body()).toBe("empty")
    const again = await SimulationNetwork.start()
    await Effect.runPromise(again.network.restore(state))
    expect(await body(again)).toBe("full")
    await Promise.all([network.close(), again.close()])
  })

  it.effect("moves apply in dispatch order, before the mover's delayed answer comes", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      // The mover answers after a second; the reads dispatched after it see the new state at once.
      const add = yield* Effect.forkChild(
        Effect.promise(() => network.fetch(`${base}/cart`, { method: "POST" }).then((r) => r.status))
      )
      yield* Effect.yieldNow
      const reads = yield* Effect.forEach(
        [1, 2, 3],
        () => Effect.promise(() => network.fetch(`${base}/cart`).then((r) => r.json())),
        { concurrency: "unbounded" }
      )
      expect(reads).toEqual([{ items: ["tea"] }, { items: ["tea"] }, { items: ["tea"] }])
      yield* TestClock.adjust(Duration.seconds(1))
      expect(yield* Fiber.join(add)).toBe(201)
      expect((yield* network.log).map((r) => r.scenario?.state)).toEqual([
        "Started",
        "Has item",
        "Has item",
        "Has item"
      ])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            cart[0],
            Route.status(`POST ${base}/cart`, 201, {
              id: "add",
              scenario: "cart",
              newState: "Has item",
              delay: "1 second"
            }),
            cart[2]
          ]
        })
      )
    )
  )

  it("requiredState and newState need a scenario, and a bad state name is refused by name", async () => {
    for (const [route, at] of [
      [Route.text(`GET ${base}/a`, "x", { requiredState: "Started" }), "requiredState"],
      [Route.text(`GET ${base}/a`, "x", { newState: "Next" }), "newState"],
      [Route.text(`GET ${base}/a`, "x", { scenario: "" }), "scenario"]
    ] as const) {
      const refused = await SimulationNetwork.start({ routes: [route] }).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(refused).toMatchObject({ _tag: "InvalidRouteSpec", path: `[0].${at}` })
    }
  })
})

describe("a cart scenario through simnet serve", () => {
  it("answers from the fixture's scenario, and the control endpoint lists, sets and resets it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-scenarios-"))
    const fixture = path.join(dir, "cart.json")
    fs.writeFileSync(
      fixture,
      JSON.stringify({
        routes: [
          {
            id: "empty",
            match: "GET https://shop.example.com/cart",
            respond: { kind: "text", body: "[]" },
            scenario: "my cart",
            requiredState: "Started"
          },
          {
            id: "add",
            match: "POST https://shop.example.com/cart",
            respond: { kind: "status", status: 201 },
            scenario: "my cart",
            newState: "Has item"
          },
          {
            id: "full",
            match: "GET https://shop.example.com/cart",
            respond: { kind: "text", body: '["tea"]' },
            scenario: "my cart",
            requiredState: "Has item"
          }
        ]
      })
    )
    const trace = path.join(dir, "trace.jsonl")
    const served = await serve(["--fixture", fixture, "--quiet", "--trace", trace])
    const get = async () => (await fetch(`${served.base}/shop.example.com/cart`)).text()
    expect(await get()).toBe("[]")
    expect((await fetch(`${served.base}/shop.example.com/cart`, { method: "POST" })).status).toBe(201)
    expect(await get()).toBe(`["tea"]`)
    expect(await (await fetch(`${served.control}/scenarios`)).json()).toEqual({
      scenarios: [{ name: "my cart", state: "Has item", states: ["Started", "Has item"] }]
    })
    expect(await (await served.post("scenarios/reset", {})).json()).toEqual({ reset: true })
    expect(await get()).toBe("[]")
    const put = (name: string, body: unknown) =>
      fetch(`${served.control}/scenarios/${encodeURIComponent(name)}/state`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    expect(await (await put("my cart", { state: "Has item" })).json()).toEqual({ name: "my cart", state: "Has item" })
    expect(await get()).toBe(`["tea"]`)
    const unknown = await put("wishlist", { state: "Has item" })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { tag: "UnknownScenario" } })
    const bad = await put("my cart", { state: "" })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { tag: "BadRequest", path: "state" } })
    // simnet serve's metrics count what its log counts.
    const records = (
      (await (await fetch(`${served.control}/network/log`)).json()) as { records: Array<{ denial?: string }> }
    ).records
    const requests = parse(await (await fetch(`${served.control}/metrics`)).text()).find(
      (family) => family.name === "simnet_requests_total"
    )!.metrics
    expect(requests.reduce((sum, sample) => sum + Number(sample.value), 0)).toBe(records.length)
    expect(
      requests.filter((s) => s.labels?.route === "full" && s.labels.outcome === "answered").map((s) => s.value)
    ).toEqual(["2"])
    // The network's reset puts the scenario back in "Started" too.
    await served.post("reset", {})
    expect(await get()).toBe("[]")
    // The trace has what each request found and moved, and the control calls, which a replay sends again.
    const lines = fs
      .readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(
      lines
        .filter((line) => line["type"] === "request")
        .slice(0, 3)
        .map((line) => line["scenario"])
    ).toEqual([
      { name: "my cart", state: "Started" },
      { name: "my cart", state: "Started", newState: "Has item" },
      { name: "my cart", state: "Has item" }
    ])
    expect(
      lines.filter((line) => String(line["type"]).startsWith("control.scenario")).map((line) => line["type"])
    ).toEqual(["control.scenarios.reset", "control.scenario"])
    const replay = replayTrace(fs.readFileSync(trace, "utf8"))
    expect(
      replay.steps
        .filter((step) => step.kind === "control")
        .map((step) => step.kind === "control" && `${step.method} ${step.path}`)
    ).toEqual(["POST scenarios/reset", "PUT scenarios/my%20cart/state", "POST reset"])
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
