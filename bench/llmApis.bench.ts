/**
 * Throughput of the simulated model on every streaming surface, through each one's official SDK:
 * Chat Completions, Responses, Azure OpenAI and OpenRouter (`openai`), Anthropic Messages
 * (`@anthropic-ai/sdk`), Gemini and Gemini on Vertex (`@google/genai`), Bedrock's ConverseStream
 * (`@aws-sdk/client-bedrock-runtime`, binary event stream) and InvokeModel stream
 * (`@anthropic-ai/bedrock-sdk`), Claude on Vertex (`@anthropic-ai/vertex-sdk`), Ollama
 * (`ollama`, NDJSON) and Cohere (`cohere-ai`). The anchor, measured in the same run, is each SDK's
 * floor: the same SDK reading the very events simnet served, prebuilt, from a bare `fetch` whose
 * body hands over one event per read. Floor and simnet runs alternate and the best of each counts;
 * each surface's simnet/floor ratio is set beside Chat Completions' (target: within 20% of it).
 * Then embeddings: requests per second for one
 * 1 536-dimension vector through the `openai` SDK (base64, its default), against the same SDK
 * reading a prebuilt answer.
 *
 * Run: npm run bench -- llmApis (or node bench/llmApis.bench.ts [tokens] [--quick])
 */
import Anthropic from "@anthropic-ai/sdk"
import AnthropicBedrock from "@anthropic-ai/bedrock-sdk"
import AnthropicVertex from "@anthropic-ai/vertex-sdk"
import { BedrockRuntimeClient, ConverseStreamCommand } from "@aws-sdk/client-bedrock-runtime"
import { FetchHttpHandler } from "@smithy/fetch-http-handler"
import { GoogleGenAI } from "@google/genai"
import { CohereClientV2 } from "cohere-ai"
import { Ollama } from "ollama"
import OpenAI, { AzureOpenAI } from "openai"
import { Routes, SimulationNetwork, type NetworkHandle } from "../src/index.ts"
import { perEventFetch, withGlobalFetch } from "./harness.ts"

const numeric = process.argv.slice(2).find((a) => /^\d+$/.test(a))
const TOKENS = numeric !== undefined ? Number(numeric) : process.argv.includes("--quick") ? 5_000 : 20_000
const RUNS = 5
const EMBED_CALLS = process.argv.includes("--quick") ? 300 : 1_000

type Fetch = typeof globalThis.fetch

interface Api {
  readonly name: string
  readonly url: string
  readonly body: unknown
  /** The content type of the floor's answer (SSE unless said). */
  readonly contentType?: string
  /** Streams one answer through the API's SDK over `fetch`; returns the text fragments seen. */
  readonly stream: (fetch: Fetch) => Promise<number>
}

const CLAUDE_ON_BEDROCK = "anthropic.claude-3-5-sonnet-20240620-v1:0"
const anthropicBody = {
  anthropic_version: "bedrock-2023-05-31",
  max_tokens: 1,
  stream: true,
  messages: [{ role: "user", content: "count" }]
}
const openAiChat = (client: OpenAI) => async () => {
  let tokens = 0
  for await (const chunk of await client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "count" }],
    stream: true
  })) {
    if ((chunk.choices[0]?.delta?.content ?? "") !== "") tokens++
  }
  return tokens
}
const anthropicTokens = async (events: AsyncIterable<{ readonly type: string; readonly delta?: unknown }>) => {
  let tokens = 0
  for await (const event of events)
    if (event.type === "content_block_delta" && (event.delta as { type?: string }).type === "text_delta") tokens++
  return tokens
}
const vertexAuth = { getRequestHeaders: async () => new Headers({ authorization: "Bearer t" }), projectId: "p" }

