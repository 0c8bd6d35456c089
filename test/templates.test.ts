/**
 * Templated answers (`template: true`): every helper over a real request through `fetch`, the
 * same seed giving the same draws, `now` on the network's clock (`TestClock`), escaping by content
 * type, the bounds and prototype rules, and a template that does not compile refused at
 * registration with the route and the position.
 */
import { it } from "@effect/vitest"
import { Duration, Effect, Schema } from "effect"
import * as TestClock from "effect/testing/TestClock"
import { describe, expect } from "vitest"
import { Route, RouteFailed, SimulationNetwork } from "../src/index.ts"

const base = "https://api.example.com"

const answer = async (routes: ReadonlyArray<Route.Route>, url: string, init?: RequestInit, seed = 0) => {
  const network = await SimulationNetwork.start({ routes, seed })
  try {
    const response = await network.fetch(url, init)
    return { status: response.status, headers: response.headers, body: await response.text() }
  } finally {
    await network.close()
  }
}

const refusalOf = async (routes: ReadonlyArray<Route.Route>, url: string, init?: RequestInit) => {
  const network = await SimulationNetwork.start({ routes })
  const cause = await network.fetch(url, init).then(
    () => undefined,
    (e: TypeError) => e.cause
  )
  await network.close()
  return cause
}

describe("the request helpers", () => {
  it("path, its segments, query, headers, params, method, url and body (JSON and text)", async () => {
    const template = [
      "{{request.method}} {{request.url}}",
      "path={{request.path}} first={{request.path.[0]}} second={{request.path.[1]}}",
      "q={{request.query.q}} missing=[{{request.query.nope}}]",
      "agent={{request.headers.x-agent}} id={{request.params.id}}",
      "name={{request.body.name}} first tag={{request.body.tags.[0]}}"
    ].join("\n")
    const got = await answer(
      [Route.text(`POST ${base}/users/:id`, template, { template: true })],
      `${base}/users/42?q=a%20b&q=second`,
      {
        method: "POST",
        headers: { "X-Agent": "probe", "content-type": "application/json" },
        body: JSON.stringify({ name: "Ada", tags: ["x", "y"] })
      }
    )
    expect(got.body).toBe(
      [
        `POST ${base}/users/42?q=a%20b&q=second`,
        "path=/users/42 first=users second=42",
        "q=a b missing=[]",
        "agent=probe id=42",
        "name=Ada first tag=x"
      ].join("\n")
    )
    const text = await answer(
      [Route.text(`POST ${base}/echo`, "got: {{request.body}}", { template: true })],
      `${base}/echo`,
      { method: "POST", body: "plain words" }
    )
    expect(text.body).toBe("got: plain words")
  })

  it("jsonPath reads the body: a value as it is, an object or array as JSON, nothing for no match, and no script expression", async () => {
    const routes = [
      Route.text(
        `POST ${base}/orders`,
        `{"id": "{{jsonPath request.body '$.order.id'}}", "lines": {{{jsonPath request.body '$.order.lines'}}}, "skus": {{{jsonPath request.body '$.order.lines[*].sku'}}}, "none": "{{jsonPath request.body '$.nope'}}"}`,
        { template: true, contentType: "application/json" }
      )
    ]
    const got = await answer(routes, `${base}/orders`, {
      method: "POST",
      body: JSON.stringify({ order: { id: 'o-"1"', lines: [{ sku: "a" }, { sku: "b" }] } })
    })
    expect(JSON.parse(got.body)).toEqual({
      id: 'o-"1"',
      lines: [{ sku: "a" }, { sku: "b" }],
      skus: ["a", "b"],
      none: ""
    })
    const script = await refusalOf(
      [Route.text(`POST ${base}/x`, "{{jsonPath request.body '$.a[?(@.b == 1)]'}}", { template: true })],
      `${base}/x`,
      { method: "POST", body: `{"a":[{"b":1}]}` }
    )
    expect(script).toMatchObject({ _tag: "RouteFailed", reason: "template" })
  })
})

