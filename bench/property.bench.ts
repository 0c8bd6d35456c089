/**
 * Property cases per second: what one case of a property test costs in network set-up and
 * traffic. A simnet case is a fresh network with the startup families, the OpenAI-compatible
 * model (one script queued) and an MCP route, then 10 requests to an HTTP route and one model
 * call through the `openai` SDK, then the network closed. Beside it, the same case's HTTP part
 * with msw: a `setupServer` per case (the HTTP route and a canned chat completion), listened and
 * closed, the same 10 requests and one POST, through the patched global `fetch`.
 */
import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import OpenAI from "openai"
import { Routes, SimulationNetwork } from "simnet"
import { measure, report } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 800 : 3_000
const ITEM = JSON.stringify({ id: "sim-item", name: "Simulated item" })
const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "done" } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
}

const simnetCase = async () => {
  const network = await SimulationNetwork.start({
    seed: 1,
    routes: [...Routes.openai(), ...Routes.account("https://account.example.com"), ...Routes.models()],
    llm: [{ steps: [[{ type: "text", content: "done" }]] }]
  })
  await network.registerSpec([
    { id: "item", match: "GET https://api.example.com/items/:id", respond: { kind: "text", body: ITEM, contentType: "application/json" } },
    { id: "docs", match: "https://mcp.example.com/mcp", respond: { kind: "mcp", server: { name: "docs", version: "1", tools: [{ name: "search", inputSchema: { type: "object" }, result: "found" }] } } }
  ])
  for (let i = 0; i < 10; i++) await (await network.fetch(`https://api.example.com/items/${i}`)).text()
  const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
  await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
  await network.close()
}

const mswCase = async () => {
  const server = setupServer(
    http.get("https://api.example.com/items/:id", () => new HttpResponse(ITEM, { headers: { "content-type": "application/json" } })),
    http.post("https://api.openai.com/v1/chat/completions", () => HttpResponse.json(COMPLETION))
  )
  server.listen({ onUnhandledRequest: "error" })
  try {
    for (let i = 0; i < 10; i++) await (await fetch(`https://api.example.com/items/${i}`)).text()
    const openai = new OpenAI({ apiKey: "sk-test", maxRetries: 0 })
    await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
  } finally {
    server.close()
  }
}

const simnet = await measure("simnet: fresh network (families, model, MCP route), 10 requests, 1 model call", simnetCase, { warmup: 20, minMs, minIterations: 50 })
const msw = await measure("msw: setupServer per case (HTTP part only), 10 requests, 1 POST", mswCase, { warmup: 20, minMs, minIterations: 50 })
report("property cases per second (one case: set up a network, 11 requests, tear it down)", [simnet, msw], msw.name)
