import { describe, expect, it } from "@effect/vitest"
import { generateText, jsonSchema, tool } from "ai"
import { createOpenAI } from "@ai-sdk/openai"
import { Cause, Effect, Exit, Fiber, Layer, Queue } from "effect"
import OpenAI, { toFile } from "openai"
import { InvalidLlmInput, Routes, SimulatedProvider, SimulationNetwork } from "simnet"

const start = (options: { readonly drive?: boolean } = {}) =>
  SimulationNetwork.start({ routes: Routes.openai(), ...options })

const client = (fetch: typeof globalThis.fetch) =>
  new OpenAI({ apiKey: "sk-test", baseURL: "https://api.openai.com/v1", fetch, maxRetries: 0 })

const waitFor = async (done: () => boolean) => {
  for (let turn = 0; turn < 1_000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve))
  expect(done()).toBe(true)
}

describe("script vocabulary", () => {
  it("list_tools answers with the names of the tools the request offered", async () => {
    const net = await start()
    net.llm.enqueue({ steps: [[{ type: "list_tools" }]] })
    const tools = ["read_file", "write_file"].map((name) => ({
      type: "function" as const,
      function: { name, parameters: { type: "object", properties: {} } }
    }))
    const answer = await client(net.fetch).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "tools?" }],
      tools
    })
    expect(answer.choices[0].message.content).toBe("read_file\nwrite_file")
  })

  it("finish unknown is a null finish_reason, which the AI SDK reports as other", async () => {
    const net = await start()
    net.llm.enqueue({ steps: [[{ type: "text", content: "cut" }]], finish: "unknown" })
    net.llm.enqueue({ steps: [[{ type: "text", content: "cut" }]], finish: "unknown" })
    const raw = await client(net.fetch).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "a" }]
    })
    expect(raw.choices[0].finish_reason).toBeNull()
    const openai = createOpenAI({ apiKey: "sk-test", fetch: net.fetch })
    const result = await generateText({
      model: openai.chat("gpt-4o"),
      prompt: "b",
      tools: { t: tool({ inputSchema: jsonSchema({ type: "object" }) }) }
    })
    expect(result.text).toBe("cut")
    expect(result.finishReason).toBe("other")
  })
})

describe("driver commands", () => {
  it("a raw chunk item is passed through as one SSE event; a bogus item is refused naming it and changes nothing", async () => {
    const net = await start()
    net.llm.rule("any", { type: "drive" })
    const stream = client(net.fetch).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }],
      stream: true
    })
    await waitFor(() => net.llm.pending.length === 1)
    const bogus = await Effect.runPromise(
      Effect.flip(net.llm.command("llm.chunk", { id: "inv_1", items: [{ type: "bogus" }] }))
    )
    expect(bogus).toBeInstanceOf(InvalidLlmInput)
    expect((bogus as InvalidLlmInput).path).toBe("items[0]")
    expect(net.llm.pending[0].started).toBe(false)
    const chunk = {
      id: "raw-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, delta: { content: "from raw" }, finish_reason: null }]
    }
    await Effect.runPromise(net.llm.chunk({ id: "inv_1", items: [{ type: "raw", chunk }] }))
    await Effect.runPromise(net.llm.finish({ id: "inv_1" }))
    const seen: Array<unknown> = []
    for await (const part of await stream) seen.push(part)
    expect(seen[1]).toEqual(chunk)
  })

  it("a raw chunk reaches a transcription stream as one event, as it reaches every other API's", async () => {
    const net = await start()
    net.llm.rule("any", { type: "drive" })
    const file = await toFile(Buffer.from("RIFF0000WAVE"), "a.wav", { type: "audio/wav" })
    const stream = client(net.fetch).audio.transcriptions.create({ model: "gpt-4o-transcribe", file, stream: true })
    await waitFor(() => net.llm.pending.length === 1)
    const chunk = { type: "transcript.text.delta", delta: "from raw", logprobs: null }
    await Effect.runPromise(net.llm.chunk({ id: "inv_1", items: [{ type: "raw", chunk }] }))
    await Effect.runPromise(net.llm.finish({ id: "inv_1" }))
    const seen: Array<unknown> = []
    for await (const event of await stream) seen.push(event)
    expect(seen[0]).toEqual(chunk)
    expect(seen.at(-1)).toMatchObject({ type: "transcript.text.done" })
  })

  it("llm.chunk takes the script's vocabulary too: text, thinking and tool_call mean textDelta, reasoningDelta and toolCall", async () => {
    const net = await start()
    net.llm.rule("any", { type: "drive" })
    const answer = client(net.fetch).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "x" }]
    })
    await waitFor(() => net.llm.pending.length === 1)
    await Effect.runPromise(
      net.llm.command("llm.chunk", {
        id: "inv_1",
        items: [
          { type: "thinking", content: "hm" },
          { type: "text", content: "Reading " },
          { type: "textDelta", text: "it." },
          { type: "tool_call", name: "read", input: { path: "notes.txt" } }
        ]
      })
    )
    await Effect.runPromise(net.llm.finish({ id: "inv_1" }))
    const message = (await answer).choices[0].message
    expect(message.content).toBe("Reading it.")
    expect(
      message.tool_calls?.map((call) =>
        call.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : undefined
      )
    ).toEqual([["read", { path: "notes.txt" }]])
  })

  it("a finish reason outside the protocol is refused at reason", async () => {
    const net = await start()
    const error = await Effect.runPromise(Effect.flip(net.llm.command("llm.finish", { id: "inv_9", reason: "done" })))
    expect((error as InvalidLlmInput).path).toBe("reason")
  })
})

