import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Schema } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { TestClock } from "effect/testing"
import { decodeFixture, Route, SimulationNetwork, UnregisteredRequest } from "simnet"

const base = "https://api.example.com"

const Item = Schema.Struct({ id: Schema.String, name: Schema.String })

const getJson = (url: string) =>
  Effect.flatMap(HttpClient.get(url), HttpClientResponse.filterStatusOk).pipe(
    Effect.flatMap((response) => response.json)
  )

describe("SimulationNetwork through Effect's HttpClient", () => {
  it.effect("answers the app's ordinary HttpClient from the registered routes", () =>
    Effect.gen(function* () {
      const item = yield* HttpClient.get(`${base}/items/7`).pipe(
        Effect.flatMap(HttpClientResponse.schemaBodyJson(Item))
      )
      expect(item).toEqual({ id: "7", name: "item 7" })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.handler(`GET ${base}/items/:id`, (req) =>
              Response.json({ id: req.params.id, name: `item ${req.params.id}` })
            )
          ]
        })
      )
    )
  )

  it.effect("an app layer that builds its own FetchHttpClient.layer is simulated too", () =>
    Effect.gen(function* () {
      const body = yield* HttpClient.get(`${base}/health`).pipe(Effect.flatMap((r) => r.text))
      expect(body).toBe("ok")
      const network = yield* SimulationNetwork
      expect((yield* network.log).map((r) => r.route?.id)).toEqual(["health"])
    }).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provide(SimulationNetwork.layer({ routes: [Route.text(`GET ${base}/health`, "ok", { id: "health" })] }))
    )
  )

  it.effect("unmatched request fails closed with an HttpClientError whose cause names the URL and nearest routes", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(HttpClient.post(`${base}/items/9?x=1`))
      expect(error._tag).toBe("HttpClientError")
      const cause = error.cause as UnregisteredRequest
      expect(cause).toBeInstanceOf(UnregisteredRequest)
      expect(cause.method).toBe("POST")
      expect(cause.url).toBe(`${base}/items/9?x=1`)
      expect(cause.candidates[0]).toMatchObject({ id: "get-item", reason: "method" })
      expect(cause.candidates.length).toBeLessThanOrEqual(3)
      expect(cause.message).toContain("no route for POST https://api.example.com/items/9?x=1")
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.text(`GET ${base}/items/:id`, "{}", { id: "get-item" }),
            Route.text(`GET ${base}/users/:id`, "{}", { id: "get-user" }),
            Route.text("GET https://other.example.com/items/:id", "{}", { id: "other-host" }),
            Route.text(`GET ${base}/orders`, "{}", { id: "orders" })
          ]
        })
      )
    )
  )

  it.effect("delay is served on Effect's Clock: TestClock decides when the answer arrives", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(getJson(`${base}/slow`))
      yield* TestClock.adjust("1999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual({ slow: true })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.text(`GET ${base}/slow`, `{"slow":true}`, { delay: "2 seconds", contentType: "application/json" })
          ]
        })
      )
    )
  )

  it.effect("a handler's Effect runs with the network's services: its sleep waits for TestClock", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(getJson(`${base}/later`))
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual({ later: true })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.handler(`GET ${base}/later`, () =>
              Effect.as(Effect.sleep("1 second"), Response.json({ later: true }))
            )
          ]
        })
      )
    )
  )

  it.effect(
    "a handler that throws, rejects or fails is a RouteFailed naming the route, through HttpClient and fetch alike",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork
        for (const path of ["throws", "rejects", "dies"]) {
          const error = yield* Effect.flip(HttpClient.get(`${base}/${path}`))
          expect(error.reason).toMatchObject({
            _tag: "TransportError",
            cause: { _tag: "RouteFailed", route: path, reason: "handler", message: `handler failed: ${path}` }
          })
          const viaFetch = yield* Effect.promise(() => network.fetch(`${base}/${path}`).catch((e: TypeError) => e))
          expect(viaFetch).toMatchObject({
            message: "fetch failed",
            cause: { _tag: "RouteFailed", message: `handler failed: ${path}` }
          })
        }
        expect((yield* network.log).map((r) => r.denial)).toEqual(Array(6).fill("RouteFailed"))
      }).pipe(
        Effect.provide(
          SimulationNetwork.layer({
            routes: [
              Route.handler(
                `GET ${base}/throws`,
                () => {
                  throw new Error("throws")
                },
                { id: "throws" }
              ),
              Route.handler(`GET ${base}/rejects`, () => Promise.reject(new Error("rejects")), { id: "rejects" }),
              Route.handler(`GET ${base}/dies`, () => Effect.die(new Error("dies")), { id: "dies" })
            ]
          })
        )
      )
  )

  it.effect("a timeout fault never answers, so the client's own timeout fires on TestClock", () =>
    Effect.gen(function* () {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.transformResponse(Effect.timeout("5 seconds")))
      const fiber = yield* Effect.forkChild(Effect.flip(client.get(`${base}/hang`)))
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TimeoutError")
    }).pipe(Effect.provide(SimulationNetwork.layer({ routes: [Route.fault(`GET ${base}/hang`, "timeout")] })))
  )

  it.effect("a reset fault drops the connection mid-body; malformed-body serves truncated JSON with 200", () =>
    Effect.gen(function* () {
      const reset = yield* HttpClient.get(`${base}/reset`).pipe(
        Effect.flatMap((r) => r.text),
        Effect.flip
      )
      expect(reset._tag).toBe("HttpClientError")
      expect(reset.reason._tag).toBe("DecodeError")
      const response = yield* HttpClient.get(`${base}/malformed`)
      expect(response.status).toBe(200)
      const parsed = yield* Effect.flip(response.json)
      expect(parsed.reason._tag).toBe("DecodeError")
      // The log tells what the client saw: a reset and a cut-short body, faulted, not answered.
      const network = yield* SimulationNetwork
      expect((yield* network.log).map((record) => [record.route?.kind, record.fault])).toEqual([
        ["fault", "reset"],
        ["fault", "malformed"]
      ])
      expect(yield* network.counters).toMatchObject({ requests: 2, answered: 0, denied: 0, faulted: 2 })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [Route.fault(`GET ${base}/reset`, "reset"), Route.fault(`GET ${base}/malformed`, "malformed-body")]
        })
      )
    )
  )

  it.effect("matches query, headers and a partial JSON body, and passes the body to the route", () =>
    Effect.gen(function* () {
      const request = HttpClientRequest.post(`${base}/search`).pipe(
        HttpClientRequest.setUrlParam("q", "cats"),
        HttpClientRequest.setHeader("x-tenant", "acme"),
        HttpClientRequest.bodyJsonUnsafe({ filter: { kind: "cat", age: 3 }, page: 1 })
      )
      const response = yield* HttpClient.execute(request)
      expect(yield* response.json).toEqual({ page: 1 })
      const miss = yield* Effect.flip(HttpClient.execute(HttpClientRequest.setHeader(request, "x-tenant", "other")))
      expect((miss.cause as UnregisteredRequest).candidates[0]).toMatchObject({ reason: "header" })
      const wrongBody = yield* Effect.flip(
        HttpClient.execute(HttpClientRequest.bodyJsonUnsafe(request, { filter: { kind: "dog", age: 3 } }))
      )
      expect((wrongBody.cause as UnregisteredRequest).candidates[0]).toMatchObject({ reason: "body" })
      const withoutQuery = HttpClientRequest.post(`${base}/search`).pipe(
        HttpClientRequest.setHeader("x-tenant", "acme"),
        HttpClientRequest.bodyJsonUnsafe({ filter: { kind: "cat" } })
      )
      const noQuery = yield* Effect.flip(HttpClient.execute(withoutQuery))
      expect((noQuery.cause as UnregisteredRequest).candidates[0]).toMatchObject({
        reason: "query",
        detail: 'query parameter "q" is missing'
      })
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.handler(
              {
                method: "POST",
                url: `${base}/search?q=cats`,
                headers: { "x-tenant": "acme" },
                body: { filter: { kind: "cat" } }
              },
              (req) => Response.json({ page: (req.json() as { page: number }).page })
            )
          ]
        })
      )
    )
  )
})

