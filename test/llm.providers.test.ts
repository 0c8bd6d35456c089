/**
 * The providers an app can be pointed at besides OpenAI, Anthropic and Gemini, each judged by its
 * official client: the `ollama` client, `openai`'s `AzureOpenAI`, the `openai` SDK at OpenRouter's
 * base and `cohere-ai`'s `CohereClientV2`. And one rule answering alike on every surface.
 */
import { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime"
import { NodeHttpHandler } from "@smithy/node-http-handler"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import { CohereClientV2 } from "cohere-ai"
import { Ollama } from "ollama"
import OpenAI, { AzureOpenAI } from "openai"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const readTool = {
  type: "function" as const,
  function: {
    name: "read",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } } }
  }
}

describe("Ollama through the ollama client", () => {
  it("runs a chat tool round, streams NDJSON, generates, embeds and lists", async () => {
    const handle = await SimulationNetwork.start({ seed: 7, routes: Routes.ollama() })
    const ollama = new Ollama({ fetch: handle.fetch })
    handle.llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "read", input: { path: "a.txt" } }],
        [{ type: "text", content: "It says hi." }]
      ]
    })
    const first = await ollama.chat({
      model: "llama3.2",
      stream: false,
      messages: [{ role: "user", content: "read a.txt" }],
      tools: [readTool]
    })
    expect(first.message.tool_calls).toEqual([{ function: { name: "read", arguments: { path: "a.txt" } } }])
    expect(first).toMatchObject({ done: true, done_reason: "stop" })
    const stream = await ollama.chat({
      model: "llama3.2",
      stream: true,
      messages: [{ role: "user", content: "read a.txt" }, first.message, { role: "tool", content: "hi" }]
    })
    const lines = []
    for await (const line of stream) lines.push(line)
    expect(lines.map((line) => line.message.content).join("")).toBe("It says hi.")
    expect(lines.map((line) => line.done)).toEqual([false, false, false, true])
    expect(lines.at(-1)).toMatchObject({ done_reason: "stop", eval_count: 3 })

    handle.llm.enqueue({ steps: [[{ type: "text", content: "Generated." }]] })
    expect((await ollama.generate({ model: "llama3.2", prompt: "go", stream: false })).response).toBe("Generated.")
    const embedded = await ollama.embed({ model: "nomic-embed-text", input: ["alpha", "alpha"] })
    expect(embedded.embeddings[0]).toHaveLength(768)
    expect(embedded.embeddings[0]).toEqual(embedded.embeddings[1])
    expect((await ollama.list()).models.map((model) => model.name)).toContain("llama3.2:latest")
    expect((await ollama.show({ model: "llama3.2" })).capabilities).toContain("tools")
    await expect(ollama.show({ model: "nothing-here" })).rejects.toMatchObject({
      name: "ResponseError",
      status_code: 404
    })

    handle.llm.enqueue({ steps: [[{ type: "http_error", status: 500, message: "the model crashed" }]] })
    await expect(ollama.chat({ model: "llama3.2", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({
      name: "ResponseError",
      error: "the model crashed",
      status_code: 500
    })
    expect(handle.llm.log.map((entry) => [entry.api, entry.toolResultRounds])).toEqual([
      ["ollama.chat", 0],
      ["ollama.chat", 1],
      ["ollama.generate", 0],
      ["ollama.chat", 0]
    ])
    await handle.close()
  })
})

describe("Azure OpenAI through AzureOpenAI", () => {
  it("answers a deployment's chat (streamed and not), Responses and embeddings, and redacts api-key", async () => {
    const handle = await SimulationNetwork.start({
      routes: Routes.azureOpenai({ baseUrl: "https://contoso.openai.azure.com" })
    })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "From Azure." }]] })
    const azure = new AzureOpenAI({
      endpoint: "https://contoso.openai.azure.com",
      apiKey: "azure-secret-key-1",
      apiVersion: "2024-10-21",
      deployment: "gpt4o-prod",
      fetch: handle.fetch
    })
    expect(
      (await azure.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }))
        .choices[0]!.message.content
    ).toBe("From Azure.")
    const stream = await azure.chat.completions.create({
      model: "gpt-4o",
      stream: true,
      messages: [{ role: "user", content: "hi" }]
    })
    let text = ""
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ""
    expect(text).toBe("From Azure.")
    const preview = new AzureOpenAI({
      endpoint: "https://contoso.openai.azure.com",
      apiKey: "azure-secret-key-1",
      apiVersion: "2025-04-01-preview",
      fetch: handle.fetch
    })
    expect((await preview.responses.create({ model: "gpt-4o", input: "hi" })).output_text).toBe("From Azure.")
    expect(
      (await azure.embeddings.create({ model: "text-embedding-3-small", input: "x" })).data[0]!.embedding
    ).toHaveLength(1536)
    const log = handle.log()
    expect(log[0]!.url).toBe(
      "https://contoso.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21"
    )
    expect(log[0]!.headers["api-key"]).toBe("<redacted>")
    expect(JSON.stringify(log)).not.toContain("azure-secret-key-1")
    expect(handle.llm.log.map((entry) => entry.api)).toEqual([
      "azure-openai.chat",
      "azure-openai.chat",
      "azure-openai.responses"
    ])
    await handle.close()
  })
})

