import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Schema } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { Route, Routes, RouteSpec, Schemas, SimulationNetwork, type InvalidRouteSpec } from "simnet"

const { Account, Installation, Share } = Schemas
const { Catalog } = Schemas.Models
const { SkillIndex } = Schemas.Skills
const { decodeRouteSpecs } = RouteSpec

const decodeJson =
  <S extends Schema.Codec<any, any>>(schema: S) =>
  (response: HttpClientResponse.HttpClientResponse) =>
    HttpClientResponse.filterStatusOk(response).pipe(Effect.flatMap(HttpClientResponse.schemaBodyJson(schema)))

const context = Routes.defaultDecodeContext

/** The error registering `routes` fails with (a family never throws; it is refused at registration). */
const registrationError = (routes: ReadonlyArray<Route.Route>) =>
  Effect.runPromise(Effect.flip(Effect.flatMap(SimulationNetwork.make(), (network) => network.register(routes))))

describe("Routes.models", () => {
  it.effect(
    "answers the real catalog by default: well-known models as they are, decoding under the full schema, the same bytes on every run",
    () =>
      Effect.gen(function* () {
        const catalog = yield* HttpClient.get("https://models.dev/api.json").pipe(Effect.flatMap(decodeJson(Catalog)))
        expect(Object.keys(catalog)).toEqual(["openai", "anthropic", "google", "amazon-bedrock", "mistral"])
        for (const [key, provider] of Object.entries(catalog)) {
          expect(provider.id).toBe(key)
          for (const [id, model] of Object.entries(provider.models)) {
            expect(model.id).toBe(id)
            expect(model.cost?.output, id).toBeGreaterThan(0)
            expect(model.modalities?.input, id).toContain("text")
          }
        }
        const gpt4o = catalog.openai.models["gpt-4o"]
        expect([gpt4o.name, gpt4o.tool_call, gpt4o.reasoning, gpt4o.limit.context, gpt4o.modalities?.input]).toEqual([
          "GPT-4o",
          true,
          false,
          128_000,
          ["text", "image"]
        ])
        expect([catalog.openai.models["o3"].reasoning, catalog.openai.models["o3"].temperature]).toEqual([true, false])
        expect(catalog.anthropic.models["claude-sonnet-4-5"]).toMatchObject({
          reasoning: true,
          tool_call: true,
          cost: { input: 3, output: 15 }
        })
      }).pipe(Effect.provide(SimulationNetwork.layer({ routes: Routes.models() })))
  )

  it("the same catalog with every seed by default; { generated: true } varies with the seed and is byte-identical for one", async () => {
    const body = async (seed: number, generated?: boolean) => {
      const handle = await SimulationNetwork.start({ seed, routes: Routes.models(undefined, { generated }) })
      const text = await (await handle.fetch("https://models.dev/api.json")).text()
      await handle.close()
      return text
    }
    expect(await body(1)).toBe(await body(2))
    expect(await body(1, true)).toBe(await body(1, true))
    expect(await body(1, true)).not.toBe(await body(2, true))
    const fixture = await SimulationNetwork.start({ seed: 1, routes: [] })
    await fixture.registerSpec({ family: "models", generated: true })
    expect(await (await fixture.fetch("https://models.dev/api.json")).text()).toBe(await body(1, true))
  })

  it("generated: unrelated requests before, between or concurrently change nothing", async () => {
    const routes = [...Routes.models(undefined, { generated: true }), ...Routes.share()]
    const quiet = await SimulationNetwork.start({ seed: 9, routes })
    const alone = await (await quiet.fetch("https://models.dev/api.json")).text()
    const busy = await SimulationNetwork.start({
      seed: 9,
      routes: [...Routes.share(), ...Routes.models(undefined, { generated: true })]
    })
    await busy.fetch("https://opncd.ai/api/share", { method: "POST" })
    const [first] = await Promise.all([
      busy.fetch("https://models.dev/api.json").then((r) => r.text()),
      busy.fetch("https://opncd.ai/api/share", { method: "POST" }),
      busy.fetch("https://opncd.ai/api/share", { method: "POST", body: "{}" })
    ])
    expect(first).toBe(alone)
    const second = await (await quiet.fetch("https://models.dev/api.json")).text()
    expect(second).not.toBe(alone)
    expect(await (await busy.fetch("https://models.dev/api.json")).text()).toBe(second)
  })

  it("generated: regenerate reproduces a logged body from its seed", async () => {
    const handle = await SimulationNetwork.start({ seed: 3, routes: Routes.models(undefined, { generated: true }) })
    const served = await (await handle.fetch("https://models.dev/api.json")).text()
    const [record] = handle.log()
    const [route] = Routes.models(undefined, { generated: true })
    expect(await Effect.runPromise(route.regenerate!(record.seed!))).toBe(served)
  })
})

