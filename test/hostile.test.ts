/**
 * Nothing small can freeze or fill simnet (issue 18): each case is an input the audit sent that
 * took the process to gigabytes or stalled it, now refused or bounded. Where the process is
 * `simnet serve`, its peak resident memory is read from `/proc/PID/status` (`VmHWM`).
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { SimulationNetwork } from "simnet"
import { raw, rpc, serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const CONTROL = "/experimental/simulation"
const JSON_TYPE = { "content-type": "application/json" }

/** The peak resident memory of a process, in MB (Linux). */
const peakMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

const jsonSchemaRoute = (jsonSchema: unknown) => ({ match: "GET https://gen.example/", respond: { kind: "jsonSchema", schema: { jsonSchema } } })

describe("driver frames are bounded", () => {
  it("a batch of network.log calls over a full log answers within MAX_REPLY; the calls past it are not run; a batch over 100 calls is refused", async () => {
    const { port, child } = await serve(["--quiet"])
    // Fill the log: 2 000 requests, each with a 2 KB body preview and long headers.
    const body = JSON.stringify({ text: "x".repeat(2000) })
    await Promise.all(Array.from({ length: 2000 }, (_, i) =>
      raw(port, "POST", `/api.example.com/items/${i}`, { ...JSON_TYPE, "x-filler": "y".repeat(1000) }, body)))
    const d = await rpc(`ws://127.0.0.1:${port}${CONTROL}/drive`)
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "network.log", params: { since: 0 } }))
    d.send(JSON.stringify(batch))
    const reply = await d.take((m) => Array.isArray(m)) as Array<any>
    expect(reply).toHaveLength(100)
    const ran = reply.filter((r) => r.result !== undefined)
    const skipped = reply.filter((r) => r.error?.code === -32000)
    expect(ran.length).toBeGreaterThan(0)
    expect(ran.length + skipped.length).toBe(100)
    expect(skipped[0].error.message).toContain("fewer calls per batch")
    expect(Buffer.byteLength(JSON.stringify(reply))).toBeLessThan(4 * 1024 * 1024 + 2 * 1024 * 1024)
    // One call pages: at most 1 000 records, and `since` moves on.
    const first = (await d.call("network.log", { since: 0 })).result as Array<{ seq: number }>
    expect(first.length).toBeGreaterThan(0)
    expect(first.length).toBeLessThanOrEqual(1000)
    const next = (await d.call("network.log", { since: first[first.length - 1].seq })).result as Array<{ seq: number }>
    expect(next[0].seq).toBe(first[first.length - 1].seq + 1)
    expect((await d.call("network.log", { since: 0, limit: 5000 })).error).toMatchObject({ code: -32602, data: { path: "limit" } })
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "llm.pending" }))
    d.send(JSON.stringify(tooMany))
    expect((await d.take((m) => m.error?.code === -32600 && m.id === null)).error.message).toContain("limit is 100")
    // Before the bounds this batch took the server past 1 GB.
    expect(peakMb(child.pid!)).toBeLessThan(400)
    d.ws.close()
  }, 60_000)
})

describe("JSON Schemas are bounded and valid before they register", () => {
  it.effect("a schema whose smallest value is huge is refused at registration with its JSON pointer, in milliseconds", () =>
    Effect.gen(function*() {
      const network = yield* SimulationNetwork.make()
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ type: "array", minItems: 5e7 }, "#/minItems"],
        [{ type: "string", minLength: 10000 }, "#/minLength"],
        [{ type: "object", minProperties: 1000 }, "#/minProperties"],
        [{ type: "object", properties: { deep: { type: "string", minLength: 1e6 } } }, "#/properties/deep/minLength"],
        [{ type: "array", minItems: 100, items: { type: "array", minItems: 100, items: { type: "string", minLength: 100 } } }, "#"]
      ]
      for (const [schema, pointer] of cases) {
        const started = Date.now()
        const error = yield* Effect.flip(network.registerSpec(jsonSchemaRoute(schema)))
        expect(Date.now() - started).toBeLessThan(200)
        expect(error._tag).toBe("InvalidRouteSpec")
        expect(error.message).toContain("limit")
        expect((error as { path?: string }).path).toBe(`respond.schema.jsonSchema${pointer}`)
      }
      expect(yield* network.routes).toHaveLength(0)
      // Within the limits it registers and serves.
      yield* network.registerSpec(jsonSchemaRoute({ type: "array", minItems: 3, items: { type: "string", minLength: 5 } }))
      const body = yield* Effect.promise(() => network.fetch("https://gen.example/").then((r) => r.json()))
      expect(body).toHaveLength(3)
    }))

  it.effect("an invalid JSON Schema ({\"type\":\"nope\"}, at the top or in a property) is refused naming where", () =>
    Effect.gen(function*() {
      const network = yield* SimulationNetwork.make()
      const top = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ type: "nope" })))
      expect((top as { path?: string }).path).toBe("respond.schema.jsonSchema#/type")
      expect(top.message).toContain("not a valid JSON Schema")
      const inner = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ type: "object", properties: { a: { type: "nope" } } })))
      expect((inner as { path?: string }).path).toBe("respond.schema.jsonSchema#/properties/a/type")
      const draft07 = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: "a" })))
      expect((draft07 as { path?: string }).path).toBe("respond.schema.jsonSchema#/required")
      // A pattern RE2 cannot run is refused where it stands.
      const pattern = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ type: "string", pattern: "(a)\\1" })))
      expect((pattern as { path?: string }).path).toBe("respond.schema.jsonSchema#/pattern")
      expect(yield* network.routes).toHaveLength(0)
    }))
})

describe("patterns that arrive as data run on the linear-time engine", () => {
  const document = {
    openapi: "3.1.0",
    info: { title: "redos", version: "1" },
    paths: {
      "/search": {
        post: {
          parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^(a+)+$" } }],
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { name: { type: "string", pattern: "^(a|aa)+$" } } } } } },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } }
        }
      }
    }
  }

  it("an OpenAPI query value and body field that make ^(a+)+$ backtrack are validated in milliseconds (1.5 s at 28 characters before, doubling per character)", async () => {
    const { Routes } = await import("simnet")
    const network = await SimulationNetwork.start({ routes: Routes.openapi(document, { baseUrl: "https://redos.example" }) })
    const evil = `${"a".repeat(40)}!`
    const started = performance.now()
    const query = await network.fetch(`https://redos.example/search?q=${evil}`, { method: "POST", headers: JSON_TYPE, body: "{}" })
    const body = await network.fetch("https://redos.example/search", { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ name: evil }) })
    expect(performance.now() - started).toBeLessThan(500)
    expect(query.status).toBe(422)
    expect(body.status).toBe(422)
    // A matching value still passes.
    expect((await network.fetch("https://redos.example/search?q=aaaa", { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ name: "aaa" }) })).status).toBe(200)
  })
})
