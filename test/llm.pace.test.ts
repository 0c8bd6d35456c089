/**
 * Streaming pace (issue 20): a script's `pace` spaces its answer on Effect's Clock — the first
 * content event after `ttftMs`, then one a token's time, with seeded jitter — so a test drives it
 * with `TestClock` and no wall-clock sleep.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Routes, SimulationNetwork } from "simnet"

const URL_ = "https://api.openai.com/v1/chat/completions"
const body = (stream: boolean) =>
  JSON.stringify({ model: "gpt-4o", stream, messages: [{ role: "user", content: "go" }] })

/** Lets promises settled by the clock run, with one turn of the event loop (no time passes on the Clock). */
const settle = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("paced answers", () => {
  it.effect(
    "a paced stream opens at once, sends its first token after ttftMs and one a token's time after, on the Clock",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork.make({ routes: Routes.openai() })
        network.llm.enqueue({
          steps: [[{ type: "text", content: "one two" }]],
          pace: { ttftMs: 500, tokensPerSecond: 10 }
        })
        const response = yield* Effect.promise(() =>
          network.fetch(URL_, { method: "POST", headers: { "content-type": "application/json" }, body: body(true) })
        )
        const reader = response.body!.getReader()
        const decoder = new TextDecoder()
        const read = Effect.promise(() => reader.read()).pipe(
          Effect.map((chunk) => (chunk.done ? undefined : decoder.decode(chunk.value)))
        )
        expect(yield* read).toContain('"role":"assistant"')
        let got: string | undefined
        const first = yield* Effect.forkChild(Effect.map(read, (text) => (got = text)))
        yield* settle
        yield* TestClock.adjust("499 millis")
        yield* settle
        expect(got).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(first)
        expect(got).toContain('"content":"one"')
        got = undefined
        const second = yield* Effect.forkChild(Effect.map(read, (text) => (got = text)))
        yield* settle
        yield* TestClock.adjust("99 millis")
        yield* settle
        expect(got).toBeUndefined()
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(second)
        expect(got).toContain('"content":" two"')
      })
  )

  it.effect(
    "jitter varies each gap within its bound, the same way on every run; a non-streamed answer waits the whole time",
    () =>
      Effect.gen(function* () {
        const { paceDelays } = yield* Effect.promise(() => import("../src/models/provider/body.ts"))
        const delays = (seed: number) =>
          Array.from({ length: 8 }, (_, i) => paceDelays({ ttftMs: 200, tokensPerSecond: 20, jitter: 0.5 }, 1, seed)(i))
        expect(delays(3)).toEqual(delays(3))
        expect(delays(3)).not.toEqual(delays(4))
        expect(delays(3).slice(0, 2)).toEqual([0, 200])
        for (const gap of delays(3).slice(2)) expect(gap >= 25 && gap <= 75).toBe(true)

        const network = yield* SimulationNetwork.make({ routes: Routes.openai() })
        network.llm.enqueue({
          steps: [[{ type: "text", content: "a b c" }]],
          pace: { ttftMs: 300, tokensPerSecond: 10 }
        })
        let done = false
        const call = yield* Effect.forkChild(
          Effect.promise(async () => {
            const response = await network.fetch(URL_, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: body(false)
            })
            done = true
            return response.json() as Promise<{ choices: ReadonlyArray<{ message: { content: string } }> }>
          })
        )
        yield* settle
        yield* TestClock.adjust("499 millis")
        yield* settle
        expect(done).toBe(false)
        yield* TestClock.adjust("1 millis")
        const answer = yield* Fiber.join(call)
        expect(answer.choices[0].message.content).toBe("a b c")
      })
  )
})
