/**
 * Properties of a whole network under random input: random RouteSpecs (valid, broken and
 * hostile), random requests (methods, URLs, headers, bodies of every shape and depth) and random
 * driver commands. Every outcome is an answer or a typed error, never a defect or an untyped
 * throw; a rejected registration changes nothing; the counters, the log and the model's counts
 * agree.
 */
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isSimnetError, Route, Routes, SimulationNetwork } from "simnet"

const HOSTS = ["api.example.com", "api.openai.com", "models.dev", "x.example.org"]
const METHODS = ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "QUERY"]
const ODD_METHODS = ["get", "", "G ET", "TRACE", "CONNECT", "POST\r\n", "BREW"]
const HEADER_NAMES = ["content-type", "authorization", "x-api-key", "cookie", "accept", "x-trace"]

const segment = fc.oneof(
  fc.constantFrom("v1", "items", "chat", "completions", ":id", "{*rest}", "a b", "%zz", "é"),
  fc.string({ maxLength: 6 })
)
const path = fc.array(segment, { maxLength: 4 }).map((parts) => "/" + parts.join("/"))

const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** JSON nested `depth` deep, as text: arrays, objects or a mix. */
const deepJson = fc
  .record({ depth: fc.integer({ min: 1, max: 4_000 }), kind: fc.constantFrom("[", "{") })
  .map(({ depth, kind }) =>
    kind === "[" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
  )

const chatBody = fc
  .record(
    {
      model: fc.oneof(fc.constant("gpt-4o"), fc.string({ maxLength: 5 }), fc.integer()),
      messages: fc.oneof(
        fc.constant([{ role: "user", content: "hi" }]),
        fc.array(
          fc.record({
            role: fc.constantFrom("user", "assistant", "tool", "system", "x"),
            content: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null))
          }),
          { maxLength: 3 }
        ),
        fc.jsonValue({ maxDepth: 3 })
      ),
      stream: fc.boolean()
    },
    { requiredKeys: ["model", "messages"] }
  )
  .map((b) => JSON.stringify(b))

const body = fc.oneof(
  fc.constant(undefined),
  fc.constant(undefined),
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  deepJson,
  chatBody,
  fc.uint8Array({ maxLength: 64 })
)

const randomRequest = fc.record({
  method: fc.oneof(
    { arbitrary: fc.constantFrom(...METHODS), weight: 5 },
    { arbitrary: fc.constantFrom(...ODD_METHODS), weight: 1 }
  ),
  host: fc.constantFrom(...HOSTS),
  path: fc.oneof(
    { arbitrary: path, weight: 1 },
    { arbitrary: fc.constantFrom("/v1/chat/completions", "/v1/models", "/api.json", "/items/1", "/items/2"), weight: 2 }
  ),
  query: fc.array(fc.tuple(fc.constantFrom("a", "token", "page", "key"), fc.string({ maxLength: 5 })), {
    maxLength: 3
  }),
  headers: fc.dictionary(
    fc.constantFrom(...HEADER_NAMES),
    fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n\0]/g, "")),
    { maxKeys: 3 }
  ),
  body
})

/** Requests aimed at the routes every case registers, so that many are answered. */
const knownRequest = fc.oneof(
  fc.record({
    method: fc.constant("GET"),
    host: fc.constant("api.example.com"),
    path: fc.constantFrom("/items/1", "/items/x%20y"),
    query: fc.constant([]),
    headers: fc.constant({}),
    body: fc.constant(undefined)
  }),
  fc.record({
    method: fc.constant("POST"),
    host: fc.constant("api.example.com"),
    path: fc.constant("/items/2"),
    query: fc.constant([]),
    headers: fc.constant({ "content-type": "application/json" }),
    body
  }),
  fc.record({
    method: fc.constant("GET"),
    host: fc.constant("models.dev"),
    path: fc.constant("/api.json"),
    query: fc.constant([]),
    headers: fc.constant({}),
    body: fc.constant(undefined)
  }),
  fc.record({
    method: fc.constant("POST"),
    host: fc.constant("api.openai.com"),
    path: fc.constant("/v1/chat/completions"),
    query: fc.constant([]),
    headers: fc.constant({ "content-type": "application/json" }),
    body: fc.oneof(chatBody, body)
  }),
  fc.record({
    method: fc.constant("POST"),
    host: fc.constant("x.example.org"),
    path: path,
    query: fc.constant([]),
    headers: fc.constant({}),
    body: fc.constantFrom('{"a":1,"b":2}', '{"a":2}', deep(10))
  })
)

