import { Effect, Schema } from "effect"
import OpenAI from "openai"
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions"
import { describe, expect, it } from "vitest"
import { Routes, Schemas, SimulatedProvider, SimulationNetwork } from "simnet"

const { ChatCompletion, ChatCompletionChunk, ModelList, OpenAiErrorBody } = Schemas.OpenAi

const setup = async (options: { readonly maxRetries?: number; readonly baseUrl?: string } = {}) => {
  const handle = await SimulationNetwork.start({ routes: Routes.openai({ baseUrl: options.baseUrl }) })
  const llm = handle.llm
  const client = new OpenAI({
    apiKey: "sk-test",
    fetch: handle.fetch,
    maxRetries: options.maxRetries ?? 0,
    logLevel: "off",
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl })
  })
  return { llm, handle, client }
}

const tools: Array<ChatCompletionTool> = [
  {
    type: "function",
    function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
  },
  {
    type: "function",
    function: { name: "get_time", parameters: { type: "object", properties: { tz: { type: "string" } } } }
  }
]

const strict = { onExcessProperty: "error" } as const

/** Reads a raw SSE body through `fetch` and returns the `data:` payloads. */
const rawEvents = async (fetch: typeof globalThis.fetch, body: unknown): Promise<Array<string>> => {
  const response = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  return text
    .split("\n\n")
    .filter((event) => event.length > 0)
    .map((event) => event.replace(/^data: /, ""))
}

