/**
 * Model calls over loopback: `simnet serve`'s Node door answering OpenAI Chat Completions calls
 * (non-streamed and streamed) from a rule, 8 keep-alive connections, best of 4 rounds after one
 * to warm up. `npm run bench -- serveModel` (`--quick`: fewer calls).
 */
import * as http from "node:http"
import { Effect, Exit, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { serveLayer } from "../src/serve/serve.ts"
import { Routes, SimulationNetwork } from "../src/index.ts"

const quick = process.argv.includes("--quick")
const CALLS = quick ? 1_500 : 4_000

const net = await Effect.runPromise(
  SimulationNetwork.make({
    logLimit: 0,
    routes: [...Routes.openai()],
    llmRules: [{ match: {}, behaviour: { type: "respond", steps: [[{ type: "text", content: "hello there" }]] } }]
  })
)
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(net, 0), scope))
const base = HttpServer.formatAddress(
  Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))).address
)
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })

const call = (body: string) =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(
      `${base}/api.openai.com/v1/chat/completions`,
      { method: "POST", agent, headers: { "content-type": "application/json", authorization: "Bearer sk-bench" } },
      (response) => {
        response.resume()
        response.on("end", () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))
        )
      }
    )
    request.on("error", reject)
    request.end(body)
  })

const round = async (n: number, stream: boolean) => {
  const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream })
  const started = performance.now()
  let i = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (i++ < n) await call(body)
    })
  )
  return n / ((performance.now() - started) / 1000)
}

console.log(
  `model calls over simnet serve (OpenAI Chat Completions, 8 keep-alive connections, ${CALLS} calls a round, best of 4 after one to warm up)`
)
for (const stream of [false, true]) {
  await round(CALLS / 4, stream)
  const rates: Array<number> = []
  for (let r = 0; r < 4; r++) rates.push(await round(CALLS, stream))
  console.log(
    `  ${stream ? "streamed    " : "non-streamed"}  ${Math.round(Math.max(...rates)).toLocaleString("en-US")} calls/s`
  )
}
agent.destroy()
await Effect.runPromise(Scope.close(scope, Exit.void))