describe("matching order", () => {
  it.effect("higher priority first, then the latest registration; used-up routes fall through", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const text = (url: string) => HttpClient.get(url).pipe(Effect.flatMap((r) => r.text))
      expect(yield* text(`${base}/a`)).toBe("default")
      yield* network.register(Route.text(`GET ${base}/a`, "override"))
      expect(yield* text(`${base}/a`)).toBe("override")
      yield* network.register(Route.text(`GET ${base}/a`, "once", { times: 1 }))
      expect(yield* text(`${base}/a`)).toBe("once")
      expect(yield* text(`${base}/a`)).toBe("override")
      yield* network.register(Route.text(`GET ${base}/items/1`, "exact, older"))
      yield* network.register(Route.text(`GET ${base}/items/:id`, "param, newer"))
      expect(yield* text(`${base}/items/1`)).toBe("param, newer")
      yield* network.register(Route.text(`GET ${base}/limited`, "once", { times: 1, id: "limited" }))
      yield* text(`${base}/limited`)
      const exhausted = yield* Effect.flip(HttpClient.get(`${base}/limited`))
      expect((exhausted.cause as UnregisteredRequest).candidates[0]).toMatchObject({
        id: "limited",
        reason: "exhausted",
        detail: "used 1 of 1 times"
      })
      yield* network.register(Route.text({ url: /api\.example\.com\/a$/ }, "pinned", { priority: 5 }))
      expect(yield* text(`${base}/a`)).toBe("pinned")
      yield* network.register(Route.text(`GET ${base}/a`, "later but lower"))
      expect(yield* text(`${base}/a`)).toBe("pinned")
    }).pipe(Effect.provide(SimulationNetwork.layer({ routes: [Route.text(`GET ${base}/a`, "default")] })))
  )

  it.effect("path parameters, wildcards and predicates", () =>
    Effect.gen(function* () {
      const text = (url: string) => HttpClient.get(url).pipe(Effect.flatMap((r) => r.text))
      expect(yield* text(`${base}/repos/effect/simnet/files/src/index.ts`)).toBe("effect|simnet|src,index.ts")
      expect(yield* text("https://pred.example.com/anything?x=1")).toBe("predicate")
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.handler(
              `GET ${base}/repos/:owner/:repo/files/*path`,
              (req) => new Response(`${req.params.owner}|${req.params.repo}|${String(req.params.path)}`)
            ),
            Route.text({ url: (url) => url.hostname === "pred.example.com" && url.searchParams.has("x") }, "predicate")
          ]
        })
      )
    )
  )
})

