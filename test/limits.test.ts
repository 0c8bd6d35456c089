import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Redaction, Route, Routes, SimulationNetwork } from "simnet"

const deep = (depth: number, leaf = "1") => "[".repeat(depth) + leaf + "]".repeat(depth)
const deepObject = (depth: number) => JSON.parse('{"a":'.repeat(depth) + "1" + "}".repeat(depth)) as unknown

const cause = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: Error) => e.cause as { _tag: string }
  )

describe("deep, hostile or odd input gets an answer or a typed error", () => {
  it("a 3000-deep JSON body: a generated route answers, the key is its text, and counts and log agree", async () => {
    const network = await SimulationNetwork.start({
      routes: [Route.json("POST https://api.example.com/x", Schema.Struct({ a: Schema.String }))]
    })
    const body = deep(3_000)
    const first = await network.fetch("https://api.example.com/x", { method: "POST", body })
    const again = await network.fetch("https://api.example.com/x", { method: "POST", body })
    expect([first.status, again.status]).toEqual([200, 200])
    expect(network.log().map((r) => r.occurrence)).toEqual([0, 1])
  })

  it("a 3000-deep JSON body to the model is an invalid request (400), counted and logged once", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    const response = await network.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"extra":${deep(3_000)}}`
    })
    expect(response.status).toBe(400)
    expect(network.llm.callCount).toBe(1)
    expect(network.llm.log.map((e) => e.outcome)).toEqual(["invalid-request"])
    expect(network.log().map((r) => r.status)).toEqual([400])
  })

  it(`a JSON matcher deeper than ${Redaction.MAX_MATCH_DEPTH} levels is refused at registration, from JSON and from code`, async () => {
    const network = await SimulationNetwork.start()
    const fromJson = await network
      .registerSpec({
        match: { url: "https://api.example.com/", json: deepObject(3_000) },
        respond: { kind: "text", body: "" }
      })
      .catch((e) => e)
    expect(fromJson).toMatchObject({ _tag: "InvalidRouteSpec", path: "match.json" })
    const fromCode = await network
      .register(Route.text({ url: "https://api.example.com/", body: deepObject(100) }, ""))
      .catch((e) => e)
    expect(fromCode).toMatchObject({ _tag: "InvalidRouteSpec", path: "match.body" })
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(
      await network.register(Route.text({ url: "https://api.example.com/", body: cyclic }, "")).catch((e) => e)
    ).toMatchObject({ _tag: "InvalidRouteSpec" })
    expect(network.routes()).toEqual([])
    // Unmatched requests still get their candidates.
    await network.register(
      Route.text({ url: "https://api.example.com/", body: deepObject(Redaction.MAX_MATCH_DEPTH - 1) }, "")
    )
    expect(await cause(network.fetch("https://api.example.com/", { method: "POST", body: deep(3_000) }))).toMatchObject(
      { _tag: "UnregisteredRequest" }
    )
  })

  it("a regex from JSON runs in linear time; one RE2 cannot run (lookahead, backreference) is refused at its path", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({
      match: { regex: "^https://redos\\.example\\.com/(a+)+$" },
      respond: { kind: "text", body: "ok" }
    })
    // Backtracking would take longer than the universe's age here; RE2 answers (the test's timeout bounds it).
    expect(await cause(network.fetch(`https://redos.example.com/${"a".repeat(5_000)}!`))).toMatchObject({
      _tag: "UnregisteredRequest"
    })
    expect((await network.fetch(`https://redos.example.com/${"a".repeat(50)}`)).status).toBe(200)
    for (const regex of ["(?=a)b", "(a)\\1"]) {
      expect(
        await network.registerSpec({ match: { regex }, respond: { kind: "text", body: "" } }).catch((e) => e)
      ).toMatchObject({
        _tag: "InvalidRouteSpec",
        path: "match.regex"
      })
    }
  })

  it("small ones: delayMs 1e400, Route.json(m, undefined), a numeric id, options that are not an object", async () => {
    const network = await SimulationNetwork.start()
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => "registered",
        (e) => ({ tag: e._tag, path: e.path })
      )
    expect(
      await refused(
        network.registerSpec(
          JSON.parse('{"match":"GET https://a.example.com/","respond":{"kind":"text","body":""},"delayMs":1e400}')
        )
      )
    ).toEqual({ tag: "InvalidRouteSpec", path: "delayMs" })
    expect(await refused(network.register(Route.json("GET https://a.example.com/", undefined as never)))).toEqual({
      tag: "InvalidRouteSpec",
      path: "schema"
    })
    expect(await refused(network.register(Route.text("GET https://a.example.com/", "", { id: 7 as never })))).toEqual({
      tag: "InvalidRouteSpec",
      path: "id"
    })
    expect(
      await refused(
        network.registerSpec({ id: 7, match: "GET https://a.example.com/", respond: { kind: "text", body: "" } })
      )
    ).toEqual({ tag: "InvalidRouteSpec", path: "id" })
    expect(await refused(network.register(Route.text("GET https://a.example.com/", "", null as never)))).toEqual({
      tag: "InvalidRouteSpec",
      path: "options"
    })
    expect(
      await refused(
        network.register(Route.text({ url: "https://a.example.com/", headers: { accept: 1 as never } }, ""))
      )
    ).toEqual({ tag: "InvalidRouteSpec", path: "match.headers.accept" })
    expect(network.routes()).toEqual([])
  })

  it("the model refuses an empty script, bad driver items and a bogus finish reason, with typed errors", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    const llm = network.llm
    expect(() => llm.enqueue({ steps: [] })).toThrow(
      expect.objectContaining({ _tag: "InvalidLlmInput", path: "steps" })
    )
    llm.rule({}, { type: "drive" })
    const pending = network.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] })
    })
    await expect.poll(() => llm.pending.length).toBe(1)
    const id = llm.pending[0].id
    for (const items of [[null], ["text"], [{ type: "mystery" }], [{ type: "textDelta" }]]) {
      const error = await Effect.runPromise(Effect.flip(llm.chunk({ id, items: items as never })))
      expect(error).toMatchObject({
        _tag: "InvalidLlmInput",
        input: "driver command",
        path: expect.stringMatching(/^items\[0\]/)
      })
    }
    expect(await Effect.runPromise(Effect.flip(llm.finish({ id, reason: "bogus" as never })))).toMatchObject({
      _tag: "InvalidLlmInput",
      path: "reason"
    })
    expect(llm.pending.map((p) => p.started)).toEqual([false])
    await Effect.runPromise(llm.chunk({ id, items: [{ type: "textDelta", text: "fine" }] }))
    await Effect.runPromise(llm.finish({ id, reason: "stop" }))
    expect(await (await pending).text()).toContain("fine")
  })

  it("a timeout rule whose client gave up is logged as Interrupted", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    network.llm.rule({}, { type: "timeout" })
    const aborted = await network
      .fetch("https://api.openai.com/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
        signal: AbortSignal.timeout(20)
      })
      .catch((e: Error) => e)
    expect(aborted).toMatchObject({ name: "TimeoutError" })
    await expect.poll(() => network.log().map((r) => r.denial)).toEqual(["Interrupted"])
  })

  it("the log is bounded in bytes as well as records, and keeps previews, not bodies", async () => {
    const network = await SimulationNetwork.start({
      logBytes: 64 * 1024,
      routes: [Route.text("POST https://api.example.com/up", "ok")]
    })
    const body = new Uint8Array(1024 * 1024).fill(97)
    for (let i = 0; i < 200; i++) await network.fetch("https://api.example.com/up", { method: "POST", body })
    const log = network.log()
    expect(log.length).toBeGreaterThan(10)
    expect(log.length).toBeLessThan(200)
    expect(log.at(-1)!.seq).toBe(200)
    expect(log.every((r) => r.body!.size === body.length && r.body!.preview.length === 256)).toBe(true)
    const counters = await Effect.runPromise(network.network.counters)
    expect(counters).toMatchObject({ requests: 200, answered: 200 })
  })
})
