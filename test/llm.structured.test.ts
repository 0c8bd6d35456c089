/**
 * Structured-output calls (issue 33): a call that asks for JSON, following a JSON Schema or not,
 * in each API's own way — Chat Completions' `response_format`, the Responses API's `text.format`,
 * Anthropic's `output_config.format` (and `output_format`), Gemini's `generationConfig.responseJsonSchema` (upper-case type
 * names included, as Gemini CLI's hidden router call sends them) — is told by the rule matcher
 * `structured`, and the `json` action answers it: `value` as given, or a value generated from the
 * requested schema that Ajv (a validator independent of simnet) accepts, the same on every run.
 */
import { Ajv } from "ajv"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { Routes, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const SCHEMA = {
  type: "object",
  properties: {
    complexity_reasoning: { type: "string" },
    complexity_score: { type: "integer", minimum: 1, maximum: 100 },
    tags: { type: "array", items: { type: "string" } }
  },
  required: ["complexity_reasoning", "complexity_score"],
  additionalProperties: false
}
const GEMINI_SCHEMA = {
  type: "OBJECT",
  properties: { complexity_reasoning: { type: "STRING" }, complexity_score: { type: "INTEGER" } },
  required: ["complexity_reasoning", "complexity_score"]
}
const validate = new Ajv({ strict: false }).compile(SCHEMA)

const start = () =>
  SimulationNetwork.start({
    routes: [...Routes.openai(), ...Routes.anthropic(), ...Routes.gemini()],
    llmRules: [
      {
        id: "given",
        match: { structured: true, lastUserMessage: "given" },
        behaviour: {
          type: "respond",
          steps: [[{ type: "json", value: { complexity_reasoning: "simple", complexity_score: 10 } }]]
        }
      },
      { id: "router", match: { structured: true }, behaviour: { type: "respond", steps: [[{ type: "json" }]] } },
      {
        id: "chat",
        match: { structured: false },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "free text" }]] }
      }
    ]
  })

/** The text each API answers for a call asking `schema` (structured) or not, with user message `message`. */
const ask = {
  "openai.chat": async (network: Awaited<ReturnType<typeof start>>, message: string, schema: unknown) => {
    const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const answer = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: message }],
      ...(schema === undefined
        ? {}
        : {
            response_format: {
              type: "json_schema",
              json_schema: { name: "route", schema: schema as Record<string, unknown> }
            }
          })
    })
    return answer.choices[0]!.message.content ?? ""
  },
  "openai.responses": async (network: Awaited<ReturnType<typeof start>>, message: string, schema: unknown) => {
    const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const answer = await client.responses.create({
      model: "gpt-4o",
      input: message,
      ...(schema === undefined
        ? {}
        : { text: { format: { type: "json_schema", name: "route", schema: schema as Record<string, unknown> } } })
    })
    return answer.output_text
  },
  "anthropic.messages": async (network: Awaited<ReturnType<typeof start>>, message: string, schema: unknown) => {
    const client = new Anthropic({ apiKey: "sk-ant-test", fetch: network.fetch, maxRetries: 0 })
    const answer = await client.messages.create({
      model: "claude-opus-5-5",
      max_tokens: 256,
      messages: [{ role: "user", content: message }],
      ...(schema === undefined
        ? {}
        : { output_config: { format: { type: "json_schema", schema: schema as Record<string, unknown> } } })
    })
    return answer.content.map((block) => (block.type === "text" ? block.text : "")).join("")
  },
  gemini: async (network: Awaited<ReturnType<typeof start>>, message: string, schema: unknown) => {
    const client = new GoogleGenAI({ apiKey: "gm-test", httpOptions: { fetch: network.fetch } })
    const answer = await client.models.generateContent({
      model: "gemini-3.5-flash-lite",
      contents: message,
      ...(schema === undefined ? {} : { config: { responseMimeType: "application/json", responseJsonSchema: schema } })
    })
    return answer.text ?? ""
  }
}