describe("now, on the network's clock", () => {
  it.effect("is TestClock's time, in each format, moved by an offset", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* TestClock.setTime(Date.UTC(2030, 0, 2, 3, 4, 5))
      const read = () => Effect.promise(() => network.fetch(`${base}/now`).then((r) => r.text()))
      expect(yield* read()).toBe(
        "2030-01-02T03:04:05.000Z|1893553445000|1893553445|2030-01-02|Wed, 02 Jan 2030 03:04:05 GMT|2030-01-05T03:04:05.000Z|2030-01-02T02:04:05.000Z"
      )
      yield* TestClock.adjust(Duration.days(1))
      expect((yield* read()).split("|")[3]).toBe("2030-01-03")
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.text(
              `GET ${base}/now`,
              "{{now}}|{{now format='epoch'}}|{{now format='unix'}}|{{now format='date'}}|{{now format='http'}}|{{now offset='3 days'}}|{{now offset='-1 hour'}}",
              { template: true }
            )
          ]
        })
      )
    )
  )
})

describe("randomInt and randomValue, seeded", () => {
  const random = [
    Route.text(
      `GET ${base}/random`,
      "{{randomInt lower=5 upper=9}} {{randomInt}} {{randomValue length=12}} {{randomValue length=6 type='NUMERIC'}} {{randomValue type='HEXADECIMAL' length=8 uppercase=true}} {{randomValue type='UUID'}}",
      { id: "random", template: true }
    )
  ]

  it("the same seed, request and occurrence give the same values; another seed or occurrence others", async () => {
    const run = async (seed: number) => {
      const network = await SimulationNetwork.start({ routes: random, seed })
      const bodies = [
        await (await network.fetch(`${base}/random`)).text(),
        await (await network.fetch(`${base}/random`)).text()
      ]
      await network.close()
      return bodies
    }
    const [first, second] = await run(7)
    expect(await run(7)).toEqual([first, second])
    expect(second).not.toBe(first)
    expect((await run(8))[0]).not.toBe(first)
    const [small, big, alnum, digits, hex, uuid] = first.split(" ")
    expect(Number(small)).toBeGreaterThanOrEqual(5)
    expect(Number(small)).toBeLessThanOrEqual(9)
    expect(Number.isInteger(Number(big))).toBe(true)
    expect(alnum).toMatch(/^[0-9A-Za-z]{12}$/)
    expect(digits).toMatch(/^\d{6}$/)
    expect(hex).toMatch(/^[0-9A-F]{8}$/)
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it("randomInt covers its range, both ends included", async () => {
    const network = await SimulationNetwork.start({
      routes: [Route.text(`GET ${base}/die`, "{{randomInt lower=1 upper=3}}", { template: true })]
    })
    const seen = new Set<string>()
    for (let i = 0; i < 60; i++) seen.add(await (await network.fetch(`${base}/die`)).text())
    expect([...seen].sort()).toEqual(["1", "2", "3"])
    await network.close()
  })
})

describe("escaping by content type", () => {
  it("a JSON body escapes {{…}} as the inside of a string and must parse; HTML is escaped; text is not", async () => {
    const hostile = `a "quoted"\nline\\ </b>`
    const url = `${base}/e?v=${encodeURIComponent(hostile)}`
    const json = await answer(
      [
        Route.text(
          `GET ${base}/e`,
          `{"v": "{{request.query.v}}", "path": "{{request.path}}", "first": "{{request.path.[0]}}"}`,
          { template: true, contentType: "application/json" }
        )
      ],
      url
    )
    expect(JSON.parse(json.body)).toEqual({ v: hostile, path: "/e", first: "e" })
    const html = await answer(
      [Route.text(`GET ${base}/e`, "<p>{{request.query.v}}</p>", { template: true, contentType: "text/html" })],
      url
    )
    expect(html.body).toBe("<p>a &quot;quoted&quot;\nline\\ &lt;/b&gt;</p>")
    const text = await answer([Route.text(`GET ${base}/e`, "{{request.query.v}}", { template: true })], url)
    expect(text.body).toBe(hostile)
    const broken = await refusalOf(
      [Route.text(`GET ${base}/e`, `{"v": {{request.query.v}} }`, { template: true, contentType: "application/json" })],
      url
    )
    expect(broken).toBeInstanceOf(RouteFailed)
    expect(broken).toMatchObject({ reason: "template", message: expect.stringContaining("wrote what is not JSON") })
  })
})

describe("headers and other kinds", () => {
  it("a status route's headers and a generated JSON route's headers are templates too; a header the request breaks is refused", async () => {
    const created = await answer(
      [
        Route.status(`POST ${base}/items/:id`, 201, {
          template: true,
          headers: { location: "/items/{{request.params.id}}", "x-plain": "as {it} is" }
        })
      ],
      `${base}/items/9`,
      { method: "POST" }
    )
    expect(created.status).toBe(201)
    expect(created.headers.get("location")).toBe("/items/9")
    expect(created.headers.get("x-plain")).toBe("as {it} is")
    const generated = await answer(
      [
        Route.json(`GET ${base}/users/:id`, Schema.Struct({ name: Schema.String }), {
          template: true,
          headers: { "x-user": "{{request.params.id}}" }
        })
      ],
      `${base}/users/7`
    )
    expect(generated.headers.get("x-user")).toBe("7")
    expect(typeof JSON.parse(generated.body).name).toBe("string")
    const injected = await refusalOf(
      [Route.status(`GET ${base}/r`, 302, { template: true, headers: { location: "{{request.query.to}}" } })],
      `${base}/r?to=${encodeURIComponent("/a\r\nset-cookie: x=1")}`
    )
    expect(injected).toMatchObject({ _tag: "RouteFailed", reason: "template" })
  })

  it("RouteSpec JSON takes template on text, status and jsonSchema routes", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({
      match: `GET ${base}/hello/:name`,
      respond: { kind: "text", body: "hello {{request.params.name}}", template: true }
    })
    expect(await (await network.fetch(`${base}/hello/ada`)).text()).toBe("hello ada")
    await network.close()
  })
})

describe("hardening", () => {
  it("prototype members read as nothing, and nothing is written to the console", async () => {
    const got = await answer(
      [
        Route.text(
          `GET ${base}/p`,
          "[{{request.constructor}}][{{request.headers.__proto__}}][{{lookup request 'constructor'}}][{{request.method.constructor.name}}][{{request.path.constructor}}]",
          { template: true }
        )
      ],
      `${base}/p`
    )
    expect(got.body).toBe("[][][][][]")
  })

  it("a rendering past its loop or output bound fails its request, not the process", async () => {
    const many = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => i) })
    const loops = await refusalOf(
      [
        Route.text(
          `POST ${base}/loop`,
          "{{#each request.body.items}}{{#each ../request.body.items}}{{this}}{{/each}}{{/each}}",
          { template: true }
        )
      ],
      `${base}/loop`,
      { method: "POST", body: many }
    )
    expect(loops).toMatchObject({
      _tag: "RouteFailed",
      reason: "template",
      message: expect.stringContaining("loop steps")
    })
    const big = JSON.stringify({ text: "x".repeat(300_000) })
    const output = await refusalOf(
      [
        Route.text(
          `POST ${base}/big`,
          "{{request.body.text}}{{request.body.text}}{{request.body.text}}{{request.body.text}}",
          { template: true }
        )
      ],
      `${base}/big`,
      { method: "POST", body: big }
    )
    expect(output).toMatchObject({
      _tag: "RouteFailed",
      reason: "template",
      message: expect.stringContaining("characters")
    })
  })
})

