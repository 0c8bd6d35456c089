/**
 * Record mode on the providers beyond OpenAI, Anthropic and Gemini: calls through Bedrock
 * (Converse, ConverseStream's binary event stream, InvokeModel), Vertex, Azure, OpenRouter,
 * Ollama (NDJSON) and Cohere, forwarded to a real loopback upstream that speaks each wire, become
 * `llm` rules — and each recorded call replays through Chat Completions, as every recorded call
 * does. The upstream is a Node server answering from another simnet network, so every byte the
 * recorder reads is what that API's wire sends.
 */
import { once } from "node:events"
import * as http from "node:http"
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime"
import { FetchHttpHandler } from "@smithy/fetch-http-handler"
import { CohereClientV2 } from "cohere-ai"
import { Ollama } from "ollama"
import OpenAI, { AzureOpenAI } from "openai"
import AnthropicVertex from "@anthropic-ai/vertex-sdk"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const HOSTS = ["bedrock-runtime.us-east-1.amazonaws.com", "us-central1-aiplatform.googleapis.com", "simnet.openai.azure.com", "openrouter.ai", "api.cohere.com"]

describe("recording the other providers", () => {
  it("turns each provider's calls (streamed and not) into rules that replay through Chat Completions", async () => {
    const real = await SimulationNetwork.start({ routes: [...Routes.bedrock(), ...Routes.vertex(), ...Routes.azureOpenai(), ...Routes.openrouter(), ...Routes.ollama(), ...Routes.cohere()] })
    real.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "upstream said so" }]] })
    const upstream = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", async () => {
        const host = req.headers["x-upstream-host"] as string | undefined ?? "127.0.0.1:11434"
        const scheme = host.startsWith("127.0.0.1") ? "http" : "https"
        const answer = await real.fetch(`${scheme}://${host}${req.url}`, { method: req.method, headers: { "content-type": String(req.headers["content-type"] ?? "") }, body: chunks.length === 0 ? undefined : Buffer.concat(chunks) })
        res.writeHead(answer.status, Object.fromEntries(answer.headers))
        if (answer.body !== null) for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk)
        res.end()
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const recorder = await SimulationNetwork.start({ record: { upstream: Object.fromEntries([...HOSTS, "127.0.0.1:11434"].map((host) => [host, origin])) } })
    // The upstream is told which host each forwarded call was for.
    const fetch: typeof globalThis.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers)
      headers.set("x-upstream-host", url.host)
      return recorder.fetch(input, { ...init, headers })
    }

    const bedrock = new BedrockRuntimeClient({ region: "us-east-1", credentials: { accessKeyId: "A", secretAccessKey: "s" }, requestHandler: new FetchHttpHandler({}) })
    const original = globalThis.fetch
    globalThis.fetch = fetch
    try {
      const conversed = await bedrock.send(new ConverseCommand({ modelId: "amazon.nova-lite-v1:0", messages: [{ role: "user", content: [{ text: "ask converse" }] }] }))
      expect(conversed.output?.message?.content?.[0]?.text).toBe("upstream said so")
      const streamed = await bedrock.send(new ConverseStreamCommand({ modelId: "amazon.nova-lite-v1:0", messages: [{ role: "user", content: [{ text: "ask converse stream" }] }] }))
      let text = ""
      for await (const event of streamed.stream!) text += event.contentBlockDelta?.delta?.text ?? ""
      expect(text).toBe("upstream said so")
      const invoked = await bedrock.send(new InvokeModelCommand({ modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0", body: JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 32, messages: [{ role: "user", content: "ask invoke" }] }) }))
      expect(new TextDecoder().decode(invoked.body)).toContain("upstream said so")
    } finally {
      globalThis.fetch = original
    }
    const vertex = new AnthropicVertex({ region: "us-central1", projectId: "p", authClient: { getRequestHeaders: async () => new Headers({ authorization: "Bearer t" }), projectId: "p" } as never, fetch })
    expect((await vertex.messages.create({ model: "claude-sonnet-4@20250514", max_tokens: 32, messages: [{ role: "user", content: "ask vertex" }] })).content).toEqual([{ type: "text", text: "upstream said so" }])
    const azure = new AzureOpenAI({ endpoint: "https://simnet.openai.azure.com", apiKey: "k", apiVersion: "2024-10-21", deployment: "d", fetch })
    expect((await azure.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "ask azure" }] })).choices[0]!.message.content).toBe("upstream said so")
    const router = new OpenAI({ baseURL: "https://openrouter.ai/api/v1", apiKey: "k", fetch })
    expect((await router.chat.completions.create({ model: "openai/gpt-4o", messages: [{ role: "user", content: "ask openrouter" }] })).choices[0]!.message.content).toBe("upstream said so")
    const ollama = await new Ollama({ fetch }).chat({ model: "llama3.2", stream: true, messages: [{ role: "user", content: "ask ollama" }] })
    let said = ""
    for await (const line of ollama) said += line.message.content
    expect(said).toBe("upstream said so")
    const cohere = new CohereClientV2({ token: "c", fetch } as ConstructorParameters<typeof CohereClientV2>[0])
    let cohereSaid = ""
    for await (const event of await cohere.chatStream({ model: "command-a-03-2025", messages: [{ role: "user", content: "ask cohere" }] })) {
      if (event.type === "content-delta") cohereSaid += event.delta?.message?.content?.text ?? ""
    }
    expect(cohereSaid).toBe("upstream said so")

    const recording = recorder.recording()
    await recorder.close()
    upstream.close()
    await real.close()
    const prompts = ["ask converse", "ask converse stream", "ask invoke", "ask vertex", "ask azure", "ask openrouter", "ask ollama", "ask cohere"]
    expect((recording.llm?.rules ?? []).map((rule) => (rule.match as { lastUserMessage: string }).lastUserMessage)).toEqual(prompts)
    expect(recording.routes.map((route) => route.family).sort()).toEqual(["azure-openai", "bedrock", "cohere", "ollama", "openrouter", "vertex"])
    const replay = await SimulationNetwork.start({ routes: Routes.openai() })
    replay.llm.addRules(recording.llm!.rules as never)
    const chat = new OpenAI({ apiKey: "sk-test", fetch: replay.fetch })
    for (const prompt of prompts) {
      expect((await chat.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: prompt }] })).choices[0]!.message.content).toBe("upstream said so")
    }
    await replay.close()
  })
})
