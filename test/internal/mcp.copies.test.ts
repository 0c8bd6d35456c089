/**
 * The MCP engine's copies of the SDK's behaviour (`src/mcp-route/copies.ts`), checked against
 * the SDK itself: what the hand-written checks accept, its schemas accept unchanged; the error
 * reply of a throwing handler is the one the SDK's `Protocol` sends; a failed tool call reads as the
 * SDK's `McpServer` writes it; the revisions served are the SDK's newest; its error codes and
 * `McpError` messages are the SDK's; an Effect Schema's JSON Schema is `effect/ai/Tool`'s. A
 * dependency update that moves any of these fails here.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  JSONRPCRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import { Schema } from "effect"
import fc from "fast-check"
import { Route, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Tool from "effect/ai/Tool"
import {
  adoptSession,
  streamFromNowOn,
  ErrorCode as CopiedCodes,
  jsonSchemaOf,
  mcpErrorMessage,
  plainCall,
  plainRequest,
  plainResult,
  protocolFailure,
  toolFailures
} from "../../src/mcp-route/copies.ts"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"

/** Values near the shapes the checks look for: the right keys with right and wrong values, extra keys. */
const scalar = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined)
)
const loose = fc.oneof(
  scalar,
  fc.dictionary(fc.constantFrom("a", "_meta", "text"), scalar, { maxKeys: 2 }),
  fc.array(scalar, { maxLength: 2 })
)
const maybe = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined })
const withExtra = (base: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(
      base,
      fc.option(fc.dictionary(fc.constantFrom("extra", "_meta", "x"), loose, { maxKeys: 1 }), { nil: undefined })
    )
    .map(([value, extra]) => dropUndefined({ ...value, ...extra }))
const dropUndefined = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))

const requests = withExtra(
  fc.record({
    jsonrpc: fc.constantFrom("2.0", "1.0"),
    id: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.constant(null)),
    method: fc.oneof(fc.constantFrom("tools/call", "ping"), fc.integer()),
    params: maybe(fc.oneof(fc.dictionary(fc.constantFrom("name", "_meta", "cursor"), loose, { maxKeys: 2 }), loose))
  })
)
const calls = withExtra(
  fc.record({
    name: fc.oneof(fc.string({ maxLength: 4 }), scalar),
    arguments: maybe(loose)
  })
)
const texts = withExtra(
  fc.record({ type: fc.constantFrom("text", "image"), text: fc.oneof(fc.string({ maxLength: 4 }), scalar) })
)
const results = withExtra(
  fc.record({
    content: fc.oneof(fc.array(texts, { maxLength: 2 }), loose),
    structuredContent: maybe(loose),
    isError: maybe(fc.oneof(fc.boolean(), scalar))
  })
)

/** Runs `check` over generated values; a value the copy accepts must pass the SDK unchanged. Returns how many it accepted. */
const agrees = <A>(
  arb: fc.Arbitrary<A>,
  copy: (a: A) => boolean,
  sdk: (a: A) => { success: boolean; data?: unknown }
) => {
  let accepted = 0
  fc.assert(
    fc.property(arb, (value) => {
      if (!copy(value)) return
      accepted++
      const parsed = sdk(value)
      expect(parsed.success).toBe(true)
      expect(parsed.data).toEqual(value)
    }),
    { numRuns: 3_000, seed: 19 }
  )
  return accepted
}