describe("registration", () => {
  it.effect("an invalid batch is an InvalidRouteSpec naming the path, and registers nothing", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const before = yield* network.routes
      const cases: Array<[unknown, string]> = [
        [
          [
            { match: "GET https://ok.example.com/x", respond: { kind: "text", body: "x" } },
            { match: "GET not a url", respond: { kind: "text", body: "" } }
          ],
          "[1].match"
        ],
        [{ match: "GET https://x.example.com/", respond: { kind: "teleport" } }, "respond.kind"],
        [{ match: { regex: "(" }, respond: { kind: "text", body: "" } }, "match.regex"],
        [{ match: "GET https://x.example.com/", respond: { kind: "text", body: "" }, times: -1 }, "times"],
        [
          [
            { id: "dup", match: "GET https://x.example.com/1", respond: { kind: "status", status: 204 } },
            { id: "dup", match: "GET https://x.example.com/2", respond: { kind: "status", status: 204 } }
          ],
          "[1].id"
        ],
        [{ id: "existing", match: "GET https://x.example.com/3", respond: { kind: "status", status: 204 } }, "id"],
        [{ match: "GET https://x.example.com/", respond: { kind: "status", status: 99 } }, "respond.status"],
        [{ match: "GET https://x.example.com/:", respond: { kind: "text", body: "" } }, "match"]
      ]
      for (const [spec, path] of cases) {
        const error = yield* Effect.flip(network.registerSpec(spec))
        expect(error._tag, JSON.stringify(spec)).toBe("InvalidRouteSpec")
        expect((error as { path: string }).path, JSON.stringify(spec)).toBe(path)
      }
      expect(yield* network.routes).toEqual(before)
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({ routes: [Route.status("GET https://x.example.com/e", 204, { id: "existing" })] })
      )
    )
  )

  it.effect("registerSpec decodes the static kinds and named handlers with the fixture schema", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const ids = yield* network.registerSpec([
        {
          id: "t",
          match: "GET https://s.example.com/t",
          respond: { kind: "text", body: "hello", contentType: "text/markdown" }
        },
        {
          id: "b",
          match: { method: "GET", url: "https://s.example.com/b" },
          respond: { kind: "bytes", base64: "AAEC" }
        },
        { id: "h", match: "GET https://s.example.com/h/:name", respond: { kind: "handler", name: "greet" }, delayMs: 0 }
      ])
      expect(ids).toEqual(["t", "b", "h"])
      yield* network.registerSpec({
        id: "q",
        match: { url: "https://s.example.com/q", query: { token: true, v: "2" } },
        respond: { kind: "status", status: 204 }
      })
      const get = (path: string) => HttpClient.get(`https://s.example.com${path}`)
      const t = yield* get("/t")
      expect(t.headers["content-type"]).toBe("text/markdown")
      expect(Array.from(new Uint8Array(yield* (yield* get("/b")).arrayBuffer))).toEqual([0, 1, 2])
      expect(yield* (yield* get("/h/ada")).text).toBe("hi ada")
      expect((yield* get("/q?v=2&token=anything")).status).toBe(204)
      const missing = yield* Effect.flip(get("/q?v=2"))
      expect((missing.cause as UnregisteredRequest).candidates[0]).toMatchObject({ id: "q", reason: "query" })
      expect((yield* network.routes).map((r) => r.source)).toEqual(["code", "code", "code", "code"])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          handlers: { greet: (req) => new Response(`hi ${req.params.name}`) }
        })
      )
    )
  )

  it.effect("families from JSON: openapi takes its document; a family's own error is prefixed with the spec path", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const document = {
        openapi: "3.1.0",
        info: { title: "pets", version: "1" },
        paths: {
          "/pets/{petId}": {
            get: {
              operationId: "getPet",
              responses: {
                "200": {
                  description: "a pet",
                  content: {
                    "application/json": {
                      schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
                    }
                  }
                }
              }
            }
          }
        }
      }
      const ids = yield* network.registerSpec([{ family: "openapi", document, baseUrl: "https://pets.example.com" }])
      expect(ids).toEqual(["pets.example.com:getPet"])
      const pet = yield* HttpClient.get("https://pets.example.com/pets/7").pipe(Effect.flatMap((r) => r.json))
      expect(typeof (pet as { name: unknown }).name).toBe("string")
      const error = yield* Effect.flip(network.registerSpec([{ family: "models" }, { family: "account" }]))
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "[1].baseUrl" })
      expect(yield* network.routes).toHaveLength(1)
    }).pipe(Effect.provide(SimulationNetwork.layer()))
  )

  it.effect("a loopback route aimed at another host is LoopbackDenied and changes nothing", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const error = yield* Effect.flip(
        network.register([Route.text(`GET ${base}/x`, "x"), Route.loopback("https://example.com/{*path}")])
      )
      expect(error._tag).toBe("LoopbackDenied")
      expect(yield* network.routes).toEqual([])
    }).pipe(Effect.provide(SimulationNetwork.layer()))
  )
})

