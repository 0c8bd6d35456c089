/**
 * One model server for `bench/serveCpu.bench.ts`, in a process of its own so its CPU time can be
 * read apart from the client's: `simnet` (`simnet serve`'s layer on a network with the OpenAI and
 * Anthropic families and a rule), `aimock` (`@copilotkit/aimock`'s `LLMock` with a fixture), or
 * `bare` (a plain `node:http` server that reads and parses the body and writes the bytes simnet
 * answers, head and body, taken from the network once at start: Node's own share of a call), all
 * answering every call with the same text. Prints `PORT n` when listening; answers a `cpu`
 * message with its `process.cpuUsage()` in microseconds.
 */
import * as http from "node:http"
import { Effect, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { LLMock } from "@copilotkit/aimock"
import { serveLayer } from "../../src/serve/serve.ts"
import { Routes, SimulationNetwork } from "../../src/index.ts"
import { ANTHROPIC_MESSAGES, OPENAI_CHAT } from "./requests.ts"

const [which, words] = [process.argv[2], Number(process.argv[3] ?? 200)]
/** The answer: `words` words, one token each. */
const TEXT = Array.from({ length: words }, (_, i) => `w${i % 10}`).join(" ")

const network = () =>
  Effect.runPromise(
    SimulationNetwork.make({
      logLimit: 0,
      routes: [...Routes.openai(), ...Routes.anthropic()],
      llmRules: [{ match: {}, behaviour: { type: "respond", steps: [[{ type: "text", content: TEXT }]] } }]
    })
  )

/** What simnet answers a path's call: status, headers and bytes, as the bare server writes them. */
const answerOf = async (url: string, body: unknown) => {
  const response = await (await network()).fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  return {
    status: response.status,
    headers: { ...Object.fromEntries(response.headers), "content-length": String(bytes.length) },
    body: bytes
  }
}

let port: number
if (which === "bare") {
  const answers = new Map([
    ["/v1/chat/completions", await answerOf("https://api.openai.com/v1/chat/completions", OPENAI_CHAT)],
    ["/v1/messages", await answerOf("https://api.anthropic.com/v1/messages", ANTHROPIC_MESSAGES)]
  ])
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString())
      const answer = answers.get(req.url ?? "")
      if (answer === undefined) return void res.writeHead(404).end()
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as { readonly port: number }).port
} else if (which === "simnet") {
  const context = await Effect.runPromise(
    Layer.buildWithScope(serveLayer(await network(), 0), Effect.runSync(Scope.make()))
  )
  const address = Effect.runSync(
    Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))
  ).address
  port = (address as { readonly port: number }).port
} else {
  // One chunk per word (a word and its space), as simnet streams one delta per word.
  const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" } as never)
  mock.onMessage(/.*/, { content: TEXT }, { chunkSize: 3 })
  await mock.start()
  port = Number(new URL(mock.url).port)
}
process.on("message", (message) => {
  // `exit`: leave through process.exit, so that `--cpu-prof` writes its profile.
  if (message === "exit") process.exit(0)
  if (message === "cpu") {
    const used = process.cpuUsage()
    process.send!({ cpu: used.user + used.system })
  }
})
process.stdout.write(`PORT ${port}\n`)
