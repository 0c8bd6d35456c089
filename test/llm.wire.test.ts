import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import { Effect } from "effect"
import OpenAI from "openai"
import { describe, expect, it, vi } from "vitest"
import { DEFAULT_EPOCH, Routes, SimulationNetwork, type LlmScript, type NetworkHandle } from "simnet"

const allRoutes = () => [...Routes.openai(), ...Routes.anthropic(), ...Routes.gemini()]

const clients = (handle: NetworkHandle) => ({
  openai: new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 0 }),
  anthropic: new Anthropic({ apiKey: "sk-ant-test", fetch: handle.fetch, maxRetries: 0 }),
  gemini: new GoogleGenAI({ apiKey: "g-test", httpOptions: { fetch: handle.fetch } })
})

/** One streamed request per API and an embeddings request, as raw bytes. */
const rawCalls = async (handle: NetworkHandle): Promise<Array<string>> => {
  const post = async (url: string, body: unknown) => {
    const response = await handle.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    return `${response.status} ${response.headers.get("content-type")}\n${await response.text()}`
  }
  const user = "What is the weather?"
  return [
    await post("https://api.openai.com/v1/chat/completions", {
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: user }]
    }),
    await post("https://api.openai.com/v1/chat/completions", {
      model: "gpt-4o",
      messages: [{ role: "user", content: user }]
    }),
    await post("https://api.openai.com/v1/responses", { model: "gpt-4o", stream: true, input: user }),
    await post("https://api.openai.com/v1/responses", { model: "gpt-4o", input: user }),
    await post("https://api.anthropic.com/v1/messages", {
      model: "claude-sonnet-4-6",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: user }]
    }),
    await post(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      { contents: [{ parts: [{ text: user }] }] }
    ),
    await post("https://api.openai.com/v1/embeddings", {
      model: "text-embedding-3-small",
      input: user,
      encoding_format: "base64"
    }),
    await post("https://generativelanguage.googleapis.com/v1beta/models/gemini-embedding-001:embedContent", {
      content: { parts: [{ text: user }] },
      outputDimensionality: 8
    })
  ]
}

const script: LlmScript = {
  steps: [
    [
      { type: "thinking", content: "Weather needs a lookup." },
      { type: "text", content: "Let me look." },
      { type: "tool_call", name: "get_weather", input: { city: "Paris" } }
    ]
  ]
}

describe("one script answers on every model API", () => {
  it("the same queued script answers chat completions, Responses, Anthropic and Gemini alike", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    const { openai, anthropic, gemini } = clients(handle)
    const answer: LlmScript = { steps: [[{ type: "text", content: "Same answer everywhere." }]] }
    for (let i = 0; i < 4; i++) handle.llm.enqueue(answer)
    const chat = await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "q" }] })
    const responses = await openai.responses.create({ model: "gpt-4o", input: "q" })
    const claude = await anthropic.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 10,
      messages: [{ role: "user", content: "q" }]
    })
    const google = await gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "q" })
    expect([
      chat.choices[0].message.content,
      responses.output_text,
      claude.content[0].type === "text" ? claude.content[0].text : "",
      google.text
    ]).toEqual(Array(4).fill("Same answer everywhere."))
    expect(handle.llm.log.map((entry) => entry.api)).toEqual([
      "openai.chat",
      "openai.responses",
      "anthropic.messages",
      "gemini"
    ])
    expect(handle.llm.log.map((entry) => entry.source)).toEqual(["script", "script", "script", "script"])
  })

  it("a driver feeds a streamed Anthropic, Gemini and Responses answer with the same items", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    const llm = handle.llm
    llm.rule("any", { type: "drive" })
    const { openai, anthropic, gemini } = clients(handle)
    const feed = async () => {
      while (llm.pending.length === 0) await new Promise((resolve) => setImmediate(resolve))
      const id = llm.pending[0].id
      await Effect.runPromise(
        llm.chunk({
          id,
          items: [
            { type: "textDelta", text: "Driven" },
            { type: "textDelta", text: " answer" }
          ]
        })
      )
      await Effect.runPromise(llm.chunk({ id, items: [{ type: "toolCall", name: "lookup", input: { q: 1 } }] }))
      await Effect.runPromise(llm.finish({ id }))
    }
    const [claude] = await Promise.all([
      anthropic.messages
        .stream({ model: "claude-sonnet-4-6", max_tokens: 10, messages: [{ role: "user", content: "q" }] })
        .finalMessage(),
      feed()
    ])
    expect(claude.content).toEqual([
      { type: "text", text: "Driven answer" },
      { type: "tool_use", id: expect.stringMatching(/^toolu_01[0-9A-Za-z]{22}$/), name: "lookup", input: { q: 1 } }
    ])
    expect(claude.stop_reason).toBe("tool_use")
    const [chunks] = await Promise.all([
      (async () => {
        const out = []
        for await (const chunk of await gemini.models.generateContentStream({
          model: "gemini-2.5-flash",
          contents: "q"
        }))
          out.push(chunk)
        return out
      })(),
      feed()
    ])
    expect(chunks.map((chunk) => (chunk.functionCalls === undefined ? (chunk.text ?? "") : "")).join("")).toBe(
      "Driven answer"
    )
    expect(chunks.flatMap((chunk) => chunk.functionCalls ?? []).map((call) => call.args)).toEqual([{ q: 1 }])
    const [events] = await Promise.all([
      (async () => {
        const out = []
        for await (const event of await openai.responses.create({ model: "gpt-4o", input: "q", stream: true }))
          out.push(event)
        return out
      })(),
      feed()
    ])
    const completed = events.at(-1)
    expect(completed?.type).toBe("response.completed")
    expect(completed?.type === "response.completed" && completed.response.output.map((item) => item.type)).toEqual([
      "message",
      "function_call"
    ])
  })
})

