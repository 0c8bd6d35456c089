import Anthropic from "@anthropic-ai/sdk"
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Routes, Schemas, SimulationNetwork } from "simnet"

const { Message, StreamEvent } = Schemas.Anthropic
const strict = { onExcessProperty: "error" } as const

const setup = async (maxRetries = 0) => {
  const handle = await SimulationNetwork.start({ routes: Routes.anthropic() })
  const client = new Anthropic({ apiKey: "sk-ant-test", fetch: handle.fetch, maxRetries, logLevel: "off" })
  return { handle, llm: handle.llm, client }
}

const tools: Array<Tool> = [
  {
    name: "get_weather",
    description: "Weather in a city",
    input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
]

/** The events of a raw streamed answer, read through `fetch`. */
const rawEvents = async (fetch: typeof globalThis.fetch, body: unknown) => {
  const response = await fetch("https://api.anthropic.com/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const reader = response.body!.getReader()
  const frames: Array<string> = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    frames.push(new TextDecoder().decode(value))
  }
  return frames
}

describe("@anthropic-ai/sdk against the simulated model", () => {
  it("a system turn inside messages (Claude Code's models send one) is read as system instructions, not refused", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.anthropic() })
    handle.llm.rule(
      { system: "mid-conversation note", lastUserMessage: "hi" },
      { type: "respond", steps: [[{ type: "text", content: "seen" }]] }
    )
    const client = new Anthropic({ apiKey: "sk-ant-test", fetch: handle.fetch, maxRetries: 0, logLevel: "off" })
    const messages = [
      { role: "user", content: "hi" },
      { role: "system", content: [{ type: "text", text: "A mid-conversation note." }] }
    ] as unknown as Array<MessageParam>
    const answer = await client.messages.create({ model: "claude-opus-5-5", max_tokens: 64, messages })
    expect(answer.content).toEqual([{ type: "text", text: "seen" }])
    expect(handle.llm.log[0]).toMatchObject({ api: "anthropic.messages", lastUserMessage: "hi", outcome: "answer" })
    await handle.close()
  })

  it("messages.create answers a message with thinking, text and usage that decodes under the wire schema", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "Be friendly." },
          { type: "text", content: "Hello from Claude." }
        ]
      ],
      usage: { inputTokens: 11, outputTokens: 5, totalTokens: 16 }
    })
    const message = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: "You are terse.",
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Say hello" }]
    })
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text"])
    expect(message.content[1]).toEqual({ type: "text", text: "Hello from Claude." })
    expect(message).toMatchObject({
      id: "msg_sim_1",
      stop_reason: "end_turn",
      usage: { input_tokens: 11, output_tokens: 5 }
    })
    expect(() => Schema.decodeUnknownSync(Message)(message, strict)).not.toThrow()
    expect(llm.log[0]).toMatchObject({
      api: "anthropic.messages",
      lastUserMessage: "Say hello",
      model: "claude-sonnet-4-6"
    })
  })

  it("messages.stream: finalMessage() assembles thinking (with signature), text and a tool_use from input_json_delta", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "The user wants weather." },
          { type: "text", content: "Let me check." },
          { type: "tool_call", name: "get_weather", input: { city: "Paris", days: [1, 2] } }
        ]
      ]
    })
    const stream = client.messages.stream({
      model: "claude-sonnet-4-6",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools,
      messages: [{ role: "user", content: "Weather?" }]
    })
    const texts: Array<string> = []
    stream.on("text", (text) => texts.push(text))
    const message = await stream.finalMessage()
    expect(texts).toEqual(["Let", " me", " check."])
    expect(message.stop_reason).toBe("tool_use")
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"])
    const thinking = message.content[0]
    expect(thinking.type === "thinking" && thinking.thinking).toBe("The user wants weather.")
    expect(thinking.type === "thinking" && thinking.signature.length).toBeGreaterThan(10)
    const call = message.content[2]
    expect(call.type === "tool_use" && [call.name, call.input]).toEqual([
      "get_weather",
      { city: "Paris", days: [1, 2] }
    ])
    expect(message.usage.output_tokens).toBeGreaterThan(0)
  })

  it("tool_use ids are in Anthropic's shape and the same on every run; thinking is sent only when the request enables it", async () => {
    const script = {
      steps: [
        [
          { type: "thinking" as const, content: "Hm." },
          { type: "text" as const, content: "Checking." },
          { type: "tool_call" as const, name: "get_weather", input: { city: "Oslo" } }
        ]
      ]
    }
    const ids: Array<string> = []
    for (const run of [1, 2]) {
      const { llm, client } = await setup()
      llm.enqueue(script)
      llm.enqueue(script)
      const plain = await client.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 64,
        tools,
        messages: [{ role: "user", content: `Weather? ${run}` }]
      })
      expect(plain.content.map((block) => block.type)).toEqual(["text", "tool_use"])
      const thinking = await client.messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools,
        messages: [{ role: "user", content: "Weather?" }]
      })
      expect(thinking.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"])
      for (const message of [plain, thinking]) {
        const call = message.content.find((block) => block.type === "tool_use")
        if (call?.type === "tool_use") ids.push(call.id)
      }
    }
    for (const id of ids) expect(id).toMatch(/^toolu_01[0-9A-Za-z]{22}$/)
    expect(ids[0]).not.toBe(ids[1])
    expect(ids.slice(2)).toEqual(ids.slice(0, 2))
  })

  it("answers carry Anthropic's anthropic-ratelimit-* headers, the reset an RFC 3339 time", async () => {
    const { llm, client } = await setup()
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const { response } = await client.messages
      .create({ model: "claude-sonnet-4-6", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .withResponse()
    expect(response.headers.get("anthropic-ratelimit-requests-limit")).toBe("10000")
    expect(response.headers.get("anthropic-ratelimit-requests-remaining")).toBe("9999")
    expect(response.headers.get("anthropic-ratelimit-tokens-reset")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  })

  it("streams the real event sequence, one event per read, each decoding under the schema", async () => {
    const { llm, handle } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "text", content: "Hi there" },
          { type: "tool_call", name: "get_weather", input: { city: "Oslo" } }
        ]
      ]
    })
    const frames = await rawEvents(handle.fetch, {
      model: "claude-sonnet-4-6",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "x" }]
    })
    const events = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split("\n")
      const data = JSON.parse(dataLine.replace(/^data: /, ""))
      expect(eventLine).toBe(`event: ${data.type}`)
      expect(() => Schema.decodeUnknownSync(StreamEvent)(data, strict)).not.toThrow()
      return data
    })
    expect(events.map((event) => event.delta?.type ?? event.type)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "text_delta",
      "text_delta",
      "content_block_stop",
      "content_block_start",
      "input_json_delta",
      "input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
    expect(events[10].delta.stop_reason).toBe("tool_use")
  })

  it("runs a tool loop: step N answers after N user turns of tool_result blocks", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "get_weather", input: { city: "Paris" } }],
        [{ type: "text", content: "Sunny in Paris." }]
      ]
    })
    const messages: Array<MessageParam> = [{ role: "user", content: "Weather in Paris?" }]
    let text = ""
    for (let round = 0; round < 4; round++) {
      const message = await client.messages
        .stream({ model: "claude-sonnet-4-6", max_tokens: 1024, tools, messages })
        .finalMessage()
      messages.push({ role: "assistant", content: message.content })
      const calls = message.content.filter((block) => block.type === "tool_use")
      if (calls.length === 0) {
        text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("")
        break
      }
      messages.push({
        role: "user",
        content: calls.map((call) => ({ type: "tool_result" as const, tool_use_id: call.id, content: "sunny" }))
      })
    }
    expect(text).toBe("Sunny in Paris.")
    expect(llm.log.map((entry) => [entry.toolResultRounds, entry.step])).toEqual([
      [0, 0],
      [1, 1]
    ])
  })

  it("the SDK retries 429 and 529 overloaded_error, and every attempt is counted", async () => {
    const { llm, client } = await setup(3)
    llm.rule(
      { lastUserMessage: "busy" },
      {
        type: "failThenRespond",
        times: 1,
        failure: { type: "serverError", status: 529, retryAfterMs: 1 },
        then: {
          type: "respond",
          steps: [[{ type: "text", content: "after overload" }]]
        }
      }
    )
    llm.rule(
      { lastUserMessage: "limited" },
      {
        type: "failThenRespond",
        times: 2,
        failure: { type: "rateLimit", retryAfterMs: 1 },
        then: { type: "respond", steps: [[{ type: "text", content: "after limits" }]] }
      }
    )
    const limited = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: "limited" }]
    })
    expect(limited.content).toEqual([{ type: "text", text: "after limits" }])
    expect(llm.callCount).toBe(3)
    const busy = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: "busy" }]
    })
    expect(busy.content).toEqual([{ type: "text", text: "after overload" }])
    expect(llm.callCount).toBe(5)
    expect(llm.log.map((entry) => entry.status)).toEqual([429, 429, undefined, 529, undefined])
  })

  it("errors are classified as the SDK's own: 529 overloaded_error, 429 RateLimitError", async () => {
    const { llm, client } = await setup()
    llm.rule({ lastUserMessage: "overloaded" }, { type: "serverError", status: 529, message: "Overloaded" })
    llm.rule({ lastUserMessage: "limited" }, { type: "rateLimit" })
    const overloaded = await client.messages
      .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "overloaded" }] })
      .catch((e) => e)
    expect(overloaded).toBeInstanceOf(Anthropic.APIError)
    expect(overloaded.status).toBe(529)
    expect(overloaded.error).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
    expect(overloaded.requestID).toBe("req_sim_1")
    const limited = await client.messages
      .create({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "limited" }] })
      .catch((e) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
  })

  it("lists models", async () => {
    const { client } = await setup()
    const page = await client.models.list()
    expect(page.data.map((model) => model.id)).toContain("claude-sonnet-4-6")
  })

  it("a whole answer is the message's JSON in the API's member order, each call with its own id, stop and counts, whatever its text holds", async () => {
    const { handle, llm } = await setup()
    // A text that escapes, and one that holds the marker of a hole after the content (the stop reason's).
    const texts = ['say "hi"\n\u2028ok', "\u0000simnet-hole-2\u0000"]
    for (const text of texts)
      llm.rule({ lastUserMessage: text }, { type: "respond", steps: [[{ type: "text", content: text }]] })
    const ask = async (text: string, model: string) => {
      const response = await handle.fetch("https://api.anthropic.com/v1/messages", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: "user", content: text }] })
      })
      return response.text()
    }
    const expected = (seq: number, model: string, text: string, input: number, output: number) =>
      JSON.stringify({
        id: `msg_sim_${seq}`,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: {
          input_tokens: input,
          output_tokens: output,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0
        }
      })
    expect(await ask(texts[0], "claude-opus-5-5")).toBe(expected(1, "claude-opus-5-5", texts[0], 3, 3))
    expect(await ask(texts[0], 'claude "quoted"')).toBe(expected(2, 'claude "quoted"', texts[0], 3, 3))
    // Asked twice: a kept answer's template is made the second time.
    expect(await ask(texts[1], "claude-opus-5-5")).toBe(expected(3, "claude-opus-5-5", texts[1], 4, 1))
    expect(await ask(texts[1], "claude-opus-5-5")).toBe(expected(4, "claude-opus-5-5", texts[1], 4, 1))
    await handle.close()
  })
})
