import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Result, Schema, SchemaTransformation } from "effect"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as fc from "fast-check"
import { compileGenerator } from "../../src/routes/jsonSchema/generate.ts"
import { makeSimRequest } from "../../src/registry/request.ts"
import type { RespondContext } from "../../src/registry/route.ts"
import { jsonSchemaResponder } from "../../src/routes/jsonSchema/jsonSchema.ts"
import { Route, SimulationNetwork } from "simnet"
import type { SimulationNetworkApi } from "simnet"

const compile = (schema: Schema.Top, narrow?: Schema.Top) =>
  compileGenerator(schema as Schema.Codec<unknown, unknown>, { label: "test", narrow })

const generator = (schema: Schema.Top, narrow?: Schema.Top) => {
  const compiled = compile(schema, narrow)
  if (Result.isFailure(compiled)) throw new Error(compiled.failure.message)
  return compiled.success
}

const bodyAt = (schema: Schema.Top, seed: number, narrow?: Schema.Top): string => {
  const result = generator(schema, narrow).generate(seed)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

const context = (seed: number): RespondContext => ({
  identity: "r",
  seed,
  occurrence: 0,
  runSeed: 0,
  services: Context.empty(),
  run: (effect) => Effect.runPromise(effect)
})

const hasLoneSurrogate = (text: string): boolean =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text)

