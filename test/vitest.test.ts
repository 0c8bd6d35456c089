/**
 * `simnet/vitest` from the inside: each test's `network` is fresh, seeded from the test's name,
 * and closed after it; options come per file or per `describe` through `test.override`. (A test
 * that fails because its code swallowed a refusal runs in a consumer project: `test/pack.test.ts`.)
 */
import { describe, expect } from "vitest"
import { Route, SimulationNetwork } from "../src/index.ts"
import { test } from "../src/vitest.ts"

const kept: Array<{ readonly close: () => Promise<void>; readonly routes: () => ReadonlyArray<unknown> }> = []

describe("the network fixture", () => {
  // `test.override` sets the options of the describe it is called in (each describe has its own).
  test.override({
    simnet: { routes: [Route.text("GET https://api.example.com/hi", "hi", { id: "hi", required: true })] }
  })

  test("answers from the options' routes, on a seed from the test's name", async ({ network }) => {
    expect(await (await network.fetch("https://api.example.com/hi")).text()).toBe("hi")
    const named = await SimulationNetwork.start({
      seed: "the network fixture > answers from the options' routes, on a seed from the test's name"
    })
    expect(network.network.seed).toBe(named.network.seed)
    await named.close()
    kept.push(network)
  })

  test("is fresh for every test, and the last one was closed", async ({ network }) => {
    expect(network.log()).toEqual([])
    expect(kept[0].routes()).toEqual([])
    await network.fetch("https://api.example.com/hi")
  })
})

describe("options per describe", () => {
  test.override({ simnet: { allowRefused: true, seed: 7 } })

  test("a test that expects refusals says so; a given seed is kept", async ({ network }) => {
    const refused = await network.fetch("https://api.example.com/nope").then(
      () => undefined,
      (e: TypeError) => e.cause
    )
    expect(refused).toMatchObject({ _tag: "UnregisteredRequest" })
    expect(network.network.seed).toBe(7)
  })
})