describe("Routes.account", () => {
  const base = "https://console.example.com"

  it.effect("runs a device authorization and reads user, orgs and config", () =>
    Effect.gen(function* () {
      const code = yield* HttpClient.post(`${base}/auth/device/code`).pipe(
        Effect.flatMap(decodeJson(Account.DeviceCode))
      )
      expect(Duration.toSeconds(code.interval)).toBe(5)
      expect(code.verification_uri).toBe(`${base}/device`)
      expect(code.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/)
      const token = yield* HttpClient.execute(
        HttpClientRequest.post(`${base}/auth/device/token`).pipe(
          HttpClientRequest.bodyJsonUnsafe({ device_code: code.device_code })
        )
      ).pipe(Effect.flatMap(decodeJson(Account.DeviceTokenResponse)))
      expect("access_token" in token && Duration.toSeconds(token.expires_in)).toBe(3600)
      const refreshed = yield* HttpClient.post(`${base}/auth/token`).pipe(
        Effect.flatMap(decodeJson(Account.TokenSuccess))
      )
      expect(refreshed.token_type).toBe("Bearer")
      const user = yield* HttpClient.get(`${base}/api/user`).pipe(Effect.flatMap(decodeJson(Account.User)))
      expect(user.email).toContain("@")
      const orgs = yield* HttpClient.get(`${base}/api/orgs`).pipe(Effect.flatMap(decodeJson(Account.Orgs)))
      expect(orgs.length).toBeGreaterThan(0)
      yield* HttpClient.get(`${base}/api/config`).pipe(Effect.flatMap(decodeJson(Account.RemoteConfig)))
    }).pipe(Effect.provide(SimulationNetwork.layer({ routes: Routes.account(base) })))
  )

  it.effect("a test overrides one family route: the pending branch of the device flow", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork
      yield* network.register(
        Route.json(`POST ${base}/auth/device/token`, Account.DeviceTokenResponse, {
          narrow: Schema.Struct({ error: Schema.Literal("authorization_pending") }),
          status: 400,
          times: 1
        })
      )
      const pending = yield* HttpClient.post(`${base}/auth/device/token`)
      expect(pending.status).toBe(400)
      expect(yield* HttpClientResponse.schemaBodyJson(Account.DeviceTokenResponse)(pending)).toEqual({
        error: "authorization_pending"
      })
      const granted = yield* HttpClient.post(`${base}/auth/device/token`).pipe(
        Effect.flatMap(decodeJson(Account.TokenSuccess))
      )
      expect(granted.access_token).toMatch(/^at_/)
    }).pipe(Effect.provide(SimulationNetwork.layer({ routes: Routes.account(base) })))
  )

  it("needs a base URL: the family does not throw, and registering it is refused at baseUrl", async () => {
    const routes = Routes.account("")
    expect(await registrationError(routes)).toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "[0].baseUrl",
      message: expect.stringMatching(/needs a baseUrl/)
    })
  })
})