describe("OpenRouter through the openai SDK", () => {
  it("answers chat and lists models in OpenRouter's shape", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.openrouter() })
    handle.llm.enqueue({ steps: [[{ type: "text", content: "Routed." }]] })
    const client = new OpenAI({ baseURL: "https://openrouter.ai/api/v1", apiKey: "sk-or-v1-test", fetch: handle.fetch })
    expect(
      (
        await client.chat.completions.create({
          model: "anthropic/claude-sonnet-4.5",
          messages: [{ role: "user", content: "hi" }]
        })
      ).choices[0]!.message.content
    ).toBe("Routed.")
    const models = await client.models.list()
    expect(models.data[0]).toMatchObject({ id: "openai/gpt-4o", context_length: 128_000, pricing: { prompt: "0" } })
    expect(handle.llm.log.map((entry) => [entry.api, entry.model])).toEqual([
      ["openrouter.chat", "anthropic/claude-sonnet-4.5"]
    ])
    await handle.close()
  })
})

describe("Cohere through CohereClientV2", () => {
  const start = (seed: number) => SimulationNetwork.start({ seed, routes: Routes.cohere() })
  const cohereOf = (fetch: typeof globalThis.fetch) =>
    new CohereClientV2({ token: "co-test-key", fetch } as ConstructorParameters<typeof CohereClientV2>[0])

  it("runs a tool round, the second call streamed", async () => {
    const handle = await start(1)
    const cohere = cohereOf(handle.fetch)
    handle.llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "read", input: { path: "a.txt" } }],
        [{ type: "text", content: "It says hi." }]
      ]
    })
    const first = await cohere.chat({
      model: "command-a-03-2025",
      messages: [{ role: "user", content: "read a.txt" }],
      tools: [readTool]
    })
    expect(first.finishReason).toBe("TOOL_CALL")
    const call = first.message.toolCalls![0]!
    expect(JSON.parse(call.function!.arguments!)).toEqual({ path: "a.txt" })
    const stream = await cohere.chatStream({
      model: "command-a-03-2025",
      tools: [readTool],
      messages: [
        { role: "user", content: "read a.txt" },
        { role: "assistant", toolCalls: [call] },
        { role: "tool", toolCallId: call.id!, content: "hi" }
      ]
    })
    let text = ""
    let finish: unknown
    for await (const event of stream) {
      if (event.type === "content-delta") text += event.delta?.message?.content?.text ?? ""
      if (event.type === "message-end") finish = event.delta?.finishReason
    }
    expect(text).toBe("It says hi.")
    expect(finish).toBe("COMPLETE")
    expect(handle.llm.log.map((entry) => [entry.api, entry.toolResultRounds])).toEqual([
      ["cohere.chat", 0],
      ["cohere.chat", 1]
    ])
    await handle.close()
  })

  it("embeds and reranks, the same for the same seed, and gives a 429 as TooManyRequestsError", async () => {
    const rank = async (seed: number) => {
      const handle = await start(seed)
      const cohere = cohereOf(handle.fetch)
      const reranked = await cohere.rerank({
        model: "rerank-v3.5",
        query: "weather in paris",
        documents: ["paris weather today is sunny", "train times in berlin", "museums of paris"],
        topN: 2
      })
      const embedded = await cohere.embed({
        model: "embed-v4.0",
        texts: ["a b"],
        inputType: "search_document",
        embeddingTypes: ["float"]
      })
      handle.llm.enqueue({ steps: [[{ type: "http_error", status: 429, message: "slow down" }]] })
      const failed = await cohere
        .chat({ model: "command-a-03-2025", messages: [{ role: "user", content: "x" }] }, { maxRetries: 0 })
        .catch((error: unknown) => error)
      await handle.close()
      return { results: reranked.results, vector: embedded.embeddings.float![0]!, failed }
    }
    const one = await rank(3)
    expect(one.results).toHaveLength(2)
    expect(one.results[0]!.index).toBe(0)
    expect(one.vector).toHaveLength(1536)
    expect(one.failed).toMatchObject({ statusCode: 429, body: { message: "slow down" } })
    expect((one.failed as Error).constructor.name).toBe("TooManyRequestsError")
    const again = await rank(3)
    expect(again.results).toEqual(one.results)
    expect(again.vector).toEqual(one.vector)
  })
})