const request = fc.oneof(randomRequest, knownRequest)

const matcher = fc.oneof(
  fc
    .tuple(fc.constantFrom("GET", "POST", "*", "GETT", ""), fc.constantFrom(...HOSTS), path)
    .map(([m, h, p]) => `${m} https://${h}${p}`),
  fc.string({ maxLength: 20 }),
  fc.record(
    {
      method: fc.oneof(fc.constantFrom("GET", "POST", "get", "BREW"), fc.integer()),
      url: fc.oneof(
        fc.tuple(fc.constantFrom(...HOSTS), path).map(([h, p]) => `https://${h}${p}`),
        fc.string({ maxLength: 10 })
      ),
      regex: fc.constantFrom("^https://api\\.example\\.com/", "(a+)+$", "(?=x)", "(", "[z-a]", "items/\\d+"),
      query: fc.dictionary(
        fc.constantFrom("a", "token"),
        fc.oneof(fc.string({ maxLength: 4 }), fc.constant(true), fc.integer()),
        { maxKeys: 2 }
      ),
      headers: fc.dictionary(
        fc.constantFrom(...HEADER_NAMES, "bad name"),
        fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
        { maxKeys: 2 }
      ),
      json: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        deepJson.map((t) => JSON.parse(t) as unknown)
      )
    },
    { requiredKeys: [] }
  )
)

const respond = fc.oneof(
  fc.record(
    {
      kind: fc.constant("text"),
      body: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()),
      status: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 700 }))
    },
    { requiredKeys: ["kind", "body"] }
  ),
  fc.record({ kind: fc.constant("status"), status: fc.oneof(fc.integer({ min: 100, max: 700 }), fc.double()) }),
  fc.record({ kind: fc.constant("bytes"), base64: fc.oneof(fc.base64String({ maxLength: 12 }), fc.constant("!!")) }),
  fc.record({ kind: fc.constant("fault"), fault: fc.constantFrom("reset", "malformed-body", "explode") }),
  fc.record({
    kind: fc.constant("jsonSchema"),
    schema: fc.oneof(
      fc.constant({ ref: "models.catalog" }),
      fc.constant({ ref: "nope" }),
      fc.constant({ jsonSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } }),
      fc.jsonValue({ maxDepth: 3 }).map((jsonSchema) => ({ jsonSchema }))
    )
  }),
  fc.record({ kind: fc.constantFrom("handler", "mcp", "unknown", "loopback") }),
  fc.anything({ maxDepth: 2 })
)

const spec = fc.oneof(
  fc.record(
    {
      id: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 6 }), fc.integer()),
      match: matcher,
      respond,
      times: fc.oneof(fc.constant(undefined), fc.integer({ min: -1, max: 3 }), fc.double()),
      priority: fc.oneof(
        fc.constant(undefined),
        fc.integer({ min: -2, max: 2 }),
        fc.constant(Number.POSITIVE_INFINITY)
      ),
      delayMs: fc.oneof(
        fc.constant(undefined),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(-1, Number.NaN, Number.POSITIVE_INFINITY)
      )
    },
    { requiredKeys: ["match", "respond"] }
  ),
  fc.record(
    {
      family: fc.constantFrom("models", "installation", "nope", "account", "openapi"),
      baseUrl: fc.oneof(fc.constant(undefined), fc.constant("https://auth.example.com"), fc.string({ maxLength: 6 }))
    },
    { requiredKeys: ["family"] }
  ),
  fc.anything({ maxDepth: 2 })
)

