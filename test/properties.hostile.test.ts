/**
 * Properties of `simnet serve`'s hostile surfaces under random input (issue 18): control bodies,
 * driver frames, snapshot JSON and JSON Schemas, valid, broken and hostile. Every answer is a
 * success or a typed refusal (never a 500, a `-32603` or a stack trace); a refusal changes
 * nothing; a JSON Schema that registers serves bodies valid under it, and nothing takes long.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { raw, rpc, serve, stopAll, type Served } from "./support/serve.ts"

const CONTROL = "/experimental/simulation"
const JSON_TYPE = { "content-type": "application/json" }

let server: Served
beforeAll(async () => {
  server = await serve(["--quiet", "--fixture", "test/fixtures/openai-only.json"])
})
afterAll(stopAll)

/** The state a refused call must leave as it was: the snapshot (no network request runs meanwhile). */
const snapshot = async () => (await raw(server.port, "GET", `${CONTROL}/snapshot`)).body

/** A refusal is JSON `{error: {tag, message}}` with a 4xx status and carries no stack trace or path of this machine. */
const typedRefusal = (status: number, body: string) => {
  expect(status, body).toBeGreaterThanOrEqual(400)
  expect(status, body).toBeLessThan(500)
  const error = (JSON.parse(body) as { error: { tag: unknown; message: unknown } }).error
  expect(typeof error.tag).toBe("string")
  expect(typeof error.message).toBe("string")
  expect(body).not.toMatch(/\/work\/|node_modules|\bat [A-Za-z.<>]+ \(/)
}

const deepText = fc
  .record({ depth: fc.integer({ min: 1, max: 3000 }), kind: fc.constantFrom("[", "{") })
  .map(({ depth, kind }) =>
    kind === "[" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
  )

const looseSpec = fc.record(
  {
    id: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 6 })),
    match: fc.oneof(
      fc.constant("GET https://p.example/x"),
      fc.string({ maxLength: 10 }),
      fc.record(
        { method: fc.constant("GET"), url: fc.constant("https://p.example/y"), bdy: fc.integer() },
        { requiredKeys: ["url"] }
      )
    ),
    respond: fc.oneof(
      fc.record(
        { kind: fc.constant("text"), body: fc.string({ maxLength: 5 }), delay: fc.integer() },
        { requiredKeys: ["kind", "body"] }
      ),
      fc.record({
        kind: fc.constant("jsonSchema"),
        schema: fc.jsonValue({ maxDepth: 3 }).map((jsonSchema) => ({ jsonSchema }))
      })
    ),
    tims: fc.integer(),
    times: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.double())
  },
  { requiredKeys: ["match", "respond"] }
)

const looseScript = fc.oneof(
  fc.constant({ steps: [[]] }),
  fc.record({
    steps: fc.array(
      fc.array(
        fc.record(
          {
            type: fc.constantFrom("text", "tool_call", "thinking"),
            content: fc.string({ maxLength: 4 }),
            name: fc.string({ maxLength: 3 }),
            input: fc.jsonValue({ maxDepth: 2 })
          },
          { requiredKeys: ["type"] }
        ),
        { maxLength: 2 }
      ),
      { maxLength: 2 }
    )
  }),
  fc.jsonValue({ maxDepth: 2 })
)

const controlCall = fc.oneof(
  fc.record({
    path: fc.constant("network/register"),
    body: fc.oneof(
      looseSpec.map((s) => JSON.stringify(s)),
      fc.array(looseSpec, { maxLength: 3 }).map((s) => JSON.stringify(s)),
      deepText,
      fc.string({ maxLength: 20 })
    )
  }),
  fc.record({
    path: fc.constant("llm/enqueue"),
    body: fc.oneof(
      looseScript.map((s) => JSON.stringify(s)),
      deepText,
      fc.string({ maxLength: 10 })
    )
  }),
  fc.record({
    path: fc.constant("snapshot"),
    body: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      deepText
    )
  })
)

