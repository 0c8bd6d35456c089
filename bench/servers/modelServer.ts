/**
 * One model server for `bench/serveCpu.bench.ts`, in a process of its own so its CPU time can be
 * read apart from the client's: `simnet` (`simnet serve`'s layer on a network with the OpenAI and
 * Anthropic families and a rule) or `aimock` (`@copilotkit/aimock`'s `LLMock` with a fixture),
 * both answering every call with the same text. Prints `PORT n` when listening; answers a `cpu`
 * message with its `process.cpuUsage()` in microseconds.
 */
import { Effect, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { LLMock } from "@copilotkit/aimock"
import { serveLayer } from "../../src/serve/serve.ts"
import { Routes, SimulationNetwork } from "../../src/index.ts"

const [which, words] = [process.argv[2], Number(process.argv[3] ?? 200)]
/** The answer: `words` words, one token each. */
const TEXT = Array.from({ length: words }, (_, i) => `w${i % 10}`).join(" ")

let port: number
if (which === "simnet") {
  const network = await Effect.runPromise(SimulationNetwork.make({
    logLimit: 0,
    routes: [...Routes.openai(), ...Routes.anthropic()],
    llmRules: [{ match: {}, behaviour: { type: "respond", steps: [[{ type: "text", content: TEXT }]] } }]
  }))
  const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(network, 0), Effect.runSync(Scope.make())))
  const address = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))).address
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