describe("generation pipeline", () => {
  const Item = Schema.Struct({
    id: Schema.String,
    count: Schema.Int,
    price: Schema.Number,
    tags: Schema.Array(Schema.String),
    meta: Schema.Record(Schema.String, Schema.String),
    note: Schema.optional(Schema.String)
  })

  it("the same seed gives byte-identical bodies and they decode under the schema", () => {
    for (let seed = 0; seed < 50; seed++) {
      const a = bodyAt(Item, seed)
      expect(bodyAt(Item, seed)).toBe(a)
      expect(() => Schema.decodeUnknownSync(Item)(JSON.parse(a))).not.toThrow()
    }
    expect(new Set(Array.from({ length: 20 }, (_, s) => bodyAt(Item, s))).size).toBeGreaterThan(15)
  })

  it("generated strings are valid Unicode and records have no prototype-polluting keys", () => {
    const g = generator(Item)
    for (let seed = 0; seed < 300; seed++) {
      const body = Result.getOrThrow(g.generate(seed))
      expect(hasLoneSurrogate(body)).toBe(false)
      const meta = JSON.parse(body).meta as Record<string, string>
      for (const key of Object.keys(meta)) expect(["__proto__", "constructor", "prototype"]).not.toContain(key)
      expect(body).not.toContain("__proto__")
    }
  })

  it("honours examples and string formats", () => {
    const S = Schema.Struct({
      model: Schema.String.annotate({ examples: ["gpt-4o", "o3-mini"] }),
      email: Schema.String.annotate({ format: "email" }),
      when: Schema.String.annotate({ format: "date-time" }),
      id: Schema.String.annotate({ format: "uuid" })
    })
    for (let seed = 0; seed < 40; seed++) {
      const value = JSON.parse(bodyAt(S, seed))
      expect(["gpt-4o", "o3-mini"]).toContain(value.model)
      expect(value.email).toMatch(/^[a-z.]+@[a-z]+\.[a-z]+$/)
      expect(Number.isNaN(Date.parse(value.when))).toBe(false)
      expect(value.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
  })

  it("encodes with the production schema: seconds on the wire become a Duration in the app", () => {
    const Seconds = Schema.Number.pipe(
      Schema.decodeTo(
        Schema.Duration,
        SchemaTransformation.transform({
          decode: Duration.seconds,
          encode: (d: Duration.Duration) => Duration.toSeconds(d)
        })
      )
    )
    const Token = Schema.Struct({ access_token: Schema.String, expires_in: Seconds, ttl: Schema.DurationFromMillis })
    for (let seed = 0; seed < 40; seed++) {
      const wire = JSON.parse(bodyAt(Token, seed))
      expect(typeof wire.expires_in).toBe("number")
      expect(Number.isFinite(wire.expires_in)).toBe(true)
      const app = Schema.decodeUnknownSync(Token)(wire)
      expect(Duration.isDuration(app.expires_in)).toBe(true)
      expect(Duration.toSeconds(app.expires_in)).toBe(wire.expires_in)
    }
  })

  it("generates from the narrowed schema and serves values that decode under the production one", () => {
    const Wide = Schema.Struct({ kind: Schema.String, data: Schema.Record(Schema.String, Schema.Unknown) })
    const Narrow = Schema.Struct({ kind: Schema.Literal("catalog"), data: Schema.Struct({ size: Schema.Int }) })
    for (let seed = 0; seed < 20; seed++) {
      const value = JSON.parse(bodyAt(Wide, seed, Narrow))
      expect(value.kind).toBe("catalog")
      expect(Object.keys(value.data)).toEqual(["size"])
    }
  })

  it("a narrowed schema whose values do not fit the production schema is rejected, naming the issue", () => {
    const compiled = compile(
      Schema.Struct({ a: Schema.Int }),
      Schema.Struct({ a: Schema.Number.check(Schema.isBetween({ minimum: 0.1, maximum: 0.9 })) })
    )
    expect(Result.isFailure(compiled)).toBe(true)
    if (Result.isFailure(compiled)) {
      expect(compiled.failure._tag).toBe("GeneratedValueRejected")
      expect(compiled.failure).toMatchObject({ path: "$.a" })
      expect(compiled.failure.message).toContain("integer")
    }
  })

  it("a value with a JSON codec but no JSON form of its own travels by the codec: a bigint as a string", () => {
    // (One with no JSON codec either is refused at registration: test/json.transformations.test.ts.)
    const big = JSON.parse(bodyAt(Schema.Struct({ big: Schema.BigInt }), 1))
    expect(typeof big.big).toBe("string")
    expect(typeof Schema.decodeUnknownSync(Schema.toCodecJson(Schema.Struct({ big: Schema.BigInt })))(big).big).toBe(
      "bigint"
    )
  })

  it("a declaration without an arbitrary fails at compile time, naming the schema path", () => {
    class Opaque {
      readonly x = 1
    }
    const compiled = compile(
      Schema.Struct({ items: Schema.Array(Schema.Struct({ handle: Schema.instanceOf(Opaque) })) })
    )
    expect(Result.isFailure(compiled)).toBe(true)
    if (Result.isFailure(compiled)) {
      expect(compiled.failure._tag).toBe("InvalidRouteSpec")
      expect(compiled.failure).toMatchObject({ path: "$.items[0].handle" })
    }
  })

  it("an impossible refinement fails at compile time, naming the schema path", () => {
    const never = Schema.String.check(Schema.makeFilter(() => false))
    const compiled = compile(Schema.Struct({ user: Schema.Struct({ name: never }) }))
    expect(Result.isFailure(compiled)).toBe(true)
    if (Result.isFailure(compiled))
      expect(compiled.failure).toMatchObject({ _tag: "InvalidRouteSpec", path: "$.user.name" })
    const contradictory = compile(
      Schema.Struct({ n: Schema.Number.check(Schema.isBetween({ minimum: 5, maximum: 1 })) })
    )
    expect(Result.isFailure(contradictory) && contradictory.failure).toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "$.n"
    })
  })
})

