import { getEventListeners } from "node:events"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Queue } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { TestClock } from "effect/testing"
import {
  InvalidLlmInput,
  InvocationNotPending,
  RouteFailed,
  Routes,
  SimulatedProvider,
  SimulationNetwork,
  type SimulatedProviderApi
} from "simnet"

const url = "https://api.openai.com/v1/chat/completions"

const ask = (content: string, options: { readonly stream?: boolean } = {}) =>
  HttpClient.execute(
    HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyJsonUnsafe({
        model: "gpt-4o",
        messages: [{ role: "user", content }],
        ...(options.stream === true ? { stream: true, stream_options: { include_usage: true } } : {})
      })
    )
  )

const askText = (content: string, options: { readonly stream?: boolean } = {}) =>
  Effect.flatMap(ask(content, options), (response) =>
    Effect.map(response.text, (text) => ({ status: response.status, text }))
  )

const events = (text: string) =>
  text
    .split("\n\n")
    .filter((event) => event.length > 0)
    .map((event) => event.replace(/^data: /, ""))

/** A call after the user's message and `rounds` tool-call rounds with their results. */
const askRounds = (content: string, rounds: number) =>
  Effect.flatMap(
    HttpClient.execute(
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyJsonUnsafe({
          model: "gpt-4o",
          messages: [
            { role: "user", content },
            ...Array.from({ length: rounds }, (_, i) => [
              {
                role: "assistant",
                content: null,
                tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "lookup", arguments: "{}" } }]
              },
              { role: "tool", tool_call_id: `call_${i}`, content: "found" }
            ]).flat()
          ]
        })
      )
    ),
    (response) => Effect.map(response.text, (text) => ({ status: response.status, text }))
  )

/** Lets forked fibers run until `done` holds (the simulated network answers without real I/O). */
const settle = (done: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100 && !done(); i++) yield* Effect.yieldNow
    expect(done()).toBe(true)
  })

const withNetwork = (llm: SimulatedProviderApi) =>
  Effect.provide(
    SimulationNetwork.layer({ routes: Routes.openai() }).pipe(Layer.provide(Layer.succeed(SimulatedProvider, llm)))
  )

describe("SimulatedProvider latency and timeouts on Effect's Clock", () => {
  it.effect(
    'a rule\'s latency is slept on the TestClock; the request is logged on arrival, before the latency; epoch "clock" dates the answer by the Clock',
    () => {
      const llm = SimulatedProvider.make({ epoch: "clock" })
      llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "late" }]] }, { latency: "2 seconds" })
      return Effect.gen(function* () {
        yield* TestClock.adjust("5 seconds")
        const fiber = yield* Effect.forkChild(askText("hello"))
        yield* settle(() => llm.callCount === 1)
        expect(llm.log[0]).toMatchObject({ id: "inv_1", at: 5000, outcome: "answer" })
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1999 millis")
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        const { status, text } = yield* Fiber.join(fiber)
        expect(status).toBe(200)
        const completion = JSON.parse(text)
        expect(completion.choices[0].message.content).toBe("late")
        expect(completion.created).toBe(5)
      }).pipe(withNetwork(llm))
    }
  )

  it.effect("a timeout rule never answers: the client's own timeout decides, and the request is in the log", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "timeout" })
    return Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.timeoutOption(askText("hello"), "30 seconds"))
      yield* settle(() => llm.callCount === 1)
      yield* TestClock.adjust("30 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result._tag).toBe("None")
      expect(llm.log.map((entry) => entry.outcome)).toEqual(["timeout"])
    }).pipe(withNetwork(llm))
  })

  it.effect("failing requests are counted and logged too, in call order", () => {
    const llm = SimulatedProvider.make()
    llm.rule({ lastUserMessage: "limit" }, { type: "rateLimit" }, { times: 1 })
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    return Effect.gen(function* () {
      expect((yield* askText("limit")).status).toBe(429)
      expect((yield* askText("limit")).status).toBe(200)
      expect(llm.callCount).toBe(2)
      expect(llm.countFor(llm.log[0].key)).toBe(2)
      expect(llm.log.map((entry) => [entry.id, entry.rule, entry.outcome])).toEqual([
        ["inv_1", "rule_1", "http_error"],
        ["inv_2", "rule_2", "answer"]
      ])
      expect(llm.rules.map((rule) => rule.uses)).toEqual([1, 1])
    }).pipe(withNetwork(llm))
  })
})

