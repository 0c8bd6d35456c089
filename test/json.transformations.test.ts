/**
 * `Route.json` serves the encoded side of any Schema that decodes (issue 53): transformations
 * (dates, `DateTimeUtc`, number-from-string, `decodeTo` chains, optional-with-default), class
 * schemas, records, unions, tuples, recursive `suspend`, branded and refined types. The judge is
 * the app's own Schema: every answer, fetched through the network's Effect `HttpClient`, is decoded
 * with `HttpClientResponse.schemaBodyJson(schema)`, as an Effect app reads it; where the schema's
 * encoded side is plain JSON, `Schema.decodeUnknown(schema)` over `response.json()` reads it too.
 * The same seed gives the same bytes. What cannot be served is refused at registration with a
 * typed error naming the route, the schema path and what to do.
 */
import { DateTime, Effect, Exit, Option, Schema, SchemaTransformation } from "effect"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as fc from "fast-check"
import { Route, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

class Member extends Schema.Class<Member>("Member")({
  id: Schema.String,
  email: Schema.String,
  joined: Schema.Date,
  lastSeen: Schema.DateTimeUtc
}) {}

class Invoice extends Schema.TaggedClass<Invoice>()("Invoice", {
  total: Schema.NumberFromString,
  due: Schema.DateTimeUtcFromString,
  lines: Schema.Array(Schema.Struct({ sku: Schema.String, at: Schema.Date }))
}) {}

interface Comment {
  readonly text: string
  readonly at: Date
  readonly replies: ReadonlyArray<Comment>
}
const Comment: Schema.Codec<Comment, unknown> = Schema.Struct({
  text: Schema.String,
  at: Schema.Date,
  replies: Schema.Array(Schema.suspend(() => Comment))
})

const Trimmed = Schema.String.pipe(Schema.decodeTo(Schema.NumberFromString, SchemaTransformation.trim()))
const Cents = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).pipe(Schema.brand("Cents"))
const Slug = Schema.String.check(Schema.isMinLength(3), Schema.isMaxLength(20), Schema.isPattern(/^[a-z][a-z0-9-]*$/))

/** Schemas an app declares for what it reads, each decoding something that is not its wire form. */
const CATALOGUE: ReadonlyArray<readonly [string, Schema.Top]> = [
  ["Schema.Date", Schema.Date],
  ["Schema.DateTimeUtc", Schema.DateTimeUtc],
  ["DateTimeUtcFromDate", Schema.DateTimeUtcFromDate],
  ["DateFromString", Schema.DateFromString],
  ["DateTimeUtcFromMillis", Schema.DateTimeUtcFromMillis],
  ["NumberFromString", Schema.NumberFromString],
  ["a decodeTo chain: trimmed string → number-from-string → number", Trimmed],
  ["BigInt and BigIntFromString", Schema.Struct({ big: Schema.BigInt, parsed: Schema.BigIntFromString })],
  [
    "optional with a decoding default",
    Schema.Struct({
      page: Schema.optional(Schema.NumberFromString).pipe(Schema.withDecodingDefault(Effect.succeed("1"))),
      since: Schema.optional(Schema.Date)
    })
  ],
  ["a class with dates", Member],
  ["a tagged class with a transformation in an array", Invoice],
  ["a record of dates", Schema.Record(Schema.String, Schema.DateTimeUtc)],
  ["a union of a date and a number", Schema.Union([Schema.Date, Schema.Int])],
  [
    "a tagged union of structs with dates",
    Schema.Union([
      Schema.TaggedStruct("created", { at: Schema.Date }),
      Schema.TaggedStruct("deleted", { at: Schema.DateTimeUtc, by: Schema.String })
    ])
  ],
  ["a tuple", Schema.Tuple([Schema.Date, Schema.NumberFromString, Schema.Boolean])],
  ["a recursive suspend with dates", Comment],
  ["branded", Cents],
  ["refined", Schema.Struct({ slug: Slug, score: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 })) })],
  [
    "Option and OptionFromNullOr",
    Schema.Struct({ a: Schema.Option(Schema.Date), b: Schema.OptionFromNullOr(Schema.DateTimeUtc) })
  ],
  [
    "ReadonlyMap and ReadonlySet",
    Schema.Struct({ m: Schema.ReadonlyMap(Schema.String, Schema.Date), s: Schema.ReadonlySet(Schema.Int) })
  ],
  [
    "URL, Duration, Uint8Array",
    Schema.Struct({ url: Schema.URL, ttl: Schema.Duration, ms: Schema.DurationFromMillis, bytes: Schema.Uint8Array })
  ],
  ["open JSON beside a date", Schema.Struct({ meta: Schema.Json, at: Schema.Date })]
]

