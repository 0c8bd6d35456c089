import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Schema } from "effect"
import { Route, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const URL_ = "https://mcp.example.com/mcp"

const Weather = Schema.Struct({
  city: Schema.String,
  celsius: Schema.Int,
  sky: Schema.Literals(["clear", "cloudy", "rain"])
})

const server = (): Parameters<typeof Route.mcp>[1] => ({
  name: "docs",
  version: "1.2.0",
  instructions: "Search the docs before answering.",
  pageSize: 2,
  tools: [
    {
      name: "search",
      description: "Search the docs",
      input: Schema.Struct({ query: Schema.String, limit: Schema.optional(Schema.Int) }),
      handler: (args: { query: string; limit?: number }) => `found ${args.limit ?? 3} pages about ${args.query}`
    },
    { name: "weather", description: "The weather", input: Schema.Struct({ city: Schema.String }), output: Weather },
    { name: "version", result: "1.2.0" },
    {
      name: "index",
      input: Schema.Struct({ steps: Schema.Int }),
      handler: async (args: { steps: number }, context) => {
        for (let i = 1; i <= args.steps; i++) await context.progress(i, args.steps, `step ${i}`)
        return { content: [{ type: "text", text: `indexed in ${args.steps} steps` }] }
      }
    }
  ],
  resources: [
    { uri: "docs://readme", name: "README", mimeType: "text/markdown", text: "# Docs\n" },
    { uri: "docs://logo", name: "logo", mimeType: "image/png", blob: new Uint8Array([137, 80, 78, 71]) }
  ],
  prompts: [
    {
      name: "review",
      description: "Review code",
      arguments: [{ name: "code", required: true }],
      messages: [{ role: "user", text: "Review this:\n{{code}}" }]
    }
  ]
})

const connect = async (network: { fetch: typeof fetch }) => {
  const client = new Client({ name: "test-client", version: "1.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(URL_), { fetch: network.fetch })
  await client.connect(transport)
  return { client, transport }
}

describe("MCP route through the official SDK client", () => {
  it("connects, lists and calls tools, reads resources, gets prompts, pings", async () => {
    const network = await SimulationNetwork.start({ seed: 3, routes: [Route.mcp(URL_, server(), { id: "docs" })] })
    const { client, transport } = await connect(network)
    expect(client.getServerVersion()).toEqual({ name: "docs", version: "1.2.0" })
    expect(client.getInstructions()).toBe("Search the docs before answering.")
    expect(transport.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/)

    // Paginated: two per page.
    const first = await client.listTools()
    expect(first.tools.map((t) => t.name)).toEqual(["search", "weather"])
    expect(first.nextCursor).toBeDefined()
    const second = await client.listTools({ cursor: first.nextCursor })
    expect(second.tools.map((t) => t.name)).toEqual(["version", "index"])
    expect(second.nextCursor).toBeUndefined()
    expect(first.tools[1].outputSchema?.type).toBe("object")

    const search = await client.callTool({ name: "search", arguments: { query: "layers" } })
    expect(search.content).toEqual([{ type: "text", text: "found 3 pages about layers" }])

    // Generated from the output schema; the client validates structuredContent against it.
    const weather = await client.callTool({ name: "weather", arguments: { city: "Oslo" } })
    const structured = Schema.decodeUnknownSync(Weather)(weather.structuredContent)
    expect(JSON.parse((weather.content as Array<{ text: string }>)[0].text)).toEqual(structured)

    expect((await client.callTool({ name: "version", arguments: {} })).content).toEqual([
      { type: "text", text: "1.2.0" }
    ])

    // Input failing the input schema is an isError result, as is an unknown tool.
    const bad = await client.callTool({ name: "search", arguments: { query: 42 } })
    expect(bad.isError).toBe(true)
    expect((bad.content as Array<{ text: string }>)[0].text).toMatch(/Input validation error/)
    const unknown = await client.callTool({ name: "nope", arguments: {} })
    expect(unknown).toEqual({
      content: [{ type: "text", text: "MCP error -32602: Tool nope not found" }],
      isError: true
    })

    // Progress: streamed as SSE before the result.
    const progress: Array<number> = []
    const indexed = await client.callTool({ name: "index", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress)
    })
    expect(progress).toEqual([1, 2, 3])
    expect(indexed.content).toEqual([{ type: "text", text: "indexed in 3 steps" }])

    const resources = await client.listResources()
    expect(resources.resources.map((r) => r.uri)).toEqual(["docs://readme", "docs://logo"])
    expect((await client.readResource({ uri: "docs://readme" })).contents).toEqual([
      { uri: "docs://readme", mimeType: "text/markdown", text: "# Docs\n" }
    ])
    expect((await client.readResource({ uri: "docs://logo" })).contents[0]).toMatchObject({ blob: "iVBORw==" })
    await expect(client.readResource({ uri: "docs://missing" })).rejects.toThrow(/-32002/)

    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["review"])
    const prompt = await client.getPrompt({ name: "review", arguments: { code: "let x = 1" } })
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Review this:\nlet x = 1" } }])
    await expect(client.getPrompt({ name: "review", arguments: {} })).rejects.toThrow(/-32602/)

    expect(await client.ping()).toEqual({})

    // Counts per tool and the log's method and tool.
    expect(network.mcp.counts("docs")).toEqual({ search: 2, weather: 1, version: 1, nope: 1, index: 1 })
    const calls = network
      .log()
      .filter((r) => r.detail?.method === "tools/call")
      .map((r) => r.detail?.tool)
    expect(calls).toEqual(["search", "weather", "version", "search", "nope", "index"])
    expect(network.log()[0].detail).toEqual({ method: "initialize" })

    // Ending the session: the client forgets its id, and the next call is refused (400); the old
    // id is unknown from now on (404).
    const ended = transport.sessionId!
    await transport.terminateSession()
    expect(network.mcp.get("docs")?.sessions).toEqual([])
    await expect(client.listTools()).rejects.toThrow(/Mcp-Session-Id header is required/)
    const stale = await network.fetch(URL_, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": ended
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" })
    })
    expect(stale.status).toBe(404)
    await client.close()
  })

  it("negotiates every revision the SDK speaks (2024-11-05 included) and answers an unknown one with the newest", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.mcp(URL_, server())] })
    const init = (protocolVersion: string) =>
      network
        .fetch(URL_, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "1" } }
          })
        })
        .then((r) => r.json())
    expect((await init("2025-03-26")).result.protocolVersion).toBe("2025-03-26")
    expect((await init("2025-06-18")).result.protocolVersion).toBe("2025-06-18")
    expect((await init("2024-11-05")).result.protocolVersion).toBe("2024-11-05")
    expect((await init("1999-01-01")).result.protocolVersion).toBe("2025-11-25")
    expect((await init("2025-11-25")).result).toMatchObject({
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {}
      },
      serverInfo: { name: "docs" }
    })
  })

  it("changing the definitions while the app runs shows in tools/list and tools/call", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.mcp(URL_, server(), { id: "docs" })] })
    const { client } = await connect(network)
    await network.mcp.update("docs", (current) => ({
      ...current,
      pageSize: 10,
      tools: [...(current.tools ?? []).filter((t) => t.name !== "version"), { name: "deploy", result: "deployed" }]
    }))
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search", "weather", "index", "deploy"])
    expect((await client.callTool({ name: "deploy", arguments: {} })).content).toEqual([
      { type: "text", text: "deployed" }
    ])
    // A change that does not compile is refused and changes nothing.
    await expect(
      network.mcp.update("docs", (current) => ({ ...current, tools: [{ name: "bad name!", result: "x" }] }))
    ).rejects.toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "server.tools[0].name"
    })
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("deploy")
    // reset restores the initial definitions and forgets sessions.
    await network.reset()
    expect(network.mcp.get("docs")?.definition.tools?.map((t) => t.name)).toEqual([
      "search",
      "weather",
      "version",
      "index"
    ])
    expect(network.mcp.counts("docs")).toEqual({})
    await client.close()
  })

  it("one route value registered in two networks keeps sessions, counts and changes apart", async () => {
    const route = Route.mcp(URL_, server(), { id: "docs" })
    const a = await SimulationNetwork.start({ routes: [route] })
    const b = await SimulationNetwork.start({ routes: [route] })
    const { client } = await connect(a)
    await client.callTool({ name: "version", arguments: {} })
    await a.mcp.update("docs", (current) => ({ ...current, tools: [{ name: "deploy", result: "deployed" }] }))
    expect(a.mcp.counts("docs")).toEqual({ version: 1 })
    expect(a.mcp.get("docs")?.sessions).toHaveLength(1)
    expect(b.mcp.get("docs")).toMatchObject({ sessions: [], counts: {} })
    expect(b.mcp.get("docs")?.definition.tools?.map((t) => t.name)).toEqual(["search", "weather", "version", "index"])
    // The session a opened is unknown to b.
    const other = await b.fetch(URL_, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": a.mcp.get("docs")!.sessions[0].id
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(other.status).toBe(404)
    await client.close()
  })
})
