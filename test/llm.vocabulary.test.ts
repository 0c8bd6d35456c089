import Anthropic from "@anthropic-ai/sdk"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import { GoogleGenAI } from "@google/genai"
import { generateText, jsonSchema, streamText, tool } from "ai"
import { Effect, Queue } from "effect"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork, type LlmDriverItem, type NetworkHandle } from "simnet"

const allRoutes = () => [...Routes.openai(), ...Routes.anthropic(), ...Routes.gemini()]

const start = () => SimulationNetwork.start({ routes: allRoutes() })

const clients = (handle: NetworkHandle) => ({
  openai: new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: "sk-ant-test", fetch: handle.fetch, maxRetries: 0 }),
  gemini: new GoogleGenAI({ apiKey: "g-test", httpOptions: { fetch: handle.fetch } })
})

const schema = { type: "object" as const, properties: {} }

/** Feeds the first pending invocation: `items`, then `llm.finish`. */
const feed = async (handle: NetworkHandle, items: ReadonlyArray<LlmDriverItem>) => {
  while (handle.llm.pending.length === 0) await new Promise((resolve) => setImmediate(resolve))
  const id = handle.llm.pending[0].id
  await Effect.runPromise(handle.llm.chunk({ id, items }))
  await Effect.runPromise(handle.llm.finish({ id }))
}

describe("list_tools on every API", () => {
  it("names the tools each request offered, read from its own API's format", async () => {
    const handle = await start()
    const { openai, anthropic, gemini } = clients(handle)
    for (let i = 0; i < 3; i++) handle.llm.enqueue({ steps: [[{ type: "list_tools" }]] })
    const responses = await openai.responses.create({
      model: "gpt-4o",
      input: "tools?",
      tools: [
        { type: "function", name: "read_file", parameters: schema, strict: false },
        { type: "function", name: "grep", parameters: schema, strict: false }
      ]
    })
    expect(responses.output_text).toBe("read_file\ngrep")
    const claude = await anthropic.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: "tools?" }],
      tools: [
        { name: "bash", input_schema: schema },
        { name: "edit", input_schema: schema }
      ]
    })
    expect(claude.content).toEqual([{ type: "text", text: "bash\nedit" }])
    const google = await gemini.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "tools?",
      config: { tools: [{ functionDeclarations: [{ name: "search" }, { name: "fetch_url" }] }] }
    })
    expect(google.text).toBe("search\nfetch_url")
  })
})

describe("finish unknown on every API", () => {
  it("is written as each API writes a finish its client cannot name, which the AI SDK reports as other", async () => {
    const handle = await start()
    const cut = { steps: [[{ type: "text" as const, content: "cut" }]], finish: "unknown" as const }
    const { openai, anthropic, gemini } = clients(handle)
    for (let i = 0; i < 3; i++) handle.llm.enqueue(cut)
    const responses = await openai.responses.create({ model: "gpt-4o", input: "a" })
    expect([responses.status, responses.incomplete_details]).toEqual(["incomplete", { reason: "unknown" }])
    const claude = await anthropic.messages
      .stream({ model: "claude-sonnet-4-6", max_tokens: 10, messages: [{ role: "user", content: "a" }] })
      .finalMessage()
    expect(claude.stop_reason).toBeNull()
    const google = await gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "a" })
    expect(google.candidates?.[0].finishReason).toBe("FINISH_REASON_UNSPECIFIED")

    const models = [
      createOpenAI({ apiKey: "sk-test", fetch: handle.fetch })("gpt-4o"),
      createAnthropic({ apiKey: "sk-ant-test", fetch: handle.fetch })("claude-sonnet-4-6"),
      createGoogleGenerativeAI({ apiKey: "g-test", fetch: handle.fetch })("gemini-2.5-flash")
    ]
    const tools = { t: tool({ inputSchema: jsonSchema({ type: "object" }) }) }
    for (const model of models) {
      handle.llm.enqueue(cut)
      const whole = await generateText({ model, prompt: "b", tools, maxRetries: 0 })
      expect([whole.text, whole.finishReason]).toEqual(["cut", "other"])
      handle.llm.enqueue(cut)
      const streamed = streamText({ model, prompt: "c", tools, maxRetries: 0 })
      expect([await streamed.text, await streamed.finishReason]).toEqual(["cut", "other"])
    }
    expect(handle.llm.log.map((entry) => entry.source)).toEqual(Array(9).fill("script"))
  })
})

describe("driver notices and raw chunks on every API", () => {
  it("llm.request and llm.pending name the API a call came through", async () => {
    const handle = await start()
    const { openai, anthropic, gemini } = clients(handle)
    const apis = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const notices = yield* handle.llm.attach
          const seen: Array<string> = []
          const calls: ReadonlyArray<() => Promise<unknown>> = [
            () => openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "q" }] }),
            () => openai.responses.create({ model: "gpt-4o", input: "q" }),
            () =>
              anthropic.messages.create({
                model: "claude-sonnet-4-6",
                max_tokens: 10,
                messages: [{ role: "user", content: "q" }]
              }),
            () => gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "q" })
          ]
          for (const call of calls) {
            const answered = call()
            const notice = yield* Queue.take(notices)
            expect(handle.llm.pending.map((pending) => pending.api)).toEqual([notice.api])
            seen.push(notice.api)
            yield* handle.llm.chunk({ id: notice.id, items: [{ type: "textDelta", text: "ok" }] })
            yield* handle.llm.finish({ id: notice.id })
            yield* Effect.promise(() => answered)
          }
          return seen
        })
      )
    )
    expect(apis).toEqual(["openai.chat", "openai.responses", "anthropic.messages", "gemini"])
  })

  it("a raw chunk is one event of the request's API, passed through as given into the SDK's stream", async () => {
    const handle = await start()
    handle.llm.rule("any", { type: "drive" })
    const { openai, anthropic, gemini } = clients(handle)

    const [claude] = await Promise.all([
      anthropic.messages
        .stream({ model: "claude-sonnet-4-6", max_tokens: 10, messages: [{ role: "user", content: "q" }] })
        .finalMessage(),
      feed(handle, [
        { type: "textDelta", text: "cooked" },
        {
          type: "raw",
          chunk: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " and raw" } }
        }
      ])
    ])
    expect(claude.content).toEqual([{ type: "text", text: "cooked and raw" }])

    const geminiChunk = { candidates: [{ content: { parts: [{ text: "raw gemini" }], role: "model" }, index: 0 }] }
    const [chunks] = await Promise.all([
      (async () => {
        const out: Array<string> = []
        for await (const chunk of await gemini.models.generateContentStream({
          model: "gemini-2.5-flash",
          contents: "q"
        }))
          out.push(chunk.text ?? "")
        return out
      })(),
      feed(handle, [{ type: "raw", chunk: geminiChunk }])
    ])
    expect(chunks.join("")).toBe("raw gemini")

    const delta = {
      type: "response.output_text.delta",
      item_id: "msg_raw",
      output_index: 0,
      content_index: 0,
      delta: "raw",
      logprobs: [],
      sequence_number: 99
    }
    const [events] = await Promise.all([
      (async () => {
        const out: Array<unknown> = []
        for await (const event of await openai.responses.create({ model: "gpt-4o", input: "q", stream: true }))
          out.push(event)
        return out
      })(),
      feed(handle, [{ type: "raw", chunk: delta }])
    ])
    expect(events).toContainEqual(delta)
    expect(events.at(-1)).toMatchObject({ type: "response.completed" })
  })
})