describe("the MCP engine's copies of the SDK", () => {
  it("streamFromNowOn turns the SDK's transport from JSON to event streams; adoptSession takes an existing session", async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => "s-1",
      keepAliveMs: 0,
      enableJsonResponse: true
    })
    await new Server({ name: "t", version: "1" }, { capabilities: {} }).connect(transport)
    const post = (session?: string) =>
      new Request("http://x/mcp", {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...(session ? { "mcp-session-id": session, "mcp-protocol-version": LATEST_PROTOCOL_VERSION } : {})
        }
      })
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "c", version: "1" } }
    }
    const first = await transport.handleRequest(post(), { parsedBody: init })
    expect(first.headers.get("content-type")).toMatch(/application\/json/)
    expect(first.headers.get("mcp-session-id")).toBe("s-1")
    streamFromNowOn(transport)
    const ping = { jsonrpc: "2.0", id: 2, method: "ping" }
    const streamed = await transport.handleRequest(post("s-1"), { parsedBody: ping })
    expect(streamed.headers.get("content-type")).toBe("text/event-stream")
    expect(await streamed.text()).toContain(`"id":2`)
    // A transport that never saw initialize, adopted under an existing session's id, answers in it.
    const adopted = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => "s-2",
      keepAliveMs: 0,
      enableJsonResponse: true
    })
    await new Server({ name: "t", version: "1" }, { capabilities: {} }).connect(adopted)
    adoptSession(adopted, "s-2")
    expect(await (await adopted.handleRequest(post("s-2"), { parsedBody: ping })).json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {}
    })
    expect((await adopted.handleRequest(post("s-1"), { parsedBody: ping })).status).toBe(404)
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain("2024-11-05")
  })

  it("the error codes and McpError messages are the SDK's", () => {
    expect(CopiedCodes).toEqual({ InvalidParams: ErrorCode.InvalidParams, InternalError: ErrorCode.InternalError })
    for (const [code, message] of [
      [ErrorCode.InvalidParams, "Tool x not found"],
      [ErrorCode.InternalError, ""],
      [-32002, "Resource r not found"]
    ] as const) {
      expect(mcpErrorMessage(code, message)).toBe(new McpError(code, message).message)
    }
  })

  it("an Effect Schema's JSON Schema is effect/ai/Tool's", () => {
    interface Node {
      readonly name: string
      readonly children: ReadonlyArray<Node>
    }
    const NodeSchema = Schema.Struct({
      name: Schema.String,
      children: Schema.Array(Schema.suspend((): Schema.Codec<Node> => NodeSchema))
    }).annotate({ identifier: "Node" })
    const schemas: ReadonlyArray<Schema.Top> = [
      Schema.Struct({ query: Schema.String, limit: Schema.optional(Schema.Int) }),
      Schema.Struct({ sky: Schema.Literals(["clear", "rain"]), at: Schema.Union([Schema.Number, Schema.Null]) }),
      Schema.Struct({ root: NodeSchema }),
      Schema.Struct({ tags: Schema.Record(Schema.String, Schema.Array(Schema.String)) }).annotate({
        description: "tags by name"
      })
    ]
    for (const schema of schemas)
      expect(jsonSchemaOf(schema)).toEqual(Tool.getJsonSchemaFromSchema(schema as Schema.Codec<unknown, unknown>))
    expect(jsonSchemaOf(schemas[2])).toHaveProperty("$defs")
  })

  it("a request, call or result the hand-written checks accept passes the SDK's schema unchanged", () => {
    // Each check must accept a real share of the values, or the property proves nothing.
    expect(agrees(requests, plainRequest, (m) => JSONRPCRequestSchema.safeParse(m))).toBeGreaterThan(50)
    expect(
      agrees(calls, plainCall, (params) => {
        const parsed = CallToolRequestSchema.safeParse({ method: "tools/call", params })
        return { success: parsed.success, data: parsed.data?.params }
      })
    ).toBeGreaterThan(50)
    expect(agrees(results, plainResult, (r) => CallToolResultSchema.safeParse(r))).toBeGreaterThan(50)
  })

  it("a throwing handler's reply is the one the SDK's Protocol sends", async () => {
    const thrown: ReadonlyArray<unknown> = [
      new McpError(ErrorCode.InvalidParams, "bad", { field: "x" }),
      new Error("plain"),
      Object.assign(new Error("odd code"), { code: 1.5 }),
      { code: 7, message: "object" },
      "a string"
    ]
    const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } })
    let next = 0
    server.setRequestHandler(ListToolsRequestSchema, () => {
      throw thrown[next++]
    })
    const [ours, theirs] = InMemoryTransport.createLinkedPair()
    const replies: Array<unknown> = []
    ours.onmessage = (message) => void replies.push(message)
    await server.connect(theirs)
    await ours.start()
    for (let id = 0; id < thrown.length; id++) await ours.send({ jsonrpc: "2.0", id, method: "tools/list" })
    await expect.poll(() => replies.length).toBe(thrown.length)
    expect(replies).toEqual(thrown.map((error, id) => protocolFailure(id, error)))
    await server.close()
  })

  it("a failed tool call reads as the SDK's McpServer writes it", async () => {
    const sdk = new McpServer({ name: "s", version: "1" })
    sdk.registerTool("lookup", { inputSchema: { term: z.string() } }, ({ term }) => ({
      content: [{ type: "text", text: term }]
    }))
    sdk.registerTool("weather", { outputSchema: { celsius: z.number() } }, () => ({
      content: [{ type: "text", text: "warm" }]
    }))
    sdk.registerTool("wrong", { outputSchema: { celsius: z.number() } }, () => ({
      content: [],
      structuredContent: { celsius: "warm" }
    }))
    const sdkClient = new Client({ name: "c", version: "1" })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await sdk.connect(b)
    await sdkClient.connect(a)

    const network = await SimulationNetwork.start({
      routes: [
        Route.mcp("https://mcp.example.com/mcp", {
          name: "s",
          version: "1",
          tools: [
            {
              name: "lookup",
              input: Schema.Struct({ term: Schema.String }),
              handler: (args: { term: string }) => args.term
            },
            {
              name: "weather",
              output: Schema.Struct({ celsius: Schema.Number }),
              handler: () => ({ content: [{ type: "text", text: "warm" }] })
            },
            {
              name: "wrong",
              output: Schema.Struct({ celsius: Schema.Number }),
              handler: () => ({ content: [], structuredContent: { celsius: "warm" } })
            }
          ]
        })
      ]
    })
    const simClient = new Client({ name: "c", version: "1" })
    await simClient.connect(
      new StreamableHTTPClientTransport(new URL("https://mcp.example.com/mcp"), { fetch: network.fetch })
    )

    const text = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError).toBe(true)
      return (result.content as ReadonlyArray<{ text: string }>)[0].text
    }
    for (const client of [sdkClient, simClient]) {
      expect(await text(client, "nope")).toBe(toolFailures.notFound("nope"))
      expect(await text(client, "weather")).toBe(toolFailures.noStructuredContent("weather"))
      expect(await text(client, "lookup", { term: 3 })).toMatch(
        new RegExp(`^${escapeRegExp(toolFailures.invalidArguments("lookup", ""))}.+`)
      )
      expect(await text(client, "wrong")).toMatch(
        new RegExp(`^${escapeRegExp(toolFailures.invalidStructuredContent("wrong", ""))}.+`)
      )
    }
    await sdkClient.close()
    await simClient.close()
    await network.close()
  })
})

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