describe("SimulatedProvider's script queue", () => {
  it.effect("a new conversation turn starts the next script; a step past the script's end is NoScriptQueued", () => {
    const llm = SimulatedProvider.make()
    llm.enqueue({ steps: [[{ type: "http_error", status: 429, message: "slow down", retryAfterMs: 0 }]] })
    llm.enqueue({ steps: [[{ type: "text", content: "second script" }]], finish: "length" })
    return Effect.gen(function* () {
      expect((yield* askText("hi")).status).toBe(429)
      const second = JSON.parse((yield* askText("hi")).text)
      expect(second.choices[0]).toMatchObject({ message: { content: "second script" }, finish_reason: "length" })
      expect(llm.queued).toBe(0)
      const none = yield* askText("hi")
      expect(none.status).toBe(422)
      expect(JSON.parse(none.text).error.code).toBe("NoScriptQueued")
    }).pipe(withNetwork(llm))
  })

  it.effect('finish "error" ends the last step\'s stream with an error event and no [DONE]', () => {
    const llm = SimulatedProvider.make()
    llm.enqueue({ steps: [[{ type: "text", content: "almost" }]], finish: "error" })
    return Effect.gen(function* () {
      const { text } = yield* askText("hi", { stream: true })
      const frames = events(text)
      expect(frames).not.toContain("[DONE]")
      expect(JSON.parse(frames[frames.length - 1]).error.message).toBe("The model stopped with an error.")
    }).pipe(withNetwork(llm))
  })

  it.effect("the log keeps the latest logLimit requests while callCount and per-key counts stay exact", () => {
    const llm = SimulatedProvider.make({ logLimit: 2 })
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    return Effect.gen(function* () {
      for (const content of ["a", "b", "a", "c"]) yield* askText(content)
      expect(llm.log.map((entry) => entry.id)).toEqual(["inv_3", "inv_4"])
      expect(llm.callCount).toBe(4)
      expect(llm.countFor(llm.log[0].key)).toBe(2)
    }).pipe(withNetwork(llm))
  })

  it.effect(
    "the log wraps as a ring: the latest logLimit entries, oldest first, across several wraps and after reset",
    () => {
      const llm = SimulatedProvider.make({ logLimit: 3 })
      llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
      return Effect.gen(function* () {
        const ids = () => llm.log.map((entry) => entry.id)
        yield* askText("1")
        expect(ids()).toEqual(["inv_1"])
        const held = llm.log
        for (let i = 2; i <= 8; i++) yield* askText(String(i))
        expect(ids()).toEqual(["inv_6", "inv_7", "inv_8"])
        expect(held.map((entry) => entry.id)).toEqual(["inv_1"])
        yield* askText("9")
        expect(ids()).toEqual(["inv_7", "inv_8", "inv_9"])
        expect(llm.callCount).toBe(9)
        llm.reset()
        expect(llm.log).toEqual([])
        llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
        yield* askText("again")
        expect(ids()).toEqual(["inv_1"])
      }).pipe(withNetwork(llm))
    }
  )

  it.effect("a call after a finished script is offered to the rules and does not use up the next script", () => {
    const llm = SimulatedProvider.make()
    llm.enqueue({ steps: [[{ type: "tool_call", name: "lookup", input: { q: "x" } }]] })
    llm.enqueue({ steps: [[{ type: "text", content: "next turn" }]] })
    llm.rule({ toolResult: true }, { type: "respond", steps: [[{ type: "text", content: "from the rule" }]] })
    return Effect.gen(function* () {
      const first = JSON.parse((yield* askRounds("look it up", 0)).text)
      expect(first.choices[0].finish_reason).toBe("tool_calls")
      const second = yield* askRounds("look it up", 1)
      expect(second.status).toBe(200)
      expect(JSON.parse(second.text).choices[0].message.content).toBe("from the rule")
      expect(llm.queued).toBe(1)
      const third = JSON.parse((yield* askRounds("next", 0)).text)
      expect(third.choices[0].message.content).toBe("next turn")
      expect(llm.log.map((entry) => [entry.source, entry.step])).toEqual([
        ["script", 0],
        ["rule", 0],
        ["script", 0]
      ])
    }).pipe(withNetwork(llm))
  })

  it.effect(
    "a script whose last step calls a tool hands on: the next round, when no rule takes it, starts the next queued script",
    () => {
      const llm = SimulatedProvider.make()
      llm.enqueue({ steps: [[{ type: "tool_call", name: "transfer_to_billing", input: {} }]] })
      llm.enqueue({
        steps: [
          [{ type: "tool_call", name: "lookup", input: { q: "invoice" } }],
          [{ type: "text", content: "billing: paid" }]
        ]
      })
      llm.enqueue({ steps: [[{ type: "text", content: "next turn" }]] })
      return Effect.gen(function* () {
        const handoff = JSON.parse((yield* askRounds("my invoice?", 0)).text)
        expect(handoff.choices[0].message.tool_calls[0].function.name).toBe("transfer_to_billing")
        // Round 1 starts the second script at its step 0; round 2 is its step 1.
        const lookup = JSON.parse((yield* askRounds("my invoice?", 1)).text)
        expect(lookup.choices[0].message.tool_calls[0].function.name).toBe("lookup")
        expect(llm.state.scripts).toMatchObject({ startRound: 1, consumed: 2 })
        const answer = JSON.parse((yield* askRounds("my invoice?", 2)).text)
        expect(answer.choices[0].message.content).toBe("billing: paid")
        expect(llm.log.map((entry) => [entry.source, entry.step])).toEqual([
          ["script", 0],
          ["script", 0],
          ["script", 1]
        ])
        // The last script ended with text: a further round hands nothing on, and the refusal says what waits.
        const refused = yield* askRounds("my invoice?", 3)
        expect(refused.status).toBe(422)
        expect(JSON.parse(refused.text).error.message).toContain("1 LLM script(s) queued, but none takes this call")
        expect(llm.queued).toBe(1)
      }).pipe(withNetwork(llm))
    }
  )

  it.effect(
    "a call past the script's last step goes to the rules; without rules it is NoScriptQueued naming the script",
    () => {
      const script = {
        steps: [
          [{ type: "tool_call" as const, name: "lookup", input: {} }],
          [{ type: "text" as const, content: "done" }]
        ]
      }
      const withRule = SimulatedProvider.make()
      withRule.enqueue(script)
      withRule.rule("any", { type: "respond", steps: [[{ type: "text", content: "from the rule" }]] })
      const withoutRule = SimulatedProvider.make()
      withoutRule.enqueue(script)
      return Effect.gen(function* () {
        yield* askRounds("go", 0).pipe(withNetwork(withRule))
        const ruled = yield* askRounds("go", 2).pipe(withNetwork(withRule))
        expect(JSON.parse(ruled.text).choices[0].message.content).toBe("from the rule")

        yield* askRounds("go", 0).pipe(withNetwork(withoutRule))
        const refused = yield* askRounds("go", 2).pipe(withNetwork(withoutRule))
        expect(refused.status).toBe(422)
        const error = JSON.parse(refused.text).error
        expect(error.code).toBe("NoScriptQueued")
        expect(error.message).toContain("has 2 step(s) but this call follows 2 tool-result round(s)")
      })
    }
  )

  it.effect("a body that is not a chat request is a 400, logged and counted in call order", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    return Effect.gen(function* () {
      const bad = yield* HttpClient.execute(
        HttpClientRequest.post(url).pipe(HttpClientRequest.bodyJsonUnsafe({ model: "gpt-4o", messages: "hello" }))
      )
      expect(bad.status).toBe(400)
      expect(bad.headers["x-request-id"]).toBe("req_sim_1")
      expect((yield* askText("fine")).status).toBe(200)
      expect(llm.callCount).toBe(2)
      expect(llm.log.map((entry) => [entry.id, entry.outcome, entry.status])).toEqual([
        ["inv_1", "invalid-request", 400],
        ["inv_2", "answer", undefined]
      ])
      expect(llm.log[0]).toMatchObject({
        model: "gpt-4o",
        source: "none",
        body: { model: "gpt-4o", messages: "hello" }
      })
      expect(llm.countFor({ model: "gpt-4o", messages: "hello" })).toBe(1)
    }).pipe(withNetwork(llm))
  })

  it("a logLimit that is not a whole number of at least 0 is refused with InvalidLlmInput", () => {
    for (const logLimit of [2.5, -1, Number.NaN]) {
      expect(() => SimulatedProvider.make({ logLimit })).toThrow(InvalidLlmInput)
    }
    expect(SimulatedProvider.make({ logLimit: 0 }).log).toEqual([])
  })

  it("reset clears queue, rules, log, counts and numbering", () => {
    const llm = SimulatedProvider.make()
    llm.enqueue({ steps: [[{ type: "text", content: "x" }]] })
    llm.rule("any", { type: "drive" })
    llm.reset()
    expect([llm.queued, llm.rules.length, llm.log.length, llm.callCount, llm.pending.length]).toEqual([0, 0, 0, 0, 0])
  })
})

