/**
 * What every model API shares, run once per API from one table (the APIs are simnet's own model
 * table, `models/apis.ts`, so an API added there without a row here fails): through the AI SDK's provider for
 * it, a tool that executes and a second step that reads its result, and the SDK's retries of a
 * 429 each counted. Each API's own wire details stay in its file (`llm.openai.test.ts`, …).
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { createAmazonBedrock } from "@ai-sdk/amazon-bedrock"
import { createBedrockAnthropic } from "@ai-sdk/amazon-bedrock/anthropic"
import { createAzure } from "@ai-sdk/azure"
import { createCohere } from "@ai-sdk/cohere"
import { createOpenRouter } from "@openrouter/ai-sdk-provider"
import { createOllama } from "ollama-ai-provider-v2"
import { createVertex } from "@ai-sdk/google-vertex"
import { createVertexAnthropic } from "@ai-sdk/google-vertex/anthropic"
import { jsonSchema, type LanguageModel, stepCountIs, streamText, tool } from "ai"
import { describe, expect, it } from "vitest"
import { type Route, Routes, SimulationNetwork } from "simnet"
import { type LlmApi, LLM_APIS } from "../src/models/provider/conversation.ts"
import { DEFAULT_MODEL_APIS } from "../src/models/apis.ts"

interface ApiRow {
  readonly api: LlmApi
  readonly routes: () => ReadonlyArray<Route.Route>
  readonly model: (fetch: typeof globalThis.fetch) => LanguageModel
  /** Provider options that ask for thinking, where the API sends it only when asked. */
  readonly thinking?: Record<string, Record<string, unknown>>
}

const AWS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }

const APIS: ReadonlyArray<ApiRow> = [
  {
    api: "openai.chat",
    routes: () => Routes.openai(),
    model: (fetch) => createOpenAI({ apiKey: "sk-test", fetch }).chat("gpt-4o")
  },
  {
    api: "openai.responses",
    routes: () => Routes.openai(),
    model: (fetch) => createOpenAI({ apiKey: "sk-test", fetch })("gpt-4o")
  },
  {
    api: "anthropic.messages",
    routes: () => Routes.anthropic(),
    model: (fetch) => createAnthropic({ apiKey: "sk-ant-test", fetch })("claude-sonnet-4-6"),
    thinking: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } }
  },
  {
    api: "gemini",
    routes: () => Routes.gemini(),
    model: (fetch) => createGoogleGenerativeAI({ apiKey: "gemini-test", fetch })("gemini-2.5-flash")
  },
  {
    api: "bedrock.converse",
    routes: () => Routes.bedrock(),
    model: (fetch) =>
      createAmazonBedrock({ region: "us-east-1", ...AWS, fetch })("anthropic.claude-3-5-sonnet-20240620-v1:0")
  },
  {
    api: "bedrock.invoke",
    routes: () => Routes.bedrock(),
    model: (fetch) =>
      createBedrockAnthropic({ region: "us-east-1", ...AWS, fetch })("anthropic.claude-3-5-sonnet-20240620-v1:0"),
    thinking: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } }
  },
  {
    api: "azure-openai.chat",
    routes: () => Routes.azureOpenai(),
    model: (fetch) => createAzure({ resourceName: "simnet", apiKey: "azure-test", fetch }).chat("gpt-4o")
  },
  {
    api: "azure-openai.responses",
    routes: () => Routes.azureOpenai(),
    model: (fetch) => createAzure({ resourceName: "simnet", apiKey: "azure-test", fetch })("gpt-4o")
  },
  {
    api: "openrouter.chat",
    routes: () => Routes.openrouter(),
    model: (fetch) => createOpenRouter({ apiKey: "sk-or-test", fetch }).chat("openai/gpt-4o")
  },
  {
    api: "ollama.chat",
    routes: () => Routes.ollama(),
    model: (fetch) => createOllama({ baseURL: "http://127.0.0.1:11434/api", fetch })("llama3.2")
  },
  {
    api: "vertex.gemini",
    routes: () => Routes.vertex(),
    model: (fetch) => createVertex({ apiKey: "vertex-express-key", fetch })("gemini-2.5-flash")
  },
  {
    api: "vertex.anthropic",
    routes: () => Routes.vertex(),
    model: (fetch) =>
      createVertexAnthropic({
        project: "my-project",
        location: "us-central1",
        generateAuthToken: async () => "ya29.test",
        fetch
      })("claude-sonnet-4@20250514"),
    thinking: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } }
  },
  {
    api: "cohere.chat",
    routes: () => Routes.cohere(),
    model: (fetch) => createCohere({ apiKey: "co-test", fetch })("command-a-03-2025")
  }
]

