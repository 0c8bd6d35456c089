import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, pipe } from "effect"
import { decodeFixture, loadFixture, Route, Routes, SimulationNetwork, type Route as R } from "simnet"

const refusalOf = (routes: R.Route | ReadonlyArray<R.Route>) =>
  Effect.gen(function* () {
    const network = yield* SimulationNetwork.make()
    const error = yield* Effect.flip(network.register(routes))
    expect(yield* network.routes).toEqual([])
    return error
  })

const tempFile = (name: string, text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), "simnet-")), name)
  writeFileSync(file, text)
  return file
}

describe("a route is a value you can inspect", () => {
  it("is tagged and recognised by Route.isRoute; Effect's pipe takes it as any value", () => {
    const route = Route.text("GET https://api.example.com/health", "ok", { id: "health" })
    expect(route._tag).toBe("Route")
    expect(Route.isRoute(route)).toBe(true)
    expect(Route.isRoute({ ...route })).toBe(false)
    expect(Route.isRoute(undefined)).toBe(false)
    expect(pipe(route, (r) => r.kind)).toBe("text")
  })

  it.effect("register refuses what is not a route, naming its index, and registers nothing", () =>
    Effect.gen(function* () {
      const error = yield* refusalOf([
        Route.text("GET https://a.example.com/", "a"),
        { kind: "text" } as unknown as R.Route
      ])
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1]" })
      expect(error.message).toContain("not a route")
    })
  )
})

describe("constructors and families never throw; registration refuses with a typed error", () => {
  it.effect("a matcher whose method is a typo is refused naming the method", () =>
    Effect.gen(function* () {
      const route = Route.text("GETT https://api.example.com/x", "x")
      const error = yield* refusalOf(route)
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "match" })
      expect(error.message).toContain('"GETT" is not an HTTP method')
    })
  )

  it.effect('a fixture route whose match is "GETT https://…" is refused at routes[i].match naming the method', () =>
    Effect.gen(function* () {
      const fixture = yield* decodeFixture({
        routes: [
          { match: "GET https://api.example.com/ok", respond: { kind: "text", body: "ok" } },
          { match: "GETT https://api.example.com/x", respond: { kind: "text", body: "x" } }
        ]
      })
      const error = yield* Effect.flip(SimulationNetwork.make({ routes: fixture.routes }))
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "routes[1].match" })
      expect(error.message).toContain("GETT")
    })
  )

  it.effect("an unknown fault and a bad option are carried to registration", () =>
    Effect.gen(function* () {
      const fault = yield* refusalOf(Route.fault("GET https://a.example.com/", "melt" as "reset"))
      expect(fault).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.fault" })
      const times = yield* refusalOf(Route.text("GET https://a.example.com/", "x", { times: 0 }))
      expect(times).toMatchObject({ _tag: "InvalidRouteSpec", path: "times" })
      const id = yield* refusalOf(Route.text("GET https://a.example.com/", "x", { id: 7 as unknown as string }))
      expect(id).toMatchObject({ _tag: "InvalidRouteSpec", path: "id" })
    })
  )

  it.effect("a family given a bad base URL returns routes whose registration names baseUrl", () =>
    Effect.gen(function* () {
      const routes = Routes.skills("not a url")
      const error = yield* refusalOf(routes)
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "[0].baseUrl" })
    })
  )

  it.effect("delayMs that is not finite is refused at delayMs", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make()
      const error = yield* Effect.flip(
        network.registerSpec({
          match: "GET https://a.example.com/",
          respond: { kind: "text", body: "x" },
          delayMs: Number.POSITIVE_INFINITY
        })
      )
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "delayMs" })
    })
  )
})

describe("fixture files say what is wrong with them", () => {
  it.effect("a file that cannot be read is FixtureUnreadable naming the file", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadFixture("/nonexistent/missing.json"))
      expect(error).toMatchObject({
        _tag: "FixtureUnreadable",
        file: "/nonexistent/missing.json",
        reason: "file not found"
      })
      expect(error.message).toBe("simnet: cannot read fixture /nonexistent/missing.json: file not found")
      const directory = yield* Effect.flip(loadFixture("/tmp"))
      expect(directory).toMatchObject({ _tag: "FixtureUnreadable", file: "/tmp", reason: "is a directory" })
      expect(directory.message).toBe("simnet: cannot read fixture /tmp: is a directory")
    })
  )

  it.effect("a file that is not JSON is FixtureNotJson naming line and column", () =>
    Effect.gen(function* () {
      const file = tempFile(
        "broken.json",
        '{\n  "seed": 1,\n  "routes": [\n    { "match": "GET https://a.example.com/" respond: 1 }\n  ]\n}\n'
      )
      const error = yield* Effect.flip(loadFixture(file))
      expect(error).toMatchObject({ _tag: "FixtureNotJson", file, line: 4, column: 45 })
    })
  )

  it.effect("a bad script in a fixture is InvalidLlmInput naming llm[i]", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(decodeFixture({ llm: [{ steps: [[{ type: "speak" }]] }] }))
      expect(error).toMatchObject({ _tag: "InvalidLlmInput", input: "script", path: "llm[0].steps[0][0]" })
    })
  )
})