describe("the request log", () => {
  it.effect("records time from Clock, redacts credentials, summarises bodies, names route or denial", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_700_000_000_000)
      const network = yield* SimulationNetwork
      yield* HttpClient.execute(
        HttpClientRequest.post(`${base}/login`).pipe(
          HttpClientRequest.setHeaders({
            authorization: "Bearer secret",
            "x-api-key": "k",
            "api-key": "k2",
            cookie: "s=1",
            "x-trace": "t"
          }),
          HttpClientRequest.bodyText("user=ada")
        )
      )
      yield* Effect.flip(HttpClient.get(`${base}/nope`))
      const [first, second] = yield* network.log
      expect(first).toMatchObject({
        seq: 1,
        time: 1_700_000_000_000,
        method: "POST",
        url: `${base}/login`,
        body: { size: 8, preview: "user=ada" },
        route: { id: "login", kind: "status", source: "code" },
        status: 204
      })
      expect(first.headers).toMatchObject({
        authorization: "<redacted>",
        "x-api-key": "<redacted>",
        "api-key": "<redacted>",
        cookie: "<redacted>",
        "x-trace": "t"
      })
      expect(second).toMatchObject({ seq: 2, denial: "UnregisteredRequest", route: undefined })
      expect(yield* network.unused).toEqual([expect.objectContaining({ id: "never" })])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.status(`POST ${base}/login`, 204, { id: "login" }),
            Route.status(`GET ${base}/never`, 204, { id: "never" })
          ]
        })
      )
    )
  )

  it.effect("the ring is bounded by logLimit while counters stay exact", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      for (let i = 0; i < 25; i++) yield* HttpClient.get(`${base}/ping`)
      const log = yield* network.log
      expect(log.map((r) => r.seq)).toEqual([21, 22, 23, 24, 25])
      expect(yield* network.counters).toEqual({
        requests: 25,
        answered: 25,
        denied: 0,
        faulted: 0,
        byRoute: { ping: 25 }
      })
      expect((yield* network.logSince(23)).map((r) => r.seq)).toEqual([24, 25])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({ logLimit: 5, routes: [Route.status(`GET ${base}/ping`, 204, { id: "ping" })] })
      )
    )
  )

  it.effect("reset goes back to the initial routes with an empty log", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* network.register(Route.text(`GET ${base}/extra`, "x", { id: "extra" }))
      yield* HttpClient.get(`${base}/ping`)
      yield* network.reset
      expect((yield* network.routes).map((r) => [r.id, r.hits])).toEqual([["ping", 0]])
      expect(yield* network.log).toEqual([])
    }).pipe(
      Effect.provide(SimulationNetwork.layer({ routes: [Route.status(`GET ${base}/ping`, 204, { id: "ping" })] }))
    )
  )
})