describe("properties of simnet serve's hostile surfaces", () => {
  it("control bodies: every answer is a success or a typed 4xx, and a refusal changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(controlCall, async ({ path, body }) => {
        const before = await snapshot()
        const response = await raw(server.port, "POST", `${CONTROL}/${path}`, JSON_TYPE, body)
        if (response.status < 300) return
        typedRefusal(response.status, response.body)
        expect(await snapshot()).toBe(before)
      }),
      { numRuns: 120, seed: 20261201 }
    )
    await raw(server.port, "POST", `${CONTROL}/reset`)
  }, 120_000)

  it("driver frames: every reply is JSON-RPC with a documented code, no -32603, and the socket stays up", async () => {
    const d = await rpc(`ws://127.0.0.1:${server.port}${CONTROL}/drive`)
    const call = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("1.0")),
        id: fc.oneof(fc.integer({ min: 1000, max: 1_000_000 }), fc.constant(null)),
        method: fc.constantFrom(
          "llm.chunk",
          "llm.finish",
          "llm.fail",
          "llm.disconnect",
          "llm.pending",
          "network.log",
          "llm.attach",
          "nope"
        ),
        params: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          deepText.map((t) => JSON.parse(t) as unknown),
          fc.record({ id: fc.constant("inv_1"), items: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) }),
          fc.record(
            { since: fc.oneof(fc.integer(), fc.double()), limit: fc.oneof(fc.integer(), fc.constant(5000)) },
            { requiredKeys: [] }
          )
        )
      },
      { requiredKeys: ["jsonrpc", "method"] }
    )
    const frame = fc.oneof(
      call.map((c) => JSON.stringify(c)),
      fc.array(call, { minLength: 0, maxLength: 120 }).map((c) => JSON.stringify(c)),
      fc.string({ maxLength: 20 }),
      deepText
    )
    const CODES = new Set([-32700, -32600, -32601, -32602, -32001, -32002, -32000])
    await fc.assert(
      fc.asyncProperty(frame, async (text) => {
        const marker = Math.floor(Math.random() * 1e9)
        d.send(text)
        // The marker's answer comes after every reply to `text`: the socket handles frames in order.
        d.send(JSON.stringify({ jsonrpc: "2.0", id: `m${marker}`, method: "llm.pending" }))
        await d.take((m) => m.id === `m${marker}`)
        // Everything else that arrived is a reply (or a notice) with a documented shape.
        for (const other of d.drain()) {
          for (const reply of Array.isArray(other) ? other : [other]) {
            const r = reply as { jsonrpc?: string; error?: { code: number; message: string }; method?: string }
            expect(r.jsonrpc).toBe("2.0")
            if (r.error !== undefined) {
              expect(CODES.has(r.error.code), JSON.stringify(r.error)).toBe(true)
              expect(r.error.message).not.toMatch(/\/work\/|node_modules/)
            }
          }
        }
      }),
      { numRuns: 150, seed: 20261202 }
    )
    d.ws.close()
  }, 120_000)

  it("snapshot JSON: a mutated snapshot restores or is refused with a typed 400 and changes nothing", async () => {
    for (let i = 0; i < 20; i++) await raw(server.port, "GET", `/api.example.com/items/${i}`)
    const good = JSON.parse(await snapshot()) as Record<string, unknown>
    const mutation = fc.oneof(
      fc.record({
        key: fc.constantFrom("seed", "routes", "usage", "llm", "llmCounts", "log", "counters", "mcp"),
        value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(-1), fc.constant(null))
      }),
      fc.record({
        key: fc.constant("counters"),
        value: fc.record({
          requests: fc.integer({ min: -5, max: 5 }),
          answered: fc.integer({ min: -5, max: 5 }),
          denied: fc.integer({ min: -5, max: 5 })
        })
      }),
      fc.record({ key: fc.constant("log"), value: fc.constant("duplicate") })
    )
    await fc.assert(
      fc.asyncProperty(mutation, async ({ key, value }) => {
        const log = good["log"] as Array<{ seq: number }>
        const mutated = { ...good, [key]: value === "duplicate" ? [...log, log[log.length - 1]] : value }
        const before = await snapshot()
        const response = await raw(server.port, "POST", `${CONTROL}/snapshot`, JSON_TYPE, JSON.stringify(mutated))
        if (response.status < 300) {
          // It restored: restore the good one again for the next case.
          expect((await raw(server.port, "POST", `${CONTROL}/snapshot`, JSON_TYPE, JSON.stringify(good))).status).toBe(
            200
          )
          return
        }
        typedRefusal(response.status, response.body)
        expect(await snapshot()).toBe(before)
      }),
      { numRuns: 80, seed: 20261203 }
    )
  }, 120_000)

  it("JSON Schemas: each registers within a second and serves bodies valid under it, or is refused with a typed 400", async () => {
    const keyword = fc.oneof(
      fc.record({ type: fc.constantFrom("string", "integer", "number", "boolean", "null", "array", "object", "nope") }),
      fc.record(
        {
          minLength: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constant(1e6)),
          maxLength: fc.integer({ min: 0, max: 100 })
        },
        { requiredKeys: [] }
      ),
      fc.record(
        {
          minItems: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(5e7)),
          maxItems: fc.integer({ min: 0, max: 30 })
        },
        { requiredKeys: [] }
      ),
      fc.record(
        { minimum: fc.integer({ min: -100, max: 100 }), maximum: fc.integer({ min: -100, max: 100 }) },
        { requiredKeys: [] }
      ),
      fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ pattern: fc.constantFrom("^[a-z]+$", "^(a+)+$", "(?<=a)b", "(", "\\d{3}") })
    )
    const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
      node: fc
        .tuple(
          fc.array(keyword, { maxLength: 3 }),
          fc.oneof(
            { depthSize: "small" },
            fc.constant({}),
            fc.record(
              {
                properties: fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { maxKeys: 2 }),
                required: fc.subarray(["a", "b"]),
                items: tie("node")
              },
              { requiredKeys: [] }
            )
          )
        )
        .map(([parts, nested]) => Object.assign({}, ...parts, nested) as Record<string, unknown>)
    })).node
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    let served = 0
    await fc.assert(
      fc.asyncProperty(schema, fc.integer({ min: 0, max: 1e6 }), async (jsonSchema, n) => {
        const url = `https://schema.example/s${n}`
        const response = await raw(
          server.port,
          "POST",
          `${CONTROL}/network/register`,
          JSON_TYPE,
          JSON.stringify({ match: `GET ${url}`, respond: { kind: "jsonSchema", schema: { jsonSchema } } })
        )
        if (response.status >= 300) return typedRefusal(response.status, response.body)
        const body = await raw(server.port, "GET", `/schema.example/s${n}`)
        if (body.status !== 200)
          return typedRefusal(body.status === 502 ? 400 : body.status, body.body.replace(/"candidates":\[.*\]/, ""))
        served++
        const validate = ajv.compile(jsonSchema)
        expect(
          validate(JSON.parse(body.body)),
          `${body.body} under ${JSON.stringify(jsonSchema)}: ${JSON.stringify(validate.errors)}`
        ).toBe(true)
      }),
      { numRuns: 120, seed: 20261204 }
    )
    expect(served).toBeGreaterThan(10)
  }, 180_000)
})
