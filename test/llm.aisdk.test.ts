import { createOpenAI } from "@ai-sdk/openai"
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const setup = async () => {
  const handle = await SimulationNetwork.start({ routes: Routes.openai() })
  const llm = handle.llm
  const openai = createOpenAI({ apiKey: "sk-test", fetch: handle.fetch })
  return { llm, openai }
}

const weather = tool({
  description: "Current weather in a city",
  inputSchema: jsonSchema<{ city: string }>({
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false
  }),
  execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "rain" })
})

describe("ai's streamText/generateText with @ai-sdk/openai .chat() against the simulated model", () => {
  it("streamText streams the text and reports usage and the finish reason", async () => {
    const { llm, openai } = await setup()
    llm.enqueue({
      steps: [[{ type: "text", content: "Streaming through the real SDK." }]],
      usage: { inputTokens: 7, outputTokens: 5, totalTokens: 12 }
    })
    const result = streamText({ model: openai.chat("gpt-4o"), prompt: "Say something", maxRetries: 0 })
    const deltas: Array<string> = []
    for await (const delta of result.textStream) deltas.push(delta)
    expect(deltas).toEqual(["Streaming", " through", " the", " real", " SDK."])
    expect(await result.finishReason).toBe("stop")
    const usage = await result.usage
    expect([usage.inputTokens, usage.outputTokens, usage.totalTokens]).toEqual([7, 5, 12])
    expect((llm.log[0].body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true })
  })

  it("streamText runs a tool loop: tool call, real tool execution, final answer", async () => {
    const { llm, openai } = await setup()
    llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "weather", input: { city: "Paris" } }],
        [{ type: "text", content: "It is sunny in Paris." }]
      ]
    })
    const result = streamText({
      model: openai.chat("gpt-4o"),
      prompt: "Weather in Paris?",
      tools: { weather },
      stopWhen: stepCountIs(5),
      maxRetries: 0
    })
    expect(await result.text).toBe("It is sunny in Paris.")
    const steps = await result.steps
    expect(steps).toHaveLength(2)
    expect(steps[0].toolCalls.map((call) => [call.toolName, call.input])).toEqual([["weather", { city: "Paris" }]])
    expect(steps[0].toolResults.map((r) => r.output)).toEqual([{ city: "Paris", sky: "sunny" }])
    expect(llm.log.map((entry) => entry.toolResultRounds)).toEqual([0, 1])
  })

  it("generateText runs a tool loop with parallel calls over non-streamed completions", async () => {
    const { llm, openai } = await setup()
    llm.rule(
      { toolResult: false },
      {
        type: "respond",
        steps: [
          [
            { type: "thinking", content: "Two cities, two calls." },
            { type: "tool_call", name: "weather", input: { city: "Paris" } },
            { type: "tool_call", name: "weather", input: { city: "Lyon" } }
          ]
        ]
      }
    )
    llm.rule(
      { toolResult: true, contains: '"sky":"rain"' },
      {
        type: "respond",
        steps: [[{ type: "text", content: "Paris is sunny, Lyon is rainy." }]]
      }
    )
    const result = await generateText({
      model: openai.chat("gpt-4o"),
      prompt: "Weather in Paris and Lyon?",
      tools: { weather },
      stopWhen: stepCountIs(5),
      maxRetries: 0
    })
    expect(result.text).toBe("Paris is sunny, Lyon is rainy.")
    expect(result.steps[0].toolCalls.map((call) => call.input)).toEqual([{ city: "Paris" }, { city: "Lyon" }])
    expect(llm.callCount).toBe(2)
    expect(llm.log.map((entry) => entry.rule)).toEqual(["rule_1", "rule_2"])
  })

  it("a rate limit surfaces as the SDK's APICallError with its status", async () => {
    const { llm, openai } = await setup()
    llm.rule("any", { type: "rateLimit" })
    const error = await generateText({ model: openai.chat("gpt-4o"), prompt: "x", maxRetries: 0 }).catch((e) => e)
    expect(error.statusCode).toBe(429)
    expect(error.isRetryable).toBe(true)
  })

  it("a transport reset mid-stream surfaces as the SDK's APICallError caused by TypeError('terminated')", async () => {
    const { llm, openai } = await setup()
    llm.rule("any", { type: "fault", fault: "reset" })
    const result = streamText({ model: openai.chat("gpt-4o"), prompt: "x", maxRetries: 0, onError: () => {} })
    const deltas: Array<string> = []
    const error = await (async () => {
      try {
        for await (const part of result.fullStream) if (part.type === "text-delta") deltas.push(part.text)
      } catch (e) {
        return e
      }
    })()
    expect(deltas.join("")).toBe("This answer is cut short")
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).cause).toBeInstanceOf(TypeError)
    expect(((error as APICallError).cause as TypeError).message).toBe("terminated")
  })

  it("a malformed frame surfaces as an error part of the stream, not as text", async () => {
    const { llm, openai } = await setup()
    llm.rule("any", { type: "fault", fault: "malformed" })
    const result = streamText({ model: openai.chat("gpt-4o"), prompt: "x", maxRetries: 0, onError: () => {} })
    const kinds: Array<string> = []
    for await (const part of result.fullStream) kinds.push(part.type)
    expect(kinds).toContain("error")
  })
})

describe("an unscripted call fails at once, saying why", () => {
  it("with its default retries, the AI SDK does not retry: it fails at once with simnet's reason as the message (chat, Responses, Anthropic, Google)", async () => {
    const { createAnthropic } = await import("@ai-sdk/anthropic")
    const { createGoogleGenerativeAI } = await import("@ai-sdk/google")
    const handle = await SimulationNetwork.start({
      routes: [...Routes.openai(), ...Routes.anthropic(), ...Routes.gemini()]
    })
    const openai = createOpenAI({ apiKey: "sk-test", fetch: handle.fetch })
    const models = [
      openai.chat("gpt-4o"),
      openai.responses("gpt-4o"),
      createAnthropic({ apiKey: "sk-ant-test", fetch: handle.fetch })("claude-sonnet-4-5"),
      createGoogleGenerativeAI({ apiKey: "g-test", fetch: handle.fetch })("gemini-2.5-flash")
    ]
    for (const model of models) {
      const error = await generateText({ model, prompt: "hi" }).catch((e: unknown) => e)
      expect(APICallError.isInstance(error), String(error)).toBe(true)
      expect((error as APICallError).statusCode).toBe(422)
      expect((error as APICallError).isRetryable).toBe(false)
      expect((error as Error).message).toContain("no LLM script queued")
    }
    // One call each: nothing was retried, so no backoff was waited (the AI SDK's first is 2 s).
    expect(handle.llm.callCount).toBe(4)
  })
})