const script = fc.oneof(
  fc.constant({ steps: [[{ type: "text", content: "hello" }]] }),
  fc.constant({ steps: [[{ type: "tool_call", name: "f", input: { a: 1 } }], [{ type: "text", content: "done" }]] }),
  fc.constant({ steps: [] }),
  fc.record({
    steps: fc.array(
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant("text"), content: fc.string({ maxLength: 6 }) }),
          fc.record({
            type: fc.constant("tool_call"),
            name: fc.string({ maxLength: 4 }),
            input: fc.jsonValue({ maxDepth: 2 })
          }),
          fc.record({
            type: fc.constant("http_error"),
            status: fc.integer({ min: 0, max: 700 }),
            message: fc.string({ maxLength: 4 })
          }),
          fc.anything({ maxDepth: 1 })
        ),
        { maxLength: 2 }
      ),
      { maxLength: 2 }
    )
  }),
  fc.anything({ maxDepth: 2 })
)

const driverCommand = fc.oneof(
  fc.record({
    op: fc.constant("chunk" as const),
    items: fc.array(
      fc.oneof(
        fc.record({ type: fc.constantFrom("textDelta", "reasoningDelta"), text: fc.string({ maxLength: 5 }) }),
        fc.record({
          type: fc.constant("toolCall"),
          name: fc.string({ maxLength: 4 }),
          input: fc.jsonValue({ maxDepth: 2 })
        }),
        fc.anything({ maxDepth: 1 })
      ),
      { maxLength: 3 }
    )
  }),
  fc.record({
    op: fc.constant("finish" as const),
    reason: fc.oneof(
      fc.constantFrom("stop", "tool-calls", "length", "error", "bogus"),
      fc.constant(undefined),
      fc.integer()
    )
  }),
  fc.record({ op: fc.constant("fail" as const), status: fc.oneof(fc.integer({ min: 0, max: 700 }), fc.double()) }),
  fc.record({ op: fc.constant("disconnect" as const) })
)

/** Tags a request may be denied with in these networks (no handler, no loopback server to reach). */
const DENIALS = new Set([
  "UnregisteredRequest",
  "NoScriptQueued",
  "UnmatchedLlmRequest",
  "GeneratedValueRejected",
  "LoopbackDenied",
  "Interrupted"
])

/** Whether a rejection of `fetch` is one a caller can act on: undici's own refusals, or `fetch failed` carrying a typed error. */
const typedRejection = (error: unknown): boolean => {
  if (!(error instanceof TypeError))
    return error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError")
  if (error.message === "fetch failed") return isSimnetError(error.cause)
  return /is not a valid HTTP method|HTTP method is unsupported|GET\/HEAD method cannot have body|Failed to parse URL/.test(
    error.message
  )
}

const typedRegistrationError = (error: unknown) =>
  isSimnetError(error) && ["InvalidRouteSpec", "LoopbackDenied"].includes(error._tag)

const stats = {
  cases: 0,
  registrations: 0,
  refusedRegistrations: 0,
  requests: 0,
  answered: 0,
  denied: 0,
  refusedByFetch: 0,
  driverCommands: 0,
  scripts: 0
}

