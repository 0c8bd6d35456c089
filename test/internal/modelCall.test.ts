/**
 * A model call has one path (issue 55): `callModel` reads the body, refuses, decides and renders
 * at a given time. A route's answer (`modelAnswerer`) calls it at the engine's clock and has the
 * answer at once where nothing waits — a bad body and a refusal included; the Effect path
 * (`modelResponder`, a WebSocket turn's) calls it at the `Clock`'s time. The same request gets the
 * same bytes either way, logged at the time each path was given.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type Answer, type Settled, toEffect, toResponse } from "../../src/registry/answer.ts"
import { makeSimRequest } from "../../src/registry/request.ts"
import type { RespondContext } from "../../src/registry/route.ts"
import { SimulatedProvider, type SimulatedProviderApi } from "../../src/models/provider/SimulatedProvider.ts"
import { chatWire } from "../../src/models/openai/openai.ts"
import { modelAnswerer, modelResponder } from "../../src/models/wire/call.ts"

const URL_ = "https://api.openai.com/v1/chat/completions"
const ask = (content: string, extra: Record<string, unknown> = {}) =>
  makeSimRequest({
    method: "POST",
    url: URL_,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content }], ...extra })
  })
const notACall = () =>
  makeSimRequest({
    method: "POST",
    url: URL_,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o", messages: "hello" })
  })

/** The context a network's engine gives a model route: its provider, and its clock when `now` is given. */
const contextOf = (llm: SimulatedProviderApi, now?: number): RespondContext => ({
  identity: "openai.chat",
  seed: 0,
  occurrence: 0,
  runSeed: 0,
  services: Context.make(SimulatedProvider, llm) as Context.Context<never>,
  run: (effect) => Effect.runPromise(effect as Effect.Effect<never>),
  now: now === undefined ? undefined : () => now
})

/** A provider with one answer queued; a refusal after it (the queue is empty). */
const scripted = () => {
  const llm = SimulatedProvider.make()
  llm.enqueue({ steps: [[{ type: "text", content: "Hello from the one path." }]] })
  return llm
}

/** What a client reads of an answer had now: status, headers and body. */
const read = async (answer: Settled) => {
  const response = toResponse(answer)
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
}

const settledOf = (answer: Answer): Settled => {
  expect(answer._tag).toMatch(/^(Whole|Streamed)$/)
  return answer as Settled
}

describe("one path for a model call", () => {
  it("a route's answer is had at once for a call, a body that is no call and a refusal, each logged at the engine's time", async () => {
    const llm = scripted()
    const answer = modelAnswerer(chatWire)
    const context = contextOf(llm, 1_000)
    const replied = await read(settledOf(answer(ask("hi"), context)))
    expect(replied.status).toBe(200)
    expect(JSON.parse(replied.body)).toMatchObject({ choices: [{ message: { content: "Hello from the one path." } }] })
    // A body that is not a call of the API was once answered through a fiber; now it is at once too.
    const invalid = await read(settledOf(answer(notACall(), context)))
    expect(invalid.status).toBe(400)
    expect(invalid.headers["x-request-id"]).toBe("req_sim_2")
    const refused = await read(settledOf(answer(ask("again", { stream: true }), context)))
    expect(refused.status).toBe(422)
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "NoScriptQueued" } })
    expect(llm.log.map((entry) => [entry.outcome, entry.at])).toEqual([
      ["answer", 1_000],
      ["invalid-request", 1_000],
      ["refused", 1_000]
    ])
  })

  it("what waits (a rule's latency) is the Effect of the answer, and a context with no engine's clock goes through the Clock", async () => {
    const llm = SimulatedProvider.make()
    llm.rule(
      { lastUserMessage: "slow" },
      { type: "respond", steps: [[{ type: "text", content: "late" }]] },
      { latency: "1 second" }
    )
    expect(modelAnswerer(chatWire)(ask("slow"), contextOf(llm, 1_000))._tag).toBe("Pending")
    expect(modelAnswerer(chatWire)(ask("hi"), contextOf(scripted()))._tag).toBe("Pending")
    const none = { ...contextOf(llm, 1_000), services: Context.empty() as Context.Context<never> }
    const missing = await Effect.runPromise(Effect.flip(toEffect(modelAnswerer(chatWire)(ask("hi"), none))))
    expect(missing).toMatchObject({ _tag: "RouteFailed", reason: "service" })
  })

  it.effect(
    "the Effect path is the same call at the Clock's time: the same bytes as the route's answer, logged at that time",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(5_000)
        const [viaAnswer, viaEffect] = [scripted(), scripted()]
        const requests = [() => ask("hi"), notACall, () => ask("again")]
        for (const request of requests) {
          const had = yield* Effect.promise(() =>
            read(settledOf(modelAnswerer(chatWire)(request(), contextOf(viaAnswer, 5_000))))
          )
          const effected = yield* modelResponder(chatWire)(request(), contextOf(viaEffect))
          expect(
            yield* Effect.promise(() =>
              read(effected instanceof Response ? { _tag: "Streamed", response: effected } : effected)
            )
          ).toEqual(had)
        }
        expect(viaEffect.log.map((entry) => [entry.outcome, entry.at])).toEqual([
          ["answer", 5_000],
          ["invalid-request", 5_000],
          ["refused", 5_000]
        ])
        expect(viaEffect.log.map((entry) => entry.outcome)).toEqual(viaAnswer.log.map((entry) => entry.outcome))
      })
  )
})
