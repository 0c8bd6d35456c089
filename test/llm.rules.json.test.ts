/**
 * Rules of the simulated model from anywhere, not only from code: as JSON in a fixture
 * (`llm: { queue, rules }`), over the control endpoint (`POST/GET/DELETE llm/rules`), and in
 * snapshots; with the matchers a real agent needs (`system`, `api`, `tool`, `{ regex }` on RE2).
 * The judge here is the official clients: a title call and a main call of the same turn, as
 * opencode makes them, each answered by its own rule.
 */
import * as http from "node:http"
import Anthropic from "@anthropic-ai/sdk"
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import OpenAI from "openai"
import { decodeFixture, InvalidLlmInput, Routes, SimulatedProvider, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const RULES = [
  {
    id: "title",
    match: { system: "You are a title generator" },
    behaviour: { type: "respond", steps: [[{ type: "text", content: "Reading notes" }]] }
  },
  {
    id: "main",
    match: { tool: "read" },
    behaviour: {
      type: "respond",
      steps: [
        [{ type: "tool_call", name: "read", input: { path: "notes.txt" } }],
        [{ type: "text", content: "The notes say: buy milk." }]
      ]
    }
  }
]

const fixture = { routes: [{ family: "openai" }, { family: "anthropic" }], llm: { queue: [], rules: RULES } }

const readTool = {
  type: "function" as const,
  function: { name: "read", parameters: { type: "object", properties: { path: { type: "string" } } } }
}

describe("model rules as JSON", () => {
  it("a fixture's rules answer a title call and a main call of one turn, through the openai SDK", async () => {
    const decoded = await Effect.runPromise(decodeFixture(fixture))
    expect(decoded.llmRules).toEqual(RULES)
    const network = await SimulationNetwork.start({
      routes: decoded.routes,
      llm: decoded.llm,
      llmRules: decoded.llmRules
    })
    const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const user = { role: "user" as const, content: "read notes.txt" }
    // The main call and the hidden title call, in either order: each takes its own rule.
    const [title, first] = await Promise.all([
      client.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "system", content: "You are a title generator. Reply with a title." }, user]
      }),
      client.chat.completions.create({ model: "gpt-4o", messages: [user], tools: [readTool] })
    ])
    expect(title.choices[0].message.content).toBe("Reading notes")
    const call = first.choices[0].message.tool_calls?.[0]
    expect(call?.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : undefined).toEqual([
      "read",
      { path: "notes.txt" }
    ])
    const second = await client.chat.completions.create({
      model: "gpt-4o",
      tools: [readTool],
      messages: [user, first.choices[0].message, { role: "tool", tool_call_id: call!.id, content: "buy milk" }]
    })
    expect(second.choices[0].message.content).toBe("The notes say: buy milk.")
    expect(network.llm.log.map((entry) => [entry.source, entry.rule])).toEqual([
      ["rule", "title"],
      ["rule", "main"],
      ["rule", "main"]
    ])
    await network.close()
  })

  it("system reads every API's instructions, api names the API, and a { regex } runs on RE2", async () => {
    const network = await SimulationNetwork.start({ routes: [...Routes.openai(), ...Routes.anthropic()] })
    network.llm.addRules([
      {
        match: { api: "anthropic.messages", system: { regex: "^terse" } },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "anthropic, terse" }]] }
      },
      {
        match: { api: "openai.responses", system: "poet" },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "responses, poet" }]] }
      },
      {
        match: { lastUserMessage: { regex: "^weather in (paris|rome)$" } },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "sunny" }]] }
      }
    ])
    const anthropic = new Anthropic({ apiKey: "sk-ant-test", fetch: network.fetch, maxRetries: 0 })
    const message = await anthropic.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      system: "terse answers only",
      messages: [{ role: "user", content: "hi" }]
    })
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "anthropic, terse" })])
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const response = await openai.responses.create({ model: "gpt-4o", instructions: "You are a poet.", input: "hi" })
    expect(response.output_text).toBe("responses, poet")
    const chat = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "weather in rome" }]
    })
    expect(chat.choices[0].message.content).toBe("sunny")
    // The same system text through another API is not taken by the Anthropic rule.
    await expect(
      openai.chat.completions.create({
        model: "gpt-4o",
        messages: [
          { role: "system", content: "terse answers only" },
          { role: "user", content: "x" }
        ]
      })
    ).rejects.toThrow(/no LLM rule matches this call/)
    await network.close()
  })

  it("bad rules are refused, all or nothing, naming the field; nothing is added", async () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" }, { id: "kept" })
    const refusal = (specs: unknown) => {
      try {
        llm.addRules(specs)
      } catch (error) {
        return error
      }
      throw new Error("accepted")
    }
    expect(
      refusal([
        { match: "any", behaviour: { type: "drive" } },
        { match: { system: { regex: "(a)\\1" } }, behaviour: { type: "drive" } }
      ])
    ).toMatchObject({ _tag: "InvalidLlmInput", input: "rule", path: "[1].match.system.regex" })
    expect(refusal([{ match: "any", behaviour: { type: "respnd" } }])).toMatchObject({ path: "[0].behaviour" })
    expect(refusal({ id: "kept", match: "any", behaviour: { type: "drive" } })).toMatchObject({ path: "id" })
    expect(
      refusal([
        { id: "a", match: "any", behaviour: { type: "drive" } },
        { id: "a", match: "any", behaviour: { type: "drive" } }
      ])
    ).toMatchObject({ path: "[1].id" })
    expect(refusal({ match: { sytem: "x" }, behaviour: { type: "drive" } })).toBeInstanceOf(InvalidLlmInput)
    expect(llm.rules.map((rule) => rule.id)).toEqual(["kept"])
    const error = await Effect.runPromise(
      Effect.flip(
        decodeFixture({ llm: { rules: [{ match: { tool: { regex: "(?=x)" } }, behaviour: { type: "drive" } }] } })
      )
    )
    expect(error).toMatchObject({ _tag: "InvalidLlmInput", path: "llm.rules[0].match.tool.regex" })
  })

  it("the control endpoint adds, lists and removes rules; a snapshot carries them and a restore brings them back", async () => {
    const program = Effect.scoped(
      Effect.gen(function* () {
        const app = HttpRouter.serve(SimulationNetwork.layerControl()).pipe(
          Layer.provideMerge(SimulationNetwork.layer({ routes: Routes.openai() })),
          Layer.provideMerge(NodeHttpServer.layer(http.createServer, { port: 0, host: "127.0.0.1" }))
        )
        const context = yield* Layer.build(app)
        const server = yield* Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))
        const network = yield* Effect.provide(Effect.service(SimulationNetwork), Layer.succeedContext(context))
        const base = `${HttpServer.formatAddress(server.address)}/experimental/simulation`
        return yield* Effect.promise(async () => {
          const call = async (method: string, path: string, body?: unknown) => {
            const response = await fetch(`${base}/${path}`, {
              method,
              headers: body === undefined ? {} : { "content-type": "application/json" },
              body: body === undefined ? undefined : JSON.stringify(body)
            })
            return { status: response.status, json: (await response.json()) as any }
          }
          const bad = await call("POST", "llm/rules", [RULES[0], { match: "any", behaviour: { type: "nope" } }])
          const added = await call("POST", "llm/rules", RULES)
          const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
          await client.chat.completions.create({
            model: "gpt-4o",
            messages: [
              { role: "system", content: "You are a title generator." },
              { role: "user", content: "x" }
            ]
          })
          const listed = await call("GET", "llm/rules")
          const snapshot = await call("GET", "snapshot")
          const removed = await call("DELETE", "llm/rules/title")
          const missing = await call("DELETE", "llm/rules/title")
          const afterRemove = (await call("GET", "llm/rules")).json.rules.map((rule: { id: string }) => rule.id)
          const restored = await call("POST", "snapshot", snapshot.json)
          const afterRestore = (await call("GET", "llm/rules")).json.rules.map((rule: { id: string; uses: number }) => [
            rule.id,
            rule.uses
          ])
          return { bad, added, listed, removed, missing, afterRemove, restored: restored.status, afterRestore }
        })
      })
    )
    const seen = await Effect.runPromise(program)
    expect(seen.bad).toMatchObject({ status: 400, json: { error: { tag: "InvalidLlmInput", path: "[1].behaviour" } } })
    expect(seen.added).toEqual({ status: 201, json: { ids: ["title", "main"] } })
    expect(seen.listed.json.rules).toEqual([
      { id: "title", match: RULES[0].match, behaviour: RULES[0].behaviour, uses: 1, failures: 0 },
      { id: "main", match: RULES[1].match, behaviour: RULES[1].behaviour, uses: 0, failures: 0 }
    ])
    expect(seen.removed).toEqual({ status: 200, json: { removed: "title" } })
    expect(seen.missing).toMatchObject({ status: 404, json: { error: { tag: "UnknownRule", path: "id" } } })
    expect(seen.afterRemove).toEqual(["main"])
    expect(seen.restored).toBe(200)
    expect(seen.afterRestore).toEqual([
      ["title", 0],
      ["main", 0]
    ])
  }, 30_000)
})

