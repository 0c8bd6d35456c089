/**
 * The simulated model in Effect's shape: the queue and the rules are changed with Effects that
 * fail with `InvalidLlmInput` (`SimulatedProvider.enqueue`, `.rule`, `.addRules`, reading the
 * provider `SimulationNetwork.layer` provides; `SimulatedProviderApi.enqueue(llm, …)` and the others
 * for a provider in hand). Only the plain face (`network.llm.enqueue`, for code not written in
 * Effect) throws. The judge for the answers is Effect's own `HttpClient` and the `openai` SDK.
 */
import * as http from "node:http"
import { it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import OpenAI from "openai"
import { InvalidLlmInput, Routes, SimulatedProvider, SimulatedProviderApi, SimulationNetwork } from "simnet"
import { describe, expect } from "vitest"

const hello = { steps: [[{ type: "text" as const, content: "Hello from an Effect." }]] }
const broken = { steps: [[{ type: "http_error", status: 200, message: "not an error status" }]] } as never

/** The answer text of one chat completion through the layer's `HttpClient`. */
const ask = (content: string) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post("https://api.openai.com/v1/chat/completions").pipe(
      HttpClientRequest.bodyJsonUnsafe({ model: "gpt-4o", messages: [{ role: "user", content }] })
    )
    const response = yield* client.execute(request)
    const json = (yield* response.json) as {
      choices?: Array<{ message: { content: string } }>
      error?: { message: string }
    }
    return { status: response.status, text: json.choices?.[0]?.message.content, error: json.error?.message }
  })

const TestNetwork = SimulationNetwork.layer({ routes: Routes.openai() })

