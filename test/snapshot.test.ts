import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { InvalidRouteSpec, SimulationNetwork, type SimulationNetworkApi } from "simnet"

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
const overTheWire = (network: SimulationNetworkApi) =>
  Effect.map(network.state, (state) => JSON.parse(JSON.stringify(state)) as unknown)

const mcpUrl = "https://mcp.example.com/mcp"

/** An MCP server in RouteSpec JSON: `forecast` has an output schema and no result, so its answers are generated. */
const mcpSpec = (server: Record<string, unknown> = {}) => ({
  id: "tools",
  match: mcpUrl,
  respond: {
    kind: "mcp",
    server: {
      name: "tools",
      version: "1.0.0",
      tools: [
        {
          name: "forecast",
          inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          outputSchema: {
            type: "object",
            properties: { celsius: { type: "integer" }, sky: { type: "string" }, wind: { type: "number" } },
            required: ["celsius", "sky", "wind"]
          }
        }
      ],
      ...server
    }
  }
})

/** One JSON-RPC post to the MCP route: its status, session header and body text. */
const rpc = (network: SimulationNetworkApi, message: Record<string, unknown>, session?: string) =>
  Effect.promise(async () => {
    const response = await network.fetch(mcpUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message })
    })
    return {
      status: response.status,
      session: response.headers.get("mcp-session-id") ?? undefined,
      body: await response.text()
    }
  })

const initialize = (network: SimulationNetworkApi) =>
  rpc(network, {
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
  })

const call = (network: SimulationNetworkApi, name: string, args: Record<string, unknown>, session?: string) =>
  rpc(network, { method: "tools/call", params: { name, arguments: args } }, session)

const toolNames = (network: SimulationNetworkApi, session?: string) =>
  Effect.map(rpc(network, { method: "tools/list" }, session), (reply) =>
    (JSON.parse(reply.body).result.tools as Array<{ name: string }>).map((tool) => tool.name)
  )

