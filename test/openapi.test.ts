/**
 * Routes.openapi behaves as Prism does: references resolved, examples served, `Prefer` honoured,
 * requests validated (422 in Prism's shape, logged), content negotiated, response headers
 * generated, values realistic.
 */
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const base = "https://api.example.com"

const json = (schema: unknown, extra: Record<string, unknown> = {}) => ({ "application/json": { schema, ...extra } })

const Pet = {
  type: "object",
  required: ["id", "name"],
  properties: {
    id: { type: "integer", format: "int64", minimum: 1 },
    name: { type: "string" },
    email: { type: "string" },
    homepage: { type: "string" },
    createdAt: { type: "string" },
    tags: { type: "array", items: { type: "string" } }
  }
}

const document = {
  openapi: "3.1.0",
  info: { title: "Pets", version: "1" },
  servers: [{ url: "https://pets.example.com/v1" }],
  paths: {
    "/pets": {
      get: {
        operationId: "listPets",
        parameters: [
          { $ref: "#/components/parameters/Limit" },
          { name: "X-Request-Id", in: "header", required: true, schema: { type: "string", format: "uuid" } }
        ],
        responses: {
          "200": {
            description: "pets",
            headers: {
              "X-Rate-Limit": { schema: { type: "integer", minimum: 0, maximum: 100 } },
              "X-Next": { schema: { type: "string", format: "uri" } }
            },
            content: json({ type: "array", maxItems: 3, items: { $ref: "#/components/schemas/Pet" } })
          }
        }
      },
      post: {
        operationId: "createPet",
        requestBody: { $ref: "#/components/requestBodies/NewPet" },
        responses: { "201": { $ref: "#/components/responses/OnePet" } }
      }
    },
    "/pets/{petId}": {
      parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
      get: {
        operationId: "showPet",
        responses: {
          "200": {
            description: "a pet",
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/Pet" },
                examples: {
                  rex: { value: { id: 1, name: "Rex" } },
                  tom: { value: { id: 2, name: "Tom" } }
                }
              },
              "text/plain": { schema: { type: "string" }, example: "Rex the dog" }
            }
          },
          "404": {
            description: "missing",
            content: json({ $ref: "#/components/schemas/Error" }, { example: { code: 404, message: "no such pet" } })
          },
          default: { description: "error", content: json({ $ref: "#/components/schemas/Error" }) }
        }
      }
    },
    "/tree": {
      get: {
        operationId: "tree",
        responses: { "200": { description: "a tree", content: json({ $ref: "#/components/schemas/Node" }) } }
      }
    }
  },
  components: {
    parameters: { Limit: { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 50 } } },
    requestBodies: { NewPet: { required: true, content: json({ $ref: "#/components/schemas/Pet" }) } },
    responses: { OnePet: { description: "the pet", content: json({ $ref: "#/components/schemas/Pet" }) } },
    schemas: {
      Pet,
      Error: {
        type: "object",
        required: ["code", "message"],
        properties: { code: { type: "integer" }, message: { type: "string" } }
      },
      Node: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          children: { type: "array", maxItems: 2, items: { $ref: "#/components/schemas/Node" } }
        }
      }
    }
  }
}

const start = (options: Parameters<typeof Routes.openapi>[1] = {}, seed = 1) =>
  SimulationNetwork.start({ seed, routes: Routes.openapi(document, { baseUrl: base, ...options }) })

const uuid = "3f0e7a52-8c1d-4c1e-9a57-1b2c3d4e5f60"

describe("Routes.openapi: references", () => {
  it("a response, request body and parameter declared by $ref are resolved; the answer has a body", async () => {
    const network = await start()
    const created = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 7, name: "Rex" })
    })
    expect(created.status).toBe(201)
    const pet = await created.json()
    expect(pet).toMatchObject({ id: expect.any(Number), name: expect.any(String) })
    const limited = await network.fetch(`${base}/v1/pets?limit=500`, { headers: { "x-request-id": uuid } })
    expect(limited.status).toBe(422)
  })

  it("a cycle (a tree of nodes) is served, and bounded", async () => {
    const network = await start()
    const tree = await (await network.fetch(`${base}/v1/tree`)).json()
    expect(typeof tree.name).toBe("string")
    const depth = (node: { children?: Array<unknown> }): number =>
      1 + Math.max(0, ...(node.children ?? []).map((c) => depth(c as never)))
    expect(depth(tree)).toBeLessThan(20)
  })

  it("an unresolvable $ref fails the registration, naming its JSON pointer", async () => {
    const broken = structuredClone(document) as any
    broken.paths["/pets/{petId}"].get.responses["200"] = { $ref: "#/components/responses/Missing" }
    const network = await SimulationNetwork.start()
    const error = await network.register(Routes.openapi(broken, { baseUrl: base })).catch((e) => e)
    expect(error).toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "[0].openapi#/paths/~1pets~1{petId}/get/responses/200/$ref",
      message: expect.stringContaining("#/components/responses/Missing")
    })
    expect(network.routes()).toEqual([])
  })
})

