/**
 * Property cases per second: what one case of a fast-check property costs in network set-up and
 * traffic, each case run by `fc.assert(fc.asyncProperty(...))` as a property test runs it.
 *
 * At equal work, simnet and msw each set up a fresh network per case with an item route and a
 * chat-completions answer, serve 10 GETs of the item route and one model call through the
 * `openai` SDK, and tear the network down: simnet a `SimulationNetwork.start` (the route, the
 * OpenAI family, one script queued), msw a `setupServer` listened and closed (two handlers, a
 * canned completion) through the patched global `fetch`. A third row is simnet's richer case
 * (the account and models families too, and an MCP route registered from a route spec).
 * Rounds interleave the contenders after a warm-up; each figure is the best round, with the range.
 */
import fc from "fast-check"
import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import OpenAI from "openai"
import { Route, Routes, SimulationNetwork } from "../src/index.ts"
import type { Measure } from "./harness.ts"

const quick = process.argv.includes("--quick")
const RUNS = quick ? 200 : 500
const ROUNDS = quick ? 3 : 5
const ITEM = JSON.stringify({ id: "sim-item", name: "Simulated item" })
const COMPLETION = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "done" } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
}

/** The traffic of one case: 10 GETs of the item route (ids from the case's value), one model call. */
const traffic = async (fetch: typeof globalThis.fetch | undefined, ids: ReadonlyArray<number>) => {
  for (const id of ids) await (await (fetch ?? globalThis.fetch)(`https://api.example.com/items/${id}`)).text()
  const openai = new OpenAI({ apiKey: "sk-test", maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) })
  await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
}

const simnetEqual = async (ids: ReadonlyArray<number>) => {
  const network = await SimulationNetwork.start({
    seed: 1,
    routes: [
      Route.text("GET https://api.example.com/items/:id", ITEM, { contentType: "application/json" }),
      ...Routes.openai()
    ],
    llm: [{ steps: [[{ type: "text", content: "done" }]] }]
  })
  await traffic(network.fetch, ids)
  await network.close()
}

const simnetRich = async (ids: ReadonlyArray<number>) => {
  const network = await SimulationNetwork.start({
    seed: 1,
    routes: [...Routes.openai(), ...Routes.account("https://account.example.com"), ...Routes.models()],
    llm: [{ steps: [[{ type: "text", content: "done" }]] }]
  })
  await network.registerSpec([
    {
      id: "item",
      match: "GET https://api.example.com/items/:id",
      respond: { kind: "text", body: ITEM, contentType: "application/json" }
    },
    {
      id: "docs",
      match: "https://mcp.example.com/mcp",
      respond: {
        kind: "mcp",
        server: {
          name: "docs",
          version: "1",
          tools: [{ name: "search", inputSchema: { type: "object" }, result: "found" }]
        }
      }
    }
  ])
  await traffic(network.fetch, ids)
  await network.close()
}

const mswEqual = async (ids: ReadonlyArray<number>) => {
  const server = setupServer(
    http.get(
      "https://api.example.com/items/:id",
      () => new HttpResponse(ITEM, { headers: { "content-type": "application/json" } })
    ),
    http.post("https://api.openai.com/v1/chat/completions", () => HttpResponse.json(COMPLETION))
  )
  server.listen({ onUnhandledRequest: "error" })
  try {
    await traffic(undefined, ids)
  } finally {
    server.close()
  }
}

/** `runs` cases of a fast-check property whose cases are `body`; cases per second. */
const property = async (
  name: string,
  body: (ids: ReadonlyArray<number>) => Promise<void>,
  runs: number
): Promise<Measure> => {
  const started = performance.now()
  await fc.assert(fc.asyncProperty(fc.array(fc.nat({ max: 999 }), { minLength: 10, maxLength: 10 }), body), {
    numRuns: runs,
    seed: 42
  })
  return { name, opsPerSec: (runs * 1000) / (performance.now() - started), iterations: runs }
}

const CONTENDERS = [
  ["simnet, equal work: fresh network (item route, OpenAI family, a script), 10 GETs, 1 model call", simnetEqual],
  ["msw, equal work: setupServer per case (item and completion handlers), 10 GETs, 1 model call", mswEqual],
  ["simnet, richer case: + account and models families, an MCP route from a route spec", simnetRich]
] as const

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 })

console.log(
  `property bench (node ${process.version}${quick ? ", --quick" : ""}): fast-check properties of ${RUNS} cases, ${ROUNDS} rounds interleaved after a warm-up round; best round with the range`
)
for (const [name, body] of CONTENDERS) await property(name, body, 50)
const rounds = CONTENDERS.map(() => [] as Array<number>)
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < CONTENDERS.length; i++)
    rounds[i].push((await property(CONTENDERS[i][0], CONTENDERS[i][1], RUNS)).opsPerSec)
}
const width = Math.max(...CONTENDERS.map(([name]) => name.length))
const best = rounds.map((r) => Math.max(...r))
console.log(`\nproperty cases per second`)
CONTENDERS.forEach(([name], i) => {
  console.log(
    `  ${name.padEnd(width)}  ${fmt(best[i]).padStart(6)} cases/s  (rounds ${fmt(Math.min(...rounds[i]))}–${fmt(best[i])})  ${(1e6 / best[i]).toFixed(0)} µs a case`
  )
})
const ratios = rounds[0].map((simnet, i) => simnet / rounds[1][i])
console.log(
  `  simnet / msw at equal work: ${(best[0] / best[1]).toFixed(2)}× (best rounds; round by round ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×); the richer case ${(best[2] / best[1]).toFixed(2)}× msw's equal-work case`
)
