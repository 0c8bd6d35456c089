import { type Content, GoogleGenAI, type FunctionDeclaration } from "@google/genai"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Routes, Schemas, SimulationNetwork } from "simnet"

const { GenerateContentResponse } = Schemas.Gemini
const strict = { onExcessProperty: "error" } as const

const setup = async (retries?: number) => {
  const handle = await SimulationNetwork.start({ routes: Routes.gemini() })
  const ai = new GoogleGenAI({
    apiKey: "gemini-test",
    httpOptions: {
      fetch: handle.fetch,
      ...(retries === undefined
        ? {}
        : { retryOptions: { attempts: retries + 1, initialDelay: 0.001, maxDelay: 0.001, jitter: 0 } })
    }
  })
  return { handle, llm: handle.llm, ai }
}

const weather: FunctionDeclaration = {
  name: "get_weather",
  parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
}

describe("@google/genai against the simulated model", () => {
  it("generateContent answers text, thoughts and usageMetadata that decode under the wire schema", async () => {
    const { llm, ai, handle } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "thinking", content: "Greet." },
          { type: "text", content: "Hello from Gemini." }
        ]
      ],
      usage: { inputTokens: 6, outputTokens: 4, totalTokens: 10 }
    })
    const response = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "Say hello",
      config: { systemInstruction: "Be brief" }
    })
    expect(response.text).toBe("Hello from Gemini.")
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 6, candidatesTokenCount: 4, totalTokenCount: 10 })
    expect(response.candidates?.[0].finishReason).toBe("STOP")
    expect(llm.log[0]).toMatchObject({
      api: "gemini",
      model: "gemini-2.5-flash",
      lastUserMessage: "Say hello",
      stream: false
    })
    llm.enqueue({ steps: [[{ type: "tool_call", name: "get_weather", input: { city: "Rome" } }]] })
    const raw = await handle.fetch(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
      {
        method: "POST",
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "again" }] }] })
      }
    )
    expect(raw.status).toBe(200)
    const decoded = Schema.decodeUnknownSync(GenerateContentResponse)(await raw.json(), strict)
    expect(decoded.candidates[0].content.parts).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Rome" } } }
    ])
  })

  it("generateContentStream streams one chunk per fragment and a functionCall part, then finishReason and usage", async () => {
    const { llm, ai } = await setup()
    llm.enqueue({
      steps: [
        [
          { type: "text", content: "Checking the weather." },
          { type: "tool_call", name: "get_weather", input: { city: "Rome" } }
        ]
      ]
    })
    const stream = await ai.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: "Weather in Rome?",
      config: { tools: [{ functionDeclarations: [weather] }] }
    })
    const chunks = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks.map((chunk) => (chunk.functionCalls === undefined ? (chunk.text ?? "") : "")).join("")).toBe(
      "Checking the weather."
    )
    const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? [])
    expect(calls.map((call) => [call.name, call.args])).toEqual([["get_weather", { city: "Rome" }]])
    const last = chunks.at(-1)!
    expect(last.candidates?.[0].finishReason).toBe("STOP")
    expect(last.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0)
    expect(llm.log[0]).toMatchObject({ stream: true, url: expect.stringContaining(":streamGenerateContent?alt=sse") })
  })

  it("runs a tool loop: step N answers after N user turns of functionResponse parts", async () => {
    const { llm, ai } = await setup()
    llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "get_weather", input: { city: "Rome" } }],
        [{ type: "text", content: "Warm in Rome." }]
      ]
    })
    const contents: Array<Content> = [{ role: "user", parts: [{ text: "Weather in Rome?" }] }]
    let text: string | undefined
    for (let round = 0; round < 4; round++) {
      const response = await ai.models.generateContent({
        model: "gemini-2.5-flash",
        contents,
        config: { tools: [{ functionDeclarations: [weather] }] }
      })
      const calls = response.functionCalls ?? []
      if (calls.length === 0) {
        text = response.text
        break
      }
      contents.push(response.candidates![0].content!)
      contents.push({
        role: "user",
        parts: calls.map((call) => ({ functionResponse: { name: call.name!, response: { sky: "warm" } } }))
      })
    }
    expect(text).toBe("Warm in Rome.")
    expect(llm.log.map((entry) => [entry.toolResultRounds, entry.step])).toEqual([
      [0, 0],
      [1, 1]
    ])
  })

  it("retries a 429 RESOURCE_EXHAUSTED when asked to, and every attempt is counted", async () => {
    const { llm, ai } = await setup(2)
    llm.rule("any", {
      type: "failThenRespond",
      times: 2,
      failure: { type: "rateLimit", retryAfterMs: 0 },
      then: { type: "respond", steps: [[{ type: "text", content: "third" }]] }
    })
    const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" })
    expect(response.text).toBe("third")
    expect(llm.callCount).toBe(3)
    const plain = await setup()
    plain.llm.rule("any", { type: "rateLimit", message: "Quota exceeded" })
    const error = await plain.ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }).catch((e) => e)
    expect(error.status).toBe(429)
    expect(JSON.parse(error.message)).toEqual({
      error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED" }
    })
    expect(plain.llm.callCount).toBe(1)
  })

  it("embedContent: deterministic normalised vectors of the requested size", async () => {
    const { ai } = await setup()
    const first = await ai.models.embedContent({
      model: "gemini-embedding-001",
      contents: ["alpha beta", "alpha beta"],
      config: { outputDimensionality: 64 }
    })
    const vectors = first.embeddings!.map((e) => e.values!)
    expect(vectors.map((v) => v.length)).toEqual([64, 64])
    expect(vectors[0]).toEqual(vectors[1])
    expect(Math.hypot(...vectors[0])).toBeCloseTo(1, 5)
  })
})

describe("@google/genai on the stable API version", () => {
  it("serves /v1 beside /v1beta: generateContent, a stream and the model list, as @google/genai 3.x calls them", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.gemini() })
    const ai = new GoogleGenAI({ apiKey: "gemini-test", httpOptions: { fetch: handle.fetch, apiVersion: "v1" } })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "from v1" }]] })
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" })
    expect(answer.text).toBe("from v1")
    let streamed = ""
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "hi" }))
      streamed += chunk.text ?? ""
    expect(streamed).toBe("from v1")
    const listed: Array<string> = []
    for await (const model of await ai.models.list()) listed.push(model.name ?? "")
    expect(listed.length).toBeGreaterThan(0)
    expect(handle.log().map((record) => new URL(record.url).pathname.split("/")[1])).toEqual(["v1", "v1", "v1"])
    expect(handle.log().map((record) => record.route?.id)).toEqual([
      "gemini.v1.models.call",
      "gemini.v1.models.call",
      "gemini.v1.models"
    ])
  })
})