describe("the openai SDK against the simulated model", () => {
  it("streams text: role chunk first, content fragments, finish chunk, usage chunk with include_usage", async () => {
    const { llm, client } = await setup()
    llm.enqueue({ steps: [[{ type: "text", content: "Hello there, friend." }]] })
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" })
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Hello there, friend.")
    expect(chunks.slice(1, 4).map((c) => c.choices[0].delta.content)).toEqual(["Hello", " there,", " friend."])
    const finish = chunks[chunks.length - 2]
    expect(finish.choices[0].finish_reason).toBe("stop")
    const usage = chunks[chunks.length - 1]
    expect(usage.choices).toEqual([])
    expect(usage.usage?.completion_tokens).toBe(3)
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: "chatcmpl-sim-1", object: "chat.completion.chunk", model: "gpt-4o" })
      expect(typeof chunk.created).toBe("number")
    }
  })

  it("leaves the usage chunk out without include_usage, and every event decodes under the chunk schema", async () => {
    const { llm, handle } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "The user wants weather." },
          { type: "text", content: "Checking." },
          { type: "tool_call", name: "get_weather", input: { city: "Paris" } }
        ]
      ]
    })
    const events = await rawEvents(handle.fetch, {
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      stream: true
    })
    expect(events[events.length - 1]).toBe("[DONE]")
    const chunks = events
      .slice(0, -1)
      .map((data) => Schema.decodeUnknownSync(ChatCompletionChunk)(JSON.parse(data), strict))
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true)
    expect(chunks[1].choices[0].delta.reasoning_content).toBe("The")
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe("tool_calls")
    llm.enqueue({ steps: [[{ type: "text", content: "With usage." }]] })
    const withUsage = await rawEvents(handle.fetch, {
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    const last = Schema.decodeUnknownSync(ChatCompletionChunk)(JSON.parse(withUsage[withUsage.length - 2]), strict)
    expect(last.choices).toEqual([])
    expect(last.usage?.completion_tokens).toBe(2)
  })

  it("answers a non-streamed call with a chat.completion that decodes under its schema", async () => {
    const { llm, handle, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "Short." },
          { type: "text", content: "Forty-two." }
        ]
      ],
      usage: { inputTokens: 11, outputTokens: 2, totalTokens: 13 }
    })
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "The answer?" }]
    })
    expect(completion.choices[0].message.content).toBe("Forty-two.")
    expect(completion.choices[0].finish_reason).toBe("stop")
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 })
    llm.enqueue({ steps: [[{ type: "text", content: "Again." }]] })
    const response = await handle.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] })
    })
    expect(response.headers.get("x-request-id")).toBe("req_sim_2")
    const decoded = Schema.decodeUnknownSync(ChatCompletion)(await response.json(), strict)
    expect(decoded.choices[0].message.content).toBe("Again.")
  })

  it("runs a multi-step tool-call loop with parallel calls; the SDK accumulates the argument fragments", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "tool_call", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
          { type: "tool_call", name: "get_time", input: { tz: "Europe/Paris" } }
        ],
        [{ type: "tool_call", name: "get_weather", input: { city: "Lyon" } }],
        [{ type: "text", content: "Sunny in Paris at noon; rain in Lyon." }]
      ]
    })
    const messages: Array<ChatCompletionMessageParam> = [
      { role: "user", content: "Weather and time in Paris, then Lyon?" }
    ]
    const seen: Array<Array<string>> = []
    for (let round = 0; round < 5; round++) {
      const stream = client.chat.completions.stream({ model: "gpt-4o", messages, tools })
      const final = await stream.finalChatCompletion()
      const message = final.choices[0].message
      if (final.choices[0].finish_reason !== "tool_calls") {
        expect(message.content).toBe("Sunny in Paris at noon; rain in Lyon.")
        break
      }
      const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === "function" ? [call] : []))
      seen.push(calls.map((call) => `${call.function.name} ${call.function.arguments}`))
      messages.push({ role: "assistant", content: null, tool_calls: calls })
      for (const call of calls) messages.push({ role: "tool", tool_call_id: call.id, content: "ok" })
    }
    expect(seen).toEqual([
      ['get_weather {"city":"Paris","unit":"celsius"}', 'get_time {"tz":"Europe/Paris"}'],
      ['get_weather {"city":"Lyon"}']
    ])
    expect(llm.callCount).toBe(3)
    expect(llm.log.map((entry) => entry.step)).toEqual([0, 1, 2])
  })

  it("sends each tool call's head (index, id, type, name, empty arguments) before its argument fragments", async () => {
    const { llm, handle } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "tool_call", name: "get_weather", input: { city: "Paris, France" } },
          { type: "tool_call", name: "get_time", input: { tz: "CET" } }
        ]
      ]
    })
    const events = await rawEvents(handle.fetch, {
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }],
      stream: true
    })
    const calls = events
      .slice(0, -1)
      .map((data) => JSON.parse(data) as { choices: Array<{ delta: { tool_calls?: Array<Record<string, unknown>> } }> })
      .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
    expect(calls[0]).toEqual({
      index: 0,
      id: "call_1_0",
      type: "function",
      function: { name: "get_weather", arguments: "" }
    })
    const firstArgs = calls.filter((call) => call.index === 0 && call.id === undefined)
    expect(firstArgs.length).toBeGreaterThan(1)
    expect(firstArgs.map((call) => (call.function as { arguments: string }).arguments).join("")).toBe(
      '{"city":"Paris, France"}'
    )
    const second = calls.find((call) => call.index === 1 && call.id !== undefined)
    expect(second).toEqual({
      index: 1,
      id: "call_1_1",
      type: "function",
      function: { name: "get_time", arguments: "" }
    })
  })

  it("an error action ends the stream with an error event the SDK throws as APIError", async () => {
    const { llm, client } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "text", content: "Partial" },
          { type: "error", message: "overloaded mid-stream" }
        ]
      ]
    })
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }],
      stream: true
    })
    const texts: Array<string> = []
    const error = await (async () => {
      try {
        for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? "")
      } catch (e) {
        return e
      }
    })()
    expect(texts.join("")).toBe("Partial")
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("overloaded mid-stream")
  })

  it("an http_error action surfaces as the SDK's error class for its status, with x-request-id", async () => {
    const { llm, client } = await setup()
    llm.enqueue({ steps: [[{ type: "http_error", status: 503, message: "busy" }]] })
    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e)
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.status).toBe(503)
    expect(error.requestID).toBe("req_sim_1")
    expect(error.error).toEqual({ message: "busy", type: "server_error", param: null, code: "server_error" })
  })

  it("rate limits and server errors are RateLimitError and InternalServerError", async () => {
    const { llm, client } = await setup()
    llm.rule({ lastUserMessage: "limit" }, { type: "rateLimit", retryAfterMs: 1500 })
    llm.rule({ lastUserMessage: "crash" }, { type: "serverError", status: 502 })
    const limited = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "limit" }] })
      .catch((e) => e)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect(limited.headers.get("retry-after-ms")).toBe("1500")
    expect(limited.headers.get("retry-after")).toBe("2")
    expect(Schema.is(OpenAiErrorBody)({ error: limited.error })).toBe(true)
    const crashed = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "crash" }] })
      .catch((e) => e)
    expect(crashed).toBeInstanceOf(OpenAI.InternalServerError)
    expect(crashed.status).toBe(502)
    expect(llm.callCount).toBe(2)
  })

  it("the SDK's own retries: a rule failing twice with 429 then answering makes one call succeed with callCount 3", async () => {
    const { llm, client } = await setup({ maxRetries: 2 })
    llm.rule("any", {
      type: "failThenRespond",
      times: 2,
      failure: { type: "rateLimit", retryAfterMs: 0 },
      then: { type: "respond", steps: [[{ type: "text", content: "Third time lucky." }]] }
    })
    const completion = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }]
    })
    expect(completion.choices[0].message.content).toBe("Third time lucky.")
    expect(llm.callCount).toBe(3)
    expect(llm.log.map((entry) => [entry.outcome, entry.status])).toEqual([
      ["http_error", 429],
      ["http_error", 429],
      ["answer", undefined]
    ])
    expect(llm.countFor(llm.log[0].key)).toBe(3)
  })

  it("no script and no rule is a 422 naming NoScriptQueued; no matching rule is a 422 naming UnmatchedLlmRequest", async () => {
    const { llm, client } = await setup({ maxRetries: 2 })
    const none = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e)
    expect(none).toBeInstanceOf(OpenAI.UnprocessableEntityError)
    expect(none.code).toBe("NoScriptQueued")
    expect(none.message).toContain("no LLM script queued")
    expect(llm.callCount).toBe(1)
    llm.rule({ model: "gpt-4.1" }, { type: "respond", steps: [[{ type: "text", content: "x" }]] })
    const unmatched = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "What is the capital of France?" }] })
      .catch((e) => e)
    expect(unmatched.status).toBe(422)
    expect(unmatched.code).toBe("UnmatchedLlmRequest")
    expect(unmatched.message).toContain('last user message: "What is the capital of France?"')
    expect(llm.log.map((entry) => entry.outcome)).toEqual(["refused", "refused"])
  })

  it("counts logically equal requests under one key, whatever the key order or streaming", async () => {
    const { llm, handle, client } = await setup()
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "cached?" }]] })
    const question = {
      model: "gpt-4o",
      temperature: 0,
      messages: [{ role: "user" as const, content: "Same question" }]
    }
    await client.chat.completions.create(question)
    const stream = await client.chat.completions.create({ ...question, stream: true })
    for await (const _ of stream) {
      // drain
    }
    await handle.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      body: `{"messages":[{"content":"Same question","role":"user"}],"temperature":0,"model":"gpt-4o"}`
    })
    expect(llm.countFor(question)).toBe(3)
    expect(llm.countFor(llm.log[0].key)).toBe(3)
    expect(llm.countFor({ ...question, temperature: 1 })).toBe(0)
    expect(llm.callCount).toBe(3)
  })

  it("lets a test assert that the cached path made zero more model calls", async () => {
    const { llm, client } = await setup()
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "expensive answer" }]] })
    const cache = new Map<string, string>()
    const cachedAsk = async (content: string) => {
      const hit = cache.get(content)
      if (hit !== undefined) return hit
      const completion = await client.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content }]
      })
      const answer = completion.choices[0].message.content ?? ""
      cache.set(content, answer)
      return answer
    }
    const body = { model: "gpt-4o", messages: [{ role: "user", content: "Costly?" }] }
    expect(await cachedAsk("Costly?")).toBe("expensive answer")
    const before = llm.countFor(body)
    expect(await cachedAsk("Costly?")).toBe("expensive answer")
    expect(llm.countFor(body) - before).toBe(0)
    expect(before).toBe(1)
  })

  it("rules are tried in registration order and match by model, substring, last user message, tool result and predicate", async () => {
    const { llm, client } = await setup()
    const say = (content: string) => ({ type: "respond" as const, steps: [[{ type: "text" as const, content }]] })
    llm.rule({ toolResult: true }, say("after tools"))
    llm.rule({ model: /^o4/ }, say("reasoning model"))
    llm.rule({ contains: "SECRET" }, say("substring"))
    llm.rule({ lastUserMessage: "exact" }, say("last user"))
    llm.rule({ where: (request) => request.messages.length > 2 }, say("predicate"))
    llm.rule("any", say("fallback"))
    const ask = async (model: string, messages: Array<ChatCompletionMessageParam>) =>
      (await client.chat.completions.create({ model, messages })).choices[0].message.content
    expect(await ask("o4-mini", [{ role: "user", content: "SECRET" }])).toBe("reasoning model")
    expect(
      await ask("gpt-4o", [
        { role: "system", content: "SECRET rules" },
        { role: "user", content: "exact" }
      ])
    ).toBe("substring")
    expect(await ask("gpt-4o", [{ role: "user", content: "exact" }])).toBe("last user")
    expect(
      await ask("gpt-4o", [
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
        { role: "user", content: "c" }
      ])
    ).toBe("predicate")
    expect(
      await ask("gpt-4o", [
        { role: "user", content: "a" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "c1", content: "r" }
      ])
    ).toBe("after tools")
    expect(await ask("gpt-4o", [{ role: "user", content: "anything" }])).toBe("fallback")
    expect(llm.log.map((entry) => entry.rule)).toEqual(["rule_2", "rule_3", "rule_4", "rule_5", "rule_1", "rule_6"])
  })

  it("serves raw response bytes verbatim, one SSE event per read, and logs their sha256", async () => {
    const { llm, client } = await setup()
    const raw =
      `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"raw "},"finish_reason":null}]}\n\n` +
      `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"bytes"},"finish_reason":"stop"}]}\n\n` +
      `data: [DONE]\n\n`
    llm.rule("any", { type: "raw", body: raw })
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }],
      stream: true
    })
    const text: Array<string> = []
    for await (const chunk of stream) text.push(chunk.choices[0].delta.content ?? "")
    expect(text.join("")).toBe("raw bytes")
    const { createHash } = await import("node:crypto")
    expect(llm.log[0].rawSha256).toBe(createHash("sha256").update(raw).digest("hex"))
  })

  it("lists models at GET {base}/models, under a custom base URL too", async () => {
    const { client } = await setup({ baseUrl: "https://llm.example.test/v1" })
    const models = await client.models.list()
    const ids = models.data.map((model) => model.id)
    expect(ids).toContain("gpt-4o")
    expect(Schema.is(ModelList)({ object: "list", data: models.data })).toBe(true)
  })

  it("answers from the SimulatedProvider of the network's context when one is provided", async () => {
    const llm = SimulatedProvider.make()
    const network = await Effect.runPromise(
      SimulationNetwork.make({ routes: Routes.openai() }).pipe(Effect.provideService(SimulatedProvider, llm))
    )
    const handle = { fetch: network.fetch }
    llm.enqueue({ steps: [[{ type: "text", content: "found" }]] })
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }]
    })
    expect(completion.choices[0].message.content).toBe("found")
  })

  it("is deterministic: the same rules and request sequence give the same answers, log and counts", async () => {
    const run = async () => {
      const { llm, client } = await setup({ maxRetries: 1 })
      llm.rule(
        { lastUserMessage: "flaky" },
        {
          type: "failThenRespond",
          times: 1,
          failure: { type: "serverError", retryAfterMs: 0 },
          then: { type: "respond", steps: [[{ type: "tool_call", name: "get_time", input: { tz: "UTC" } }]] }
        }
      )
      llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "steady answer" }]] })
      const outputs = []
      for (const content of ["flaky", "steady", "flaky"]) {
        const completion = await client.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content }]
        })
        outputs.push({ ...completion, created: 0 })
      }
      const log = llm.log.map(({ at: _at, ...entry }) => entry)
      return { outputs, log, count: llm.callCount, counts: llm.log.map((entry) => llm.countFor(entry.key)) }
    }
    const first = await run()
    const second = await run()
    expect(second).toEqual(first)
    expect(first.count).toBe(4)
  })
})

