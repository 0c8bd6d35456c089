/**
 * The loop `bench/instructions.bench.ts` counts under valgrind: one network (the OpenAI and
 * Anthropic families and a rule answering every call with the same 200-word text, or a static
 * route answering the same JSON), and `calls` model calls dispatched to it in process after 3 000
 * to warm up, as `simnet serve`'s Node door dispatches them (the SDK's body, headers like its
 * own; the answer had at once). `node bench/servers/modelCalls.ts openai|anthropic|static CALLS`.
 */
import { Effect } from "effect"
import { makeSimRequest, LazySignal } from "../../src/registry/request.ts"
import { engineOf } from "../../src/network/network.ts"
import { Route, Routes, SimulationNetwork } from "../../src/index.ts"

const [kind, calls] = [process.argv[2] ?? "openai", Number(process.argv[3] ?? 0)]
const TEXT = Array.from({ length: 200 }, (_, i) => `w${i % 10}`).join(" ")
const ANSWER = JSON.stringify({
  id: "chatcmpl-sim-1",
  object: "chat.completion",
  created: 1767225600,
  model: "gpt-4o-mini",
  choices: [
    { index: 0, message: { role: "assistant", content: TEXT, refusal: null }, logprobs: null, finish_reason: "stop" }
  ],
  usage: { prompt_tokens: 1, completion_tokens: 200, total_tokens: 201 }
})

const network = await Effect.runPromise(
  SimulationNetwork.make(
    kind === "static"
      ? {
          logLimit: 0,
          routes: [
            Route.text("POST https://api.openai.com/v1/chat/completions", ANSWER, {
              headers: { "content-type": "application/json" }
            } as never)
          ]
        }
      : {
          logLimit: 0,
          routes: [...Routes.openai(), ...Routes.anthropic()],
          llmRules: [{ match: {}, behaviour: { type: "respond", steps: [[{ type: "text", content: TEXT }]] } }]
        }
  )
)
const engine = engineOf(network)
if (engine === undefined) throw new Error("the network was not made by SimulationNetwork")

const anthropic = kind === "anthropic"
const body = Buffer.from(
  JSON.stringify(
    anthropic
      ? { model: "claude-opus-5-5", max_tokens: 512, messages: [{ role: "user", content: "hi" }] }
      : { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }
  )
)
const url = anthropic ? "https://api.anthropic.com/v1/messages" : "https://api.openai.com/v1/chat/completions"
// Headers like the SDKs' (lower-cased, as Node's `req.headers` gives them; `host` left out by the door).
const headers: Record<string, string> = {
  connection: "keep-alive",
  accept: "application/json",
  "user-agent": anthropic ? "Anthropic/JS 1.16.0" : "OpenAI/JS 6.49.0",
  "x-stainless-retry-count": "0",
  "x-stainless-lang": "js",
  "x-stainless-os": "Linux",
  "x-stainless-arch": "x64",
  "x-stainless-runtime": "node",
  "x-stainless-runtime-version": "v22.23.3",
  authorization: "Bearer sk-bench",
  "content-type": "application/json",
  "accept-language": "*",
  "sec-fetch-mode": "cors",
  "accept-encoding": "gzip, deflate",
  "content-length": String(body.length),
  ...(anthropic ? { "anthropic-version": "2023-06-01" } : {})
}
const call = () => {
  const answer = engine.dispatch(
    makeSimRequest({ method: "POST", url: new URL(url), headers, body, signal: new LazySignal() })
  )
  if (answer._tag !== "Whole") throw new Error(`expected an answer had at once, got ${answer._tag}`)
}
for (let i = 0; i < 3000 + calls; i++) call()
