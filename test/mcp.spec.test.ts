import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer } from "effect"
import * as McpClient from "effect/ai/McpClient"
import * as McpProtocol from "effect/ai/McpProtocol"
import { Route, Routes, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const spec = {
  id: "tickets",
  match: "https://mcp.tickets.example/mcp",
  respond: {
    kind: "mcp",
    server: {
      name: "tickets",
      version: "0.3.0",
      tools: [
        {
          name: "get_ticket",
          description: "A ticket by id",
          inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          outputSchema: {
            type: "object",
            properties: { id: { type: "string" }, title: { type: "string" }, open: { type: "boolean" } },
            required: ["id", "title", "open"]
          }
        },
        {
          name: "close_ticket",
          inputSchema: { type: "object" },
          result: { content: [{ type: "text", text: "closed" }] }
        }
      ],
      resources: [{ uri: "tickets://board", name: "board", text: "TODO | DOING | DONE" }],
      prompts: [
        {
          name: "triage",
          arguments: [{ name: "id", required: true }],
          messages: [{ role: "user", text: "Triage {{id}}" }]
        }
      ]
    }
  }
}

const sdkClient = async (fetch: typeof globalThis.fetch, url: string) => {
  const client = new Client({ name: "t", version: "1" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch }))
  return client
}