describe("Routes.share, Routes.skills, Routes.installation", () => {
  it("share: create answers {id, url, secret}; sync and remove are status-only", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.share() })
    const created = Schema.decodeUnknownSync(Share.ShareCreated)(
      await (await handle.fetch("https://opncd.ai/api/share", { method: "POST" })).json()
    )
    expect(created.url).toMatch(/^https:\/\/opncd\.ai\/s\/[A-Za-z0-9]{8}$/)
    const sync = await handle.fetch(`https://opncd.ai/api/share/${created.id}/sync`, { method: "POST", body: "{}" })
    expect(sync.status).toBe(204)
    expect((await handle.fetch(`https://opncd.ai/api/share/${created.id}`, { method: "DELETE" })).status).toBe(204)
  })

  it("skills: the index lists skills and every listed file is served as text, for any seed", async () => {
    const base = "https://skills.example.com/v1"
    for (let seed = 0; seed < 12; seed++) {
      const handle = await SimulationNetwork.start({ seed, routes: Routes.skills(base) })
      const index = Schema.decodeUnknownSync(SkillIndex)(await (await handle.fetch(`${base}/index.json`)).json())
      expect(index.skills.length).toBeGreaterThan(0)
      for (const skill of index.skills) {
        for (const file of skill.files) {
          const response = await handle.fetch(`${base}/${skill.name}/${file}`)
          expect(response.status).toBe(200)
          expect(await response.text()).toContain(skill.name)
        }
      }
    }
  })

  it("skills: a skill or file no index can list answers 404 with a JSON error", async () => {
    const base = "https://skills.example.com/v1"
    const handle = await SimulationNetwork.start({ routes: Routes.skills(base) })
    for (const path of [
      "pdf/missing.md",
      "pdf/scripts/other.sh",
      "no-such-skill/SKILL.md",
      "no-such-skill/scripts/run.sh"
    ]) {
      const response = await handle.fetch(`${base}/${path}`)
      expect(response.status).toBe(404)
      expect(response.headers.get("content-type")).toContain("application/json")
      expect(await response.json()).toMatchObject({ error: "not_found" })
    }
    expect((await handle.fetch(`${base}/pdf/SKILL.md`)).status).toBe(200)
    expect((await handle.fetch(`${base}/code-review/scripts/run.sh`)).status).toBe(200)
  })

  it("installation: GitHub release, npm dist-tags and Homebrew metadata for a self-update check", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.installation() })
    const release = Schema.decodeUnknownSync(Installation.GitHubRelease)(
      await (await handle.fetch("https://api.github.com/repos/acme/app/releases/latest")).json()
    )
    expect(release.tag_name).toMatch(/^v\d+\.\d+\.\d+$/)
    const packument = Schema.decodeUnknownSync(Installation.NpmPackument)(
      await (await handle.fetch("https://registry.npmjs.org/acme-cli")).json()
    )
    expect(packument["dist-tags"].latest).toMatch(/^\d+\.\d+\.\d+$/)
    Schema.decodeUnknownSync(Installation.NpmVersion)(
      await (await handle.fetch("https://registry.npmjs.org/acme-cli/latest")).json()
    )
    Schema.decodeUnknownSync(Installation.BrewFormula)(
      await (await handle.fetch("https://formulae.brew.sh/api/formula/acme.json")).json()
    )
  })
})

