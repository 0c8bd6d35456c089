/**
 * Nothing small can freeze or fill simnet (issue 18): each case is an input the audit sent that
 * took the process to gigabytes or stalled it, now refused or bounded. Where the process is
 * `simnet serve`, its peak resident memory is read from `/proc/PID/status` (`VmHWM`).
 */
import { once } from "node:events"
import * as net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { SimulationNetwork } from "simnet"
import { peakMb, raw, rpc, serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const CONTROL = "/experimental/simulation"
const JSON_TYPE = { "content-type": "application/json" }

const jsonSchemaRoute = (jsonSchema: unknown) => ({
  match: "GET https://gen.example/",
  respond: { kind: "jsonSchema", schema: { jsonSchema } }
})

describe("driver frames are bounded", () => {
  it("a batch of network.log calls over a full log answers within MAX_REPLY; the calls past it are not run; a batch over 100 calls is refused", async () => {
    const { port, child } = await serve(["--quiet"])
    // Fill the log: 2 000 requests, each with a 2 KB body preview and long headers.
    const body = JSON.stringify({ text: "x".repeat(2000) })
    await Promise.all(
      Array.from({ length: 2000 }, (_, i) =>
        raw(port, "POST", `/api.example.com/items/${i}`, { ...JSON_TYPE, "x-filler": "y".repeat(1000) }, body)
      )
    )
    const d = await rpc(`ws://127.0.0.1:${port}${CONTROL}/drive`)
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "network.log",
      params: { since: 0 }
    }))
    d.send(JSON.stringify(batch))
    const reply = (await d.take((m) => Array.isArray(m))) as Array<any>
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
    expect((await d.call("network.log", { since: 0, limit: 5000 })).error).toMatchObject({
      code: -32602,
      data: { path: "limit" }
    })
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "llm.pending" }))
    d.send(JSON.stringify(tooMany))
    expect((await d.take((m) => m.error?.code === -32600 && m.id === null)).error.message).toContain("limit is 100")
    // Before the bounds this batch took the server past 1 GB.
    expect(peakMb(child.pid!)).toBeLessThan(400)
    d.ws.close()
  }, 60_000)
})