describe("SimulatedProvider driven invocations", () => {
  it.effect("an attached driver is told of each request and feeds it: deltas, a tool call, finish with usage", () => {
    const llm = SimulatedProvider.make()
    return Effect.gen(function* () {
      const requests = yield* llm.attach
      const fiber = yield* Effect.forkChild(askText("drive me", { stream: true }))
      const notice = yield* Queue.take(requests)
      expect(notice).toMatchObject({ id: "inv_1", url })
      expect((notice.body as { messages: unknown }).messages).toEqual([{ role: "user", content: "drive me" }])
      expect(llm.pending).toMatchObject([{ id: "inv_1", model: "gpt-4o", stream: true, started: false }])
      yield* llm.chunk({
        id: notice.id,
        items: [
          { type: "reasoningDelta", text: "hmm" },
          { type: "textDelta", text: "Hel" },
          { type: "textDelta", text: "lo" },
          { type: "toolCall", name: "lookup", input: { q: "x" } }
        ]
      })
      expect(llm.pending[0].started).toBe(true)
      yield* llm.finish({ id: notice.id, usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } })
      expect(llm.pending).toEqual([])
      const { text } = yield* Fiber.join(fiber)
      const frames = events(text)
      expect(frames[frames.length - 1]).toBe("[DONE]")
      const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame))
      expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" })
      expect(chunks.slice(1, 4).map((c) => c.choices[0].delta)).toEqual([
        { reasoning_content: "hmm" },
        { content: "Hel" },
        { content: "lo" }
      ])
      expect(chunks[4].choices[0].delta.tool_calls[0]).toEqual({
        index: 0,
        id: "call_1_0",
        type: "function",
        function: { name: "lookup", arguments: "" }
      })
      expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe("tool_calls")
      expect(chunks[chunks.length - 1].usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })
      const late = yield* Effect.flip(llm.chunk({ id: notice.id, items: [{ type: "textDelta", text: "late" }] }))
      expect(late).toBeInstanceOf(InvocationNotPending)
      expect((late as InvocationNotPending).id).toBe("inv_1")
    }).pipe(withNetwork(llm))
  })

  it.effect(
    "a drive rule hands matching requests to in-process driver calls; a non-streamed call gets one completion",
    () => {
      const llm = SimulatedProvider.make()
      llm.rule({ model: "gpt-4o" }, { type: "drive" })
      return Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(askText("whole"))
        yield* settle(() => llm.pending.length === 1)
        yield* llm.chunk({
          id: "inv_1",
          items: [
            { type: "textDelta", text: "All " },
            { type: "textDelta", text: "at once." }
          ]
        })
        yield* llm.finish({ id: "inv_1", reason: "stop" })
        const completion = JSON.parse((yield* Fiber.join(fiber)).text)
        expect(completion.choices[0]).toMatchObject({ message: { content: "All at once." }, finish_reason: "stop" })
      }).pipe(withNetwork(llm))
    }
  )

  it.effect("fail is an HTTP status before any chunk and an error event after", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" })
    return Effect.gen(function* () {
      const before = yield* Effect.forkChild(askText("a", { stream: true }))
      yield* settle(() => llm.pending.length === 1)
      yield* llm.fail({ id: "inv_1", status: 503 })
      const early = yield* Fiber.join(before)
      expect(early.status).toBe(503)
      expect(JSON.parse(early.text).error.type).toBe("server_error")

      const after = yield* Effect.forkChild(askText("b", { stream: true }))
      yield* settle(() => llm.pending.length === 1)
      yield* llm.chunk({ id: "inv_2", items: [{ type: "textDelta", text: "partial" }] })
      yield* llm.fail({ id: "inv_2", status: 500, message: "driver gave up" })
      const late = yield* Fiber.join(after)
      expect(late.status).toBe(200)
      const frames = events(late.text)
      expect(JSON.parse(frames[frames.length - 1]).error.message).toBe("driver gave up")
    }).pipe(withNetwork(llm))
  })

  it.effect("disconnect is a transport failure before the response starts and a body reset after", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" })
    return Effect.gen(function* () {
      const before = yield* Effect.forkChild(askText("a", { stream: true }))
      yield* settle(() => llm.pending.length === 1)
      yield* llm.disconnect({ id: "inv_1" })
      const early = yield* Effect.flip(Fiber.join(before))
      expect(early._tag).toBe("HttpClientError")
      expect(early.cause).toBeInstanceOf(RouteFailed)
      expect(early.cause).toMatchObject({ reason: "driver" })

      const after = yield* Effect.forkChild(askText("b", { stream: true }))
      yield* settle(() => llm.pending.length === 1)
      yield* llm.chunk({ id: "inv_2", items: [{ type: "raw", data: 'data: {"not": "a chunk"}\n\n' }] })
      yield* llm.disconnect({ id: "inv_2" })
      const late = yield* Effect.flip(Fiber.join(after))
      expect(late._tag).toBe("HttpClientError")
      expect(late.reason._tag).toBe("DecodeError")
      expect(String(late.cause)).toContain("terminated")
    }).pipe(withNetwork(llm))
  })

  it.effect(
    "interrupting the request removes the invocation; later driver commands fail with InvocationNotPending",
    () => {
      const llm = SimulatedProvider.make()
      llm.rule("any", { type: "drive" })
      return Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(askText("bye", { stream: true }))
        yield* settle(() => llm.pending.length === 1)
        yield* Fiber.interrupt(fiber)
        expect(llm.pending).toEqual([])
        const error = yield* Effect.flip(llm.finish({ id: "inv_1" }))
        expect(error._tag).toBe("InvocationNotPending")
      }).pipe(withNetwork(llm))
    }
  )

  it.effect("a client abort through fetch removes the invocation, before and after the response started", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" })
    return Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const post = (signal: AbortSignal) =>
        network.fetch(url, {
          method: "POST",
          signal,
          body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }], stream: true })
        })
      const first = new AbortController()
      const pending = post(first.signal).catch((error: unknown) => error)
      yield* settle(() => llm.pending.length === 1)
      first.abort()
      const aborted = yield* Effect.promise(() => pending)
      expect((aborted as Error).name).toBe("AbortError")
      expect(llm.pending).toEqual([])
      expect((yield* Effect.flip(llm.chunk({ id: "inv_1", items: [] })))._tag).toBe("InvocationNotPending")

      const second = new AbortController()
      const started = post(second.signal)
      yield* settle(() => llm.pending.length === 1)
      yield* llm.chunk({ id: "inv_2", items: [{ type: "textDelta", text: "streaming" }] })
      const response = yield* Effect.promise(() => started)
      const reader = response.body!.getReader()
      yield* Effect.promise(() => reader.read())
      yield* Effect.promise(() => reader.cancel())
      expect(llm.pending).toEqual([])
      expect((yield* Effect.flip(llm.finish({ id: "inv_2" })))._tag).toBe("InvocationNotPending")
    }).pipe(withNetwork(llm))
  })

  it.effect("the abort listener of a driven stream is removed when the response completes", () => {
    const llm = SimulatedProvider.make()
    llm.rule("any", { type: "drive" })
    return Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const controller = new AbortController()
      const started = network.fetch(url, {
        method: "POST",
        signal: controller.signal,
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }], stream: true })
      })
      yield* settle(() => llm.pending.length === 1)
      yield* llm.chunk({ id: "inv_1", items: [{ type: "textDelta", text: "streaming" }] })
      const response = yield* Effect.promise(() => started)
      yield* llm.finish({ id: "inv_1" })
      const text = yield* Effect.promise(() => response.text())
      expect(text).toContain("[DONE]")
      expect(getEventListeners(controller.signal, "abort")).toEqual([])
    }).pipe(withNetwork(llm))
  })

  it.effect("when the last driver detaches, the invocations opened for drivers are disconnected", () => {
    const llm = SimulatedProvider.make()
    return Effect.gen(function* () {
      const fiber = yield* Effect.scoped(
        Effect.gen(function* () {
          const requests = yield* llm.attach
          const fiber = yield* Effect.forkDetach(askText("orphan", { stream: true }))
          yield* Queue.take(requests)
          return fiber
        })
      )
      expect(llm.pending).toEqual([])
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error._tag).toBe("HttpClientError")
      expect(error.cause).toBeInstanceOf(RouteFailed)
    }).pipe(withNetwork(llm))
  })
})
