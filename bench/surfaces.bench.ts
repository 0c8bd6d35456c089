/**
 * Every model surface, one non-streamed call at a time, each through its official SDK (issue 34):
 * calls per second in process (`network.fetch`) against the floor — the same SDK reading the very
 * answer simnet served, prebuilt — and against aimock (`@copilotkit/aimock`'s `LLMock`, the same
 * answer, in this process over loopback: aimock has no in-process client) on the surfaces it also
 * serves. After one warm-up pass over every surface, floor, simnet and aimock alternate and the
 * best of each counts. What simnet adds to a call — its microseconds over the floor's — is set
 * beside what it adds to a Chat Completions call (the target: within 20% of it; SDKs differ too
 * much in their own cost for a ratio to the floor to compare surfaces).
 *
 * Run: npm run bench -- surfaces (or node bench/surfaces.bench.ts [--quick])
 */
import { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime"
import { FetchHttpHandler } from "@smithy/fetch-http-handler"
import Anthropic from "@anthropic-ai/sdk"
import AnthropicVertex from "@anthropic-ai/vertex-sdk"
import { LLMock } from "@copilotkit/aimock"
import { GoogleGenAI } from "@google/genai"
import { CohereClientV2 } from "cohere-ai"
import { Ollama } from "ollama"
import OpenAI, { AzureOpenAI } from "openai"
import { Routes, SimulationNetwork } from "../src/index.ts"
import { realFetch, withGlobalFetch } from "./harness.ts"

type Fetch = typeof globalThis.fetch
const QUICK = process.argv.includes("--quick")
const CALLS = QUICK ? 300 : 1_000
const RUNS = QUICK ? 3 : 5
const TEXT = Array.from({ length: 20 }, (_, i) => `w${i % 10}`).join(" ")

/** A surface: how its SDK makes one call over `fetch`, at simnet's base (`base` undefined) or at aimock's. */
interface Surface {
  readonly name: string
  readonly call: (fetch: Fetch, base: string | undefined) => () => Promise<unknown>
  /** Whether aimock serves it. */
  readonly aimock: boolean
}

/** The AWS SDK reads `globalThis.fetch` through its fetch handler: each call runs with `fetch` there. */
const callWithGlobalFetch = (fetch: Fetch, call: () => Promise<unknown>) => () => withGlobalFetch(fetch, call)

const user = "count"
const surfaces: ReadonlyArray<Surface> = [
  {
    name: "openai.chat",
    aimock: true,
    call: (fetch, base) => {
      const c = new OpenAI({
        apiKey: "k",
        fetch,
        maxRetries: 0,
        ...(base === undefined ? {} : { baseURL: `${base}/v1` })
      })
      return () => c.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: user }] })
    }
  },
  {
    name: "openai.responses",
    aimock: true,
    call: (fetch, base) => {
      const c = new OpenAI({
        apiKey: "k",
        fetch,
        maxRetries: 0,
        ...(base === undefined ? {} : { baseURL: `${base}/v1` })
      })
      return () => c.responses.create({ model: "gpt-4o", input: user })
    }
  },
  {
    name: "anthropic.messages",
    aimock: true,
    call: (fetch, base) => {
      const c = new Anthropic({ apiKey: "k", fetch, maxRetries: 0, ...(base === undefined ? {} : { baseURL: base }) })
      return () =>
        c.messages.create({ model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: user }] })
    }
  },
  {
    name: "gemini",
    aimock: true,
    call: (fetch, base) => {
      const c = new GoogleGenAI({
        apiKey: "k",
        httpOptions: { fetch, ...(base === undefined ? {} : { baseUrl: base }) } as never
      })
      return () => c.models.generateContent({ model: "gemini-2.5-flash", contents: user })
    }
  },
  {
    name: "bedrock.converse",
    aimock: true,
    call: (fetch, base) => {
      const c = new BedrockRuntimeClient({
        region: "us-east-1",
        credentials: { accessKeyId: "A", secretAccessKey: "s" },
        requestHandler: new FetchHttpHandler({}),
        ...(base === undefined ? {} : { endpoint: base })
      })
      return callWithGlobalFetch(fetch, () =>
        c.send(
          new ConverseCommand({
            modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0",
            messages: [{ role: "user", content: [{ text: user }] }]
          })
        )
      )
    }
  },
  {
    name: "bedrock.invoke",
    aimock: true,
    call: (fetch, base) => {
      const c = new BedrockRuntimeClient({
        region: "us-east-1",
        credentials: { accessKeyId: "A", secretAccessKey: "s" },
        requestHandler: new FetchHttpHandler({}),
        ...(base === undefined ? {} : { endpoint: base })
      })
      const body = JSON.stringify({
        anthropic_version: "bedrock-2023-05-31",
        max_tokens: 64,
        messages: [{ role: "user", content: user }]
      })
      return callWithGlobalFetch(fetch, () =>
        c.send(new InvokeModelCommand({ modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", body }))
      )
    }
  },
  {
    name: "vertex.anthropic",
    aimock: false,
    call: (fetch) => {
      const c = new AnthropicVertex({
        region: "us-central1",
        projectId: "p",
        maxRetries: 0,
        fetch,
        authClient: {
          getRequestHeaders: async () => new Headers({ authorization: "Bearer t" }),
          projectId: "p"
        } as never
      })
      return () =>
        c.messages.create({
          model: "claude-sonnet-4@20250514",
          max_tokens: 64,
          messages: [{ role: "user", content: user }]
        })
    }
  },
  {
    name: "vertex.gemini",
    aimock: false,
    call: (fetch) => {
      const c = new GoogleGenAI({ vertexai: true, apiKey: "k", httpOptions: { fetch } as never })
      return () => c.models.generateContent({ model: "gemini-2.5-flash", contents: user })
    }
  },
  {
    name: "azure-openai.chat",
    aimock: true,
    call: (fetch, base) => {
      const c = new AzureOpenAI({
        endpoint: base ?? "https://simnet.openai.azure.com",
        apiKey: "k",
        apiVersion: "2024-10-21",
        deployment: "gpt-4o",
        fetch,
        maxRetries: 0
      })
      return () => c.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: user }] })
    }
  },
  {
    name: "openrouter.chat",
    aimock: false,
    call: (fetch) => {
      const c = new OpenAI({ apiKey: "k", baseURL: "https://openrouter.ai/api/v1", fetch, maxRetries: 0 })
      return () => c.chat.completions.create({ model: "openai/gpt-4o", messages: [{ role: "user", content: user }] })
    }
  },
  {
    name: "ollama.chat",
    aimock: true,
    call: (fetch, base) => {
      const c = new Ollama({ fetch, ...(base === undefined ? {} : { host: base }) })
      return () => c.chat({ model: "llama3.2", stream: false, messages: [{ role: "user", content: user }] })
    }
  },
  {
    name: "cohere.chat",
    aimock: true,
    call: (fetch, base) => {
      const c = new CohereClientV2({
        token: "k",
        fetch,
        ...(base === undefined ? {} : { baseUrl: base })
      } as ConstructorParameters<typeof CohereClientV2>[0])
      return () =>
        c.chat({ model: "command-a-03-2025", messages: [{ role: "user", content: user }] }, { maxRetries: 0 })
    }
  }
]