describe("model rules in a trace", () => {
  it("replayTrace replays rule changes as control steps and folds them into the snapshot", async () => {
    const { replayTrace } = await import("simnet")
    const start = {
      seed: 0,
      routes: [],
      llm: {
        callCount: 0,
        scripts: { queued: [], consumed: 0 },
        rules: [{ id: "kept", match: "any", behaviour: { type: "drive" } }]
      }
    }
    const lines = [
      { type: "start", seed: 0, state: start },
      { type: "control.rules", specs: RULES, ids: ["title", "main"] },
      { type: "control.unrule", id: "kept" }
    ]
    const replay = replayTrace(lines.map((line) => JSON.stringify(line)).join("\n"))
    expect(replay.steps).toEqual([
      { kind: "control", method: "POST", path: "llm/rules", body: RULES },
      { kind: "control", method: "DELETE", path: "llm/rules/kept" }
    ])
    expect(
      (replay.snapshot as { llm: { rules: ReadonlyArray<{ id: string }> } }).llm.rules.map((rule) => rule.id)
    ).toEqual(["title", "main"])
  })
})

describe("an unmatched model call names the nearest rules", () => {
  it("in the error and the 422 the SDK reads: each near rule and why it missed, the closest first", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    network.llm.addRules([
      {
        id: "greet",
        match: { lastUserMessage: "hello" },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "hi there" }]] }
      },
      {
        id: "weather",
        match: { lastUserMessage: "weather?", tool: "forecast" },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "sunny" }]] }
      },
      {
        id: "once",
        match: { lastUserMessage: "hi" },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "first" }]] },
        times: 1
      }
    ])
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    expect(
      (await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }))
        .choices[0]!.message.content
    ).toBe("first")
    const refused = await openai.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(OpenAI.UnprocessableEntityError)
    const message = String((refused as Error).message)
    expect(message).toContain('nearest rule "greet": lastUserMessage expects "hello", got "hi"')
    expect(message).toContain('nearest rule "once": used up (times 1)')
    expect(message).toContain(
      'nearest rule "weather": lastUserMessage expects "weather?", got "hi"; tool expects "forecast", offered none'
    )
    // The closest first: one field missed before two.
    expect(message.indexOf('"greet"')).toBeLessThan(message.indexOf('"weather"'))
  })
})