describe.each(Object.entries(ask))("%s: structured output", (_api, call) => {
  it("a call asking for a schema is told by structured: true and answered with a value of that schema, the same on every run; a free call is not", async () => {
    const [one, two] = [await start(), await start()]
    const generated = await call(one, "route this", SCHEMA)
    expect(validate(JSON.parse(generated)), JSON.stringify(validate.errors)).toBe(true)
    expect(await call(two, "route this", SCHEMA)).toBe(generated)
    expect(JSON.parse(await call(one, "given", SCHEMA))).toEqual({
      complexity_reasoning: "simple",
      complexity_score: 10
    })
    expect(await call(one, "hello", undefined)).toBe("free text")
    await Promise.all([one.close(), two.close()])
  })
})

describe("structured output, Gemini's own spelling and the near miss", () => {
  it("upper-case Gemini type names generate as their JSON Schema names; a rule's structured miss is named", async () => {
    const network = await start()
    const value = JSON.parse(await ask.gemini(network, "route this", GEMINI_SCHEMA)) as Record<string, unknown>
    expect(typeof value.complexity_reasoning).toBe("string")
    expect(Number.isInteger(value.complexity_score)).toBe(true)
    const strict = await SimulationNetwork.start({
      routes: Routes.openai(),
      llmRules: [
        { id: "only-json", match: { structured: true }, behaviour: { type: "respond", steps: [[{ type: "json" }]] } }
      ]
    })
    const client = new OpenAI({ apiKey: "sk-test", fetch: strict.fetch, maxRetries: 0 })
    const miss = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((error: Error) => error)
    expect((miss as Error).message).toContain(`nearest rule "only-json": structured expects true, got false`)
    // A given value that does not fit the requested schema is refused, naming where.
    const misfit = await SimulationNetwork.start({
      routes: Routes.openai(),
      llmRules: [
        {
          id: "bad",
          match: { structured: true },
          behaviour: {
            type: "respond",
            steps: [[{ type: "json", value: { complexity_reasoning: "x", complexity_score: "high" } }]]
          }
        }
      ]
    })
    const misfitClient = new OpenAI({ apiKey: "sk-test", fetch: misfit.fetch, maxRetries: 0 })
    const refused = await misfitClient.chat.completions
      .create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        response_format: { type: "json_schema", json_schema: { name: "route", schema: SCHEMA } }
      })
      .then(
        (a) => a.choices[0]!.message.content,
        (error: Error) => error.message
      )
    expect(refused).toMatch(/the json action's value does not fit the schema this call asks for, at .*complexity_score/)
    await misfit.close()
    const jsonMode = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      response_format: { type: "json_object" }
    })
    expect(jsonMode.choices[0]!.message.content).toBe("{}")
    await Promise.all([network.close(), strict.close()])
  })
})

describe("scripted text for a structured call", () => {
  it("is sent as scripted, and flagged in the model log (and the inspector's view) when it is not JSON or does not fit the schema, naming the path", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    network.llm.enqueue({ steps: [[{ type: "text", content: "sure, here you go" }]] })
    network.llm.enqueue({
      steps: [[{ type: "text", content: JSON.stringify({ complexity_reasoning: "x", complexity_score: "high" }) }]]
    })
    network.llm.enqueue({
      steps: [[{ type: "text", content: JSON.stringify({ complexity_reasoning: "x", complexity_score: 3 }) }]]
    })
    network.llm.enqueue({ steps: [[{ type: "text", content: "not asked for JSON" }]] })
    const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const format = { type: "json_schema" as const, json_schema: { name: "route", schema: SCHEMA } }
    expect(
      (
        await client.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content: "a" }],
          response_format: format
        })
      ).choices[0]!.message.content
    ).toBe("sure, here you go")
    await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "b" }],
      response_format: format
    })
    await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "c" }],
      response_format: format
    })
    await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "d" }] })
    const flags = network.llm.log.map((entry) => entry.structuredMismatch)
    expect(flags[0]).toBe("the scripted text is not JSON, and the call asks for JSON")
    expect(flags[1]).toMatch(/^the scripted text does not fit the schema the call asks for, at .*complexity_score/)
    expect(flags.slice(2)).toEqual([undefined, undefined])
    await network.close()
  })
})