describe("JSON Schemas are bounded and valid before they register", () => {
  it.effect(
    "a schema whose smallest value is huge is refused at registration with its JSON pointer, in milliseconds",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork.make()
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ type: "array", minItems: 5e7 }, "#/minItems"],
          [{ type: "string", minLength: 10000 }, "#/minLength"],
          [{ type: "object", minProperties: 1000 }, "#/minProperties"],
          [{ type: "object", properties: { deep: { type: "string", minLength: 1e6 } } }, "#/properties/deep/minLength"],
          [
            {
              type: "array",
              minItems: 100,
              items: { type: "array", minItems: 100, items: { type: "string", minLength: 100 } }
            },
            "#"
          ]
        ]
        for (const [schema, pointer] of cases) {
          const error = yield* Effect.flip(network.registerSpec(jsonSchemaRoute(schema)))
          expect(error._tag).toBe("InvalidRouteSpec")
          expect(error.message).toContain("limit")
          expect((error as { path?: string }).path).toBe(`respond.schema.jsonSchema${pointer}`)
        }
        expect(yield* network.routes).toHaveLength(0)
        // Within the limits it registers and serves.
        yield* network.registerSpec(
          jsonSchemaRoute({ type: "array", minItems: 3, items: { type: "string", minLength: 5 } })
        )
        const body = yield* Effect.promise(() => network.fetch("https://gen.example/").then((r) => r.json()))
        expect(body).toHaveLength(3)
      })
  )

  it.effect(
    "schemas whose cost grew with depth or repetition register in milliseconds or are refused: 30 levels deep (minutes before), a $ref chain that doubles, a thousand 60-character strings (14 s before)",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork.make()
        // What these cost before is measured in bench/generate.bench.ts; here, each must settle (the test's timeout bounds it).
        const timed = <A, E>(effect: Effect.Effect<A, E>) => Effect.map(Effect.exit(effect), (exit) => ({ exit }))
        const deep = JSON.parse(
          '{"type":"object","required":["a"],"properties":{"a":'.repeat(30) + '{"type":"string"}' + "}}".repeat(30)
        )
        const nested = yield* timed(
          network.registerSpec({
            match: "GET https://deep.example/",
            respond: { kind: "jsonSchema", schema: { jsonSchema: deep } }
          })
        )
        expect(nested.exit._tag).toBe("Success")
        const defs: Record<string, unknown> = { d25: { type: "string" } }
        for (let i = 0; i < 25; i++)
          defs[`d${i}`] = {
            type: "object",
            required: ["a", "b"],
            properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } }
          }
        const doubling = yield* timed(network.registerSpec(jsonSchemaRoute({ $ref: "#/$defs/d0", $defs: defs })))
        expect(doubling.exit._tag).toBe("Failure")
        const strings = yield* timed(
          network.registerSpec({
            match: "GET https://strings.example/",
            respond: {
              kind: "jsonSchema",
              schema: { jsonSchema: { type: "array", minItems: 1000, items: { type: "string", minLength: 60 } } }
            }
          })
        )
        expect(strings.exit._tag).toBe("Success")
        const body = yield* Effect.promise(() =>
          network.fetch("https://strings.example/").then((r) => r.json() as Promise<Array<string>>)
        )
        expect(body.length).toBeGreaterThanOrEqual(1000)
        expect(body.every((s) => s.length >= 60)).toBe(true)
      })
  )

  it("SIGTERM stops simnet serve at once while a registration runs", async () => {
    const { port, child } = await serve(["--quiet"])
    // The whole request is written to the server's socket before the signal (the test's timeout bounds the exit).
    const body = JSON.stringify(jsonSchemaRoute({ type: "object", minProperties: 256 }))
    const socket = net.connect(port, "127.0.0.1")
    socket.on("error", () => {})
    await once(socket, "connect")
    await new Promise<void>((resolve) =>
      socket.write(
        `POST ${CONTROL}/network/register HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        () => resolve()
      )
    )
    child.kill("SIGTERM")
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
    expect(code).toBe(0)
    socket.destroy()
  })

  it.effect('an invalid JSON Schema ({"type":"nope"}, at the top or in a property) is refused naming where', () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make()
      const top = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ type: "nope" })))
      expect((top as { path?: string }).path).toBe("respond.schema.jsonSchema#/type")
      expect(top.message).toContain("not a valid JSON Schema")
      const inner = yield* Effect.flip(
        network.registerSpec(jsonSchemaRoute({ type: "object", properties: { a: { type: "nope" } } }))
      )
      expect((inner as { path?: string }).path).toBe("respond.schema.jsonSchema#/properties/a/type")
      const draft07 = yield* Effect.flip(
        network.registerSpec(
          jsonSchemaRoute({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: "a" })
        )
      )
      expect((draft07 as { path?: string }).path).toBe("respond.schema.jsonSchema#/required")
      // A pattern RE2 cannot run is refused where it stands.
      const pattern = yield* Effect.flip(network.registerSpec(jsonSchemaRoute({ type: "string", pattern: "(a)\\1" })))
      expect((pattern as { path?: string }).path).toBe("respond.schema.jsonSchema#/pattern")
      expect(yield* network.routes).toHaveLength(0)
    })
  )
})

describe("patterns that arrive as data run on the linear-time engine", () => {
  const document = {
    openapi: "3.1.0",
    info: { title: "redos", version: "1" },
    paths: {
      "/search": {
        post: {
          parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^(a+)+$" } }],
          requestBody: {
            content: {
              "application/json": {
                schema: { type: "object", properties: { name: { type: "string", pattern: "^(a|aa)+$" } } }
              }
            }
          },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } }
        }
      }
    }
  }

  it("an OpenAPI query value and body field that make ^(a+)+$ backtrack are validated in milliseconds (1.5 s at 28 characters before, doubling per character)", async () => {
    const { Routes } = await import("simnet")
    const network = await SimulationNetwork.start({
      routes: Routes.openapi(document, { baseUrl: "https://redos.example" })
    })
    // 40 characters would backtrack for days (1.5 s at 28, doubling per character): the test's timeout bounds it.
    const evil = `${"a".repeat(40)}!`
    const query = await network.fetch(`https://redos.example/search?q=${evil}`, {
      method: "POST",
      headers: JSON_TYPE,
      body: "{}"
    })
    const body = await network.fetch("https://redos.example/search", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ name: evil })
    })
    expect(query.status).toBe(422)
    expect(body.status).toBe(422)
    // A matching value still passes.
    expect(
      (
        await network.fetch("https://redos.example/search?q=aaaa", {
          method: "POST",
          headers: JSON_TYPE,
          body: JSON.stringify({ name: "aaa" })
        })
      ).status
    ).toBe(200)
  })
})