describe("jsonSchemaResponder", () => {
  const Account = Schema.Struct({ id: Schema.String, email: Schema.String.annotate({ format: "email" }) })
  const request = makeSimRequest({ url: "https://api.example.com/account" })

  it.effect("answers with the body for the context's seed, status and headers", () =>
    Effect.gen(function* () {
      const responder = jsonSchemaResponder(Account, { status: 201, headers: { "x-sim": "1" } }, "account")
      yield* responder.prepare
      const answer = responder.answer(request, context(42))
      if (answer._tag !== "Whole") throw new Error(`expected a whole answer, got ${answer._tag}`)
      expect(answer.status).toBe(201)
      expect(answer.headers).toMatchObject({ "content-type": "application/json", "x-sim": "1" })
      const text = answer.body as string
      expect(text).toBe(yield* responder.regenerate(42))
      expect(Schema.decodeUnknownSync(Account)(JSON.parse(text)).id.length).toBeGreaterThan(0)
    })
  )

  it.effect("a seed offset changes the values and regenerate reproduces them", () =>
    Effect.gen(function* () {
      const plain = jsonSchemaResponder(Account, {}, "a")
      const shifted = jsonSchemaResponder(Account, { seedOffset: 7 }, "a")
      const bodies = yield* Effect.forEach([1, 2, 3, 4], (seed) => shifted.regenerate(seed))
      const plainBodies = yield* Effect.forEach([1, 2, 3, 4], (seed) => plain.regenerate(seed))
      expect(bodies).not.toEqual(plainBodies)
      expect(shifted.answer(request, context(3))).toMatchObject({ _tag: "Whole", body: bodies[2] })
    })
  )

  it.effect("prepare fails at registration for a schema that cannot be generated", () =>
    Effect.gen(function* () {
      const responder = jsonSchemaResponder(Schema.Struct({ n: Schema.Never }), {}, "broken")
      const exit = yield* Effect.exit(responder.prepare)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(responder.prepare)
      expect(error._tag).toBe("InvalidRouteSpec")
      expect(error.message).toContain("broken")
    })
  )
})

/** A small schema grammar: primitives, literals, nullables, optional fields, arrays, records, structs, unions. */
const schemaArbitrary: fc.Arbitrary<Schema.Top> = fc.letrec<{ schema: Schema.Top }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Schema.Top>(
      Schema.String,
      Schema.Int,
      Schema.Number,
      Schema.Finite,
      Schema.Boolean,
      Schema.Null,
      Schema.NonEmptyString,
      Schema.Literals(["a", "b", "c"]),
      Schema.DurationFromMillis,
      Schema.DateTimeUtcFromString,
      Schema.NumberFromString,
      Schema.String.check(Schema.isMaxLength(3)),
      Schema.Int.check(Schema.isBetween({ minimum: -5, maximum: 5 }))
    ),
    tie("schema").map((s) => Schema.NullOr(s as Schema.Codec<unknown, unknown>)),
    tie("schema").map((s) => Schema.Array(s as Schema.Codec<unknown, unknown>)),
    tie("schema").map((s) => Schema.Record(Schema.String, s as Schema.Codec<unknown, unknown>)),
    fc
      .array(fc.tuple(fc.constantFrom("id", "name", "value", "items", "meta"), tie("schema"), fc.boolean()), {
        maxLength: 4
      })
      .map((fields) =>
        Schema.Struct(
          Object.fromEntries(
            fields.map(([k, s, optional]) => [k, optional ? Schema.optional(s as Schema.Codec<unknown, unknown>) : s])
          ) as Record<string, Schema.Codec<unknown, unknown>>
        )
      ),
    fc
      .tuple(tie("schema"), tie("schema"))
      .map(([a, b]) => Schema.Union([a as Schema.Codec<unknown, unknown>, b as Schema.Codec<unknown, unknown>]))
  )
})).schema

describe("properties", () => {
  it("for random schemas and seeds, every served body decodes under its schema and is reproducible", () => {
    fc.assert(
      fc.property(schemaArbitrary, fc.integer({ min: 0, max: 2 ** 32 - 1 }), (schema, seed) => {
        const compiled = compile(schema)
        expect(Result.isSuccess(compiled)).toBe(true)
        if (Result.isFailure(compiled)) return
        const body = compiled.success.generate(seed)
        expect(Result.isSuccess(body)).toBe(true)
        if (Result.isFailure(body)) return
        expect(() =>
          Schema.decodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(JSON.parse(body.success))
        ).not.toThrow()
        expect(Result.getOrThrow(compiled.success.generate(seed))).toBe(body.success)
        const recompiled = compile(schema)
        expect(Result.isSuccess(recompiled) && Result.getOrThrow(recompiled.success.generate(seed))).toBe(body.success)
        expect(hasLoneSurrogate(body.success)).toBe(false)
      }),
      { numRuns: 150, seed: 20261130 }
    )
  })
})