describe("faults, each surfacing as the client's own error", () => {
  const ask = { model: "gpt-4o", messages: [{ role: "user" as const, content: "x" }], stream: true as const }

  it("a malformed SSE frame makes the SDK throw a JSON SyntaxError", async () => {
    const { llm, client } = await setup()
    llm.rule("any", { type: "fault", fault: "malformed" })
    const stream = await client.chat.completions.create(ask)
    const error = await (async () => {
      try {
        for await (const _ of stream) {
          // drain
        }
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(SyntaxError)
  })

  it("a clean truncation without finish chunk or [DONE] makes the SDK's stream helper reject", async () => {
    const { llm, handle, client } = await setup()
    llm.rule("any", { type: "fault", fault: "truncate" })
    const events = await rawEvents(handle.fetch, ask)
    expect(events).not.toContain("[DONE]")
    const error = await client.chat.completions
      .stream(ask)
      .finalChatCompletion()
      .catch((e) => e)
    expect(error).toBeInstanceOf(OpenAI.OpenAIError)
    expect(error.message).toContain("missing finish_reason")
  })

  it("a transport reset mid-stream rejects the SDK's read with undici's TypeError('terminated')", async () => {
    const { llm, client } = await setup()
    llm.rule("any", { type: "fault", fault: "reset" })
    const stream = await client.chat.completions.create(ask)
    const seen: Array<string> = []
    const error = await (async () => {
      try {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "")
      } catch (e) {
        return e
      }
    })()
    expect(seen.join("")).toBe("This answer is cut short")
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe("terminated")
    expect(((error as TypeError).cause as { code: string }).code).toBe("ECONNRESET")
  })

  it("non-streamed calls see the same faults as a broken JSON body", async () => {
    const { llm, client } = await setup()
    llm.rule({ lastUserMessage: "malformed" }, { type: "fault", fault: "malformed" })
    llm.rule({ lastUserMessage: "reset" }, { type: "fault", fault: "reset" })
    const malformed = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "malformed" }] })
      .catch((e) => e)
    expect(malformed).toBeInstanceOf(SyntaxError)
    const reset = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "reset" }] })
      .catch((e) => e)
    expect(reset).toBeInstanceOf(TypeError)
  })

  it("a non-streamed reset sends half the completion before the connection drops; the SDK rejects with undici's error", async () => {
    const { llm, handle, client } = await setup()
    llm.rule("any", { type: "fault", fault: "reset" })
    const response = await handle.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] })
    })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const first = await reader.read()
    const partial = new TextDecoder().decode(first.value)
    expect(partial.startsWith('{"id":"chatcmpl-sim-1","object":"chat.completion"')).toBe(true)
    expect(() => JSON.parse(partial)).toThrow(SyntaxError)
    const dropped = await reader.read().catch((e) => e)
    expect(dropped).toBeInstanceOf(TypeError)
    expect((dropped as TypeError).message).toBe("terminated")

    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "x" }] })
      .catch((e) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe("terminated")
    expect(((error as TypeError).cause as { code: string }).code).toBe("ECONNRESET")
    expect(llm.log.map((entry) => entry.outcome)).toEqual(["fault", "fault"])
  })
})