describe("Routes.openapi: examples and Prefer", () => {
  it("serves the first documented example; Prefer: example=name picks one; an unknown name is a 404 problem", async () => {
    const network = await start()
    expect(await (await network.fetch(`${base}/v1/pets/1`)).json()).toEqual({ id: 1, name: "Rex" })
    const tom = await network.fetch(`${base}/v1/pets/1`, { headers: { prefer: "example=tom" } })
    expect(await tom.json()).toEqual({ id: 2, name: "Tom" })
    const unknown = await network.fetch(`${base}/v1/pets/1`, { headers: { prefer: "example=felix" } })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({
      type: "urn:simnet:problem:NOT_FOUND",
      detail: expect.stringContaining("felix")
    })
  })

  it("Prefer: code=404 answers the documented 404 with its example; an undocumented code falls to default", async () => {
    const network = await start()
    const missing = await network.fetch(`${base}/v1/pets/1`, { headers: { prefer: "code=404" } })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ code: 404, message: "no such pet" })
    const teapot = await network.fetch(`${base}/v1/pets/1`, { headers: { prefer: "code=418" } })
    expect(teapot.status).toBe(418)
    expect(await teapot.json()).toMatchObject({ code: expect.any(Number), message: expect.any(String) })
    const created = await network.fetch(`${base}/v1/tree`, { headers: { prefer: "code=500" } })
    expect(created.status).toBe(404)
    expect(await created.json()).toMatchObject({ detail: "Requested status code 500 is not defined in the document." })
  })

  it("examples: false (or Prefer: dynamic=true) generates instead, seeded", async () => {
    const generated = await (await (await start({ examples: false })).fetch(`${base}/v1/pets/1`)).json()
    expect(generated).not.toEqual({ id: 1, name: "Rex" })
    expect(generated).toMatchObject({ id: expect.any(Number), name: expect.any(String) })
    const dynamic = await (await start()).fetch(`${base}/v1/pets/1`, { headers: { prefer: "dynamic=true" } })
    expect(await dynamic.json()).toEqual(generated)
  })
})