describe("the model's queue and rules as Effects", () => {
  it.effect(
    "SimulationNetwork.layer provides its model as SimulatedProvider: a script queued with yield* answers the next call",
    () =>
      Effect.gen(function* () {
        yield* SimulatedProvider.enqueue(hello)
        const ruleId = yield* SimulatedProvider.rule(
          { lastUserMessage: "weather?" },
          { type: "respond", steps: [[{ type: "text", content: "Sunny." }]] }
        )
        const ids = yield* SimulatedProvider.addRules({
          id: "late",
          match: { contains: "late" },
          behaviour: { type: "respond", steps: [[{ type: "text", content: "Late." }]] }
        })
        expect([ruleId, ids]).toEqual(["rule_1", ["late"]])
        expect(yield* ask("hi")).toEqual({ status: 200, text: "Hello from an Effect.", error: undefined })
        expect(yield* ask("weather?")).toMatchObject({ status: 200, text: "Sunny." })
        expect(yield* ask("too late now")).toMatchObject({ status: 200, text: "Late." })
        // The same model as network.llm.
        const network = yield* SimulationNetwork
        expect(network.llm.callCount).toBe(3)
        expect(yield* SimulatedProvider).toBe(network.llm)
      }).pipe(Effect.provide(TestNetwork))
  )

  it.effect(
    "bad input is a typed failure, not a defect, that catchTag handles; the queue and the rules are as they were",
    () =>
      Effect.gen(function* () {
        const llm = yield* SimulatedProvider
        const exit = yield* Effect.exit(SimulatedProvider.enqueue(broken))
        expect(Exit.isFailure(exit) && Cause.hasFails(exit.cause) && !Cause.hasDies(exit.cause)).toBe(true)
        const refused = yield* Effect.flip(SimulatedProvider.enqueue(broken))
        expect(refused).toBeInstanceOf(InvalidLlmInput)
        expect(refused).toMatchObject({ input: "script", path: "steps[0][0].status" })
        const handled = yield* SimulatedProvider.enqueue(broken).pipe(
          Effect.catchTag("InvalidLlmInput", (error) => Effect.succeed(`refused at ${error.path}`))
        )
        expect(handled).toBe("refused at steps[0][0].status")
        expect(llm.queued).toBe(0)

        yield* SimulatedProvider.rule(
          "any",
          { type: "respond", steps: [[{ type: "text", content: "first" }]] },
          { id: "taken" }
        )
        const clash = yield* Effect.flip(SimulatedProvider.rule("any", { type: "rateLimit" }, { id: "taken" }))
        expect(clash).toMatchObject({ _tag: "InvalidLlmInput", input: "rule", path: "options.id" })
        const badBatch = yield* Effect.flip(
          SimulatedProvider.addRules([
            { id: "fine", match: "any", behaviour: { type: "rateLimit" } },
            { match: { system: { regex: "(a)\\1" } }, behaviour: { type: "rateLimit" } }
          ])
        )
        expect(badBatch.path).toBe("[1].match.system.regex")
        expect(llm.rules.map((rule) => rule.id)).toEqual(["taken"])
        expect(yield* ask("hi")).toMatchObject({ text: "first" })
      }).pipe(Effect.provide(TestNetwork))
  )

  it.effect("an Effect form does nothing until it runs, and each run queues once", () =>
    Effect.gen(function* () {
      const llm = SimulatedProvider.make()
      const queueOne = SimulatedProviderApi.enqueue(llm, hello)
      const addRule = SimulatedProviderApi.rule(llm, "any", { type: "timeout" })
      expect([llm.queued, llm.rules.length]).toEqual([0, 0])
      yield* queueOne
      yield* queueOne
      expect(llm.queued).toBe(2)
      expect(yield* addRule).toBe("rule_1")
      expect(yield* addRule).toBe("rule_2")
      const all = yield* Effect.flip(SimulatedProviderApi.enqueueAll(llm, [hello, broken, hello]))
      expect(all.path).toBe("[1].steps[0][0].status")
      expect(llm.queued).toBe(2)
    })
  )

  it.effect("a provider with bad options is a typed failure from make and from the layer", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(SimulatedProviderApi.make({ logLimit: -1 }))).toMatchObject({
        _tag: "InvalidLlmInput",
        path: "logLimit"
      })
      const layered = yield* Effect.flip(
        Effect.provide(Effect.service(SimulatedProvider), SimulatedProvider.layer({ epoch: "tomorrow" as never }))
      )
      expect(layered).toMatchObject({ _tag: "InvalidLlmInput", path: "epoch" })
    })
  )

  it.effect("the plain face, kept for code not written in Effect, throws the same refusal and changes nothing", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      expect(() => network.llm.enqueue(broken)).toThrow(InvalidLlmInput)
      expect(() => network.llm.rule("any", { type: "nope" } as never)).toThrow(InvalidLlmInput)
      expect(network.llm.queued).toBe(0)
      network.llm.enqueue(hello)
      expect(yield* ask("hi")).toMatchObject({ text: "Hello from an Effect." })
    }).pipe(Effect.provide(TestNetwork))
  )

  it("POST llm/enqueue queues an array all or none and names the bad script's index; the openai SDK gets the queued answers", async () => {
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
          const post = async (body: unknown) => {
            const response = await fetch(`${base}/llm/enqueue`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body)
            })
            return { status: response.status, json: (await response.json()) as unknown }
          }
          const bad = await post([hello, hello, broken])
          const queuedAfterBad = network.llm.queued
          const good = await post([hello, { steps: [[{ type: "text", content: "second" }]] }])
          const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
          const answers: Array<string | null> = []
          for (const content of ["one", "two"]) {
            answers.push(
              (await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content }] }))
                .choices[0].message.content
            )
          }
          return { bad, queuedAfterBad, good: good.status, answers }
        })
      })
    )
    const seen = await Effect.runPromise(program)
    expect(seen.bad).toMatchObject({
      status: 400,
      json: { error: { tag: "InvalidLlmInput", path: "[2].steps[0][0].status" } }
    })
    expect(seen.queuedAfterBad).toBe(0)
    expect(seen.good).toBe(201)
    expect(seen.answers).toEqual(["Hello from an Effect.", "second"])
  })
})
