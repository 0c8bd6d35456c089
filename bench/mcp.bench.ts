/**
 * `tools/call` round trips per second with the official `@modelcontextprotocol/sdk` client:
 * through simnet in process (`Route.mcp` behind `network.fetch`, one session, JSON answers) side
 * by side with the floor, the SDK's own `McpServer` behind `InMemoryTransport` (no HTTP at all).
 * A third line is a reference: the same client against a `Route.handler` that answers every call
 * with a canned JSON-RPC reply in a plain `new Response(...)` (no MCP server at all, but a body
 * undici streams): what a hand-written route costs, where the MCP route answers with a body it
 * holds whole. Rounds alternate and the best of each counts, so load on the machine hits all
 * three.
 *
 * Run: npm run bench -- mcp (or node bench/mcp.bench.ts [--quick])
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Schema } from "effect"
import { z } from "zod"
import * as Route from "../src/Route.ts"
import { SimulationNetwork } from "../src/SimulationNetwork.ts"
import { measure, report, type Measure } from "./harness.ts"

const quick = process.argv.includes("--quick")
const ROUNDS = quick ? 2 : 4
const MIN_MS = quick ? 400 : 1_000
const URL_ = "https://mcp.bench.example/mcp"

const floorClient = async (): Promise<Client> => {
  const server = new McpServer({ name: "bench", version: "1.0.0" })
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }]
  }))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: "bench-client", version: "1.0.0" })
  await client.connect(clientSide)
  return client
}

const simnetClient = async (): Promise<Client> => {
  const network = await SimulationNetwork.start({
    logLimit: 1_000,
    routes: [
      Route.mcp(URL_, {
        name: "bench",
        version: "1.0.0",
        tools: [
          {
            name: "echo",
            input: Schema.Struct({ text: Schema.String }),
            handler: (args: { text: string }) => args.text
          }
        ]
      })
    ]
  })
  const client = new Client({ name: "bench-client", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: network.fetch }))
  return client
}

const cannedClient = async (): Promise<Client> => {
  const reply = (id: unknown, result: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), {
      headers: { "content-type": "application/json", ...headers }
    })
  const network = await SimulationNetwork.start({
    logLimit: 1_000,
    routes: [
      Route.handler(`POST ${URL_}`, (request) => {
        const message = request.json() as { id?: unknown; method: string; params: { arguments: { text: string } } }
        if (message.id === undefined) return new Response(null, { status: 202 })
        if (message.method === "initialize") {
          const result = {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "bench", version: "1.0.0" }
          }
          return reply(message.id, result, { "mcp-session-id": "bench" })
        }
        return reply(message.id, { content: [{ type: "text", text: message.params.arguments.text }] })
      })
    ]
  })
  const client = new Client({ name: "bench-client", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: network.fetch }))
  return client
}

const call = (client: Client) => (i: number) =>
  client.callTool({ name: "echo", arguments: { text: `hello ${i % 10}` } })

const floor = await floorClient()
const simnet = await simnetClient()
const canned = await cannedClient()
const best = new Map<string, Measure>()
const keep = (m: Measure) => {
  const seen = best.get(m.name)
  if (seen === undefined || m.opsPerSec > seen.opsPerSec) best.set(m.name, m)
}
for (let round = 0; round < ROUNDS; round++) {
  keep(await measure("floor: SDK McpServer over InMemoryTransport", call(floor), { warmup: 500, minMs: MIN_MS }))
  keep(await measure("simnet: Route.mcp over network.fetch", call(simnet), { warmup: 500, minMs: MIN_MS }))
  keep(await measure("reference: canned new Response from Route.handler", call(canned), { warmup: 500, minMs: MIN_MS }))
}
report(
  "tools/call round trips with the official MCP client (best of each)",
  [...best.values()],
  "floor: SDK McpServer over InMemoryTransport"
)
await floor.close()
await simnet.close()
await canned.close()