describe("Routes.openapi: request validation", () => {
  it("a body that breaks the schema gets 422 with the violations in Prism's shape, and the log records them", async () => {
    const network = await start()
    const response = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: 0, tags: "x" })
    })
    expect(response.status).toBe(422)
    expect(response.headers.get("content-type")).toBe("application/problem+json")
    const body = await response.json()
    expect(body).toMatchObject({
      type: "urn:simnet:problem:UNPROCESSABLE_ENTITY",
      title: "Invalid request",
      status: 422
    })
    expect(body.validation).toEqual([
      { location: ["body"], severity: "Error", code: "required", message: "must have required property 'name'" },
      { location: ["body", "id"], severity: "Error", code: "minimum", message: "must be >= 1" },
      { location: ["body", "tags"], severity: "Error", code: "type", message: "must be array" }
    ])
    expect(network.log()[0].violations).toEqual(body.validation)
  })

  it("path, query and header parameters are checked; a missing required body is named", async () => {
    const network = await start()
    const badPath = await (await network.fetch(`${base}/v1/pets/zero`)).json()
    expect(badPath.validation).toEqual([
      { location: ["path", "petId"], severity: "Error", code: "type", message: "must be integer" }
    ])
    const badQuery = await (await network.fetch(`${base}/v1/pets?limit=0`)).json()
    expect(badQuery.validation).toEqual([
      { location: ["query", "limit"], severity: "Error", code: "minimum", message: "must be >= 1" },
      {
        location: ["header"],
        severity: "Error",
        code: "required",
        message: "must have required property 'x-request-id'"
      }
    ])
    const noBody = await (await network.fetch(`${base}/v1/pets`, { method: "POST" })).json()
    expect(noBody.validation).toEqual([
      { location: ["body"], severity: "Error", code: "required", message: "Body parameter is required" }
    ])
    const ok = await network.fetch(`${base}/v1/pets?limit=2`, { headers: { "x-request-id": uuid } })
    expect(ok.status).toBe(200)
    expect(network.log().at(-1)!.violations).toBeUndefined()
  })

  it("a body in a media type the operation does not take is 415", async () => {
    const network = await start()
    const response = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "text/csv" },
      body: "a,b"
    })
    expect(response.status).toBe(415)
  })

  it("validate: false serves a request that breaks the operation", async () => {
    const network = await start({ validate: false })
    const response = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}"
    })
    expect(response.status).toBe(201)
  })

  it("in RouteSpec JSON the family takes validate and examples; a mistyped one names its path", async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec({ family: "openapi", document, baseUrl: base, validate: false, examples: false })
    const response = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}"
    })
    expect(response.status).toBe(201)
    const error = await network.registerSpec([{ family: "openapi", document, validate: "no" }]).catch((e) => e)
    expect(error).toMatchObject({ _tag: "InvalidRouteSpec", path: "[0].validate" })
  })

  it("an operation's own 400 response answers an invalid request, with the violations in sl-violations", async () => {
    const withOwn = structuredClone(document) as any
    withOwn.paths["/pets"].post.responses["400"] = {
      description: "bad",
      content: json({ $ref: "#/components/schemas/Error" }, { example: { code: 400, message: "bad pet" } })
    }
    const network = await SimulationNetwork.start({ routes: Routes.openapi(withOwn, { baseUrl: base }) })
    const response = await network.fetch(`${base}/v1/pets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}"
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ code: 400, message: "bad pet" })
    expect(JSON.parse(response.headers.get("sl-violations")!)).toHaveLength(2)
  })
})

describe("Routes.openapi: negotiation, headers, realism", () => {
  it("Accept picks among the declared media types; nothing acceptable is 406", async () => {
    const network = await start()
    const text = await network.fetch(`${base}/v1/pets/1`, { headers: { accept: "text/plain" } })
    expect(text.headers.get("content-type")).toBe("text/plain")
    expect(await text.text()).toBe("Rex the dog")
    const weighted = await network.fetch(`${base}/v1/pets/1`, {
      headers: { accept: "application/json;q=0.5, text/*;q=0.9" }
    })
    expect(weighted.headers.get("content-type")).toBe("text/plain")
    const any = await network.fetch(`${base}/v1/pets/1`, { headers: { accept: "*/*" } })
    expect(any.headers.get("content-type")).toBe("application/json")
    const refused = await network.fetch(`${base}/v1/pets/1`, { headers: { accept: "application/xml" } })
    expect(refused.status).toBe(406)
  })

  it("declared response headers are generated from their schemas, seeded", async () => {
    const network = await start()
    const response = await network.fetch(`${base}/v1/pets`, { headers: { "x-request-id": uuid } })
    const limit = Number(response.headers.get("x-rate-limit"))
    expect(Number.isInteger(limit) && limit >= 0 && limit <= 100).toBe(true)
    expect(response.headers.get("x-next")).toMatch(/^https:\/\//)
    const again = await (await start()).fetch(`${base}/v1/pets`, { headers: { "x-request-id": uuid } })
    expect(again.headers.get("x-rate-limit")).toBe(response.headers.get("x-rate-limit"))
  })

  it("fields without a format get values that follow their names; fields overrides them", async () => {
    const network = await start({ examples: false })
    const pets = await Promise.all([1, 2, 3].map(async (id) => (await network.fetch(`${base}/v1/pets/${id}`)).json()))
    for (const pet of pets) {
      expect(pet.email).toMatch(/^[a-z]+\.[a-z]+@[a-z]+\.[a-z]+$/)
      expect(pet.homepage).toMatch(/^https:\/\/[a-z]+\.[a-z.]+/)
      expect(Number.isNaN(Date.parse(pet.createdAt))).toBe(false)
      expect(pet.name).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/)
    }
    const overridden = await start({ examples: false, fields: { name: { values: ["Rex"] }, email: "plain" } })
    const pet = await (await overridden.fetch(`${base}/v1/pets/1`)).json()
    expect(pet.name).toBe("Rex")
    expect(pet.email).toMatch(/^[a-z]+$/)
  })

  it("a JSON Schema route in RouteSpec JSON gets the same realistic values by name", async () => {
    const network = await SimulationNetwork.start({ seed: 4 })
    await network.registerSpec({
      match: "GET https://api.example.com/me",
      respond: {
        kind: "jsonSchema",
        schema: {
          jsonSchema: {
            type: "object",
            required: ["userId", "email", "website", "updated_at", "country", "currency", "ip", "version"],
            properties: {
              userId: { type: "string" },
              email: { type: "string" },
              website: { type: "string" },
              updated_at: { type: "string" },
              country: { type: "string" },
              currency: { type: "string" },
              ip: { type: "string" },
              version: { type: "string" }
            }
          }
        }
      }
    })
    const me = await (await network.fetch("https://api.example.com/me")).json()
    expect(me.userId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(me.email).toMatch(/^[a-z]+\.[a-z]+@/)
    expect(me.website).toMatch(/^https:\/\//)
    expect(me.updated_at).toMatch(/^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d/)
    expect(me.country).toMatch(/^[A-Z][a-z]+( [A-Z][a-z]+)?$/)
    expect(me.currency).toMatch(/^[A-Z]{3}$/)
    expect(me.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/)
    expect(me.version).toMatch(/^\d+\.\d+\.\d+$/)
  })
})

describe("Routes.openapi: any document a user has", () => {
  const petsAt = (title: string, extra: Record<string, unknown> = {}) => ({
    openapi: "3.1.0",
    info: { title, version: "1" },
    paths: {
      "/pets/{id}": {
        get: { operationId: "showPet", responses: { "200": { description: "a pet", content: json(Pet) } } },
        delete: { operationId: "deletePet", responses: { "204": { description: "gone" } } }
      },
      ...extra
    }
  })

  it("two documents that share operationIds are served together; the prefix changes no generated byte", async () => {
    const a = Routes.openapi(petsAt("A"), { baseUrl: "https://a.example.com" })
    const b = Routes.openapi(petsAt("B"), { baseUrl: "https://b.example.com/v2" })
    expect([...a, ...b].map((r) => r.id)).toEqual([
      "a.example.com:showPet",
      "a.example.com:deletePet",
      "b.example.com/v2:showPet",
      "b.example.com/v2:deletePet"
    ])
    const together = await SimulationNetwork.start({ seed: 4, routes: [...a, ...b] })
    const bare = await SimulationNetwork.start({
      seed: 4,
      routes: Routes.openapi(petsAt("A"), { baseUrl: "https://a.example.com", idPrefix: "" })
    })
    expect(bare.routes().map((r) => r.id)).toEqual(["showPet", "deletePet"])
    const body = await (await together.fetch("https://a.example.com/pets/7")).text()
    expect(await (await bare.fetch("https://a.example.com/pets/7")).text()).toBe(body)
    expect((await together.fetch("https://b.example.com/v2/pets/7", { method: "DELETE" })).status).toBe(204)
    // In RouteSpec JSON too.
    const spec = await SimulationNetwork.start({ routes: [] })
    expect(
      await spec.registerSpec({
        family: "openapi",
        document: petsAt("C"),
        baseUrl: "https://c.example.com",
        idPrefix: "c."
      })
    ).toEqual(["c.showPet", "c.deletePet"])
  })

  it("an operation whose schema cannot be served is listed with why and answers 501; the rest of the document is served", async () => {
    const document = petsAt("Broken", {
      "/odd": {
        get: {
          operationId: "odd",
          responses: { "200": { description: "x", content: json({ type: "string", pattern: "((" }) } }
        }
      }
    })
    const network = await SimulationNetwork.start({ routes: Routes.openapi(document, { baseUrl: base, idPrefix: "" }) })
    const odd = network.routes().find((r) => r.id === "odd") as unknown as { refused: string }
    expect(odd.refused).toMatch(/pattern/)
    expect(
      network
        .routes()
        .filter((r) => "refused" in r)
        .map((r) => r.id)
    ).toEqual(["odd"])
    const answer = await network.fetch(`${base}/odd`)
    expect(answer.status).toBe(501)
    expect(await answer.json()).toMatchObject({
      type: "urn:simnet:problem:NOT_IMPLEMENTED",
      detail: expect.stringContaining("pattern")
    })
    expect((await network.fetch(`${base}/pets/1`)).status).toBe(200)
  })

  it("a pattern in JavaScript's legacy syntax ({ that starts no quantifier) is served, as Prism serves it", async () => {
    const pattern = "^(?:{[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}}|[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7})$"
    const document = petsAt("Legacy", {
      "/keys": {
        get: {
          operationId: "key",
          responses: { "200": { description: "k", content: json({ type: "string", pattern }) } }
        }
      }
    })
    const network = await SimulationNetwork.start({
      seed: 2,
      routes: Routes.openapi(document, { baseUrl: base, examples: false })
    })
    for (let i = 0; i < 5; i++)
      expect(await (await network.fetch(`${base}/keys?i=${i}`)).json()).toMatch(new RegExp(pattern))
  })

  it("an invalid request's 422 is simnet's own problem, in the shape Prism's users parse", async () => {
    const document = petsAt("Q", {
      "/search": {
        get: {
          operationId: "search",
          parameters: [{ name: "limit", in: "query", required: true, schema: { type: "integer" } }],
          responses: { "200": { description: "ok" } }
        }
      }
    })
    const network = await SimulationNetwork.start({ routes: Routes.openapi(document, { baseUrl: base }) })
    const answer = await network.fetch(`${base}/search?limit=many`)
    expect(answer.status).toBe(422)
    const problem = await answer.json()
    expect(problem).toMatchObject({
      type: "urn:simnet:problem:UNPROCESSABLE_ENTITY",
      title: "Invalid request",
      status: 422,
      validation: [{ location: ["query", "limit"] }]
    })
    expect(JSON.stringify(problem)).not.toMatch(/prism|stoplight/i)
  })

  it("an operation that documents only 1xx answers 204 naming it; a 3.1 document of only webhooks serves nothing and registers", async () => {
    const document = petsAt("Info", {
      "/upgrade": { get: { operationId: "upgrade", responses: { "101": { description: "switching" } } } }
    })
    const network = await SimulationNetwork.start({ routes: Routes.openapi(document, { baseUrl: base }) })
    const answer = await network.fetch(`${base}/upgrade`)
    expect([answer.status, answer.headers.get("x-simnet-informational")]).toEqual([204, "101"])
    const hooks = {
      openapi: "3.1.0",
      info: { title: "Hooks", version: "1" },
      webhooks: { newPet: { post: { responses: { "200": { description: "ok" } } } } }
    }
    expect(Routes.openapi(hooks, { baseUrl: base })).toEqual([])
    const refused = Routes.openapi({ openapi: "3.0.3", info: { title: "No paths", version: "1" } }, { baseUrl: base })
    await expect(SimulationNetwork.start({ routes: refused })).rejects.toMatchObject({
      path: expect.stringContaining("openapi#/paths")
    })
  })

  it("a path key with '#' is served at its escaped path; parameter styles are read as OpenAPI spells them", async () => {
    const document = petsAt("Styles", {
      "/cookies#form": { get: { operationId: "cookiesForm", responses: { "200": { description: "ok" } } } },
      "/m/{ids}/{obj}": {
        get: {
          operationId: "matrix",
          parameters: [
            {
              name: "ids",
              in: "path",
              required: true,
              style: "matrix",
              explode: true,
              schema: { type: "array", items: { type: "integer" } }
            },
            {
              name: "obj",
              in: "path",
              required: true,
              style: "label",
              schema: { type: "object", required: ["a"], properties: { a: { type: "integer" } } }
            },
            {
              name: "deep",
              in: "query",
              required: true,
              style: "deepObject",
              schema: { type: "object", required: ["x"], properties: { x: { type: "integer" } } }
            },
            {
              name: "pipes",
              in: "query",
              required: true,
              style: "pipeDelimited",
              explode: false,
              schema: { type: "array", items: { type: "integer" } }
            }
          ],
          responses: { "200": { description: "ok" } }
        }
      }
    })
    const network = await SimulationNetwork.start({ routes: Routes.openapi(document, { baseUrl: base }) })
    expect((await network.fetch(`${base}/cookies%23form`)).status).toBe(200)
    expect((await network.fetch(`${base}/m/;ids=1;ids=2/.a,3?deep[x]=4&pipes=5|6`)).status).toBe(200)
    const wrong = await network.fetch(`${base}/m/;ids=1;ids=x/.a,y?deep[x]=z&pipes=5|q`)
    expect(wrong.status).toBe(422)
    expect((await wrong.json()).validation.map((v: { location: Array<string> }) => v.location.join("."))).toEqual([
      "path.ids.1",
      "path.obj.a",
      "query.deep.x",
      "query.pipes.1"
    ])
  })
})