const apis: ReadonlyArray<Api> = [
  {
    name: "Chat Completions (openai)",
    url: "https://api.openai.com/v1/chat/completions",
    body: { model: "gpt-4o", messages: [{ role: "user", content: "count" }], stream: true },
    stream: (fetch) => openAiChat(new OpenAI({ apiKey: "sk-bench", fetch, maxRetries: 0 }))()
  },
  {
    name: "Responses (openai)",
    url: "https://api.openai.com/v1/responses",
    body: { model: "gpt-4o", input: "count", stream: true },
    stream: async (fetch) => {
      const client = new OpenAI({ apiKey: "sk-bench", fetch, maxRetries: 0 })
      let tokens = 0
      for await (const event of await client.responses.create({ model: "gpt-4o", input: "count", stream: true })) {
        if (event.type === "response.output_text.delta") tokens++
      }
      return tokens
    }
  },
  {
    name: "Anthropic (@anthropic-ai/sdk)",
    url: "https://api.anthropic.com/v1/messages",
    body: { model: "claude-sonnet-4-6", max_tokens: 1, stream: true, messages: [{ role: "user", content: "count" }] },
    stream: async (fetch) => {
      const client = new Anthropic({ apiKey: "sk-ant-bench", fetch, maxRetries: 0 })
      let tokens = 0
      const events = await client.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 1,
        stream: true,
        messages: [{ role: "user", content: "count" }]
      })
      for await (const event of events)
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") tokens++
      return tokens
    }
  },
  {
    name: "Gemini (@google/genai)",
    url: "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    body: { contents: [{ parts: [{ text: "count" }] }] },
    stream: async (fetch) => {
      const client = new GoogleGenAI({ apiKey: "g-bench", httpOptions: { fetch } })
      let tokens = 0
      for await (const chunk of await client.models.generateContentStream({
        model: "gemini-2.5-flash",
        contents: "count"
      })) {
        const text = chunk.candidates?.[0]?.content?.parts?.[0]?.text
        if (text !== undefined && text.length > 0) tokens++
      }
      return tokens
    }
  },
  {
    name: "Azure OpenAI (openai)",
    url: "https://simnet.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
    body: { model: "gpt-4o", messages: [{ role: "user", content: "count" }], stream: true },
    stream: (fetch) =>
      openAiChat(
        new AzureOpenAI({
          endpoint: "https://simnet.openai.azure.com",
          apiKey: "k",
          apiVersion: "2024-10-21",
          deployment: "gpt-4o",
          fetch,
          maxRetries: 0
        })
      )()
  },
  {
    name: "OpenRouter (openai)",
    url: "https://openrouter.ai/api/v1/chat/completions",
    body: { model: "gpt-4o", messages: [{ role: "user", content: "count" }], stream: true },
    stream: (fetch) =>
      openAiChat(new OpenAI({ apiKey: "k", baseURL: "https://openrouter.ai/api/v1", fetch, maxRetries: 0 }))()
  },
  {
    name: "Bedrock ConverseStream (aws-sdk)",
    url: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(CLAUDE_ON_BEDROCK)}/converse-stream`,
    body: { messages: [{ role: "user", content: [{ text: "count" }] }] },
    contentType: "application/vnd.amazon.eventstream",
    stream: (fetch) =>
      withGlobalFetch(fetch, async () => {
        const client = new BedrockRuntimeClient({
          region: "us-east-1",
          credentials: { accessKeyId: "A", secretAccessKey: "s" },
          requestHandler: new FetchHttpHandler({}),
          maxAttempts: 1
        })
        let tokens = 0
        const answer = await client.send(
          new ConverseStreamCommand({
            modelId: CLAUDE_ON_BEDROCK,
            messages: [{ role: "user", content: [{ text: "count" }] }]
          })
        )
        for await (const event of answer.stream!) if ((event.contentBlockDelta?.delta?.text ?? "") !== "") tokens++
        return tokens
      })
  },
  {
    name: "Bedrock InvokeModel stream (bedrock-sdk)",
    url: `https://bedrock-runtime.us-east-1.amazonaws.com/model/${encodeURIComponent(CLAUDE_ON_BEDROCK)}/invoke-with-response-stream`,
    body: anthropicBody,
    contentType: "application/vnd.amazon.eventstream",
    stream: async (fetch) => {
      const client = new AnthropicBedrock({
        awsRegion: "us-east-1",
        awsAccessKey: "A",
        awsSecretKey: "s",
        fetch,
        maxRetries: 0
      })
      return anthropicTokens(
        await client.messages.create({
          model: CLAUDE_ON_BEDROCK,
          max_tokens: 1,
          stream: true,
          messages: [{ role: "user", content: "count" }]
        })
      )
    }
  },
  {
    name: "Claude on Vertex (vertex-sdk)",
    url: "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict",
    body: { ...anthropicBody, anthropic_version: "vertex-2023-10-16" },
    stream: async (fetch) => {
      const client = new AnthropicVertex({
        region: "us-central1",
        projectId: "p",
        authClient: vertexAuth as never,
        fetch,
        maxRetries: 0
      })
      return anthropicTokens(
        await client.messages.create({
          model: "claude-sonnet-4@20250514",
          max_tokens: 1,
          stream: true,
          messages: [{ role: "user", content: "count" }]
        })
      )
    }
  },
  {
    name: "Gemini on Vertex (@google/genai)",
    url: "https://aiplatform.googleapis.com/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    body: { contents: [{ role: "user", parts: [{ text: "count" }] }] },
    stream: async (fetch) => {
      const client = new GoogleGenAI({ vertexai: true, apiKey: "k", httpOptions: { fetch } as never })
      let tokens = 0
      for await (const chunk of await client.models.generateContentStream({
        model: "gemini-2.5-flash",
        contents: "count"
      })) {
        if ((chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? "") !== "") tokens++
      }
      return tokens
    }
  },
  {
    name: "Ollama (ollama)",
    url: "http://127.0.0.1:11434/api/chat",
    body: { model: "llama3.2", messages: [{ role: "user", content: "count" }], stream: true },
    contentType: "application/x-ndjson",
    stream: async (fetch) => {
      let tokens = 0
      for await (const line of await new Ollama({ fetch }).chat({
        model: "llama3.2",
        stream: true,
        messages: [{ role: "user", content: "count" }]
      }))
        if (line.message.content !== "") tokens++
      return tokens
    }
  },
  {
    name: "Cohere (cohere-ai)",
    url: "https://api.cohere.com/v2/chat",
    body: { model: "command-a-03-2025", messages: [{ role: "user", content: "count" }], stream: true },
    stream: async (fetch) => {
      const client = new CohereClientV2({ token: "k", fetch } as ConstructorParameters<typeof CohereClientV2>[0])
      let tokens = 0
      for await (const event of await client.chatStream(
        { model: "command-a-03-2025", messages: [{ role: "user", content: "count" }] },
        { maxRetries: 0 }
      )) {
        if (event.type === "content-delta" && (event.delta?.message?.content?.text ?? "") !== "") tokens++
      }
      return tokens
    }
  }
]

