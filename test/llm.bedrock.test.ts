/**
 * Amazon Bedrock, judged by its official clients in this process (`installGlobal`): the AWS
 * SDK's `BedrockRuntimeClient` (Converse with a tool round, ConverseStream, InvokeModel and its
 * stream for Claude, Nova and Llama bodies, a 429 as its `ThrottlingException`) and
 * `@anthropic-ai/bedrock-sdk` (create and stream). The AWS SDK runs with its HTTP/1.1 handler
 * and with its default, HTTP/2, which `installGlobal` answers over an in-memory session.
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type Message
} from "@aws-sdk/client-bedrock-runtime"
import { NodeHttpHandler } from "@smithy/node-http-handler"
import AnthropicBedrock from "@anthropic-ai/bedrock-sdk"
import { afterEach, describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0"
const credentials = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  sessionToken: "FwoGZXIvYXdzEXAMPLETOKEN"
}
const client = (options: { readonly maxAttempts?: number } = {}) =>
  new BedrockRuntimeClient({ region: "us-east-1", credentials, requestHandler: new NodeHttpHandler(), ...options })

let cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const step of cleanup.reverse()) await step()
  cleanup = []
})

const start = async () => {
  const handle = await SimulationNetwork.start({ routes: Routes.bedrock() })
  const restore = await handle.installGlobal()
  cleanup.push(async () => {
    await restore()
    await handle.close()
  })
  return handle
}

const decoder = new TextDecoder()

describe("Bedrock through the AWS SDK", () => {
  it("runs a Converse tool round: the call, its result read back, the answer", async () => {
    const handle = await start()
    handle.llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "read", input: { path: "hello.txt" } }],
        [{ type: "text", content: "It says hello." }]
      ]
    })
    const bedrock = client()
    const messages: Array<Message> = [{ role: "user", content: [{ text: "What does hello.txt say?" }] }]
    const toolConfig = { tools: [{ toolSpec: { name: "read", inputSchema: { json: { type: "object" } } } }] }
    const first = await bedrock.send(new ConverseCommand({ modelId: CLAUDE, messages, toolConfig }))
    expect(first.stopReason).toBe("tool_use")
    const call = first.output?.message?.content?.[0]?.toolUse
    expect(call).toMatchObject({ name: "read", input: { path: "hello.txt" } })
    expect(call?.toolUseId).toMatch(/^tooluse_/)
    const second = await bedrock.send(
      new ConverseCommand({
        modelId: CLAUDE,
        toolConfig,
        messages: [
          ...messages,
          first.output!.message!,
          { role: "user", content: [{ toolResult: { toolUseId: call!.toolUseId!, content: [{ text: "hello" }] } }] }
        ]
      })
    )
    expect(second.output?.message?.content).toEqual([{ text: "It says hello." }])
    expect(second.stopReason).toBe("end_turn")
    expect(second.usage?.totalTokens).toBe((second.usage?.inputTokens ?? 0) + (second.usage?.outputTokens ?? 0))
    expect(handle.llm.log.map((entry) => [entry.api, entry.model, entry.toolResultRounds])).toEqual([
      ["bedrock.converse", CLAUDE, 0],
      ["bedrock.converse", CLAUDE, 1]
    ])
  })

  it("streams ConverseStream as AWS event-stream frames the SDK decodes, tool calls included", async () => {
    const handle = await start()
    handle.llm.enqueue({
      steps: [
        [
          { type: "text", content: "Let me look." },
          { type: "tool_call", name: "read", input: { path: "a.txt" } }
        ]
      ]
    })
    const answer = await client().send(
      new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "read a.txt" }] }] })
    )
    let text = ""
    let input = ""
    const kinds: Array<string> = []
    for await (const event of answer.stream!) {
      kinds.push(Object.keys(event).find((key) => (event as unknown as Record<string, unknown>)[key] !== undefined)!)
      text += event.contentBlockDelta?.delta?.text ?? ""
      input += event.contentBlockDelta?.delta?.toolUse?.input ?? ""
      if (event.messageStop !== undefined) expect(event.messageStop.stopReason).toBe("tool_use")
    }
    expect(text).toBe("Let me look.")
    expect(JSON.parse(input)).toEqual({ path: "a.txt" })
    expect(kinds[0]).toBe("messageStart")
    expect(kinds).toContain("contentBlockStart")
    expect(kinds.slice(-2)).toEqual(["messageStop", "metadata"])
  })

  it("answers InvokeModel in each model's own body, streamed and not", async () => {
    const handle = await start()
    const bedrock = client()
    handle.llm.enqueue({ steps: [[{ type: "text", content: "Claude here." }]] })
    const claude = await bedrock.send(
      new InvokeModelCommand({
        modelId: CLAUDE,
        body: JSON.stringify({
          anthropic_version: "bedrock-2023-05-31",
          max_tokens: 64,
          messages: [{ role: "user", content: "hi" }]
        })
      })
    )
    expect(JSON.parse(decoder.decode(claude.body))).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Claude here." }],
      stop_reason: "end_turn"
    })

    handle.llm.enqueue({ steps: [[{ type: "text", content: "Nova here." }]] })
    const nova = await bedrock.send(
      new InvokeModelWithResponseStreamCommand({
        modelId: "amazon.nova-lite-v1:0",
        body: JSON.stringify({ schemaVersion: "messages-v1", messages: [{ role: "user", content: [{ text: "hi" }] }] })
      })
    )
    const chunks: Array<Record<string, unknown>> = []
    for await (const event of nova.body!) chunks.push(JSON.parse(decoder.decode(event.chunk!.bytes)))
    expect(chunks.map((chunk) => Object.keys(chunk)[0])).toEqual([
      "messageStart",
      "contentBlockDelta",
      "contentBlockDelta",
      "contentBlockStop",
      "messageStop",
      "metadata"
    ])

    handle.llm.enqueue({ steps: [[{ type: "text", content: "Llama here." }]] })
    const llama = await bedrock.send(
      new InvokeModelCommand({
        modelId: "meta.llama3-1-8b-instruct-v1:0",
        body: JSON.stringify({
          prompt:
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
          max_gen_len: 64
        })
      })
    )
    expect(JSON.parse(decoder.decode(llama.body))).toMatchObject({ generation: "Llama here.", stop_reason: "stop" })
    expect(handle.llm.log.map((entry) => [entry.api, entry.lastUserMessage])).toEqual([
      ["bedrock.invoke", "hi"],
      ["bedrock.invoke", "hi"],
      ["bedrock.invoke", "hi"]
    ])
  })

  it("gives a 429 as the SDK's ThrottlingException, and redacts the SigV4 credentials", async () => {
    const handle = await start()
    handle.llm.enqueue({ steps: [[{ type: "http_error", status: 429, message: "Too many requests" }]] })
    const failed = await client({ maxAttempts: 1 })
      .send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "x" }] }] }))
      .catch((error: unknown) => error)
    expect(failed).toMatchObject({
      name: "ThrottlingException",
      message: "Too many requests",
      $metadata: { httpStatusCode: 429 }
    })
    const headers = handle.log().at(-1)!.headers
    expect(headers.authorization).toBe("<redacted>")
    expect(headers["x-amz-security-token"]).toBe("<redacted>")
    expect(JSON.stringify(handle.log())).not.toContain(credentials.sessionToken)
  })

  it("answers the SDK as it ships (HTTP/2), streams included; a region with no route gets a 404 naming the request", async () => {
    const handle = await start()
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "Over HTTP/2." }]] })
    const h2 = new BedrockRuntimeClient({ region: "us-east-1", credentials, maxAttempts: 1 })
    const answer = await h2.send(
      new ConverseCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "hi" }] }] })
    )
    expect(answer.output?.message?.content).toEqual([{ text: "Over HTTP/2." }])
    const streamed = await h2.send(
      new ConverseStreamCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "hi" }] }] })
    )
    let text = ""
    for await (const event of streamed.stream!) text += event.contentBlockDelta?.delta?.text ?? ""
    expect(text).toBe("Over HTTP/2.")
    const elsewhere = new BedrockRuntimeClient({ region: "eu-west-1", credentials, maxAttempts: 1 })
    const failed = await elsewhere
      .send(new ConverseCommand({ modelId: CLAUDE, messages: [{ role: "user", content: [{ text: "x" }] }] }))
      .catch((error: unknown) => error)
    expect(failed).toMatchObject({ $metadata: { httpStatusCode: 404 } })
    expect(String((failed as Error).message)).toContain(
      "no route for POST https://bedrock-runtime.eu-west-1.amazonaws.com/model/"
    )
    h2.destroy()
    elsewhere.destroy()
  })
})

describe("Claude on Bedrock through @anthropic-ai/bedrock-sdk", () => {
  it("creates and streams a message", async () => {
    const handle = await start()
    handle.llm.enqueue({ steps: [[{ type: "text", content: "Hello from Bedrock." }]] })
    handle.llm.enqueue({ steps: [[{ type: "text", content: "Streamed from Bedrock." }]] })
    const anthropic = new AnthropicBedrock({
      awsRegion: "us-east-1",
      awsAccessKey: credentials.accessKeyId,
      awsSecretKey: credentials.secretAccessKey
    })
    const created = await anthropic.messages.create({
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }]
    })
    expect(created.content).toEqual([{ type: "text", text: "Hello from Bedrock." }])
    const deltas: Array<string> = []
    const stream = anthropic.messages.stream({
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }]
    })
    stream.on("text", (delta) => deltas.push(delta))
    const final = await stream.finalMessage()
    expect(final.content).toEqual([{ type: "text", text: "Streamed from Bedrock." }])
    expect(deltas.join("")).toBe("Streamed from Bedrock.")
    expect(handle.llm.log.map((entry) => entry.api)).toEqual(["bedrock.invoke", "bedrock.invoke"])
  })
})