describe("properties of a network under random input", () => {
  it("every outcome is an answer or a typed error; rejected registrations change nothing; counters, log and model counts agree", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(spec, fc.array(spec, { maxLength: 3 })), { maxLength: 4 }),
        fc.array(script, { maxLength: 2 }),
        fc.array(request, { minLength: 1, maxLength: 6 }),
        fc.array(driverCommand, { maxLength: 4 }),
        fc.boolean(),
        async (specs, scripts, requests, commands, drive) => {
          stats.cases++
          const network = await SimulationNetwork.start({
            routes: [
              ...Routes.openai(),
              ...Routes.models(),
              Route.text("https://api.example.com/items/:id", "item"),
              Route.json("POST https://api.example.com/items/:id", Schema.Struct({ id: Schema.String, n: Schema.Int })),
              Route.text({ method: "POST", url: "https://x.example.org/{*rest}", body: { a: 1 } }, "matched a body")
            ]
          })
          for (const s of scripts) {
            stats.scripts++
            const before = network.llm.queued
            let refused: unknown
            try {
              network.llm.enqueue(s as never)
            } catch (error) {
              refused = error
            }
            if (refused === undefined) {
              expect(network.llm.queued).toBe(before + 1)
            } else {
              expect(isSimnetError(refused) && refused._tag === "InvalidLlmInput", String(refused)).toBe(true)
              expect(network.llm.queued).toBe(before)
            }
          }
          if (drive) network.llm.rule({}, { type: "drive" })
          for (const s of specs) {
            stats.registrations++
            const before = network.routes()
            const outcome = await network.registerSpec(s).then(
              () => undefined,
              (error: unknown) => error
            )
            if (outcome !== undefined) {
              stats.refusedRegistrations++
              expect(typedRegistrationError(outcome), String(outcome)).toBe(true)
              expect(network.routes()).toEqual(before)
            }
          }
          let dispatched = 0
          const pending: Array<Promise<void>> = []
          for (const r of requests) {
            const search = r.query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")
            const url = `https://${r.host}${r.path}${search === "" ? "" : `?${search}`}`
            const hasBody = r.body !== undefined
            const willDispatch =
              r.method !== "" &&
              /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(r.method) &&
              !["TRACE", "CONNECT", "TRACK"].includes(r.method.toUpperCase()) &&
              !(hasBody && ["GET", "HEAD"].includes(r.method.toUpperCase()))
            stats.requests++
            const signal = AbortSignal.timeout(300)
            const settled = network
              .fetch(url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined, signal })
              .then(
                async (response) => {
                  stats.answered++
                  await response.arrayBuffer().catch((error: unknown) => {
                    // A reset fault or an abort mid-body: a transport error, as undici raises it.
                    expect(error instanceof TypeError || error instanceof DOMException, String(error)).toBe(true)
                  })
                },
                (error: unknown) => {
                  if (willDispatch) stats.denied++
                  else stats.refusedByFetch++
                  expect(typedRejection(error), `${String(error)} / ${String((error as Error).cause)}`).toBe(true)
                }
              )
            if (willDispatch) dispatched++
            pending.push(settled)
          }
          await new Promise((resolve) => setImmediate(resolve))
          for (const c of commands) {
            stats.driverCommands++
            const id = network.llm.pending[0]?.id ?? "inv_404"
            const effect =
              c.op === "chunk"
                ? network.llm.chunk({ id, items: c.items as never })
                : c.op === "finish"
                  ? network.llm.finish({ id, reason: c.reason as never })
                  : c.op === "fail"
                    ? network.llm.fail({ id, status: c.status })
                    : network.llm.disconnect({ id })
            const exit = await Effect.runPromiseExit(effect)
            if (exit._tag === "Failure") {
              const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
              expect(
                error !== undefined && isSimnetError((error as { error: unknown }).error),
                String(exit.cause)
              ).toBe(true)
            }
          }
          for (const p of network.llm.pending) await Effect.runPromise(network.llm.disconnect({ id: p.id }))
          await Promise.all(pending)

          const log = network.log()
          const counters = await Effect.runPromise(network.network.counters)
          expect(counters.requests).toBe(dispatched)
          expect(log.length).toBe(dispatched)
          expect(counters.answered + counters.denied).toBe(dispatched)
          expect(log.filter((record) => record.status !== undefined).length).toBe(counters.answered)
          for (const record of log) {
            if (record.denial === undefined) continue
            // A driver's `disconnect` drops the connection of a driven model call: the one RouteFailed expected here.
            const disconnected = record.denial === "RouteFailed" && record.route?.id === "openai.chat"
            expect(DENIALS.has(record.denial) || disconnected, record.denial).toBe(true)
          }
          const byRoute: Record<string, number> = {}
          for (const record of log)
            if (record.route !== undefined) byRoute[record.route.id] = (byRoute[record.route.id] ?? 0) + 1
          expect(counters.byRoute).toEqual(byRoute)
          const llm = network.llm
          expect(llm.log.length).toBe(llm.callCount)
          expect(log.filter((record) => record.route?.id === "openai.chat").length).toBe(llm.callCount)
          let total = 0
          for (const count of llm.counts.values()) total += count
          expect(total).toBe(llm.callCount)
          for (const entry of llm.log)
            expect(llm.countFor(entry.key)).toBe(llm.log.filter((e) => e.key === entry.key).length)
          await network.close()
        }
      ),
      { numRuns: 150, seed: 20261130 }
    )
    console.log(`properties: ${JSON.stringify(stats)}`)
    expect(stats.cases).toBe(150)
  }, 60_000)
})