describe("MCP servers from RouteSpec JSON and configuration", () => {
  it("registerSpec with kind mcp serves the JSON Schemas' tools, generated and validated by the client", async () => {
    const network = await SimulationNetwork.start({ seed: 11 })
    expect(await network.registerSpec(spec)).toEqual(["tickets"])
    const client = await sdkClient(network.fetch, "https://mcp.tickets.example/mcp")
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(["get_ticket", "close_ticket"])
    const ticket = await client.callTool({ name: "get_ticket", arguments: { id: "T-1" } })
    expect(ticket.structuredContent).toMatchObject({
      id: expect.any(String),
      title: expect.any(String),
      open: expect.any(Boolean)
    })
    expect((await client.callTool({ name: "get_ticket", arguments: {} })).isError).toBe(true)
    expect((await client.callTool({ name: "close_ticket", arguments: {} })).content).toEqual([
      { type: "text", text: "closed" }
    ])
    expect((await client.readResource({ uri: "tickets://board" })).contents[0]).toMatchObject({
      text: "TODO | DOING | DONE"
    })
    expect((await client.getPrompt({ name: "triage", arguments: { id: "T-9" } })).messages[0].content).toEqual({
      type: "text",
      text: "Triage T-9"
    })
    expect(network.routes()[0]).toMatchObject({ id: "tickets", kind: "mcp", server: "tickets", mode: "stateful" })
    await client.close()
  })

  it("refuses bad mcp specs with InvalidRouteSpec naming the JSON path, registering nothing", async () => {
    const network = await SimulationNetwork.start()
    const refuse = async (mutate: (server: any) => void) => {
      const copy = JSON.parse(JSON.stringify(spec))
      mutate(copy.respond.server)
      return network
        .registerSpec([{ match: "GET https://ok.example/", respond: { kind: "text", body: "ok" } }, copy])
        .catch((e) => e)
    }
    expect(
      await refuse((s) => {
        s.tools[0].outputSchema = { type: "string" }
      })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1].respond.server.tools[0].outputSchema" })
    expect(
      await refuse((s) => {
        s.tools[1].name = "close ticket"
      })
    ).toMatchObject({ path: "[1].respond.server.tools[1].name" })
    expect(
      await refuse((s) => {
        s.tools[1].name = "get_ticket"
      })
    ).toMatchObject({ path: "[1].respond.server.tools[1].name" })
    expect(
      await refuse((s) => {
        delete s.tools[1].result
      })
    ).toMatchObject({ path: "[1].respond.server.tools[1]" })
    expect(
      await refuse((s) => {
        s.resources[0].uri = "not a uri"
      })
    ).toMatchObject({ path: "[1].respond.server.resources[0].uri" })
    expect(
      await refuse((s) => {
        s.version = 3
      })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1].respond.server.version" })
    expect(
      await refuse((s) => {
        s.pageSize = 0
      })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1].respond.server.pageSize" })
    expect(
      await refuse((s) => {
        s.tools[0].result = { structuredContent: { id: 1 } }
      })
    ).toMatchObject({ path: "[1].respond.server.tools[0].result" })
    expect(network.routes()).toEqual([])
  })

  it("mcpFromConfig registers remote entries at their URL and reports local ones", async () => {
    const routes = Routes.mcpFromConfig(
      {
        docs: {
          type: "remote",
          url: "https://mcp.docs.example/mcp?key=secret-value",
          headers: { Authorization: "Bearer sk-x" }
        },
        git: { type: "local", command: ["uvx", "mcp-server-git"] },
        old: { type: "remote", url: "https://old.example/mcp", enabled: false }
      },
      { docs: { name: "docs", version: "2.0.0", tools: [{ name: "lookup", result: "page" }] } }
    )
    expect(routes.notSimulated.map((n) => [n.name, n.reason])).toEqual([
      ["git", "local"],
      ["old", "disabled"]
    ])
    const network = await SimulationNetwork.start({ routes })
    expect(network.routes().map((r) => [r.id, r.match, r.simulated])).toEqual([
      ["mcp:docs", "* https://mcp.docs.example/mcp", undefined],
      ["mcp:git", "(not simulated: local) stdio: uvx", false],
      ["mcp:old", "(not simulated: disabled) https://old.example/mcp", false]
    ])
    expect(JSON.stringify(network.routes())).not.toContain("secret-value")
    const client = await sdkClient(network.fetch, "https://mcp.docs.example/mcp?key=secret-value")
    expect((await client.callTool({ name: "lookup", arguments: {} })).content).toEqual([{ type: "text", text: "page" }])
    expect(network.mcp.counts("mcp:docs")).toEqual({ lookup: 1 })
    await client.close()
  })

  it("a fixture names the mcpFromConfig family with the app's config and JSON servers", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({
      family: "mcpFromConfig",
      config: {
        docs: { type: "remote", url: "https://mcp.docs.example/mcp" },
        git: { type: "local", command: ["uvx", "mcp-server-git"] }
      },
      servers: {
        docs: {
          name: "docs",
          version: "2.0.0",
          tools: [{ name: "lookup", inputSchema: { type: "object" }, result: "page" }]
        }
      }
    })
    expect(network.routes().map((r) => [r.id, r.source])).toEqual([
      ["mcp:docs", "mcpFromConfig"],
      ["mcp:git", "mcpFromConfig"]
    ])
    const client = await sdkClient(network.fetch, "https://mcp.docs.example/mcp")
    expect((await client.callTool({ name: "lookup", arguments: {} })).content).toEqual([{ type: "text", text: "page" }])
    await client.close()
    await expect(
      network.registerSpec({ family: "mcpFromConfig", config: { x: { type: "remote" } } })
    ).rejects.toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "config.x.url"
    })
  })

  it("a fixture's mcpFromConfig reports local and disabled entries as not simulated routes, which match nothing and are never candidates", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({
      family: "mcpFromConfig",
      config: {
        git: { type: "local", command: ["uvx", "mcp-server-git", "--token=sk-secret"] },
        old: { type: "remote", url: "https://old.example/mcp?key=sk-secret", enabled: false }
      }
    })
    const listed = network.routes()
    expect(listed.map((r) => ({ id: r.id, kind: r.kind, simulated: r.simulated, reason: r.reason }))).toEqual([
      { id: "mcp:git", kind: "mcp", simulated: false, reason: "local" },
      { id: "mcp:old", kind: "mcp", simulated: false, reason: "disabled" }
    ])
    expect(String(listed[0].message)).toContain("is local")
    expect(JSON.stringify(listed.map((r) => [r.match, r.message]))).not.toContain("sk-secret")
    const refused = await network
      .fetch("https://old.example/mcp", { method: "POST", body: "{}" })
      .catch((error: TypeError) => error.cause)
    expect(refused).toMatchObject({ _tag: "UnregisteredRequest", candidates: [] })
    expect(network.unused().map((r) => r.id)).toEqual(["mcp:git", "mcp:old"])
    const state = await Effect.runPromise(network.network.state)
    await network.reset()
    await Effect.runPromise(network.network.restore(state))
    expect(network.routes().map((r) => r.id)).toEqual(["mcp:git", "mcp:old"])
  })

  it("same seed, same bytes for the same tools/call sequence through a session; another seed differs", async () => {
    const run = async (seed: number) => {
      const network = await SimulationNetwork.start({ seed })
      await network.registerSpec(spec)
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
      const post = (body: unknown, extra: Record<string, string> = {}) =>
        network.fetch("https://mcp.tickets.example/mcp", {
          method: "POST",
          headers: { ...headers, ...extra },
          body: JSON.stringify(body)
        })
      const init = await post({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } }
      })
      const session = { "mcp-session-id": init.headers.get("mcp-session-id")! }
      const bodies = [session["mcp-session-id"], await init.text()]
      for (const id of ["a", "b", "a"]) {
        bodies.push(
          await (
            await post(
              { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_ticket", arguments: { id } } },
              session
            )
          ).text()
        )
      }
      return bodies
    }
    const [a, b, c] = [await run(1), await run(1), await run(2)]
    expect(a).toEqual(b)
    expect(c[0]).not.toEqual(a[0])
    expect(c.slice(2)).not.toEqual(a.slice(2))
  })

  it("Effect's McpClient connects over the simulated HttpClient", async () => {
    const program = Effect.gen(function* () {
      const client = yield* McpClient.McpClient
      const tools = yield* client.listTools()
      const result = yield* client.callTool({ tool: tools.find((t) => t.name === "close_ticket")!, arguments: {} })
      return { names: tools.map((t) => t.name), result, server: client.serverInfo?.name }
    })
    const network = Layer.effectDiscard(
      Effect.gen(function* () {
        const sim = yield* SimulationNetwork
        yield* sim.registerSpec(spec)
      })
    )
    const ClientLayer = McpClient.layerHttp({
      name: "effect-client",
      version: "1.0.0",
      protocol: McpProtocol.v2025_11_25,
      url: "https://mcp.tickets.example/mcp"
    })
    const out = await Effect.runPromise(
      program.pipe(
        Effect.provide(
          ClientLayer.pipe(Layer.provide(network), Layer.provideMerge(SimulationNetwork.layer({ seed: 4 })))
        )
      )
    )
    expect(out.names).toEqual(["get_ticket", "close_ticket"])
    expect(out.server).toBe("tickets")
    expect(out.result.content).toEqual([{ type: "text", text: "closed" }])
  })

  it("Route.mcp from code accepts JSON Schemas too", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.mcp("https://m.example/mcp", {
          name: "m",
          version: "1",
          tools: [{ name: "t", inputSchema: { type: "object", properties: { n: { type: "integer" } } }, result: "ok" }]
        })
      ]
    })
    const client = await sdkClient(network.fetch, "https://m.example/mcp")
    expect((await client.callTool({ name: "t", arguments: { n: 1.5 } })).isError).toBe(true)
    expect((await client.callTool({ name: "t", arguments: { n: 1 } })).content).toEqual([{ type: "text", text: "ok" }])
    await client.close()
  })
})
