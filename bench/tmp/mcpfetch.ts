import { Schema } from "effect"
import * as Route from "../../src/Route.ts"
import { SimulationNetwork } from "../../src/SimulationNetwork.ts"
const URL_ = "https://mcp.bench.example/mcp"
const network = await SimulationNetwork.start({ logLimit: 1_000, routes: [Route.mcp(URL_, { name: "bench", version: "1.0.0", tools: [{ name: "echo", input: Schema.Struct({ text: Schema.String }), handler: (args: { text: string }) => args.text }] })] })
const base = { accept: "application/json, text/event-stream", "content-type": "application/json" }
const init = await network.fetch(URL_, { method: "POST", headers: base, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } }) })
const session = init.headers.get("mcp-session-id")!
await init.text()
const ac = new AbortController()
const call = async (i: number) => {
  const headers = new Headers({ ...base, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
  const r = await network.fetch(new URL(URL_), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { text: `hello ${i % 10}` } } }), signal: ac.signal })
  return r.json()
}
for (let i = 0; i < 20000; i++) await call(i)
const n = 100000; const t = performance.now()
for (let i = 0; i < n; i++) await call(i)
console.log(((performance.now() - t) * 1000 / n).toFixed(2), "µs per call (fetch + json)")