describe("an MCP tool's input patterns run on the linear-time engine", () => {
  it("a tools/call whose argument is a near miss of ^(a+)+$ is refused in milliseconds; a match is answered", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    const handle = await SimulationNetwork.start()
    await handle.registerSpec({
      id: "mcp",
      match: "https://mcp.example/mcp",
      respond: {
        kind: "mcp",
        server: {
          name: "s",
          version: "1",
          tools: [
            {
              name: "find",
              inputSchema: {
                type: "object",
                properties: { q: { type: "string", pattern: "^(a+)+$" } },
                required: ["q"]
              },
              result: { content: [{ type: "text", text: "found" }] }
            }
          ]
        }
      }
    })
    const client = new Client({ name: "t", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL("https://mcp.example/mcp"), { fetch: handle.fetch }))
    const miss = await client.callTool({ name: "find", arguments: { q: `${"a".repeat(40)}!` } })
    expect(miss.isError).toBe(true)
    expect(JSON.stringify(miss.content)).toContain("pattern")
    const hit = await client.callTool({ name: "find", arguments: { q: "aaaa" } })
    expect(hit.content).toEqual([{ type: "text", text: "found" }])
    // A structural error keeps Effect's message.
    const wrong = await client.callTool({ name: "find", arguments: { q: 1 } })
    expect(wrong.isError).toBe(true)
    await client.close()
  })
})

describe("bodies are bounded where simnet keeps or takes them", () => {
  it("simnet serve answers 413 past --body-limit, declared or streamed, on model and MCP paths alike, and its memory stays flat", async () => {
    const { port, child } = await serve(["--quiet", "--body-limit", String(1024 * 1024)])
    const big = JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(2 * 1024 * 1024) }] })
    const declared = await raw(port, "POST", "/api.openai.com/v1/chat/completions", JSON_TYPE, big)
    expect(declared.status).toBe(413)
    expect(JSON.parse(declared.body).error).toMatchObject({ tag: "PayloadTooLarge", limit: 1024 * 1024 })
    // Streamed (chunked, no length): refused once the limit is passed.
    const streamed = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/mcp.example.com/mcp",
            headers: { ...JSON_TYPE, accept: "application/json, text/event-stream" }
          },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          }
        )
        req.on("error", reject)
        const chunk = "y".repeat(64 * 1024)
        let sent = 0
        const pump = () => {
          while (sent < 3 * 1024 * 1024) {
            sent += chunk.length
            if (!req.write(chunk)) return req.once("drain", pump)
          }
          req.end()
        }
        pump()
      })
    })
    expect(streamed).toBe(413)
    // Within the limit the route answers as before.
    const small = await raw(
      port,
      "POST",
      "/api.openai.com/v1/chat/completions",
      JSON_TYPE,
      JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
    )
    expect(small.status).toBe(200)
    expect(peakMb(child.pid!)).toBeLessThan(300)
  }, 60_000)

  it("simnet serve refuses a 60 MB model request by default (limit 32 MiB) with its peak memory far below the 2.2 GB a 200 MB one took", async () => {
    const { port, child } = await serve(["--quiet"])
    const response = await raw(
      port,
      "POST",
      "/api.openai.com/v1/chat/completions",
      JSON_TYPE,
      Buffer.alloc(60 * 1024 * 1024, 0x20)
    )
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body).error.limit).toBe(32 * 1024 * 1024)
    expect(peakMb(child.pid!)).toBeLessThan(300)
  }, 60_000)

  it("the model log holds no entry past logBytes: the newest keeps its place and fields, not its body", async () => {
    const { Routes } = await import("simnet")
    const handle = await SimulationNetwork.start({ routes: Routes.openai(), logBytes: 1_000_000 })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const huge = "z".repeat(3_000_000)
    const response = await handle.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: huge }] })
    })
    expect(response.status).toBe(200)
    const [entry] = handle.llm.log
    expect(entry.model).toBe("gpt-4o")
    expect(entry.body).toMatchObject({ simnet: expect.stringContaining("body omitted"), logBytes: 1_000_000 })
    expect(entry.body).toHaveProperty("bytes")
    expect(entry.lastUserMessage!.length).toBeLessThanOrEqual(4096)
    expect(JSON.stringify(handle.llm.log).length).toBeLessThan(20_000)
  })

  it("calls of made-up MCP tool names hold no memory per name or argument past the bound", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    const handle = await SimulationNetwork.start()
    await handle.registerSpec({
      id: "mcp",
      match: "https://mcp.example/mcp",
      respond: {
        kind: "mcp",
        server: {
          name: "s",
          version: "1",
          tools: [
            { name: "real", inputSchema: { type: "object" }, result: { content: [{ type: "text", text: "ok" }] } }
          ]
        }
      }
    })
    const client = new Client({ name: "t", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL("https://mcp.example/mcp"), { fetch: handle.fetch }))
    for (let i = 0; i < 2000; i++) {
      const result = await client.callTool({
        name: `${"made-up-".repeat(i % 3 === 0 ? 100 : 1)}${i}`,
        arguments: { i }
      })
      expect(result.isError).toBe(true)
    }
    const counts = handle.mcp.counts("mcp")
    expect(Object.keys(counts).length).toBeLessThanOrEqual(1025)
    expect(Object.keys(counts).every((name) => name.length <= 256)).toBe(true)
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(2000)
    // No occurrence per made-up call: the snapshot's MCP state stays small.
    const state = await Effect.runPromise(handle.network.state)
    expect(JSON.stringify(state.mcp).length).toBeLessThan(60_000)
    await client.close()
  }, 60_000)
})

