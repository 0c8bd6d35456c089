import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { LlmBehaviour, LlmMatch, LlmRuleOptions, LlmScript } from "simnet"
import { InvalidLlmInput, Routes, SimulatedProvider, SimulationNetwork } from "simnet"

/** The error `f` throws, which must be an `InvalidLlmInput`. */
const refusal = (f: () => unknown): InvalidLlmInput => {
  try {
    f()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidLlmInput)
    return error as InvalidLlmInput
  }
  throw new Error("expected an InvalidLlmInput to be thrown")
}

/** Input a type-checked caller could not write, as untyped JavaScript or JSON would hand it over. */
const untyped = <A>(value: unknown): A => value as A

const text = (content: string) => ({ steps: [[{ type: "text" as const, content }]] })

const ask = (content: string) =>
  Effect.flatMap(
    HttpClient.execute(
      HttpClientRequest.post("https://api.openai.com/v1/chat/completions").pipe(
        HttpClientRequest.bodyJsonUnsafe({ model: "gpt-4o", messages: [{ role: "user", content }] })
      )
    ),
    (response) => Effect.map(response.json, (body) => ({ status: response.status, body: body as any }))
  )

describe("enqueue decodes its script and refuses bad input with InvalidLlmInput, leaving the queue as it was", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["steps that are not an array", { steps: "nope" }, "steps", "Expected array"],
    [
      "a tool call without input",
      { steps: [[{ type: "tool_call", name: "f", input: undefined }]] },
      "steps[0][0].input",
      "JSON"
    ],
    [
      "a tool call whose input is not JSON",
      { steps: [[{ type: "tool_call", name: "f", input: { at: new Date(0) } }]] },
      "steps[0][0].input",
      "JSON"
    ],
    [
      "an http_error status above 599",
      {
        steps: [
          [
            { type: "text", content: "x" },
            { type: "http_error", status: 600, message: "m" }
          ]
        ]
      },
      "steps[0][1].status",
      "between 400 and 599"
    ],
    [
      "an http_error status below 400",
      { steps: [[{ type: "http_error", status: 200, message: "m" }]] },
      "steps[0][0].status",
      "between 400 and 599"
    ],
    [
      "a negative retryAfterMs",
      { steps: [[{ type: "http_error", status: 429, message: "m", retryAfterMs: -1 }]] },
      "steps[0][0].retryAfterMs",
      "greater than or equal to 0"
    ],
    [
      "an unknown action type",
      { steps: [[{ type: "text", content: "x" }], [{ type: "speak", content: "x" }]] },
      "steps[1][0]",
      "an action of type"
    ],
    ["a step with no action", { steps: [[{ type: "text", content: "x" }], []] }, "steps[1]", "at least one action"],
    ["not an object", 42, "$", "Expected"]
  ]
  for (const [name, script, path, message] of cases) {
    it(`${name}: refused at ${path}`, () => {
      const llm = SimulatedProvider.make()
      llm.enqueue(text("kept"))
      const error = refusal(() => llm.enqueue(untyped<LlmScript>(script)))
      expect(error.path).toBe(path)
      expect(error.message).toContain(`invalid LLM script at ${path}`)
      expect(error.message).toContain(message)
      expect(llm.queued).toBe(1)
    })
  }

  it.effect("a refused script is never answered: the queued one still serves the next call", () => {
    const llm = SimulatedProvider.make()
    llm.enqueue(text("kept"))
    refusal(() => llm.enqueue(untyped<LlmScript>({ steps: "nope" })))
    return Effect.gen(function* () {
      const first = yield* ask("hi")
      expect(first.body.choices[0].message.content).toBe("kept")
      const second = yield* ask("hi")
      expect([second.status, second.body.error.code]).toEqual([422, "NoScriptQueued"])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({ routes: Routes.openai() }).pipe(Layer.provide(Layer.succeed(SimulatedProvider, llm)))
      )
    )
  })
})