const URL_PATTERN = "GET https://api.example.com/things/:id"

/** One network at `seed` serving `schema`; the body of `GET /things/{id}`, through its `fetch`. */
const bytesOf = async (schema: Schema.Top, seed: number | string, id: string): Promise<string> => {
  const network = await SimulationNetwork.start({ seed, routes: [Route.json(URL_PATTERN, schema)] })
  const response = await network.fetch(`https://api.example.com/things/${id}`)
  expect(response.status).toBe(200)
  const text = await response.text()
  await network.close()
  return text
}

/** Another network at `seed`: the same request through its Effect `HttpClient`, its bytes and what the app's Schema made of them. */
const decodedByTheApp = (schema: Schema.Top, seed: number | string, id: string) =>
  Effect.gen(function* () {
    const network = yield* SimulationNetwork
    const response = yield* network.httpClient.get(`https://api.example.com/things/${id}`)
    const text = yield* response.text
    const decoded = yield* Effect.exit(
      HttpClientResponse.schemaBodyJson(schema as Schema.Codec<unknown, unknown>)(response)
    )
    return { text, decoded }
  }).pipe(
    Effect.provide(SimulationNetwork.layer({ seed, routes: [Route.json(URL_PATTERN, schema)] })),
    Effect.runPromise
  )

describe("Route.json serves the encoded side of any Schema that decodes", () => {
  for (const [name, schema] of CATALOGUE) {
    it(`${name}: every answer decodes with the app's own Schema, and the same seed gives the same bytes`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.string({ maxLength: 8 })),
          fc.stringMatching(/^[a-z0-9-]{1,12}$/),
          async (seed, id) => {
            const { text, decoded } = await decodedByTheApp(schema, seed, id)
            if (Exit.isFailure(decoded))
              throw new Error(`${name}: the app could not decode ${text}: ${String(decoded.cause)}`)
            expect(await bytesOf(schema, seed, id)).toBe(text)
          }
        ),
        { numRuns: 12, seed: 20270301 }
      )
    }, 60_000)
  }

  it("dates travel as ISO strings, and a Schema whose encoded side is plain JSON is also read by a plain decode of response.json()", async () => {
    const Event = Schema.Struct({ id: Schema.String, at: Schema.Date, due: Schema.DateTimeUtc })
    const { text, decoded } = await decodedByTheApp(Event, 3, "e1")
    const wire = JSON.parse(text) as { readonly at: unknown; readonly due: unknown }
    expect(typeof wire.at).toBe("string")
    expect(new Date(wire.at as string).toISOString()).toBe(wire.at)
    expect(Exit.isSuccess(decoded) && decoded.value).toMatchObject({ at: new Date(wire.at as string) })
    if (Exit.isSuccess(decoded)) expect(DateTime.formatIso((decoded.value as typeof Event.Type).due)).toBe(wire.due)
    // A plain-JSON encoded side: the schema's own encoding is the wire, so both ways of reading agree.
    const Plain = Schema.Struct({
      n: Schema.NumberFromString,
      due: Schema.DateTimeUtcFromString,
      note: Schema.optional(Schema.String)
    })
    for (const seed of [1, 2, 3, 4, 5]) {
      const body = JSON.parse(await bytesOf(Plain, seed, "p")) as unknown
      expect(Exit.isSuccess(Schema.decodeUnknownExit(Plain)(body))).toBe(true)
      expect(Object.values(body as object)).not.toContain(null)
    }
  })

  it("a class schema decodes to the class, its fields as realistic as a struct's", async () => {
    const { decoded } = await decodedByTheApp(Member, 9, "m")
    if (Exit.isFailure(decoded)) throw new Error(String(decoded.cause))
    const member = decoded.value as Member
    expect(member).toBeInstanceOf(Member)
    expect(member.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/)
    expect(member.email).toMatch(/@/)
    expect(member.joined.getUTCFullYear()).toBeGreaterThanOrEqual(2020)
    expect(member.joined.getUTCFullYear()).toBeLessThan(2030)
  })

  it("a recursive schema's answers are bounded in depth and size", async () => {
    const depth = (comment: Comment): number => 1 + Math.max(0, ...comment.replies.map(depth))
    for (let seed = 0; seed < 20; seed++) {
      const { text, decoded } = await decodedByTheApp(Comment, seed, "c")
      if (Exit.isFailure(decoded)) throw new Error(String(decoded.cause))
      expect(depth(decoded.value as Comment)).toBeLessThanOrEqual(8)
      expect(text.length).toBeLessThan(64 * 1024)
    }
  })
})