describe("snapshots", () => {
  it.effect(
    "restore brings back the request log, the model's log and counts per key, and a failThenRespond rule's progress",
    () =>
      Effect.gen(function* () {
        const a = yield* SimulationNetwork.make({ seed: 3 })
        yield* a.registerSpec({ family: "openai" })
        yield* a.registerSpec({
          id: "item",
          match: "GET https://api.example.com/item",
          respond: { kind: "text", body: "item" }
        })
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
        expect(yield* b.counters).toMatchObject({ requests: 3, answered: 2, denied: 1 })
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
      })
  )

  it.effect("a snapshot without a log (written by hand or by an older simnet) still restores", () =>
    Effect.gen(function* () {
      const b = yield* SimulationNetwork.make()
      yield* b.restore({
        seed: 1,
        routes: [
          {
            source: "control",
            spec: { id: "x", match: "GET https://x.example/", respond: { kind: "text", body: "x" } }
          }
        ]
      })
      expect(yield* b.log).toEqual([])
      expect(yield* Effect.promise(() => b.fetch("https://x.example/").then((r) => r.text()))).toBe("x")
    })
  )

  it.effect(
    "a generated MCP tool result goes on from the snapshot: the third call after a restore answers as the original's third",
    () =>
      Effect.gen(function* () {
        const a = yield* SimulationNetwork.make({ seed: 5 })
        yield* a.registerSpec(mcpSpec({ stateless: true }))
        const first = yield* call(a, "forecast", { city: "Oslo" })
        yield* call(a, "forecast", { city: "Oslo" })
        const state = yield* overTheWire(a)

        const b = yield* SimulationNetwork.make()
        yield* b.restore(state)
        const fromA = yield* call(a, "forecast", { city: "Oslo" })
        const fromB = yield* call(b, "forecast", { city: "Oslo" })
        expect(fromA.status).toBe(200)
        expect(JSON.parse(fromA.body).result.structuredContent).toMatchObject({
          celsius: expect.any(Number),
          sky: expect.any(String)
        })
        expect(fromB.body).toBe(fromA.body)
        // The occurrence seeds the answer: a restore that forgot it would answer as the first call.
        expect(fromA.body).not.toBe(first.body)
        expect(b.mcp.counts("tools")).toEqual({ forecast: 3 })
      })
  )

  it.effect(
    "an MCP session opened before the snapshot is accepted after a restore, an ended one is not, and both networks issue the same next session id",
    () =>
      Effect.gen(function* () {
        const a = yield* SimulationNetwork.make({ seed: 9 })
        yield* a.registerSpec(mcpSpec())
        const kept = (yield* initialize(a)).session!
        const ended = (yield* initialize(a)).session!
        yield* Effect.promise(() => a.fetch(mcpUrl, { method: "DELETE", headers: { "mcp-session-id": ended } }))
        const state = yield* overTheWire(a)

        const b = yield* SimulationNetwork.make()
        yield* b.restore(state)
        const listed = yield* rpc(b, { method: "tools/list" }, kept)
        expect(listed.status).toBe(200)
        expect(yield* toolNames(b, kept)).toEqual(["forecast"])
        expect((yield* rpc(b, { method: "tools/list" }, ended)).status).toBe(404)
        expect(b.mcp.get("tools")?.sessions).toEqual([
          { id: kept, protocolVersion: "2025-11-25", client: { name: "test", version: "1" } }
        ])
        const nextA = (yield* initialize(a)).session
        const nextB = (yield* initialize(b)).session
        expect(nextB).toBe(nextA)
        expect([kept, ended]).not.toContain(nextA)
      })
  )

  it.effect(
    "an MCP definition changed with network.mcp.update comes back when it is JSON; one with a handler is listed as unserializable",
    () =>
      Effect.gen(function* () {
        const a = yield* SimulationNetwork.make({ seed: 1 })
        yield* a.registerSpec(mcpSpec({ stateless: true }))
        yield* a.mcp.update("tools", (server) => ({
          ...server,
          tools: [...(server.tools ?? []), { name: "fixed", result: "always this" }]
        }))
        const state = yield* a.state
        expect(state.unserializable).toEqual([])

        const b = yield* SimulationNetwork.make()
        yield* b.restore(JSON.parse(JSON.stringify(state)))
        expect(yield* toolNames(b)).toEqual(["forecast", "fixed"])
        expect(JSON.parse((yield* call(b, "fixed", {})).body).result.content).toEqual([
          { type: "text", text: "always this" }
        ])

        yield* a.mcp.update("tools", (server) => ({
          ...server,
          tools: [...(server.tools ?? []), { name: "coded", handler: () => "from code" }]
        }))
        const coded = yield* a.state
        expect(coded.unserializable).toEqual([
          {
            id: "tools",
            kind: "mcp-definition",
            source: "code",
            match: expect.any(String),
            message: expect.stringContaining("handler")
          }
        ])
        // What cannot be written is not restored: the route serves its RouteSpec definition.
        yield* b.restore(JSON.parse(JSON.stringify(coded)))
        expect(yield* toolNames(b)).toEqual(["forecast"])
      })
  )

  it.effect("a bad MCP state is refused naming its JSON path, and the refused restore changes nothing", () =>
    Effect.gen(function* () {
      const a = yield* SimulationNetwork.make({ seed: 4 })
      yield* a.registerSpec(mcpSpec({ stateless: true }))
      yield* call(a, "forecast", { city: "Oslo" })
      const state = JSON.parse(JSON.stringify(yield* a.state))
      const [server] = state.mcp

      const b = yield* SimulationNetwork.make({ seed: 2 })
      yield* b.registerSpec([
        mcpSpec({ stateless: true }),
        { id: "item", match: "GET https://api.example.com/item", respond: { kind: "text", body: "item" } }
      ])
      const before = yield* call(b, "forecast", { city: "Oslo" })
      const badCount = yield* Effect.flip(b.restore({ ...state, mcp: [{ ...server, issued: -1 }] }))
      expect(badCount).toBeInstanceOf(InvalidRouteSpec)
      expect(badCount).toMatchObject({ path: "mcp[0].issued" })
      const badDefinition = yield* Effect.flip(
        b.restore({
          ...state,
          mcp: [{ ...server, definition: { name: "tools", version: "1", tools: [{ name: "no spaces", result: "x" }] } }]
        })
      )
      expect(badDefinition).toMatchObject({ _tag: "InvalidRouteSpec", path: "mcp[0].definition.tools[0].name" })
      expect(yield* Effect.flip(b.restore({ ...state, mcp: [server, server] }))).toMatchObject({ path: "mcp[1].id" })
      expect(b.seed).toBe(2)
      expect((yield* b.routes).map((route) => route.id)).toEqual(["tools", "item"])
      expect(b.mcp.counts("tools")).toEqual({ forecast: 1 })
      expect((yield* b.log).length).toBe(1)
      // b goes on as if nothing had been asked of it: its second call answers as a fresh network's second.
      const fresh = yield* SimulationNetwork.make({ seed: 2 })
      yield* fresh.registerSpec(mcpSpec({ stateless: true }))
      expect((yield* call(fresh, "forecast", { city: "Oslo" })).body).toBe(before.body)
      expect((yield* call(b, "forecast", { city: "Oslo" })).body).toBe(
        (yield* call(fresh, "forecast", { city: "Oslo" })).body
      )
    })
  )
})

