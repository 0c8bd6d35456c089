import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Schema } from "effect"
import { z } from "zod"
import * as Route from "../../src/Route.ts"
import { SimulationNetwork } from "../../src/SimulationNetwork.ts"
import { bufferedResponse } from "../../src/registry/heldResponse.ts"
const URL_ = "https://mcp.bench.example/mcp"
const floor = async () => {
  const server = new McpServer({ name: "bench", version: "1.0.0" })
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }))
  const [c, s] = InMemoryTransport.createLinkedPair(); await server.connect(s)
  const client = new Client({ name: "c", version: "1" }); await client.connect(c); return client
}
const fake = async (held: boolean) => {
  const f = async (_url: any, init: any) => {
    const msg = JSON.parse(init.body)
    if (msg.id === undefined) return new Response(null, { status: 202 })
    const result = msg.method === "initialize" ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "b", version: "1" } } : { content: [{ type: "text", text: msg.params.arguments.text }] }
    const text = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result })
    const headers = { "content-type": "application/json", "mcp-session-id": "s" }
    return held ? bufferedResponse(text, { headers }, init.signal) : new Response(text, { headers })
  }
  const client = new Client({ name: "c", version: "1" }); await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: f as any })); return client
}
const simnet = async () => {
  const network = await SimulationNetwork.start({ logLimit: 1_000, routes: [Route.mcp(URL_, { name: "bench", version: "1.0.0", tools: [{ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: (args: { text: string }) => args.text }] })] })
  const client = new Client({ name: "c", version: "1" }); await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: network.fetch })); return client
}
const clients: Record<string, Client> = { floor: await floor(), fakePlain: await fake(false), fakeHeld: await fake(true), simnet: await simnet() }
const best: Record<string, number> = {}
for (let r = 0; r < 4; r++) for (const [name, client] of Object.entries(clients)) {
  for (let i = 0; i < 300; i++) await client.callTool({ name: "echo", arguments: { text: "w" } })
  const t = performance.now(); let n = 0
  while (performance.now() - t < 800) { await client.callTool({ name: "echo", arguments: { text: `hello ${n % 10}` } }); n++ }
  best[name] = Math.max(best[name] ?? 0, n / 0.8)
}
for (const [name, v] of Object.entries(best)) console.log(name.padEnd(10), Math.round(v), (v / best.floor).toFixed(2), (1e6 / v).toFixed(1) + "µs")