describe("RouteSpec: jsonSchema kind and family references", () => {
  it.effect("a fixture names a family and a shipped schema by ref", () =>
    Effect.gen(function* () {
      const decoded = yield* decodeRouteSpecs(
        [
          { family: "models" },
          {
            id: "orgs",
            match: "GET https://console.example.com/api/orgs",
            respond: { kind: "jsonSchema", schema: { ref: "account.orgs" } }
          }
        ],
        context
      )
      const network = yield* SimulationNetwork.make({ routes: decoded.routes })
      const orgs = yield* Effect.promise(() =>
        network.fetch("https://console.example.com/api/orgs").then((r) => r.json())
      )
      expect(Schema.decodeUnknownSync(Account.Orgs)(orgs).length).toBeGreaterThan(0)
      const catalog = yield* Effect.promise(() => network.fetch("https://models.dev/api.json").then((r) => r.json()))
      expect(Object.keys(Schema.decodeUnknownSync(Catalog)(catalog))).toContain("openai")
    })
  )

  it.effect("a JSON Schema document (2020-12 and draft-07) answers values that validate", () =>
    Effect.gen(function* () {
      const document = {
        type: "object",
        properties: {
          id: { type: "string", format: "uuid" },
          count: { type: "integer", minimum: 1, maximum: 9 },
          tags: { type: "array", items: { type: "string", pattern: "^[a-z]{3}$" }, maxItems: 3 }
        },
        required: ["id", "count", "tags"],
        additionalProperties: false
      }
      const decoded = yield* decodeRouteSpecs(
        [
          {
            match: "GET https://api.example.com/a",
            respond: { kind: "jsonSchema", schema: { jsonSchema: document }, status: 202 }
          },
          {
            match: "GET https://api.example.com/b",
            respond: {
              kind: "jsonSchema",
              schema: { jsonSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...document } }
            }
          }
        ],
        context
      )
      const network = yield* SimulationNetwork.make({ routes: decoded.routes })
      for (const path of ["a", "b"]) {
        const response = yield* Effect.promise(() => network.fetch(`https://api.example.com/${path}`))
        expect(response.status).toBe(path === "a" ? 202 : 200)
        const value = yield* Effect.promise(() => response.json())
        expect(value.count).toBeGreaterThanOrEqual(1)
        expect(value.count).toBeLessThanOrEqual(9)
        for (const tag of value.tags) expect(tag).toMatch(/^[a-z]{3}$/)
      }
    })
  )

  it.effect("a JSON Schema that does not convert names its JSON pointer", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        decodeRouteSpecs(
          [
            {
              match: "GET https://api.example.com/a",
              respond: {
                kind: "jsonSchema",
                schema: {
                  jsonSchema: { type: "object", properties: { a: { type: "array", contains: { type: "string" } } } }
                }
              }
            }
          ],
          context
        )
      )
      expect(error).toMatchObject({
        _tag: "InvalidRouteSpec",
        path: "[0].respond.schema.jsonSchema#/properties/a/contains"
      })
    })
  )

  it.effect("an unknown ref lists the known names", () =>
    Effect.gen(function* () {
      const error = (yield* Effect.flip(
        decodeRouteSpecs(
          { match: "GET https://x.example.com/", respond: { kind: "jsonSchema", schema: { ref: "models.catalogue" } } },
          context
        )
      )) as InvalidRouteSpec
      expect(error.path).toBe("respond.schema.ref")
      expect(error.message).toContain("models.catalog")
      expect(error.message).toContain("account.orgs")
    })
  )

  it.effect("an ungeneratable schema fails at registration, not at the first request", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make()
      const error = yield* Effect.flip(
        network.register(
          Route.json("GET https://x.example.com/", Schema.Struct({ n: Schema.Never }) as Schema.Codec<unknown, unknown>)
        )
      )
      expect(error._tag).toBe("InvalidRouteSpec")
      expect(yield* network.routes).toEqual([])
    })
  )
})

