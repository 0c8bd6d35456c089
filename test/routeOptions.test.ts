/**
 * Route options are checked in code as RouteSpec JSON checks them: the keys a constructor takes
 * are derived from RouteSpec's Schema, so `{ tims: 1 }` is refused by name in code as in JSON, and
 * every key JSON knows is taken in code.
 */
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Route, Schemas, SimulationNetwork } from "../src/index.ts"

const m = "GET https://api.example.com/x"

const refusal = (route: Route.Route) =>
  Effect.runPromise(Effect.flip(Effect.flatMap(SimulationNetwork.make(), (network) => network.register(route))))

const registers = (route: Route.Route) =>
  Effect.runPromise(Effect.flatMap(SimulationNetwork.make(), (network) => network.register(route)))

/** Each constructor with the options it is given, by its RouteSpec kind. */
const constructors: ReadonlyArray<
  readonly [keyof typeof Schemas.RouteSpec.RESPONDS, (options: object) => Route.Route]
> = [
  ["text", (o) => Route.text(m, "x", o)],
  ["bytes", (o) => Route.bytes(m, new Uint8Array([1]), o)],
  ["status", (o) => Route.status(m, 204, o)],
  ["jsonSchema", (o) => Route.json(m, Schema.Struct({ a: Schema.String }), o)],
  ["handler", (o) => Route.handler(m, () => new Response("x"), o)],
  ["fault", (o) => Route.fault(m, "reset", o)],
  ["loopback", (o) => Route.loopback("http://127.0.0.1:4096/x", o)],
  ["webSocket", (o) => Route.webSocket("wss://api.example.com/ws", { echo: true }, o)],
  ["mcp", (o) => Route.mcp("https://api.example.com/mcp", { name: "s", version: "1" }, o)],
  ["sse", (o) => Route.sse(m, [{ data: "x" }], o)],
  ["graphql", (o) => Route.graphql("https://api.example.com/graphql", { schema: "type Query { a: String }" }, o)]
]

describe("route options in code", () => {
  it("an unknown option is an InvalidRouteSpec naming it and the nearest known one, as in JSON", async () => {
    const inCode = await refusal(Route.text(m, "x", { tims: 1, template: true, scenario: "cart" } as never))
    expect(inCode).toMatchObject({ _tag: "InvalidRouteSpec", path: "tims" })
    expect(inCode.message).toContain("did you mean times?")
    const inJson = await Effect.runPromise(
      Effect.flip(
        Effect.flatMap(SimulationNetwork.make(), (network) =>
          network.registerSpec({
            match: m,
            respond: { kind: "text", body: "x", template: true },
            tims: 1,
            scenario: "cart"
          })
        )
      )
    )
    expect(inJson).toMatchObject({ _tag: "InvalidRouteSpec", path: "tims" })
    for (const [kind, make] of constructors) {
      expect(await refusal(make({ bogus: true })), kind).toMatchObject({ _tag: "InvalidRouteSpec", path: "bogus" })
    }
    // A respond field of one kind is not an option of another: bytes take no template.
    expect(await refusal(Route.bytes(m, new Uint8Array([1]), { template: true } as never))).toMatchObject({
      path: "template"
    })
    expect(await refusal(Route.text(m, "x", { template: "yes" } as never))).toMatchObject({ path: "respond.template" })
  })

  it("every key RouteSpec knows for a kind is taken in code (but the constructor's own arguments)", async () => {
    const routeLevel = Object.keys(Schemas.RouteSpec.RouteSpec.fields).filter(
      (key) => !["match", "respond", "delayMs"].includes(key)
    )
    const args: Record<string, ReadonlyArray<string>> = {
      text: ["body"],
      bytes: ["base64"],
      status: ["status"],
      jsonSchema: ["schema"],
      handler: ["name"],
      fault: ["fault"],
      webSocket: ["open", "replies", "echo"],
      mcp: ["server"],
      sse: ["events"],
      graphql: Object.keys(Schemas.RouteSpec.RESPONDS.graphql.fields)
    }
    for (const [kind, make] of constructors) {
      // A time in milliseconds in JSON (`retryMs`) is a Duration in code (`retry`), as delayMs is delay.
      const own = Object.keys(Schemas.RouteSpec.RESPONDS[kind].fields)
        .filter((key) => key !== "kind" && !(args[kind] ?? []).includes(key))
        .map((key) => key.replace(/Ms$/, ""))
      for (const key of [...routeLevel, ...own, "delay", "source"]) {
        expect(await registers(make({ [key]: undefined })), `${kind}.${key}`).toHaveLength(1)
      }
    }
  })
})
