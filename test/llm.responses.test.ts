import { Schema } from "effect"
import OpenAI from "openai"
import type { ResponseInputItem } from "openai/resources/responses/responses"
import { describe, expect, it } from "vitest"
import { Routes, Schemas, SimulationNetwork } from "simnet"

const { ResponseObject, ResponseStreamEvent } = Schemas.OpenAiResponses
const strict = { onExcessProperty: "error" } as const

const setup = async (maxRetries = 0) => {
  const handle = await SimulationNetwork.start({ routes: Routes.openai() })
  const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries, logLevel: "off" })
  return { handle, llm: handle.llm, client }
}

const tools = [
  {
    type: "function" as const,
    name: "get_weather",
    strict: true,
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false
    }
  }
]

describe("the openai SDK's responses API against the simulated model", () => {
  it("answers responses.create with a response object that decodes under the wire schema", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "Short answer." },
          { type: "text", content: "Hello from Responses." }
        ]
      ],
      usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }
    })
    const response = await client.responses.create({ model: "gpt-4o", input: "Say hello", instructions: "Be brief" })
    expect(response.output_text).toBe("Hello from Responses.")
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"])
    expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 4, total_tokens: 13 })
    expect(response).toMatchObject({
      id: "resp_sim_1",
      status: "completed",
      instructions: "Be brief",
      created_at: 1_767_225_600
    })
    const { output_text: _, ...wire } = response as unknown as Record<string, unknown>
    expect(() => Schema.decodeUnknownSync(ResponseObject)(wire, strict)).not.toThrow()
    expect(llm.log[0]).toMatchObject({ api: "openai.responses", lastUserMessage: "Say hello", toolResultRounds: 0 })
  })

  it("streams the real event sequence with consecutive sequence numbers, every event decoding under the schema", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "Need weather." },
          { type: "text", content: "Checking now." },
          { type: "tool_call", name: "get_weather", input: { city: "Paris" } }
        ]
      ]
    })
    const stream = await client.responses.create({ model: "gpt-4o", input: "Weather?", tools, stream: true })
    const events = []
    for await (const event of stream) events.push(event)
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i))
    for (const event of events) expect(() => Schema.decodeUnknownSync(ResponseStreamEvent)(event, strict)).not.toThrow()
    const types = events.map((event) => event.type)
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added"
    ])
    expect(types).toContain("response.reasoning_summary_text.delta")
    expect(types).toContain("response.output_text.delta")
    expect(types).toContain("response.function_call_arguments.delta")
    expect(types.filter((type) => type === "response.output_item.done")).toHaveLength(3)
    expect(types.at(-1)).toBe("response.completed")
    const text = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : [])).join("")
    expect(text).toBe("Checking now.")
    const args = events
      .flatMap((event) => (event.type === "response.function_call_arguments.delta" ? [event.delta] : []))
      .join("")
    expect(JSON.parse(args)).toEqual({ city: "Paris" })
    const completed = events.at(-1)
    expect(completed?.type === "response.completed" && completed.response.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call"
    ])
  })

  it("runs a tool loop: step N answers after N rounds of function_call_output items", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "get_weather", input: { city: "Paris" } }],
        [{ type: "tool_call", name: "get_weather", input: { city: "Lyon" } }],
        [{ type: "text", content: "Sunny in both." }]
      ]
    })
    const input: Array<ResponseInputItem> = [{ role: "user", content: "Weather in Paris and Lyon?" }]
    for (let round = 0; round < 5; round++) {
      const response = await client.responses.create({ model: "gpt-4o", input, tools })
      const calls = response.output.filter((item) => item.type === "function_call")
      if (calls.length === 0) {
        expect(response.output_text).toBe("Sunny in both.")
        break
      }
      for (const call of calls) {
        input.push(call, {
          type: "function_call_output",
          call_id: call.call_id,
          output: JSON.stringify({ sky: "sunny" })
        })
      }
    }
    expect(llm.log.map((entry) => [entry.toolResultRounds, entry.step])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2]
    ])
    const sent = (llm.log[2].body as { input: ReadonlyArray<{ type?: string }> }).input
    expect(sent.filter((item) => item.type === "function_call_output")).toHaveLength(2)
  })

  it("a custom (freeform) tool call, Codex's way: tools in an additional_tools item, a string input answered as a custom_tool_call, its output read as a tool result", async () => {
    const { handle, llm, client } = await setup()
    const code = 'const r = await tools.exec_command({ cmd: "echo hi" }); text(r)'
    llm.rule(
      { tool: "exec", toolResult: false },
      { type: "respond", steps: [[{ type: "tool_call", name: "exec", input: code }]] }
    )
    llm.rule(
      { toolResult: true, contains: "hi from the tool" },
      { type: "respond", steps: [[{ type: "text", content: "done" }]] }
    )
    const additional = {
      type: "additional_tools",
      role: "developer",
      tools: [
        {
          type: "namespace",
          name: "functions",
          tools: [
            { type: "custom", name: "exec", description: "Run JavaScript" },
            { type: "function", name: "wait", parameters: {} }
          ]
        }
      ]
    }
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "say hi through the tool" }] }
    const first = await client.responses.create({
      model: "gpt-6",
      input: [additional, user] as unknown as Array<ResponseInputItem>
    })
    expect(first.output).toEqual([
      {
        type: "custom_tool_call",
        id: expect.stringMatching(/^ctc_sim_/),
        call_id: expect.any(String),
        name: "exec",
        input: code,
        status: "completed"
      }
    ])
    const { output_text: _text, ...wire } = first
    expect(Schema.decodeUnknownSync(ResponseObject)(wire, strict).output[0]).toMatchObject({ type: "custom_tool_call" })
    const call = first.output[0] as { call_id: string }
    // Streamed, the same call: its input in custom_tool_call_input events, every event decoding under the schema.
    const raw = await handle.fetch("https://api.openai.com/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-6",
        stream: true,
        input: [additional, { ...user, content: [{ type: "input_text", text: "again" }] }]
      })
    })
    const events = (await raw.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => Schema.decodeUnknownSync(ResponseStreamEvent)(JSON.parse(line.slice(6)), strict))
    expect(events.filter((e) => e.type.startsWith("response.custom_tool_call_input")).map((e) => e.type)).toEqual([
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done"
    ])
    const second = await client.responses.create({
      model: "gpt-6",
      input: [
        additional,
        user,
        { type: "custom_tool_call", call_id: call.call_id, name: "exec", input: code },
        { type: "custom_tool_call_output", call_id: call.call_id, output: "hi from the tool" }
      ] as unknown as Array<ResponseInputItem>
    })
    expect(second.output_text).toBe("done")
    expect(llm.log.map((entry) => [entry.toolResultRounds, entry.outcome])).toEqual([
      [0, "answer"],
      [0, "answer"],
      [1, "answer"]
    ])
  })

  it("the SDK's retries on 429 are counted exactly", async () => {
    const { llm, client } = await setup(2)
    llm.rule("any", {
      type: "failThenRespond",
      times: 2,
      failure: { type: "rateLimit", retryAfterMs: 1 },
      then: { type: "respond", steps: [[{ type: "text", content: "Third time." }]] }
    })
    const response = await client.responses.create({ model: "gpt-4o", input: "hi" })
    expect(response.output_text).toBe("Third time.")
    expect(llm.callCount).toBe(3)
    expect(llm.log.map((entry) => entry.status)).toEqual([429, 429, undefined])
  })

  it("embeddings.create: base64 by default, floats on request, deterministic and normalised", async () => {
    const { client } = await setup()
    const a = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: ["the cat sat", "the cat sat", "stock prices fell"]
    })
    expect(a.data.map((d) => d.embedding.length)).toEqual([1536, 1536, 1536])
    expect(a.data[0].embedding).toEqual(a.data[1].embedding)
    const norm = Math.hypot(...a.data[0].embedding)
    expect(norm).toBeCloseTo(1, 5)
    const floats = await client.embeddings.create({
      model: "text-embedding-3-small",
      input: "the cat sat",
      encoding_format: "float",
      dimensions: 256
    })
    expect(floats.data[0].embedding).toHaveLength(256)
    expect(Math.hypot(...floats.data[0].embedding)).toBeCloseTo(1, 5)
    const cosine = (x: ReadonlyArray<number>, y: ReadonlyArray<number>) => x.reduce((sum, v, i) => sum + v * y[i], 0)
    const related = await client.embeddings.create({ model: "text-embedding-3-small", input: ["the cat sat down"] })
    expect(cosine(a.data[0].embedding, related.data[0].embedding)).toBeGreaterThan(
      cosine(a.data[0].embedding, a.data[2].embedding)
    )
    expect(a.usage.prompt_tokens).toBeGreaterThan(0)
  })
})
