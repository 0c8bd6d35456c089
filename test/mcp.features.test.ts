/**
 * Everything an MCP server can do, written as JSON and judged by the official SDK's client:
 * scripted tools (logs at the session's level, progress, elicitation, sampling, roots, a stream
 * closed and resumed), resource templates and completions, subscriptions told of a change,
 * `listChanged` when definitions change, prompts of every content type, and Effect's own
 * `McpClient`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer } from "effect"
import * as McpClient from "effect/ai/McpClient"
import * as McpProtocol from "effect/ai/McpProtocol"
import { SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const URL_ = "https://mcp.features.example/mcp"

const server = {
  name: "features",
  version: "1.0.0",
  tools: [
    {
      name: "chatty",
      description: "logs at three levels",
      inputSchema: { type: "object", properties: { who: { type: "string" } } },
      steps: [
        { log: { level: "debug", data: "debug {{arguments.who}}" } },
        { log: { level: "warning", data: { note: "warning {{arguments.who}}" }, logger: "t" } },
        { log: { level: "error", data: "error" } }
      ],
      result: "done for {{arguments.who}}"
    },
    {
      name: "ask",
      inputSchema: { type: "object", properties: {} },
      steps: [
        {
          elicit: {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
          }
        },
        {
          sample: {
            messages: [{ role: "user", content: { type: "text", text: "Greet {{elicitation.content.name}}" } }],
            maxTokens: 20
          }
        },
        { roots: {} }
      ],
      result: { content: [{ type: "text", text: "{{elicitation.action}}|{{sampling.content.text}}|{{roots.roots}}" }] }
    },
    {
      name: "slow",
      inputSchema: { type: "object", properties: {} },
      steps: [
        { progress: { progress: 1, total: 2, message: "half" } },
        { closeStream: true },
        { progress: { progress: 2, total: 2 } }
      ],
      result: "resumed"
    }
  ],
  resources: [{ uri: "test://watched", name: "watched", mimeType: "text/plain", text: "v1" }],
  resourceTemplates: [
    {
      uriTemplate: "test://users/{id}/posts/{post}",
      name: "post",
      mimeType: "application/json",
      text: '{"user":"{id}","post":"{post}"}',
      completions: { id: ["alice", "albert", "bob"] }
    }
  ],
  prompts: [
    {
      name: "review",
      arguments: [{ name: "lang", required: true, completions: ["typescript", "tcl", "python"] }],
      messages: [
        { role: "user", text: "Review this {{lang}} code" },
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: "test://code/{{lang}}", mimeType: "text/plain", text: "print(1)" }
          }
        },
        { role: "assistant", content: { type: "audio", data: "UklGRg==", mimeType: "audio/wav" } }
      ]
    }
  ]
}

const start = async () => {
  const network = await SimulationNetwork.start({ routes: [] })
  await network.registerSpec({ id: "features", match: URL_, respond: { kind: "mcp", server } })
  return network
}

const connect = async (network: { fetch: typeof fetch }, capabilities: Record<string, unknown> = {}) => {
  const client = new Client({ name: "judge", version: "1" }, { capabilities })
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: network.fetch }))
  return client
}

describe("an MCP server written as JSON", () => {
  it("a tool's logs reach the client over the call's event stream, filtered by the level the session set", async () => {
    const network = await start()
    const client = await connect(network)
    const logs: Array<unknown> = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params))
    expect((await client.callTool({ name: "chatty", arguments: { who: "ann" } })).content).toEqual([
      { type: "text", text: "done for ann" }
    ])
    expect(logs).toEqual([
      { level: "debug", data: "debug ann" },
      { level: "warning", data: { note: "warning ann" }, logger: "t" },
      { level: "error", data: "error" }
    ])
    logs.length = 0
    await client.setLoggingLevel("warning")
    await client.callTool({ name: "chatty", arguments: { who: "bo" } })
    expect(logs).toEqual([
      { level: "warning", data: { note: "warning bo" }, logger: "t" },
      { level: "error", data: "error" }
    ])
    const call = network.log().find((r) => (r.detail as { tool?: string } | undefined)?.tool === "chatty")!
    expect(call.status).toBe(200)
    await client.close()
  })

  it("elicits, samples and lists roots, then answers with what came back", async () => {
    const network = await start()
    const client = await connect(network, { elicitation: {}, sampling: {}, roots: {} })
    const asked: Array<string> = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicit:${request.params.message}`)
      return { action: "accept", content: { name: "Ada" } }
    })
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(`sample:${JSON.stringify(request.params.messages[0].content)}`)
      return { role: "assistant", content: { type: "text", text: "Hello Ada" }, model: "m", stopReason: "endTurn" }
    })
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }))
    const result = await client.callTool({ name: "ask", arguments: {} })
    expect(asked).toEqual(["elicit:Your name?", `sample:{"type":"text","text":"Greet Ada"}`])
    expect(result.content).toEqual([{ type: "text", text: `accept|Hello Ada|[{"uri":"file:///work","name":"work"}]` }])
    await client.close()
  })

  it("a client that declines is told so; one without the capability gets an error result, not a hang", async () => {
    const network = await start()
    const declining = await connect(network, { elicitation: {}, sampling: {}, roots: {} })
    declining.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }))
    declining.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "-" },
      model: "m"
    }))
    declining.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }))
    expect((await declining.callTool({ name: "ask", arguments: {} })).content).toEqual([
      { type: "text", text: "decline|-|[]" }
    ])
    const plain = await connect(network)
    const failed = await plain.callTool({ name: "ask", arguments: {} })
    expect(failed.isError).toBe(true)
    expect(JSON.stringify(failed.content)).toMatch(/Method not found/)
    await Promise.all([declining.close(), plain.close()])
  })

  it("a call whose stream the server closes is resumed by the client with Last-Event-ID, and its answer arrives there", async () => {
    const network = await start()
    const client = await connect(network)
    const progress: Array<number> = []
    const result = await client.callTool({ name: "slow", arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress)
    })
    expect(result.content).toEqual([{ type: "text", text: "resumed" }])
    expect(progress).toEqual([1, 2])
    const resumed = network.log().filter((r) => r.method === "GET")
    expect(resumed.length).toBeGreaterThanOrEqual(1)
    await client.close()
  })

  it("resource templates are listed and read with their variables filled; completions offer what starts with the typed text", async () => {
    const network = await start()
    const client = await connect(network)
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: "test://users/{id}/posts/{post}", name: "post", mimeType: "application/json" }
    ])
    expect((await client.readResource({ uri: "test://users/al%20ice/posts/7" })).contents).toEqual([
      { uri: "test://users/al%20ice/posts/7", mimeType: "application/json", text: '{"user":"al ice","post":"7"}' }
    ])
    await expect(client.readResource({ uri: "test://users/alice/likes/7" })).rejects.toThrow(/not found/)
    expect(
      (
        await client.complete({
          ref: { type: "ref/resource", uri: "test://users/{id}/posts/{post}" },
          argument: { name: "id", value: "al" }
        })
      ).completion
    ).toEqual({ values: ["alice", "albert"], total: 2, hasMore: false })
    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "lang", value: "t" } }))
        .completion.values
    ).toEqual(["typescript", "tcl"])
    await client.close()
  })

  it("prompts carry text, embedded resources and audio, arguments filled in each", async () => {
    const network = await start()
    const client = await connect(network)
    const prompt = await client.getPrompt({ name: "review", arguments: { lang: "tcl" } })
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Review this tcl code" } },
      {
        role: "user",
        content: { type: "resource", resource: { uri: "test://code/tcl", mimeType: "text/plain", text: "print(1)" } }
      },
      { role: "assistant", content: { type: "audio", data: "UklGRg==", mimeType: "audio/wav" } }
    ])
    await client.close()
  })

  it("a change of the definitions reaches open sessions: list_changed, and resources/updated for a subscribed resource only", async () => {
    const network = await start()
    const client = await connect(network)
    const told: Array<string> = []
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.push("tools"))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void told.push(`updated ${n.params.uri}`))
    await client.subscribeResource({ uri: "test://watched" })
    // The client opens its GET stream after initialize; wait until the server holds it.
    await expect.poll(() => network.log().some((r) => r.method === "GET" && r.status === 200)).toBe(true)
    await network.mcp.update("features", (current) => ({
      ...current,
      resources: [{ uri: "test://watched", name: "watched", mimeType: "text/plain", text: "v2" }]
    }))
    await expect.poll(() => told).toEqual(["updated test://watched"])
    await client.unsubscribeResource({ uri: "test://watched" })
    await network.mcp.update("features", (current) => ({
      ...current,
      resources: [{ uri: "test://watched", name: "watched", mimeType: "text/plain", text: "v3" }],
      tools: [...(current.tools ?? []), { name: "added", inputSchema: { type: "object" }, result: "new" }]
    }))
    await expect.poll(() => told).toEqual(["updated test://watched", "tools"])
    expect((await client.readResource({ uri: "test://watched" })).contents[0]).toMatchObject({ text: "v3" })
    await client.close()
  })

  it("Effect's McpClient speaks to it at 2025-11-25 and at its default, the draft 2026-07-28 (no sessions)", async () => {
    const run = (protocol: Parameters<typeof McpClient.layerHttp>[0]["protocol"]) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const client = yield* McpClient.McpClient
          const tools = yield* client.listTools()
          const done = yield* client.callTool({
            tool: tools.find((t) => t.name === "chatty")!,
            arguments: { who: "effect" }
          })
          return { names: tools.map((t) => t.name), server: client.serverInfo?.name, done: done.content }
        }).pipe(
          Effect.provide(
            McpClient.layerHttp({ name: "effect", version: "1", protocol, url: URL_ }).pipe(
              Layer.provide(
                Layer.effectDiscard(
                  Effect.flatMap(SimulationNetwork, (sim) =>
                    sim.registerSpec({ id: "features", match: URL_, respond: { kind: "mcp", server } })
                  )
                )
              ),
              Layer.provideMerge(SimulationNetwork.layer())
            )
          )
        )
      )
    const expected = {
      names: ["chatty", "ask", "slow"],
      server: "features",
      done: [{ type: "text", text: "done for effect" }]
    }
    expect(await run(McpProtocol.v2025_11_25)).toEqual(expected)
    expect(await run(McpProtocol.v2026_07_28)).toEqual(expected)
  })

  it("refuses definitions that cannot be served, naming the field", async () => {
    const network = await SimulationNetwork.start({ routes: [] })
    const refused = (definition: Record<string, unknown>) =>
      network
        .registerSpec({
          match: "https://bad.example/mcp",
          respond: { kind: "mcp", server: { name: "b", version: "1", ...definition } }
        })
        .catch((e) => e)
    expect(
      await refused({ resourceTemplates: [{ uriTemplate: "test://{a}{b}", name: "t", text: "x" }] })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.server.resourceTemplates[0].uriTemplate" })
    expect(
      await refused({
        resourceTemplates: [{ uriTemplate: "test://{a}", name: "t", text: "x", completions: { b: ["1"] } }]
      })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.server.resourceTemplates[0].completions.b" })
    expect(
      await refused({ tools: [{ name: "t", steps: [{ log: { level: "loud", data: 1 } }], result: "x" }] })
    ).toMatchObject({ _tag: "InvalidRouteSpec", path: expect.stringContaining("tools[0].steps[0]") })
    expect(network.routes()).toEqual([])
  })
})