/** A fetch that answers every call with the bytes of the first answer `fetch` gave (the floor). */
const prebuilt = async (fetch: Fetch, call: (fetch: Fetch) => () => Promise<unknown>): Promise<Fetch> => {
  let captured: { body: Uint8Array; status: number; headers: Array<[string, string]> } | undefined
  const capturing: Fetch = async (input, init) => {
    const response = await fetch(input, init)
    captured = {
      body: new Uint8Array(await response.arrayBuffer()),
      status: response.status,
      headers: [...response.headers]
    }
    return new Response(captured.body as BodyInit, { status: captured.status, headers: captured.headers })
  }
  await call(capturing)()
  const answer = captured!
  return async (input) => {
    if (input instanceof Request) await input.arrayBuffer()
    return new Response(answer.body as BodyInit, { status: answer.status, headers: answer.headers })
  }
}

const rate = async (call: () => Promise<unknown>): Promise<number> => {
  const start = performance.now()
  for (let i = 0; i < CALLS; i++) await call()
  return CALLS / ((performance.now() - start) / 1000)
}

const handle = await SimulationNetwork.start({
  logLimit: 0,
  routes: [
    ...Routes.openai(),
    ...Routes.anthropic(),
    ...Routes.gemini(),
    ...Routes.bedrock(),
    ...Routes.vertex(),
    ...Routes.azureOpenai(),
    ...Routes.openrouter(),
    ...Routes.ollama(),
    ...Routes.cohere()
  ]
})
handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: TEXT }]] })
const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" } as never)
mock.onMessage(/.*/, { content: TEXT })
await mock.start()

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(7)
// Made one after another: the AWS SDK's calls swap `globalThis.fetch`, so none may overlap.
const prepared: Array<{ readonly surface: Surface; readonly contenders: Array<[string, () => Promise<unknown>]> }> = []
for (const surface of surfaces) {
  const floorFetch = await prebuilt(handle.fetch, (fetch) => surface.call(fetch, undefined))
  const contenders: Array<[string, () => Promise<unknown>]> = [
    ["floor", surface.call(floorFetch, undefined)],
    ["simnet", surface.call(handle.fetch, undefined)]
  ]
  if (surface.aimock) {
    const aimockCall = surface.call(realFetch, mock.url.replace(/\/$/, ""))
    if (
      await aimockCall().then(
        () => true,
        () => false
      )
    )
      contenders.push(["aimock", aimockCall])
  }
  prepared.push({ surface, contenders })
}
// One warm-up pass over every surface first, so the first surface measured is not the coldest.
for (const { contenders } of prepared) for (const [, call] of contenders) for (let i = 0; i < 200; i++) await call()