describe("attach", () => {
  it.effect(
    "a late attach is handed the invocations already pending; the last attach wins and the replaced driver's queue ends",
    () =>
      Effect.gen(function* () {
        const net = yield* Effect.promise(() => start({ drive: true }))
        const answer = Effect.promise(() =>
          client(net.fetch).chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "held" }] })
        )
        const fiber = yield* Effect.forkChild(answer)
        yield* Effect.promise(() => waitFor(() => net.llm.pending.length === 1))
        const first = yield* net.llm.attach
        expect(yield* Queue.take(first)).toMatchObject({ id: "inv_1" })
        const second = yield* net.llm.attach
        expect(yield* Queue.take(second)).toMatchObject({ id: "inv_1" })
        const ended = yield* Effect.exit(Queue.take(first))
        expect(Exit.isFailure(ended) && Cause.squash(ended.cause)).toMatchObject({ _tag: "Done" })
        yield* net.llm.chunk({ id: "inv_1", items: [{ type: "textDelta", text: "late but here" }] })
        yield* net.llm.finish({ id: "inv_1" })
        expect((yield* Fiber.join(fiber)).choices[0].message.content).toBe("late but here")
      }).pipe(Effect.scoped)
  )

  it.effect(
    "layerDrive answers requests in process with the socket's protocol; a failing driver fails the call with a 500",
    () => {
      const provider = Layer.succeed(SimulatedProvider, SimulatedProvider.make())
      const driver = SimulatedProvider.layerDrive((request, llm) =>
        Effect.gen(function* () {
          const body = request.body as { messages: Array<{ content: string }> }
          if (body.messages[0].content === "boom") return yield* Effect.fail("no answer for boom")
          for (const word of ["one ", "two"])
            yield* llm.chunk({ id: request.id, items: [{ type: "textDelta", text: word }] })
          yield* llm.finish({ id: request.id })
        })
      )
      return Effect.gen(function* () {
        const openai = client((yield* SimulationNetwork).fetch)
        const answer = yield* Effect.promise(() =>
          openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
        )
        expect(answer.choices[0].message.content).toBe("one two")
        const failed = yield* Effect.promise(() =>
          openai.chat.completions
            .create({ model: "gpt-4o", messages: [{ role: "user", content: "boom" }] })
            .catch((e: unknown) => e)
        )
        expect(failed).toBeInstanceOf(OpenAI.InternalServerError)
        expect(String((failed as Error).message)).toContain("no answer for boom")
      }).pipe(
        Effect.provide(
          Layer.mergeAll(SimulationNetwork.layer({ routes: Routes.openai() }), driver).pipe(Layer.provide(provider))
        )
      )
    }
  )
})