/** The events simnet serves for `api`, one per read, as bytes. */
const capture = async (handle: NetworkHandle, api: Api): Promise<Array<Uint8Array>> => {
  const response = await handle.fetch(api.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(api.body)
  })
  const reader = response.body!.getReader()
  const events: Array<Uint8Array> = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return events
    events.push(value)
  }
}

const tokensPerSecond = async (api: Api, fetch: Fetch): Promise<number> => {
  const start = performance.now()
  const tokens = await api.stream(fetch)
  const seconds = (performance.now() - start) / 1000
  if (tokens !== TOKENS) throw new Error(`${api.name}: expected ${TOKENS} tokens, got ${tokens}`)
  return tokens / seconds
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

const streaming = async () => {
  const handle = await SimulationNetwork.start({
    routes: [
      ...Routes.openai(),
      ...Routes.anthropic(),
      ...Routes.gemini(),
      ...Routes.azureOpenai(),
      ...Routes.openrouter(),
      ...Routes.bedrock(),
      ...Routes.vertex(),
      ...Routes.ollama(),
      ...Routes.cohere()
    ]
  })
  handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: " tok".repeat(TOKENS) }]] })
  console.log(
    `simnet model APIs bench (node ${process.version}, ${fmt(TOKENS)} text tokens per stream, best of ${RUNS} interleaved runs)`
  )
  let worst = Number.POSITIVE_INFINITY
  let chat: { readonly ratio: number; readonly cost: number } | undefined
  const behind: Array<string> = []
  for (const api of apis) {
    const events = await capture(handle, api)
    const floorFetch = perEventFetch(events, api.contentType ?? "text/event-stream")
    await tokensPerSecond(api, floorFetch)
    await tokensPerSecond(api, handle.fetch)
    let floor = 0
    let simulated = 0
    for (let run = 0; run < RUNS; run++) {
      floor = Math.max(floor, await tokensPerSecond(api, floorFetch))
      simulated = Math.max(simulated, await tokensPerSecond(api, handle.fetch))
    }
    worst = Math.min(worst, simulated / floor)
    // What simnet itself spends on a token: its time over the floor's. An SDK much faster than the
    // openai SDK (Ollama's) lowers the ratio for the same work, so both are set beside chat's.
    const cost = 1e6 / simulated - 1e6 / floor
    chat ??= { ratio: simulated / floor, cost }
    const versus = simulated / floor / chat.ratio
    if (versus < 0.8 && cost > 1.2 * chat.cost) behind.push(`${api.name} ${versus.toFixed(2)}x`)
    console.log(
      `  ${api.name.padEnd(40)} floor ${fmt(floor).padStart(9)} tokens/s   simnet ${fmt(simulated).padStart(9)} tokens/s   ${(simulated / floor).toFixed(2)}x floor, ${versus.toFixed(2)}x chat's ratio, ${cost.toFixed(2)} µs/token over the floor (${events.length} events)`
    )
  }
  console.log(
    `  lowest ratio ${worst.toFixed(2)}x (target >= 0.5x); ${behind.length === 0 ? "every surface within 20% of Chat Completions' ratio, or spending no more than 1.2x its µs a token" : `behind Chat Completions on both counts: ${behind.join(", ")}`}`
  )
  await handle.close()
  return worst
}

