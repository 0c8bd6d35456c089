/**
 * Record mode on the providers beyond OpenAI, Anthropic and Gemini: calls through Bedrock
 * (Converse, ConverseStream's binary event stream, InvokeModel), Vertex, Azure, OpenRouter,
 * Ollama (NDJSON) and Cohere, forwarded to a real loopback upstream that speaks each wire, become
 * `llm` rules — and each recorded call replays through Chat Completions, as every recorded call
 * does. The upstream is a Node server answering from another simnet network, so every byte the
 * recorder reads is what that API's wire sends.
 */
import { once } from "node:events"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GoogleGenAI, type LiveServerMessage, Modality } from "@google/genai"
import { OpenAIRealtimeWS } from "openai/realtime/ws"
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand
} from "@aws-sdk/client-bedrock-runtime"
import { FetchHttpHandler } from "@smithy/fetch-http-handler"
import { CohereClientV2 } from "cohere-ai"
import { Ollama } from "ollama"
import OpenAI, { AzureOpenAI } from "openai"
import AnthropicVertex from "@anthropic-ai/vertex-sdk"
import { afterAll, describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"
import { serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const HOSTS = [
  "bedrock-runtime.us-east-1.amazonaws.com",
  "us-central1-aiplatform.googleapis.com",
  "simnet.openai.azure.com",
  "openrouter.ai",
  "api.cohere.com"
]

describe("recording the other providers", () => {
  it("turns each provider's calls (streamed and not) into rules that replay through Chat Completions", async () => {
    const real = await SimulationNetwork.start({
      routes: [
        ...Routes.bedrock(),
        ...Routes.vertex(),
        ...Routes.azureOpenai(),
        ...Routes.openrouter(),
        ...Routes.ollama(),
        ...Routes.cohere()
      ]
    })
    real.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "upstream said so" }]] })
    const upstream = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", async () => {
        const host = (req.headers["x-upstream-host"] as string | undefined) ?? "127.0.0.1:11434"
        const scheme = host.startsWith("127.0.0.1") ? "http" : "https"
        const answer = await real.fetch(`${scheme}://${host}${req.url}`, {
          method: req.method,
          headers: { "content-type": String(req.headers["content-type"] ?? "") },
          body: chunks.length === 0 ? undefined : Buffer.concat(chunks)
        })
        res.writeHead(answer.status, Object.fromEntries(answer.headers))
        if (answer.body !== null)
          for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk)
        res.end()
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const recorder = await SimulationNetwork.start({
      record: { upstream: Object.fromEntries([...HOSTS, "127.0.0.1:11434"].map((host) => [host, origin])) }
    })
    // The upstream is told which host each forwarded call was for.
    const fetch: typeof globalThis.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers)
      headers.set("x-upstream-host", url.host)
      return recorder.fetch(input, { ...init, headers })
    }

    const bedrock = new BedrockRuntimeClient({
      region: "us-east-1",
      credentials: { accessKeyId: "A", secretAccessKey: "s" },
      requestHandler: new FetchHttpHandler({})
    })
    const original = globalThis.fetch
    globalThis.fetch = fetch
    try {
      const conversed = await bedrock.send(
        new ConverseCommand({
          modelId: "amazon.nova-lite-v1:0",
          messages: [{ role: "user", content: [{ text: "ask converse" }] }]
        })
      )
      expect(conversed.output?.message?.content?.[0]?.text).toBe("upstream said so")
      const streamed = await bedrock.send(
        new ConverseStreamCommand({
          modelId: "amazon.nova-lite-v1:0",
          messages: [{ role: "user", content: [{ text: "ask converse stream" }] }]
        })
      )
      let text = ""
      for await (const event of streamed.stream!) text += event.contentBlockDelta?.delta?.text ?? ""
      expect(text).toBe("upstream said so")
      const invoked = await bedrock.send(
        new InvokeModelCommand({
          modelId: "anthropic.claude-3-5-sonnet-20240620-v1:0",
          body: JSON.stringify({
            anthropic_version: "bedrock-2023-05-31",
            max_tokens: 32,
            messages: [{ role: "user", content: "ask invoke" }]
          })
        })
      )
      expect(new TextDecoder().decode(invoked.body)).toContain("upstream said so")
    } finally {
      globalThis.fetch = original
    }
    const vertex = new AnthropicVertex({
      region: "us-central1",
      projectId: "p",
      authClient: {
        getRequestHeaders: async () => new Headers({ authorization: "Bearer t" }),
        projectId: "p"
      } as never,
      fetch
    })
    expect(
      (
        await vertex.messages.create({
          model: "claude-sonnet-4@20250514",
          max_tokens: 32,
          messages: [{ role: "user", content: "ask vertex" }]
        })
      ).content
    ).toEqual([{ type: "text", text: "upstream said so" }])
    const azure = new AzureOpenAI({
      endpoint: "https://simnet.openai.azure.com",
      apiKey: "k",
      apiVersion: "2024-10-21",
      deployment: "d",
      fetch
    })
    expect(
      (await azure.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "ask azure" }] }))
        .choices[0]!.message.content
    ).toBe("upstream said so")
    const router = new OpenAI({ baseURL: "https://openrouter.ai/api/v1", apiKey: "k", fetch })
    expect(
      (
        await router.chat.completions.create({
          model: "openai/gpt-4o",
          messages: [{ role: "user", content: "ask openrouter" }]
        })
      ).choices[0]!.message.content
    ).toBe("upstream said so")
    const ollama = await new Ollama({ fetch }).chat({
      model: "llama3.2",
      stream: true,
      messages: [{ role: "user", content: "ask ollama" }]
    })
    let said = ""
    for await (const line of ollama) said += line.message.content
    expect(said).toBe("upstream said so")
    const cohere = new CohereClientV2({ token: "c", fetch } as ConstructorParameters<typeof CohereClientV2>[0])
    let cohereSaid = ""
    for await (const event of await cohere.chatStream({
      model: "command-a-03-2025",
      messages: [{ role: "user", content: "ask cohere" }]
    })) {
      if (event.type === "content-delta") cohereSaid += event.delta?.message?.content?.text ?? ""
    }
    expect(cohereSaid).toBe("upstream said so")

    const recording = recorder.recording()
    await recorder.close()
    upstream.close()
    await real.close()
    const prompts = [
      "ask converse",
      "ask converse stream",
      "ask invoke",
      "ask vertex",
      "ask azure",
      "ask openrouter",
      "ask ollama",
      "ask cohere"
    ]
    expect(
      (recording.llm?.rules ?? []).map((rule) => (rule.match as { lastUserMessage: string }).lastUserMessage)
    ).toEqual(prompts)
    expect(recording.routes.map((route) => route.family).sort()).toEqual([
      "azure-openai",
      "bedrock",
      "cohere",
      "ollama",
      "openrouter",
      "vertex"
    ])
    const replay = await SimulationNetwork.start({ routes: Routes.openai() })
    replay.llm.addRules(recording.llm!.rules as never)
    const chat = new OpenAI({ apiKey: "sk-test", fetch: replay.fetch })
    for (const prompt of prompts) {
      expect(
        (await chat.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: prompt }] }))
          .choices[0]!.message.content
      ).toBe("upstream said so")
    }
    await replay.close()
  })
})