console.log(
  `every model surface, one non-streamed call at a time through its official SDK (node ${process.version}; ${CALLS} calls, best of ${RUNS} interleaved runs)`
)
console.log(
  `  ${"surface".padEnd(20)} ${"floor".padStart(7)} ${"simnet".padStart(7)} ${"aimock".padStart(7)}  simnet µs/call over floor  vs chat's   simnet/aimock`
)
let chatCost: number | undefined
const misses: Array<string> = []
for (const { surface, contenders } of prepared) {
  const best = new Map<string, number>()
  for (let run = 0; run < RUNS; run++) {
    for (const [name, call] of run % 2 === 0 ? contenders : [...contenders].reverse())
      best.set(name, Math.max(best.get(name) ?? 0, await rate(call)))
  }
  const floor = best.get("floor")!
  const simnet = best.get("simnet")!
  const aimock = best.get("aimock")
  // Where simnet's best round beats the floor's (noise on a call that adds little), what it adds
  // is shown as at most 0, never a negative figure.
  const cost = Math.max(0, 1e6 / simnet - 1e6 / floor)
  chatCost ??= cost
  // Set beside chat's cost as a difference: chat's own is a few µs over its floor, where a
  // ratio would only measure the floor's noise. A miss is more than 20% and 10 µs over chat's.
  const versus = cost - chatCost
  if (versus > Math.max(0.2 * chatCost, 10))
    misses.push(`${surface.name} adds ${versus.toFixed(0)} µs a call more than chat does`)
  if (aimock !== undefined && simnet < aimock) misses.push(`${surface.name} behind aimock`)
  console.log(
    `  ${surface.name.padEnd(20)} ${fmt(floor)} ${fmt(simnet)} ${aimock === undefined ? "    n/a" : fmt(aimock)}  ${(cost === 0 ? "0 (at the floor)" : cost.toFixed(0)).padStart(24)} ${`${versus >= 0 ? "+" : ""}${versus.toFixed(0)} µs`.padStart(10)} ${aimock === undefined ? "" : `${(simnet / aimock).toFixed(2).padStart(12)}x`}`
  )
}
console.log(
  misses.length === 0
    ? "  every surface within 20% (or 10 µs) of what simnet adds to a chat call, and ahead of aimock where it serves the surface"
    : `  below the targets: ${misses.join("; ")}`
)
await mock.stop()
await handle.close()
