/**
 * A strict network (issue 37), as nock's `disableNetConnect` with `done()`: `strict: true` makes a
 * test fail when a request was refused — even one the app shrugged off — or a route marked
 * `required` was never used, naming them; `verify` checks it at any time. Through the Promise
 * handle, an Effect layer and RouteSpec JSON.
 */
import { Cause, Effect, Exit } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import { Route, SimulationNetwork, StrictViolation } from "simnet"
import { describe, expect, it } from "vitest"

const routes = () => [
  Route.text("GET https://api.example.com/items/:id", "{}", { id: "item", contentType: "application/json" }),
  Route.text("GET https://api.example.com/health", "ok", { id: "health", required: true })
]

describe("strict: true", () => {
  it("close rejects naming what was refused and which required route went unused; a clean run closes quietly", async () => {
    const network = await SimulationNetwork.start({ strict: true, routes: routes() })
    expect(network.routes().find((route) => route.id === "health")).toMatchObject({ required: true })
    await network.fetch("https://api.example.com/items/1")
    // The app shrugs the refusal off; strict does not.
    await network.fetch("https://elsewhere.example.com/x?api_key=secret-key").catch(() => undefined)
    const failed = await network.close().then(
      () => undefined,
      (error: unknown) => error
    )
    expect(failed).toBeInstanceOf(StrictViolation)
    expect(failed).toMatchObject({
      _tag: "StrictViolation",
      denied: 1,
      refused: [{ method: "GET", tag: "UnregisteredRequest" }],
      unused: ["health"]
    })
    expect((failed as Error).message).toBe(
      "simnet: strict: 1 request was refused (GET https://elsewhere.example.com/x?api_key=<redacted>: UnregisteredRequest); and 1 required route was never used (health)"
    )
    // The network is closed all the same.
    expect(network.routes()).toEqual([])

    const clean = await SimulationNetwork.start({ strict: true, routes: routes() })
    await clean.fetch("https://api.example.com/health")
    await clean.verify()
    await expect(clean.close()).resolves.toBeUndefined()

    // Without strict, close never fails; verify still tells.
    const lenient = await SimulationNetwork.start({ routes: routes() })
    await expect(lenient.verify()).rejects.toMatchObject({ _tag: "StrictViolation", denied: 0, unused: ["health"] })
    await expect(lenient.close()).resolves.toBeUndefined()
  })

  it("a strict layer fails the program that used it when its scope closes", async () => {
    const program = Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      yield* client.get("https://api.example.com/items/1")
    })
    const exit = await Effect.runPromiseExit(
      Effect.provide(program, SimulationNetwork.layer({ strict: true, routes: routes() }))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit))
      expect(Cause.squash(exit.cause)).toMatchObject({ _tag: "StrictViolation", unused: ["health"] })
    const ok = await Effect.runPromiseExit(
      Effect.provide(
        Effect.flatMap(HttpClient.HttpClient, (client) => client.get("https://api.example.com/health")),
        SimulationNetwork.layer({ strict: true, routes: routes() })
      )
    )
    expect(Exit.isSuccess(ok)).toBe(true)
  })

  it("required is a RouteSpec field; a bad one or a bad strict is refused naming it", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({
      id: "must",
      match: "GET https://api.example.com/must",
      respond: { kind: "status", status: 204 },
      required: true
    })
    expect(network.routes()).toMatchObject([{ id: "must", required: true }])
    await expect(
      network.registerSpec({
        match: "GET https://api.example.com/x",
        respond: { kind: "status", status: 204 },
        required: "yes"
      })
    ).rejects.toMatchObject({ _tag: "InvalidRouteSpec", path: "required" })
    await expect(SimulationNetwork.start({ strict: "yes" as never })).rejects.toMatchObject({
      _tag: "InvalidNetworkOption",
      option: "strict"
    })
    await network.close()
  })
})