describe("recording the model APIs spoken over a WebSocket", () => {
  it("a Realtime and a Live session, each a tool round, become rules that replay through Chat Completions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-sockets-"))
    const upstreamFixture = join(dir, "upstream.json")
    writeFileSync(
      upstreamFixture,
      JSON.stringify({
        routes: [{ family: "openai" }, { family: "gemini" }],
        llm: {
          rules: [
            {
              match: { toolResult: false },
              behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "read", input: { path: "a.txt" } }]] }
            },
            {
              match: { toolResult: true },
              behaviour: { type: "respond", steps: [[{ type: "text", content: "It says hello." }]] }
            }
          ]
        }
      })
    )
    const upstream = await serve(["--quiet", "--fixture", upstreamFixture])
    const file = join(dir, "sockets.json")
    const empty = join(dir, "empty.json")
    writeFileSync(empty, JSON.stringify({ routes: [] }))
    // Realtime recorded in process (its client always dials wss://: the network's createConnection
    // takes it), Live by simnet serve (its client dials the base URL it is given).
    const inProcess = await SimulationNetwork.start({
      record: { upstream: { "api.openai.com": `${upstream.base}/api.openai.com` } }
    })
    const recording = await serve([
      "--quiet",
      "--fixture",
      empty,
      "--record",
      file,
      "--upstream",
      `generativelanguage.googleapis.com=${upstream.base}/generativelanguage.googleapis.com`
    ])

    const realtime = new OpenAIRealtimeWS(
      { model: "gpt-realtime", options: { createConnection: inProcess.createConnection as never } },
      new OpenAI({ apiKey: "sk-test" })
    )
    const events: Array<{ type: string; response?: { output?: Array<Record<string, unknown>> } }> = []
    let wake = () => {}
    realtime.on("event", (event) => {
      events.push(event as never)
      wake()
    })
    const until = async (found: () => boolean) => {
      while (!found()) await new Promise<void>((resolve) => (wake = resolve))
    }
    await until(() => events.some((event) => event.type === "session.created"))
    realtime.send({ type: "session.update", session: { type: "realtime", output_modalities: ["text"] } })
    realtime.send({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text: "realtime: read a.txt" }] }
    })
    realtime.send({ type: "response.create" })
    await until(() => events.filter((event) => event.type === "response.done").length === 1)
    const call = events.find((event) => event.type === "response.done")!.response!.output![0]!
    realtime.send({
      type: "conversation.item.create",
      item: { type: "function_call_output", call_id: String(call.call_id), output: "hello" }
    })
    realtime.send({ type: "response.create" })
    await until(() => events.filter((event) => event.type === "response.done").length === 2)
    realtime.close()

    const ai = new GoogleGenAI({
      apiKey: "live-key",
      httpOptions: { baseUrl: `${recording.base}/generativelanguage.googleapis.com` }
    })
    const messages: Array<LiveServerMessage> = []
    let liveWake = () => {}
    const session = await ai.live.connect({
      model: "gemini-live-2.5-flash-preview",
      config: { responseModalities: [Modality.TEXT] },
      callbacks: {
        onmessage: (message) => {
          messages.push(message)
          liveWake()
        }
      }
    })
    const liveUntil = async (found: () => boolean) => {
      while (!found()) await new Promise<void>((resolve) => (liveWake = resolve))
    }
    session.sendClientContent({ turns: [{ role: "user", parts: [{ text: "live: read a.txt" }] }], turnComplete: true })
    await liveUntil(() => messages.some((message) => message.toolCall !== undefined))
    const liveCall = messages.find((message) => message.toolCall !== undefined)!.toolCall!.functionCalls![0]!
    session.sendToolResponse({ functionResponses: [{ id: liveCall.id!, name: "read", response: { output: "hello" } }] })
    await liveUntil(() => messages.some((message) => message.serverContent?.turnComplete === true))
    session.close()
    recording.child.kill("SIGTERM")
    await once(recording.child, "exit")

    const realtimeRecording = inProcess.recording()
    await inProcess.close()
    const fixture = JSON.parse(readFileSync(file, "utf8")) as {
      routes: Array<Record<string, unknown>>
      llm: { rules: Array<Record<string, any>> }
    }
    expect(realtimeRecording.routes).toEqual([{ family: "openai" }])
    expect(fixture.routes).toEqual([{ family: "gemini" }])
    const rules = [...(realtimeRecording.llm?.rules ?? []), ...fixture.llm.rules] as Array<Record<string, any>>
    expect(
      rules.map((rule) => [rule.match.lastUserMessage, rule.match.toolResult, rule.behaviour.steps[0][0]])
    ).toEqual([
      ["realtime: read a.txt", false, { type: "tool_call", name: "read", input: { path: "a.txt" } }],
      ["realtime: read a.txt", true, { type: "text", content: "It says hello." }],
      ["live: read a.txt", false, { type: "tool_call", name: "read", input: { path: "a.txt" } }],
      ["live: read a.txt", true, { type: "text", content: "It says hello." }]
    ])
    const replay = await SimulationNetwork.start({ routes: Routes.openai() })
    replay.llm.addRules(fixture.llm.rules as never)
    const chat = new OpenAI({ apiKey: "sk-test", fetch: replay.fetch })
    const first = await chat.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "live: read a.txt" }]
    })
    expect(first.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      function: { name: "read", arguments: '{"path":"a.txt"}' }
    })
    await replay.close()
  }, 60_000)
})