describe("bad input is refused, and a refusal changes nothing", () => {
  it.effect("RouteSpec JSON refuses unknown keys with their path and the nearest known name", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make()
      const cases: ReadonlyArray<readonly [unknown, string, string]> = [
        [
          { match: "GET https://a.example/", respond: { kind: "text", body: "x", delay: 5 } },
          "respond.delay",
          "did you mean delayMs? (a key of the top level)"
        ],
        [
          { match: "GET https://a.example/", respond: { kind: "text", body: "x" }, tims: 2 },
          "tims",
          "did you mean times?"
        ],
        [
          { match: "GET https://a.example/", respond: { kind: "text", body: "x" }, wat: true },
          "wat",
          "Known keys here: id, match, respond, times, priority, delayMs"
        ],
        [
          {
            match: { method: "POST", url: "https://a.example/", body: { a: 1 } },
            respond: { kind: "text", body: "x" }
          },
          "match.body",
          "Known keys here: method, url, regex, query, headers, json"
        ],
        [
          [
            { match: "GET https://b.example/", respond: { kind: "text", body: "ok" } },
            { match: "GET https://a.example/", respond: { kind: "status", status: 204, heders: {} } }
          ],
          "[1].respond.heders",
          "did you mean headers?"
        ],
        [{ family: "models", baseURL: "https://x.example" }, "baseURL", "did you mean baseUrl?"]
      ]
      for (const [spec, path, hint] of cases) {
        const error = yield* Effect.flip(network.registerSpec(spec))
        expect(error._tag).toBe("InvalidRouteSpec")
        expect((error as { path?: string }).path).toBe(path)
        expect(error.message).toContain(hint)
      }
      expect(yield* network.routes).toHaveLength(0)
    })
  )

  it("a fixture file with a key it does not know is refused naming it", async () => {
    const { decodeFixture } = await import("simnet")
    const result = await Effect.runPromise(
      Effect.flip(decodeFixture({ seed: 1, rutes: [] }) as Effect.Effect<unknown, { message: string; path?: string }>)
    )
    expect(result.path).toBe("rutes")
    expect(result.message).toContain("did you mean routes?")
  })

  it("deep inputs are refused with -32602 or 400 and a path, no stack trace; with --trace a change is applied and traced, or refused and neither", async () => {
    const { mkdtempSync, readFileSync: read } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const trace = join(mkdtempSync(join(tmpdir(), "simnet-deep-")), "trace.jsonl")
    const { port, base } = await serve([
      "--quiet",
      "--drive",
      "--trace",
      trace,
      "--fixture",
      "test/fixtures/openai-only.json"
    ])
    let deep: unknown = "leaf"
    for (let i = 0; i < 100_000; i++) deep = { d: deep }
    // V8's JSON.stringify cannot write this; build the text by hand.
    const deepText = `${'{"d":'.repeat(100_000)}"leaf"${"}".repeat(100_000)}`
    const enqueue = await raw(
      port,
      "POST",
      `${CONTROL}/llm/enqueue`,
      JSON_TYPE,
      `{"steps":[[{"type":"tool_call","name":"f","input":${deepText}}]]}`
    )
    expect(enqueue.status).toBe(400)
    expect(JSON.parse(enqueue.body).error).toMatchObject({ tag: "TooDeep", path: "$" })
    const restore = await raw(
      port,
      "POST",
      `${CONTROL}/snapshot`,
      JSON_TYPE,
      `{"seed":0,"routes":[],"llm":{"callCount":0,"scripts":{"queued":[],"consumed":0},"rules":[],"log":[{"body":${deepText}}]}}`
    )
    expect(restore.status).toBe(400)
    // A deep tool call from a driver: -32602 naming where, no stack trace or file path.
    const d = await rpc(`ws://127.0.0.1:${port}${CONTROL}/drive`)
    await d.call("llm.attach")
    const pending = fetch(`${base}/api.openai.com/v1/chat/completions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] })
    })
    const { params } = await d.take((m) => m.method === "llm.request")
    let input: unknown = 1
    for (let i = 0; i < 2000; i++) input = [input]
    const reply = await d.call("llm.chunk", {
      id: params.id,
      items: [{ type: "toolCall", id: "c1", name: "f", input }]
    })
    expect(reply.error.code).toBe(-32602)
    expect(JSON.stringify(reply.error)).not.toMatch(/\/work\/|\bat [A-Za-z.]+ \(/)
    await d.call("llm.finish", { id: params.id })
    expect((await pending).status).toBe(200)
    d.ws.close()
    // A 300-deep input is within bounds: applied and traced.
    let ok: unknown = "leaf"
    for (let i = 0; i < 300; i++) ok = { d: ok }
    expect(
      (
        await raw(
          port,
          "POST",
          `${CONTROL}/llm/enqueue`,
          JSON_TYPE,
          JSON.stringify({ steps: [[{ type: "tool_call", name: "f", input: ok }]] })
        )
      ).status
    ).toBe(201)
    expect((await raw(port, "GET", `${CONTROL}/snapshot`)).status).toBe(200)
    const lines = read(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type?: string })
    // The refused chunk, enqueue and restore left no line; the applied finish and enqueue left theirs.
    expect(lines.filter((line) => line.type?.startsWith("control.")).map((line) => line.type)).toEqual([
      "control.drive",
      "control.enqueue"
    ])
    expect(lines.find((line) => line.type === "control.drive")).toMatchObject({ method: "llm.finish" })
  }, 60_000)

  it.effect(
    "a restore with negative counts, a repeated seq or a deep model-log body is refused and changes nothing",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork.make()
        yield* network.registerSpec({ id: "a", match: "GET https://a.example/", respond: { kind: "text", body: "a" } })
        yield* Effect.promise(() => network.fetch("https://a.example/"))
        yield* Effect.promise(() => network.fetch("https://a.example/"))
        const good = yield* network.state
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ ...good, counters: { requests: -5, answered: 0, denied: 0 } }, "counters.requests"],
          [{ ...good, usage: { a: { hits: -1 } } }, "usage.a.hits"],
          [{ ...good, log: [good.log[0], { ...good.log[1], seq: good.log[0].seq }] }, "log[1].seq"],
          [{ ...good, llm: { ...good.llm!, callCount: -1 } }, "llm.callCount"]
        ]
        for (const [state, path] of cases) {
          const error = yield* Effect.flip(network.restore(state))
          expect(error._tag).toBe("InvalidRouteSpec")
          expect((error as { path?: string }).path).toBe(path)
        }
        const after = yield* network.state
        expect(after.log).toEqual(good.log)
        expect(after.counters).toEqual(good.counters)
      })
  )

  it("after 10 000 requests simnet serve's snapshot (over 1 MiB) restores through POST snapshot", async () => {
    const { port } = await serve(["--quiet"])
    for (let i = 0; i < 10_000; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) => raw(port, "GET", `/api.example.com/items/${i + j}?page=${i}`))
      )
    }
    const snapshot = await raw(port, "GET", `${CONTROL}/snapshot`)
    expect(snapshot.body.length).toBeGreaterThan(1024 * 1024)
    const restored = await raw(port, "POST", `${CONTROL}/snapshot`, JSON_TYPE, snapshot.body)
    expect(restored.status).toBe(200)
    const again = JSON.parse((await raw(port, "GET", `${CONTROL}/snapshot`)).body) as { counters: { requests: number } }
    expect(again.counters.requests).toBe(10_000)
  }, 60_000)
})

describe("generation at serve time has a budget", () => {
  it.effect(
    "a schema written in code whose value is 9 MB is refused as GeneratedValueRejected naming the budget, not served",
    () =>
      Effect.gen(function* () {
        const { Route } = yield* Effect.promise(() => import("simnet"))
        const { Schema } = yield* Effect.promise(() => import("effect"))
        const network = yield* SimulationNetwork.make()
        const error = yield* Effect.flip(
          network.register(Route.json("GET https://big.example/", Schema.Literal("x".repeat(9 * 1024 * 1024))))
        )
        expect(error._tag).toBe("GeneratedValueRejected")
        expect(error.message).toContain("GENERATION_BUDGET.bytes")
        expect(yield* network.routes).toHaveLength(0)
      })
  )
})
