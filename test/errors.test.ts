import { createServer } from "node:net"
import { Effect, Exit, Schema } from "effect"
import * as Errors from "simnet"
import {
  InvalidLlmInput,
  NotRegenerable,
  Route,
  Routes,
  SimulationNetwork,
  type FixtureError,
  type MakeError,
  type RegenerateError,
  type RegisterError,
  type RestoreError,
  type SimulationNetworkApi
} from "simnet"
import { describe, expect, expectTypeOf, it } from "vitest"

/** Every error class simnet exports, by name. */
const errorClasses = Object.entries(Errors).filter(
  ([, value]) =>
    typeof value === "function" &&
    value.prototype instanceof Error &&
    Errors.isSimnetError(Object.create(value.prototype))
)

describe("simnet's errors", () => {
  it("every error class carries the TypeId that isSimnetError checks; a look-alike does not", () => {
    expect(errorClasses.map(([name]) => name).sort()).toEqual([
      "ConnectionDenied",
      "FixtureNotJson",
      "FixtureUnreadable",
      "GeneratedValueRejected",
      "GlobalInstallConflict",
      "InvalidLlmInput",
      "InvalidNetworkOption",
      "InvalidRouteSpec",
      "InvocationNotPending",
      "LoopbackDenied",
      "NoScriptQueued",
      "NotRegenerable",
      "RouteFailed",
      "StrictViolation",
      "UnmatchedLlmRequest",
      "UnregisteredRequest"
    ])
    expect(Errors.isSimnetError(new InvalidLlmInput({ input: "script", path: "steps", detail: "empty" }))).toBe(true)
    expect(
      Errors.isSimnetError(Object.assign(new Error("x"), { _tag: "InvalidRouteSpec", path: "", message: "x" }))
    ).toBe(false)
    expect(Errors.isSimnetError({ _tag: "RouteFailed", route: "r", message: "m" })).toBe(false)
    expect(Errors.isSimnetError(null)).toBe(false)
  })

  it("a RouteFailed says why in its reason, in the error and in the 502 that names it", async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const port = (server.address() as { port: number }).port
        server.close(() => resolve(port))
      })
    })
    const network = await SimulationNetwork.start({
      refusals: "502",
      routes: [
        Route.handler("GET https://api.example.com/throws", () => {
          throw new Error("boom")
        }),
        Route.loopback(`GET http://127.0.0.1:${closed}/down`)
      ]
    })
    const reasons = await Promise.all(
      ["https://api.example.com/throws", `http://127.0.0.1:${closed}/down`].map(async (url) => {
        const answer = await network.fetch(url)
        expect([answer.status, answer.headers.get("x-simnet-refusal")]).toEqual([502, "RouteFailed"])
        return ((await answer.json()) as { error: { reason: Errors.RouteFailedReason } }).error.reason
      })
    )
    expect(reasons).toEqual(["handler", "upstream"])
    const direct = await SimulationNetwork.start({
      routes: [
        Route.handler("GET https://api.example.com/throws", () => {
          throw new Error("boom")
        })
      ]
    })
    const rejected = await direct
      .fetch("https://api.example.com/throws")
      .catch((error: unknown) => (error as { cause: unknown }).cause)
    expect(rejected).toMatchObject({ _tag: "RouteFailed", reason: "handler", message: "handler failed: boom" })
    expect(Errors.RouteFailedReason.literals).toContain("abandoned")
    await Promise.all([network.close(), direct.close()])
  })

  it("NoScriptQueued says why in its reason, and its message is made from its fields", async () => {
    const material = 'model gpt-4o, last user message "hi"'
    expect(new Errors.NoScriptQueued({ model: "gpt-4o", reason: "empty", material }).message).toBe(
      `simnet: no LLM script queued for this call (${material})`
    )
    expect(new Errors.NoScriptQueued({ model: "gpt-4o", reason: "handoff", material, queued: 2 }).message).toMatch(
      /^simnet: 2 LLM script\(s\) queued, but none takes this call: it follows tool results/
    )
    expect(
      new Errors.NoScriptQueued({ model: "gpt-4o", reason: "exhausted", material, steps: 1, rounds: 3, startRound: 2 })
        .message
    ).toBe(
      `simnet: the current LLM script has 1 step(s) (started at tool-result round 2) but this call follows 3 tool-result round(s) (${material})`
    )
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    const body = (await (
      await network.fetch("https://api.openai.com/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      })
    ).json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe("NoScriptQueued")
    expect(body.error.message).toMatch(/^simnet: no LLM script queued for this call \(/)
    await network.close()
  })

  it("failAs fails with the error it expects and dies with anything else", () => {
    const typed = new InvalidLlmInput({ input: "rule", path: "match", detail: "no" })
    expect(Effect.runSyncExit(Errors.failAs(Schema.is(InvalidLlmInput), typed))).toEqual(Exit.fail(typed))
    const other = new TypeError("not ours")
    expect(Effect.runSyncExit(Errors.failAs(Schema.is(InvalidLlmInput), other))).toEqual(Exit.die(other))
  })

  it("regenerating a request no seeded route answered fails with NotRegenerable naming the request", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/hello", "hi")] })
    await network.fetch("https://api.example.com/hello")
    const [record] = network.log()
    const failure = await Effect.runPromise(Effect.flip(network.network.regenerate(record)))
    expect(failure).toBeInstanceOf(NotRegenerable)
    expect(failure).toMatchObject({ _tag: "NotRegenerable", seq: record.seq })
    expect(failure.message).toContain(`request ${record.seq} was not answered by a seeded route`)
    await network.close()
  })

  it("each operation names what it can fail with", () => {
    type ErrorOf<T> = T extends Effect.Effect<any, infer E, any> ? E : never
    expectTypeOf<ErrorOf<ReturnType<SimulationNetworkApi["register"]>>>().toEqualTypeOf<RegisterError>()
    expectTypeOf<ErrorOf<ReturnType<SimulationNetworkApi["registerSpec"]>>>().toEqualTypeOf<RegisterError>()
    expectTypeOf<ErrorOf<SimulationNetworkApi["reset"]>>().toEqualTypeOf<RestoreError>()
    expectTypeOf<ErrorOf<ReturnType<SimulationNetworkApi["restore"]>>>().toEqualTypeOf<RestoreError>()
    expectTypeOf<ErrorOf<ReturnType<SimulationNetworkApi["regenerate"]>>>().toEqualTypeOf<RegenerateError>()
    expectTypeOf<ErrorOf<ReturnType<typeof SimulationNetwork.make>>>().toEqualTypeOf<MakeError>()
    expectTypeOf<ErrorOf<ReturnType<typeof Errors.loadFixture>>>().toEqualTypeOf<FixtureError>()
    expectTypeOf<
      ErrorOf<ReturnType<typeof Errors.RouteSpec.decodeRouteSpecs>>
    >().toEqualTypeOf<Errors.InvalidRouteSpec>()
  })
})