/** A request to the property's route: method, path segment, query (in the order sent) and JSON body. */
interface PropertyRequest {
  readonly method: "GET" | "POST" | "PUT"
  readonly id: string
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly body: unknown
}

const requestArbitrary: fc.Arbitrary<PropertyRequest> = fc.record({
  method: fc.constantFrom("GET" as const, "POST" as const, "PUT" as const),
  id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  query: fc.array(fc.tuple(fc.constantFrom("page", "q", "sort", "limit"), fc.string({ maxLength: 6 })), {
    maxLength: 3
  }),
  body: fc.jsonValue({ maxDepth: 2 })
})

const urlOf = (request: PropertyRequest): string => {
  const url = new URL(`https://api.example.com/items/${request.id}`)
  for (const [key, value] of request.query) url.searchParams.append(key, value)
  return url.href
}

const bodyOf = (request: PropertyRequest): string | undefined =>
  request.method === "GET" ? undefined : JSON.stringify(request.body)

const reverseKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reverseKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([key, item]) => [key, reverseKeys(item)])
        )
      : value

/**
 * The same request as the canonical key sees it, written differently: query parameters in another
 * order (repeated names keep their relative order) and JSON object keys reversed.
 */
const rewritten = (request: PropertyRequest): PropertyRequest => ({
  ...request,
  query: [...request.query].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)),
  body: reverseKeys(request.body)
})

/** Sends the request through the network's `fetch`; the status and the body bytes. */
const viaFetch = async (
  network: SimulationNetworkApi,
  request: PropertyRequest
): Promise<readonly [number, string]> => {
  const body = bodyOf(request)
  const response = await network.fetch(urlOf(request), {
    method: request.method,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } })
  })
  return [response.status, await response.text()]
}

/** Sends the request through the network's Effect `HttpClient`; the status and the body bytes. */
const viaHttpClient = (network: SimulationNetworkApi, request: PropertyRequest): Promise<readonly [number, string]> => {
  const body = bodyOf(request)
  const base = HttpClientRequest.make(request.method)(urlOf(request))
  return Effect.runPromise(
    network.httpClient
      .execute(body === undefined ? base : HttpClientRequest.bodyText(base, body, "application/json"))
      .pipe(Effect.flatMap((response) => Effect.map(response.text, (text) => [response.status, text] as const)))
  )
}

describe("served-body properties", () => {
  it("for random schemas, seeds and requests, two networks serve the same bytes, which decode under the schema", async () => {
    // Each run: two independent networks with one `Route.json`; the second first answers an
    // unrelated request, then the same request (query and JSON keys reordered), through `fetch` or
    // the Effect `HttpClient`.
    await fc.assert(
      fc.asyncProperty(
        schemaArbitrary,
        fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.string({ maxLength: 8 })),
        requestArbitrary,
        fc.boolean(),
        async (schema, seed, request, throughHttpClient) => {
          const codec = schema as Schema.Codec<unknown, unknown>
          const routes = () => [Route.json("https://api.example.com/items/:id", codec)]
          const quiet = await Effect.runPromise(SimulationNetwork.make({ seed, routes: routes() }))
          const busy = await Effect.runPromise(SimulationNetwork.make({ seed, routes: routes() }))
          // An unrelated request first: another path under the same route, so another request key.
          const [unrelatedStatus] = await viaFetch(busy, { ...request, id: `${request.id}-other` })
          expect(unrelatedStatus).toBe(200)
          const [status, body] = await viaFetch(quiet, request)
          expect(status).toBe(200)
          const same = rewritten(request)
          const [busyStatus, busyBody] = throughHttpClient
            ? await viaHttpClient(busy, same)
            : await viaFetch(busy, same)
          expect(busyStatus).toBe(200)
          expect(busyBody).toBe(body)
          expect(Exit.isSuccess(Schema.decodeUnknownExit(codec)(JSON.parse(body)))).toBe(true)
          expect(hasLoneSurrogate(body)).toBe(false)
          const [record] = await Effect.runPromise(quiet.log)
          expect(await Effect.runPromise(quiet.regenerate(record))).toBe(body)
        }
      ),
      { numRuns: 250, seed: 20261201 }
    )
  })
})