describe("a template that does not compile", () => {
  it("is refused at registration, naming the route and the line and column, in code and in JSON", async () => {
    const inCode = await SimulationNetwork.start({
      routes: [
        Route.text(`GET ${base}/bad`, "hello\n{{#if request.query.x}}yes{{/each}}", { id: "greeting", template: true })
      ]
    }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(inCode).toMatchObject({ _tag: "InvalidRouteSpec", path: "[0].respond.body" })
    expect((inCode as Error).message).toContain("the template of route greeting does not compile at line 2")
    const network = await SimulationNetwork.start()
    const inJson = await Effect.runPromise(
      Effect.flip(
        network.network.registerSpec([
          { match: `GET ${base}/ok`, respond: { kind: "text", body: "ok" } },
          { match: `GET ${base}/bad`, respond: { kind: "text", body: "a\nbc {{foo bar}", template: true } }
        ])
      )
    )
    expect(inJson).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1].respond.body" })
    expect(inJson.message).toContain(
      `the template of route GET ${base}/bad does not compile at line 2, column 13: Expecting`
    )
    for (const [source, why] of [
      ["{{unknown 1}}", "unknown helper unknown"],
      ["{{> partial}}", "partials are not supported"],
      ["{{log 'x'}}", "unknown helper log"]
    ]) {
      const refused = await Effect.runPromise(
        Effect.flip(network.network.register(Route.text(`GET ${base}/x`, source, { template: true })))
      )
      expect(refused.message).toContain(why)
    }
    const header = await Effect.runPromise(
      Effect.flip(
        network.network.register(
          Route.status(`GET ${base}/h`, 204, { template: true, headers: { "x-a": "{{#with}}" } })
        )
      )
    )
    expect(header).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.headers.x-a" })
    expect(network.routes()).toEqual([])
    await network.close()
  })
})