/** APIs no AI SDK provider calls, each judged by its own client elsewhere. */
const NO_AI_SDK_PROVIDER: Readonly<Record<string, string>> = {
  "ollama.generate": "no AI SDK provider calls /api/generate; the ollama client judges it in llm.providers.test.ts",
  "openai.realtime": "a WebSocket API no AI SDK provider speaks; OpenAIRealtimeWS judges it in llm.realtime.test.ts",
  "gemini.live":
    "a WebSocket API no AI SDK provider speaks; @google/genai's live client judges it in llm.realtime.test.ts",
  "openai.transcription":
    "not a language model; the openai SDK and the AI SDK's transcribe judge it in llm.media.test.ts",
  "openai.translation": "not a language model; the openai SDK judges it in llm.media.test.ts",
  a2a: "an agent protocol, not a model API; the official @a2a-js/sdk client judges it in agents.protocols.test.ts",
  "ag-ui": "an agent protocol, not a model API; @ag-ui/client's HttpAgent judges it in agents.protocols.test.ts"
}

describe("every model API", () => {
  it("is named in LLM_APIS", () => {
    expect([...LLM_APIS].sort()).toEqual(DEFAULT_MODEL_APIS.apis.map((wire) => wire.api).sort())
  })

  it("has a row here", () => {
    expect(APIS.map((row) => row.api).sort()).toEqual(
      DEFAULT_MODEL_APIS.apis
        .map((wire) => wire.api)
        .filter((api) => NO_AI_SDK_PROVIDER[api] === undefined)
        .sort()
    )
  })
})

describe.each(APIS)("$api through the AI SDK", (row) => {
  it("runs a tool that executes and a second step that reads its result", async () => {
    const handle = await SimulationNetwork.start({ routes: row.routes() })
    const llm = handle.llm
    llm.rule(
      { toolResult: false },
      {
        type: "respond",
        steps: [
          [
            ...(row.thinking === undefined ? [] : [{ type: "thinking" as const, content: "Look it up." }]),
            { type: "tool_call", name: "weather", input: { city: "Paris" } }
          ]
        ]
      }
    )
    llm.rule(
      { toolResult: true, contains: '"sky":"sunny"' },
      { type: "respond", steps: [[{ type: "text", content: "It is sunny in Paris." }]] }
    )
    const weather = tool({
      description: "Current weather in a city",
      inputSchema: jsonSchema<{ city: string }>({
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"]
      }),
      execute: async ({ city }) => ({ city, sky: "sunny" })
    })
    const result = streamText({
      model: row.model(handle.fetch),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(4),
      maxRetries: 0,
      ...(row.thinking === undefined ? {} : { providerOptions: row.thinking as never })
    })
    expect(await result.text).toBe("It is sunny in Paris.")
    const steps = await result.steps
    expect(steps.map((step) => step.finishReason)).toEqual(["tool-calls", "stop"])
    if (row.thinking !== undefined) expect(steps[0]!.reasoningText).toBe("Look it up.")
    expect(steps[0]!.toolResults.map((r) => r.output)).toEqual([{ city: "Paris", sky: "sunny" }])
    expect(llm.log.map((entry) => [entry.api, entry.toolResultRounds])).toEqual([
      [row.api, 0],
      [row.api, 1]
    ])
  })

  it("retries a 429 and counts every attempt", async () => {
    const handle = await SimulationNetwork.start({ routes: row.routes() })
    handle.llm.rule("any", {
      type: "failThenRespond",
      times: 2,
      failure: { type: "rateLimit", retryAfterMs: 0 },
      then: { type: "respond", steps: [[{ type: "text", content: "ok" }]] }
    })
    const result = streamText({ model: row.model(handle.fetch), prompt: "hi", maxRetries: 2 })
    expect(await result.text).toBe("ok")
    expect(handle.llm.callCount).toBe(3)
    expect(handle.llm.log.map((entry) => entry.api)).toEqual([row.api, row.api, row.api])
  })
})