const embeddings = async () => {
  const handle = await SimulationNetwork.start({ routes: Routes.openai() })
  const body = {
    model: "text-embedding-3-small",
    input: "The quick brown fox jumps over the lazy dog",
    encoding_format: "base64"
  }
  const prebuilt = new TextEncoder().encode(
    await (
      await handle.fetch("https://api.openai.com/v1/embeddings", { method: "POST", body: JSON.stringify(body) })
    ).text()
  )
  const floorFetch: Fetch = async () => new Response(prebuilt, { headers: { "content-type": "application/json" } })
  const rate = async (fetch: Fetch, calls: number) => {
    const client = new OpenAI({ apiKey: "sk-bench", fetch, maxRetries: 0 })
    const call = () => client.embeddings.create({ model: body.model, input: body.input })
    const check = await call()
    if (check.data[0].embedding.length !== 1536) throw new Error("expected a 1536-dimension vector")
    const start = performance.now()
    for (let i = 0; i < calls; i++) await call()
    return calls / ((performance.now() - start) / 1000)
  }
  await rate(floorFetch, 300)
  await rate(handle.fetch, 300)
  let floor = 0
  let simulated = 0
  for (let run = 0; run < RUNS; run++) {
    floor = Math.max(floor, await rate(floorFetch, EMBED_CALLS))
    simulated = Math.max(simulated, await rate(handle.fetch, EMBED_CALLS))
  }
  console.log(
    `embeddings, one 1 536-dimension vector per call through the openai SDK (${fmt(EMBED_CALLS)} sequential calls, best of ${RUNS} interleaved runs)`
  )
  console.log(`  floor   prebuilt answer   ${fmt(floor).padStart(7)} req/s`)
  console.log(
    `  simnet  network.fetch     ${fmt(simulated).padStart(7)} req/s   ${(simulated / floor).toFixed(2)}x floor`
  )
  await handle.close()
}

// A target is what the docs quote, not an exit status: a run below it says so and still succeeds.
const worst = await streaming()
await embeddings()
if (worst < 0.5)
  console.log(`  below the target: the slowest API streams at ${worst.toFixed(2)}x the floor (target >= 0.5x)`)