describe("refusals and read shapes on every API", () => {
  it("no script and no rule is a 422 naming NoScriptQueued in each API's error body, and no SDK retries it", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    const openai = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 2 })
    const anthropic = new Anthropic({ apiKey: "sk-ant-test", fetch: handle.fetch, maxRetries: 2 })
    const responses = await openai.responses.create({ model: "gpt-4o", input: "q" }).catch((e) => e)
    expect(responses.status).toBe(422)
    expect(responses.error).toMatchObject({ type: "simnet_error", code: "NoScriptQueued" })
    const claude = await anthropic.messages
      .create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "q" }] })
      .catch((e) => e)
    expect(claude.status).toBe(422)
    expect(claude.error.error.type).toBe("invalid_request_error")
    expect(claude.error.error.message).toContain("no LLM script queued")
    const gemini = await handle.fetch(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
      {
        method: "POST",
        body: JSON.stringify({ contents: [{ parts: [{ text: "q" }] }] })
      }
    )
    expect(gemini.status).toBe(422)
    expect((await gemini.json()).error).toMatchObject({ code: 422, status: "FAILED_PRECONDITION" })
    expect(handle.llm.callCount).toBe(3)
  })

  it("a body that is not a request of its API is a 400 in that API's shape, logged as invalid-request", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    const post = (url: string) => handle.fetch(url, { method: "POST", body: JSON.stringify({ nonsense: true }) })
    const claude = await post("https://api.anthropic.com/v1/messages")
    expect(claude.status).toBe(400)
    expect((await claude.json()).error.type).toBe("invalid_request_error")
    const gemini = await post(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    )
    expect((await gemini.json()).error.status).toBe("INVALID_ARGUMENT")
    const responses = await post("https://api.openai.com/v1/responses")
    expect(responses.status).toBe(400)
    expect(handle.llm.log.map((entry) => [entry.api, entry.outcome])).toEqual([
      ["anthropic.messages", "invalid-request"],
      ["gemini", "invalid-request"],
      ["openai.responses", "invalid-request"]
    ])
    const unknown = await post("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens")
    expect(unknown.status).toBe(404)
  })

  it("every streaming API hands over exactly one SSE event per read", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    handle.llm.rule("any", {
      type: "respond",
      steps: [
        [
          { type: "thinking", content: "a b" },
          { type: "text", content: "one two three" },
          { type: "tool_call", name: "t", input: { long: "x".repeat(40) } }
        ]
      ]
    })
    const streams = [
      ["https://api.openai.com/v1/responses", { model: "gpt-4o", input: "q", stream: true }],
      [
        "https://api.anthropic.com/v1/messages",
        { model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: "q" }] }
      ],
      [
        "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse",
        { contents: [{ parts: [{ text: "q" }] }] }
      ]
    ] as const
    for (const [url, body] of streams) {
      const response = await handle.fetch(url, { method: "POST", body: JSON.stringify(body) })
      const reader = response.body!.getReader()
      const reads: Array<string> = []
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        reads.push(new TextDecoder().decode(value))
      }
      expect(reads.length).toBeGreaterThanOrEqual(7)
      for (const read of reads)
        expect(read.replace(/\r\n/g, "\n").split("\n\n")).toEqual([expect.stringContaining("data: "), ""])
    }
  })
})