describe("what cannot be served is refused at registration, naming the route, the path and what to do", () => {
  const refusal = async (schema: Schema.Top, options: { readonly narrow?: Schema.Top } = {}) =>
    SimulationNetwork.start({
      routes: [Route.json("GET https://api.example.com/x", schema, { id: "things", ...options })]
    }).then(
      async (network) => {
        await network.close()
        return undefined
      },
      (error: unknown) => error as { readonly _tag: string; readonly path: string; readonly message: string }
    )

  it("Schema.Never, a filter no sample passes, a declaration without an arbitrary, a value with no JSON form", async () => {
    class Handle {
      readonly fd: number
      constructor(fd: number) {
        this.fd = fd
      }
    }
    const arbitraryOnly = Schema.declare((u): u is Handle => u instanceof Handle, {
      toCodecArbitrary: () =>
        Schema.link<Handle>()(
          Schema.Int,
          SchemaTransformation.transform({ decode: (n: number) => new Handle(n), encode: (h: Handle) => h.fd })
        )
    })
    const cases = [
      [Schema.Struct({ user: Schema.Struct({ role: Schema.Never }) }), "InvalidRouteSpec", "$.user.role"],
      [
        Schema.Struct({ key: Schema.String.check(Schema.makeFilter((s: string) => s.startsWith("sk-live-"))) }),
        "InvalidRouteSpec",
        "$.key"
      ],
      [
        Schema.Struct({ items: Schema.Array(Schema.Struct({ handle: Schema.instanceOf(Handle) })) }),
        "InvalidRouteSpec",
        "$.items[0].handle"
      ],
      [Schema.Struct({ handle: arbitraryOnly }), "GeneratedValueRejected", "$.handle"]
    ] as const
    for (const [schema, tag, path] of cases) {
      const error = await refusal(schema)
      // An InvalidRouteSpec names the route's place in the start's batch (`[0]`), then the path in its schema.
      expect(error).toMatchObject({ _tag: tag, path: tag === "InvalidRouteSpec" ? `[0].${path}` : path })
      expect(error?.message).toContain("things")
      expect(error?.message).toContain(path)
      expect(error?.message).toContain("narrow")
    }
  })

  it("the remedy the error names works: a narrow schema whose values decode under the app's", async () => {
    const Key = Schema.Struct({ key: Schema.String.check(Schema.makeFilter((s: string) => s.startsWith("sk-live-"))) })
    expect(await refusal(Key)).toMatchObject({ _tag: "InvalidRouteSpec" })
    const narrow = Schema.Struct({ key: Schema.Literals(["sk-live-a1", "sk-live-b2"]) })
    expect(await refusal(Key, { narrow })).toBeUndefined()
    const network = await SimulationNetwork.start({
      routes: [Route.json("GET https://api.example.com/key", Key, { narrow })]
    })
    const body = await (await network.fetch("https://api.example.com/key")).json()
    expect(Option.isSome(Schema.decodeUnknownOption(Key)(body))).toBe(true)
    await network.close()
  })
})