describe("rule checks matcher, behaviour and options and refuses bad input with InvalidLlmInput, leaving the rules as they were", () => {
  const respond: LlmBehaviour = { type: "respond", steps: [[{ type: "text", content: "ok" }]] }
  const cases: ReadonlyArray<readonly [string, unknown, unknown, unknown, string, string]> = [
    ["times 0", "any", respond, { times: 0 }, "options.times", "greater than or equal to 1"],
    ["fractional times", "any", respond, { times: 1.5 }, "options.times", "integer"],
    ["a latency that is no Duration", "any", respond, { latency: "soon" }, "options.latency", "non-negative Duration"],
    ["a negative latency", "any", respond, { latency: -5 }, "options.latency", "non-negative Duration"],
    ["an empty id", "any", respond, { id: "" }, "options.id", "Expected"],
    [
      "a serverError status outside 5xx",
      "any",
      { type: "serverError", status: 404 },
      {},
      "behaviour.status",
      "between 500 and 599"
    ],
    [
      "a negative rateLimit retryAfterMs",
      "any",
      { type: "rateLimit", retryAfterMs: -1 },
      {},
      "behaviour.retryAfterMs",
      "greater than or equal to 0"
    ],
    [
      "failThenRespond times 0",
      "any",
      { type: "failThenRespond", times: 0, failure: { type: "rateLimit" }, then: respond },
      {},
      "behaviour.times",
      "greater than or equal to 1"
    ],
    [
      "failThenRespond with an unknown failure",
      "any",
      { type: "failThenRespond", times: 1, failure: { type: "oops" }, then: respond },
      {},
      "behaviour.failure",
      "a failure of type"
    ],
    ["an unknown behaviour type", "any", { type: "echo" }, {}, "behaviour", "a behaviour of type"],
    [
      "a respond step with a bad http_error",
      "any",
      { type: "respond", steps: [[{ type: "http_error", status: 99, message: "m" }]] },
      {},
      "behaviour.steps[0][0].status",
      "between 400 and 599"
    ],
    [
      "a raw status Response cannot carry",
      "any",
      { type: "raw", body: "x", status: 99 },
      {},
      "behaviour.status",
      "between 200 and 599"
    ],
    ["an unknown fault", "any", { type: "fault", fault: "explode" }, {}, "behaviour.fault", "Expected"],
    ['a matcher that is neither "any" nor an object', "all", respond, {}, "match", '"any" or a matcher object'],
    ["a matcher with a misspelt field", { modle: "gpt-4o" }, respond, {}, "match.modle", "did you mean model?"],
    ["a matcher whose model is a number", { model: 4 }, respond, {}, "match.model", "Expected"]
  ]
  for (const [name, match, behaviour, options, path, message] of cases) {
    it(`${name}: refused at ${path}`, () => {
      const llm = SimulatedProvider.make()
      llm.rule("any", respond)
      const error = refusal(() =>
        llm.rule(untyped<LlmMatch>(match), untyped<LlmBehaviour>(behaviour), untyped<LlmRuleOptions>(options))
      )
      expect(error.path).toBe(path)
      expect(error.message).toContain(`invalid LLM rule at ${path}`)
      expect(error.message).toContain(message)
      expect(llm.rules.map((rule) => rule.id)).toEqual(["rule_1"])
      expect(llm.rule("any", respond)).toBe("rule_2")
    })
  }

  it("a rule id already taken is refused, so removeRule removes exactly one rule", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", respond, { id: "mine" })
    const error = refusal(() => llm.rule({ model: "gpt-4o" }, respond, { id: "mine" }))
    expect(error.path).toBe("options.id")
    expect(error.message).toContain("already registered")
    expect(llm.rules.map((rule) => rule.id)).toEqual(["mine"])
    expect(llm.rule("any", respond, { id: "rule_1" })).toBe("rule_1")
    expect(llm.rule("any", respond)).toBe("rule_2")
    expect(llm.removeRule("mine")).toBe(true)
    expect(llm.rules.map((rule) => rule.id)).toEqual(["rule_1", "rule_2"])
  })

  it("valid options are kept: latency as a Duration, times, a predicate matcher", () => {
    const llm = SimulatedProvider.make()
    llm.rule({ where: (request) => request.stream, model: /gpt/ }, respond, { latency: "2 seconds", times: 3 })
    expect(llm.rules[0]).toMatchObject({ id: "rule_1", times: 3 })
    expect(Duration.toMillis(llm.rules[0].latency!)).toBe(2000)
  })
})

describe("driver fail checks its status", () => {
  it.effect("a status outside 400–599 fails with InvalidLlmInput at status and the invocation stays pending", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" })
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(ask("a"))
      for (let i = 0; i < 100 && llm.pending.length === 0; i++) yield* Effect.yieldNow
      for (const status of [200, 600, 503.5]) {
        const error = yield* Effect.flip(llm.fail({ id: "inv_1", status }))
        expect(error).toBeInstanceOf(InvalidLlmInput)
        expect((error as InvalidLlmInput).path).toBe("status")
      }
      expect(llm.pending.map((invocation) => invocation.id)).toEqual(["inv_1"])
      yield* llm.fail({ id: "inv_1", status: 503 })
      expect((yield* Fiber.join(fiber)).status).toBe(503)
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({ routes: Routes.openai() }).pipe(Layer.provide(Layer.succeed(SimulatedProvider, llm)))
      )
    )
  })
})