describe("one rule, every surface", () => {
  it("gives the same text and tool call through each provider's official client", async () => {
    const handle = await SimulationNetwork.start({
      routes: [
        ...Routes.openai(),
        ...Routes.anthropic(),
        ...Routes.gemini(),
        ...Routes.bedrock(),
        ...Routes.ollama(),
        ...Routes.cohere(),
        ...Routes.azureOpenai(),
        ...Routes.openrouter()
      ]
    })
    handle.llm.rule("any", {
      type: "respond",
      steps: [
        [
          { type: "text", content: "Reading it." },
          { type: "tool_call", name: "read", input: { path: "a.txt" } }
        ]
      ]
    })
    const fetch = handle.fetch
    const seen: Record<string, { text: string; call: { name: string; input: unknown } }> = {}
    const openAiStyle = async (client: OpenAI) => {
      const message = (
        await client.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content: "read a.txt" }],
          tools: [readTool]
        })
      ).choices[0]!.message
      const call = message.tool_calls![0]!
      return {
        text: message.content ?? "",
        call: {
          name: call.type === "function" ? call.function.name : "",
          input: JSON.parse(call.type === "function" ? call.function.arguments : "{}")
        }
      }
    }
    seen.openai = await openAiStyle(new OpenAI({ apiKey: "sk-test", fetch }))
    seen.azure = await openAiStyle(
      new AzureOpenAI({
        endpoint: "https://simnet.openai.azure.com",
        apiKey: "k",
        apiVersion: "2024-10-21",
        deployment: "d",
        fetch
      })
    )
    seen.openrouter = await openAiStyle(new OpenAI({ baseURL: "https://openrouter.ai/api/v1", apiKey: "k", fetch }))
    const claude = await new Anthropic({ apiKey: "sk-ant-test", fetch }).messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 64,
      messages: [{ role: "user", content: "read a.txt" }],
      tools: [{ name: "read", input_schema: { type: "object" } }]
    })
    const claudeCall = claude.content.find((block) => block.type === "tool_use")
    seen.anthropic = {
      text: claude.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
      call: {
        name: claudeCall?.type === "tool_use" ? claudeCall.name : "",
        input: claudeCall?.type === "tool_use" ? claudeCall.input : undefined
      }
    }
    const gemini = await new GoogleGenAI({ apiKey: "g", httpOptions: { fetch } as never }).models.generateContent({
      model: "gemini-2.5-flash",
      contents: "read a.txt",
      config: { tools: [{ functionDeclarations: [{ name: "read" }] }] }
    })
    seen.gemini = {
      text: gemini.text ?? "",
      call: { name: gemini.functionCalls?.[0]?.name ?? "", input: gemini.functionCalls?.[0]?.args }
    }
    const ollama = (
      await new Ollama({ fetch }).chat({
        model: "llama3.2",
        messages: [{ role: "user", content: "read a.txt" }],
        tools: [readTool]
      })
    ).message
    seen.ollama = {
      text: ollama.content,
      call: { name: ollama.tool_calls![0]!.function.name, input: ollama.tool_calls![0]!.function.arguments }
    }
    const cohere = (
      await new CohereClientV2({ token: "c", fetch } as ConstructorParameters<typeof CohereClientV2>[0]).chat({
        model: "command-a-03-2025",
        messages: [{ role: "user", content: "read a.txt" }],
        tools: [readTool]
      })
    ).message
    seen.cohere = {
      text: (cohere.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join(""),
      call: {
        name: cohere.toolCalls![0]!.function!.name!,
        input: JSON.parse(cohere.toolCalls![0]!.function!.arguments!)
      }
    }
    const restore = await handle.installGlobal()
    try {
      const bedrock = await new BedrockRuntimeClient({
        region: "us-east-1",
        credentials: { accessKeyId: "A", secretAccessKey: "s" },
        requestHandler: new NodeHttpHandler()
      }).send(
        new ConverseCommand({
          modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0",
          messages: [{ role: "user", content: [{ text: "read a.txt" }] }],
          toolConfig: { tools: [{ toolSpec: { name: "read", inputSchema: { json: { type: "object" } } } }] }
        })
      )
      const blocks = bedrock.output?.message?.content ?? []
      const use = blocks.find((block) => block.toolUse !== undefined)?.toolUse
      seen.bedrock = {
        text: blocks.map((block) => block.text ?? "").join(""),
        call: { name: use?.name ?? "", input: use?.input }
      }
    } finally {
      await restore()
    }
    const expected = { text: "Reading it.", call: { name: "read", input: { path: "a.txt" } } }
    for (const [surface, got] of Object.entries(seen)) expect({ surface, ...got }).toEqual({ surface, ...expected })
    expect(new Set(handle.llm.log.map((entry) => entry.api))).toEqual(
      new Set([
        "openai.chat",
        "azure-openai.chat",
        "openrouter.chat",
        "anthropic.messages",
        "gemini",
        "ollama.chat",
        "cohere.chat",
        "bedrock.converse"
      ])
    )
    await handle.close()
  })
})