describe("fidelity: bytes, log and counts", () => {
  it("two networks with the same seed and scripts serve byte-identical answers on every API, dated by the fixed epoch", async () => {
    const run = async () => {
      const handle = await SimulationNetwork.start({ seed: 7, routes: allRoutes() })
      for (let i = 0; i < 6; i++) handle.llm.enqueue(script)
      return rawCalls(handle)
    }
    const first = await run()
    // An hour later by the wall clock: nothing in the bytes may move.
    const now = Date.now()
    const later = vi.spyOn(Date, "now").mockReturnValue(now + 3_600_000)
    const second = await run().finally(() => later.mockRestore())
    expect(second).toEqual(first)
    expect(first[1]).toContain(`"created":${DEFAULT_EPOCH}`)
    expect(first[3]).toContain(`"created_at":${DEFAULT_EPOCH}`)
    const other = await SimulationNetwork.start({ seed: 8, routes: allRoutes() })
    for (let i = 0; i < 6; i++) other.llm.enqueue(script)
    const reseeded = await rawCalls(other)
    expect(reseeded.slice(0, 6)).toEqual(first.slice(0, 6))
    expect(reseeded[6]).not.toEqual(first[6])
  })

  it("the anthropic and gemini families are available to RouteSpec JSON and fixtures", async () => {
    const handle = await SimulationNetwork.start()
    await handle.registerSpec([{ family: "anthropic" }, { family: "gemini", baseUrl: "https://gemini.internal" }])
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "from a fixture" }]] })
    const claude = await clients(handle).anthropic.messages.create({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "q" }]
    })
    expect(claude.content).toEqual([{ type: "text", text: "from a fixture" }])
    const gemini = await handle.fetch("https://gemini.internal/v1beta/models/g:generateContent", {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "q" }] }] })
    })
    expect((await gemini.json()).candidates[0].content.parts).toEqual([{ text: "from a fixture" }])
  })

  it("the epoch is an option: a network dates answers by the epoch it is given", async () => {
    const handle = await SimulationNetwork.start({ epoch: 1_000, routes: Routes.openai() })
    handle.llm.enqueue({ steps: [[{ type: "text", content: "dated" }]] })
    const completion = await clients(handle).openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "q" }]
    })
    expect(completion.created).toBe(1_000)
  })

  it("the model's log is immutable to callers: entries and their bodies are deeply frozen", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.anthropic() })
    handle.llm.enqueue({ steps: [[{ type: "text", content: "ok" }]] })
    await clients(handle).anthropic.messages.create({
      model: "m",
      max_tokens: 5,
      messages: [{ role: "user", content: "original" }]
    })
    const log = handle.llm.log
    const body = log[0].body as { messages: Array<{ content: string }> }
    expect(() => {
      body.messages[0].content = "changed"
    }).toThrow(TypeError)
    expect(() => body.messages.push({ content: "more" })).toThrow(TypeError)
    expect(() => (log as Array<unknown>).pop()).toThrow(TypeError)
    expect((handle.llm.log[0].body as typeof body).messages).toEqual([{ role: "user", content: "original" }])
  })

  it("counts per request key are enumerable, and the map handed out is a copy", async () => {
    const handle = await SimulationNetwork.start({ routes: allRoutes() })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const { openai, anthropic } = clients(handle)
    await openai.responses.create({ model: "gpt-4o", input: "a" })
    await openai.responses.create({ model: "gpt-4o", input: "a", stream: true }).then(async (s) => {
      for await (const _ of s);
    })
    await anthropic.messages.create({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "b" }] })
    const counts = handle.llm.counts
    expect([...counts.values()].sort()).toEqual([1, 2])
    expect(counts.get(handle.llm.log[0].key)).toBe(2)
    ;(counts as Map<string, number>).clear()
    expect(handle.llm.counts.size).toBe(2)
  })
})