describe("a restore whose routes are refused", () => {
  it.effect("puts back the routes with their use, the log, the counters and the seed", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make({ seed: 9 })
      yield* network.registerSpec([
        { id: "once", match: "GET https://api.example.com/once", times: 2, respond: { kind: "text", body: "one" } },
        {
          id: "user",
          match: "GET https://api.example.com/users/:id",
          respond: {
            kind: "jsonSchema",
            schema: { jsonSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }
          }
        }
      ])
      yield* Effect.promise(() => network.fetch("https://api.example.com/once"))
      const first = yield* Effect.promise(() => network.fetch("https://api.example.com/users/1").then((r) => r.text()))
      yield* Effect.promise(() => network.fetch("https://api.example.com/nothing").catch(() => undefined))
      const state = JSON.parse(JSON.stringify(yield* network.state))
      const before = { log: yield* network.log, counters: yield* network.counters, routes: yield* network.routes }

      // Two routes under one id: refused when they are registered, after the decoding passed.
      const duplicate = { ...state, routes: [...state.routes, state.routes[0]] }
      const refused = yield* Effect.flip(network.restore(duplicate))
      expect(refused).toMatchObject({ _tag: "InvalidRouteSpec" })

      expect(network.seed).toBe(9)
      expect(yield* network.log).toEqual(before.log)
      expect(yield* network.counters).toEqual(before.counters)
      expect(yield* network.routes).toEqual(before.routes)
      // The route's use and the generated route's occurrences carry on from where they were.
      expect((yield* Effect.promise(() => network.fetch("https://api.example.com/once"))).status).toBe(200)
      const used = yield* Effect.flip(Effect.tryPromise(() => network.fetch("https://api.example.com/once")))
      expect(((used.cause as TypeError).cause as { readonly _tag: string })._tag).toBe("UnregisteredRequest")
      const second = yield* Effect.promise(() => network.fetch("https://api.example.com/users/1").then((r) => r.text()))
      const fresh = yield* SimulationNetwork.make({ seed: 9 })
      yield* fresh.restore(state)
      expect(second).toBe(
        yield* Effect.promise(() => fresh.fetch("https://api.example.com/users/1").then((r) => r.text()))
      )
      expect(second).not.toBe(first)
    })
  )
})