describe("Routes.openapi", () => {
  const document = {
    openapi: "3.0.3",
    info: { title: "Pets", version: "1" },
    paths: {
      "/pets": {
        get: {
          operationId: "listPets",
          responses: {
            "200": {
              description: "ok",
              content: {
                "application/json": {
                  schema: { type: "array", items: { $ref: "#/components/schemas/Pet" }, maxItems: 4 }
                }
              }
            }
          }
        },
        post: { operationId: "createPet", responses: { "201": { description: "created" } } }
      },
      "/pets/{petId}": {
        get: {
          operationId: "showPet",
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } }
            },
            default: { description: "error" }
          }
        }
      }
    },
    components: {
      schemas: {
        Pet: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "integer", format: "int64" },
            name: { type: "string" },
            tag: { type: "string", nullable: true }
          }
        }
      }
    }
  }

  it("every operation answers its success response schema", async () => {
    const routes = Routes.openapi(document, { baseUrl: "https://petstore.example.com/v1" })
    // Ids are prefixed by where the operations live, so documents that share an operationId stay apart.
    expect(routes.map((r) => r.id).sort()).toEqual([
      "petstore.example.com/v1:createPet",
      "petstore.example.com/v1:listPets",
      "petstore.example.com/v1:showPet"
    ])
    expect(
      Routes.openapi(document, { baseUrl: "https://petstore.example.com/v1", idPrefix: "" })
        .map((r) => r.id)
        .sort()
    ).toEqual(["createPet", "listPets", "showPet"])
    const handle = await SimulationNetwork.start({ routes })
    const pets = await (await handle.fetch("https://petstore.example.com/v1/pets")).json()
    expect(Array.isArray(pets)).toBe(true)
    const pet = await (await handle.fetch("https://petstore.example.com/v1/pets/7")).json()
    expect(typeof pet.id).toBe("number")
    expect(typeof pet.name).toBe("string")
    expect(pet.tag === undefined || pet.tag === null || typeof pet.tag === "string").toBe(true)
    expect((await handle.fetch("https://petstore.example.com/v1/pets", { method: "POST" })).status).toBe(201)
  })

  it("path parameters of any name match one segment; literal text around them stays literal", async () => {
    const ok = {
      "200": {
        description: "ok",
        content: {
          "application/json": { schema: { type: "object", required: ["ok"], properties: { ok: { const: true } } } }
        }
      }
    }
    const routes = Routes.openapi(
      {
        openapi: "3.1.0",
        paths: {
          "/pets/{pet-id}/toys/{toy_id}": { get: { operationId: "toy", responses: ok } },
          "/models/{model}:generate": { post: { operationId: "generate", responses: ok } },
          "/files/{name}.json": { get: { operationId: "file", responses: ok } }
        }
      },
      { baseUrl: "https://api.example.com" }
    )
    const handle = await SimulationNetwork.start({ routes })
    for (const [method, path] of [
      ["GET", "/pets/7/toys/ball"],
      ["POST", "/models/gpt-4o:generate"],
      ["GET", "/files/report.json"]
    ]) {
      const response = await handle.fetch(`https://api.example.com${path}`, { method })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ ok: true })
    }
    for (const path of ["/pets/7/toys", "/pets/7/x/toys/ball", "/files/report.yaml"]) {
      await expect(handle.fetch(`https://api.example.com${path}`)).rejects.toThrow("fetch failed")
    }
    await expect(handle.fetch("https://api.example.com/models/gpt-4o", { method: "POST" })).rejects.toThrow(
      "fetch failed"
    )
  })

  it("an operation without a 2xx response schema answers its status with an empty body; text/plain answers text", async () => {
    const json = { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } }
    const routes = Routes.openapi(
      {
        openapi: "3.0.3",
        paths: {
          "/a": { post: { operationId: "created", responses: { "201": { description: "created" } } } },
          "/b": { delete: { operationId: "deleted", responses: { "204": { description: "gone", content: json } } } },
          "/c": {
            get: {
              operationId: "text",
              responses: { "200": { description: "ok", content: { "text/plain": { schema: { type: "string" } } } } }
            }
          },
          "/d": {
            get: {
              operationId: "redirect",
              responses: { "404": { description: "missing" }, "302": { description: "moved" } }
            }
          },
          "/e": { get: { operationId: "undocumented", responses: {} } }
        }
      },
      { baseUrl: "https://api.example.com" }
    )
    const handle = await SimulationNetwork.start({ routes })
    const answers: Array<readonly [string, string, number]> = [
      ["POST", "/a", 201],
      ["DELETE", "/b", 204],
      ["GET", "/d", 302],
      ["GET", "/e", 200]
    ]
    for (const [method, path, status] of answers) {
      const response = await handle.fetch(`https://api.example.com${path}`, { method, redirect: "manual" })
      expect([path, response.status]).toEqual([path, status])
      expect(await response.text()).toBe("")
    }
    const text = await handle.fetch("https://api.example.com/c")
    expect(text.headers.get("content-type")).toBe("text/plain")
    expect(await text.text()).toMatch(/^[a-z]+$/)
  })

  it("servers[0].url: its path prefix is kept under an origin-only baseUrl, and is the base without one", async () => {
    const doc = (url: string) => ({
      openapi: "3.1.0",
      servers: [{ url, variables: { version: { default: "v2" } } }],
      paths: { "/pets": { get: { operationId: "listPets", responses: { "204": { description: "none" } } } } }
    })
    const urls = (document: unknown, baseUrl?: string) =>
      Routes.openapi(document, { baseUrl }).map((route) => route.matcher.source)
    expect(urls(doc("https://petstore.io/{version}"), "https://mock.example.com")).toEqual([
      "GET https://mock.example.com/v2/pets"
    ])
    expect(urls(doc("/api/v1/"), "https://mock.example.com/")).toEqual(["GET https://mock.example.com/api/v1/pets"])
    expect(urls(doc("https://petstore.io/v2"), "https://mock.example.com/base")).toEqual([
      "GET https://mock.example.com/base/pets"
    ])
    expect(urls(doc("https://petstore.io/{version}"))).toEqual(["GET https://petstore.io/v2/pets"])
    expect(await registrationError(Routes.openapi(doc("/api/v1")))).toMatchObject({
      path: "[0].openapi#/servers/0/url",
      message: expect.stringMatching(/needs a baseUrl/)
    })
    const handle = await SimulationNetwork.start({
      routes: Routes.openapi(doc("https://petstore.io/v1"), { baseUrl: "https://mock.example.com" })
    })
    expect((await handle.fetch("https://mock.example.com/v1/pets")).status).toBe(204)
  })

  it("a schema that does not convert: that operation is not served, naming its pointer; the document registers", async () => {
    const bad = {
      openapi: "3.1.0",
      paths: {
        "/x": {
          get: {
            responses: {
              "200": { content: { "application/json": { schema: { type: "array", contains: { type: "string" } } } } }
            }
          }
        },
        "/y": { get: { responses: { "200": { content: { "application/json": { schema: { type: "string" } } } } } } }
      }
    }
    const network = await SimulationNetwork.start({ routes: Routes.openapi(bad, { baseUrl: "https://x.example.com" }) })
    const listed = network.routes() as unknown as Array<{ operation: string; refused?: string }>
    expect(listed.map((r) => [r.operation, r.refused])).toEqual([
      [
        "GET /x",
        expect.stringMatching(
          /^openapi#\/paths\/~1x\/get\/responses\/200\/content\/application~1json\/schema\/contains: .*contains/
        )
      ],
      ["GET /y", undefined]
    ])
    expect((await network.fetch("https://x.example.com/x")).status).toBe(501)
    expect((await network.fetch("https://x.example.com/y")).status).toBe(200)
  })
})

describe("installation at another registry", () => {
  it("Routes.installation(registryUrl) and a fixture's baseUrl serve npm metadata there; a base that is not a URL is refused at registration", async () => {
    const inCode = await SimulationNetwork.start({ routes: Routes.installation("https://npm.internal.example/") })
    const packument = await inCode.fetch("https://npm.internal.example/simnet")
    expect(packument.status).toBe(200)
    expect(await packument.json()).toHaveProperty("dist-tags")
    await expect(inCode.fetch("https://registry.npmjs.org/simnet")).rejects.toThrow()
    const fromJson = await SimulationNetwork.start()
    await fromJson.registerSpec({ family: "installation", baseUrl: "https://npm.internal.example" })
    expect((await fromJson.fetch("https://npm.internal.example/simnet/latest")).status).toBe(200)
    const bad = await SimulationNetwork.start()
    expect(await bad.registerSpec({ family: "installation", baseUrl: "not a url" }).catch((e) => e)).toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "baseUrl"
    })
  })
})
