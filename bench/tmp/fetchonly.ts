import * as Route from "../../src/Route.ts"
import { SimulationNetwork } from "../../src/SimulationNetwork.ts"
const URL_ = "https://mcp.bench.example/mcp"
const network = await SimulationNetwork.start({ logLimit: 1_000, routes: [Route.text(`POST ${URL_}`, JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hello 1" }] } }), { contentType: "application/json" })] })
const base = { accept: "application/json, text/event-stream", "content-type": "application/json" }
const ac = new AbortController()
const variants: Record<string, (i: number) => Promise<unknown>> = {
  harnessOnly: async (i) => { const headers = new Headers({ ...base, "mcp-session-id": "s", "mcp-protocol-version": "2025-11-25" }); const b = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { text: `hello ${i % 10}` } } }); return [headers, b, new URL(URL_)] },
  staticRoute: async (i) => {
    const headers = new Headers({ ...base, "mcp-session-id": "s", "mcp-protocol-version": "2025-11-25" })
    const r = await network.fetch(new URL(URL_), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "echo", arguments: { text: `hello ${i % 10}` } } }), signal: ac.signal })
    return r.json()
  }
}
for (let round = 0; round < 3; round++) for (const [name, f] of Object.entries(variants)) {
  for (let i = 0; i < 20000; i++) await f(i)
  const n = 100000; const t = performance.now()
  for (let i = 0; i < n; i++) await f(i)
  console.log(name.padEnd(12), ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
}