describe("rate-limit headers", () => {
  it("every answer carries OpenAI's x-ratelimit-* headers, deterministic; a 429 reports none left and when to retry", async () => {
    const { llm, client } = await setup()
    llm.rule({ lastUserMessage: "busy" }, { type: "rateLimit", retryAfterMs: 1500 })
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const first = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .withResponse()
    const second = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse()
    for await (const _ of second.data) {
      // drain the stream
    }
    const limited = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "busy" }] })
      .catch((e: unknown) => e)
    const header = (headers: Headers, name: string) => headers.get(name)
    expect(
      ["limit-requests", "remaining-requests", "reset-requests", "limit-tokens"].map((n) =>
        header(first.response.headers, `x-ratelimit-${n}`)
      )
    ).toEqual(["10000", "9999", "6ms", "30000000"])
    expect(header(second.response.headers, "x-ratelimit-remaining-requests")).toBe("9998")
    expect(Number(header(first.response.headers, "x-ratelimit-remaining-tokens"))).toBeLessThan(30_000_000)
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    const headers = (limited as InstanceType<typeof OpenAI.RateLimitError>).headers
    expect([
      headers.get("x-ratelimit-remaining-requests"),
      headers.get("retry-after-ms"),
      headers.get("retry-after")
    ]).toEqual(["0", "1500", "2"])
  })

  it("a whole chat completion is its JSON in the API's member order, each call with its own id, finish and counts, whatever its text holds", async () => {
    const { handle, llm } = await setup()
    // A text that escapes, and one that holds the marker of a hole after the content (the finish's).
    const texts = ['say "hi"\n\u2028ok', "\u0000simnet-hole-3\u0000"]
    for (const text of texts)
      llm.rule({ lastUserMessage: text }, { type: "respond", steps: [[{ type: "text", content: text }]] })
    const ask = async (text: string) => {
      const response = await handle.fetch("https://api.openai.com/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: text }] })
      })
      return response.text()
    }
    const expected = (body: string, seq: number, text: string, input: number, output: number) =>
      JSON.stringify({
        id: `chatcmpl-sim-${seq}`,
        object: "chat.completion",
        created: (JSON.parse(body) as { created: number }).created,
        model: "gpt-4o-mini",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: "stop"
          }
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
      })
    for (const [seq, text, input, output] of [
      [1, texts[0], 3, 3],
      [2, texts[0], 3, 3],
      [3, texts[1], 4, 1],
      [4, texts[1], 4, 1]
    ] as const) {
      const body = await ask(text)
      expect(body).toBe(expected(body, seq, text, input, output))
    }
    await handle.close()
  })
})