describe("isolation", () => {
  it.effect("networks share nothing, and 10 000 of them live in one process", () =>
    Effect.gen(function* () {
      const networks = yield* Effect.forEach(
        Array.from({ length: 10_000 }, (_, i) => i),
        (i) => SimulationNetwork.make({ seed: i, routes: [Route.text(`GET ${base}/n`, String(i), { id: "n" })] })
      )
      const answers = yield* Effect.forEach([0, 4_999, 9_999], (i) =>
        HttpClient.get(`${base}/n`).pipe(
          Effect.flatMap((r) => r.text),
          Effect.provideService(HttpClient.HttpClient, networks[i].httpClient)
        )
      )
      expect(answers).toEqual(["0", "4999", "9999"])
      yield* networks[1].register(Route.text(`GET ${base}/only-in-1`, "x"))
      expect((yield* networks[1].routes).length).toBe(2)
      expect((yield* networks[2].routes).length).toBe(1)
      expect((yield* networks[0].log).length).toBe(1)
      expect((yield* networks[2].log).length).toBe(0)
    })
  )
})

describe("bad input and edge cases", () => {
  it.effect("statuses a Response cannot carry, bad headers and bad delays are refused at registration", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const refused = [
        [Route.status(`GET ${base}/a`, 100), "respond.status"],
        [Route.status(`GET ${base}/a`, 1000), "respond.status"],
        [Route.text(`GET ${base}/a`, "x", { status: 99 }), "respond.status"],
        [Route.text(`GET ${base}/a`, "x", { headers: { "bad header": "x" } }), "respond.headers.bad header"],
        // Past 0xFF and control characters: undici or Node's server would refuse to write them.
        [Route.text(`GET ${base}/a`, "x", { headers: { "x-cup": "tea \u2615" } }), "respond.headers.x-cup"],
        [Route.status(`GET ${base}/a`, 200, { headers: { "x-bell": "a\u0007b" } }), "respond.headers.x-bell"],
        [Route.text(`GET ${base}/a`, "x", { delay: "soon" as never }), "delay"],
        [Route.text(`GET ${base}/a`, "x", { delay: -5 }), "delay"],
        [Route.json(`GET ${base}/a`, Item, { status: 1000 }), "respond.status"],
        [Route.json(`GET ${base}/a`, Item, { status: 204 }), "respond.status"],
        [Route.text(`GET ${base}/a`, "x", { status: 304 }), "respond.status"],
        [Route.status(`GET ${base}/a`, 204, { body: "no" }), "respond.status"]
      ] as const
      for (const [route, path] of refused) {
        const error = yield* Effect.flip(network.register(route))
        expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path })
      }
      const specError = yield* Effect.flip(
        network.registerSpec({ match: `GET ${base}/a`, respond: { kind: "status", status: 101 } })
      )
      expect(specError).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.status" })
      const noBody = yield* Effect.flip(
        network.registerSpec({ match: `GET ${base}/a`, respond: { kind: "text", body: "", status: 205 } })
      )
      expect(noBody).toMatchObject({ _tag: "InvalidRouteSpec", path: "respond.status" })
      expect(yield* network.routes).toEqual([])
    }).pipe(Effect.provide(SimulationNetwork.layer()))
  )

  it.effect("a bad logLimit is an InvalidNetworkOption naming the option", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(SimulationNetwork.make({ logLimit: Number.NaN }))
      expect(error).toMatchObject({ _tag: "InvalidNetworkOption", option: "logLimit" })
      expect(error.message).toBe(
        "simnet: invalid network option logLimit: must be a whole number of at least 0, got NaN"
      )
    })
  )

  it.effect(
    "the options that are data are decoded with a Schema: redact.words is taken, a typo names the nearest key, a bad name its index",
    () =>
      Effect.gen(function* () {
        const network = yield* SimulationNetwork.make({ redact: { words: ["pin"] } })
        expect(network.redactor.isCredentialQuery("user_pin")).toBe(true)
        const typo = yield* Effect.flip(SimulationNetwork.make({ redact: { header: ["x-a"] } as never }))
        expect(typo).toMatchObject({ _tag: "InvalidNetworkOption", option: "redact.header" })
        expect(typo.message).toContain("did you mean headers?")
        const empty = yield* Effect.flip(SimulationNetwork.make({ redact: { words: ["pin", ""] } }))
        expect(empty).toMatchObject({ _tag: "InvalidNetworkOption", option: "redact.words[1]" })
        const bytes = yield* Effect.flip(SimulationNetwork.make({ logBytes: -1 }))
        expect(bytes.message).toBe(
          "simnet: invalid network option logBytes: must be a whole number of at least 0, got -1"
        )
      })
  )

  it.effect("a fixture's registration errors name routes[i], counting families as one entry", () =>
    Effect.gen(function* () {
      const fixture = yield* decodeFixture({
        routes: [{ family: "share" }, { match: `GET ${base}/x`, respond: { kind: "text", body: "x" }, times: 0 }]
      })
      const error = yield* Effect.flip(SimulationNetwork.make({ routes: fixture.routes }))
      expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "routes[1].times" })
    })
  )

  it.effect(
    "patterns with spaces and non-ASCII match the percent-encoded request path; malformed escapes do not throw",
    () =>
      Effect.gen(function* () {
        const text = (url: string) => HttpClient.get(url).pipe(Effect.flatMap((r) => r.text))
        expect(yield* text(`${base}/café/a b`)).toBe("encoded")
        expect(yield* text(`${base}/files/%E0%A4%A`)).toBe("%E0%A4%A")
        expect(yield* text(`${base}/tags?tag=a&tag=b`)).toBe("repeated")
      }).pipe(
        Effect.provide(
          SimulationNetwork.layer({
            routes: [
              Route.text(`GET ${base}/café/a b`, "encoded"),
              Route.handler(`GET ${base}/files/:name`, (req) => new Response(req.params.name)),
              Route.text(`GET ${base}/tags?tag=b`, "repeated")
            ]
          })
        )
      )
  )

  it.effect("a throwing predicate denies the request with RouteFailed; counters tell answered from denied", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      const thrown = yield* Effect.flip(HttpClient.get(`${base}/boom`))
      expect(thrown.cause).toMatchObject({ _tag: "RouteFailed" })
      const failed = yield* Effect.flip(HttpClient.get(`${base}/handler-fails`))
      expect(failed.cause).toMatchObject({ _tag: "RouteFailed", route: "fails" })
      yield* HttpClient.get(`${base}/ok`)
      expect(yield* network.counters).toEqual({
        requests: 3,
        answered: 1,
        denied: 2,
        faulted: 0,
        byRoute: { fails: 1, ok: 1 }
      })
      expect((yield* network.log).map((r) => r.denial ?? r.status)).toEqual(["RouteFailed", "RouteFailed", 200])
    }).pipe(
      Effect.provide(
        SimulationNetwork.layer({
          routes: [
            Route.text(
              {
                url: (url) => {
                  if (url.pathname === "/boom") throw new Error("predicate exploded")
                  return false
                }
              },
              "never"
            ),
            Route.handler(
              `GET ${base}/handler-fails`,
              () => {
                throw new Error("handler exploded")
              },
              { id: "fails" }
            ),
            Route.text(`GET ${base}/ok`, "ok", { id: "ok" })
          ]
        })
      )
    )
  )
})

describe("initial model scripts", () => {
  it.effect("an invalid script passed in code is an InvalidLlmInput naming the script and llm[i], not a defect", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        SimulationNetwork.make({
          llm: [
            { steps: [[{ type: "text", content: "ok" }]] },
            { steps: [[{ type: "http_error", status: 600, message: "x" }]] }
          ]
        })
      )
      expect(error).toMatchObject({ _tag: "InvalidLlmInput", input: "script" })
      expect((error as { path: string }).path).toMatch(/^llm\[1\]\.steps\[0\]\[0\]\.status/)
    })
  )
})

describe("counters", () => {
  it.effect("per-route counts stay exact after a route is removed", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* HttpClient.get(`${base}/ping`)
      yield* network.unregister("ping")
      yield* network.register(Route.status(`GET ${base}/ping`, 204, { id: "ping" }))
      yield* HttpClient.get(`${base}/ping`)
      expect((yield* network.counters).byRoute).toEqual({ ping: 2 })
      yield* network.reset
      expect((yield* network.counters).byRoute).toEqual({})
    }).pipe(
      Effect.provide(SimulationNetwork.layer({ routes: [Route.status(`GET ${base}/ping`, 204, { id: "ping" })] }))
    )
  )
})
