import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import fc from "fast-check"
import { CHAT_KEY_FIELDS, requestKeyOf } from "../../src/models/provider/conversation.ts"
import { makeSimRequest } from "../../src/registry/request.ts"
import {
  canonicalJson,
  canonicalRequestKey,
  canonicalUrl,
  deriveSeed,
  hashString,
  normalizeRunSeed,
  offsetSeed,
  requestKey
} from "../../src/registry/seed.ts"

describe("seed", () => {
  it("hashString is a stable 32-bit unsigned hash", () => {
    expect(hashString("")).toBe(2872998923)
    expect(hashString("simnet")).toBe(3537924737)
    expect(hashString("simnet")).not.toBe(hashString("simneu"))
    for (const s of ["a", "b", "\u{1F600}", "x".repeat(1000)]) {
      const h = hashString(s)
      expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true)
    }
  })

  it("canonical JSON sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      `{"a":{"d":[1,{"y":2,"z":1}]},"b":1}`
    )
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }))
  })

  it("canonical URL sorts the query and drops the fragment", () => {
    expect(canonicalUrl("https://h.test/p?b=2&a=1#x")).toBe("https://h.test/p?a=1&b=2")
    expect(canonicalUrl(new URL("https://h.test/p?a=2&a=1"))).toBe("https://h.test/p?a=2&a=1")
  })

  it("request keys ignore query order and JSON key order but not the method or text", () => {
    const a = requestKey(makeSimRequest({ method: "post", url: "https://h.test/p?b=2&a=1", body: `{"x":1,"y":2}` }))
    const b = requestKey(makeSimRequest({ method: "POST", url: "https://h.test/p?a=1&b=2", body: `{"y":2,"x":1}` }))
    expect(a).toBe(b)
    expect(
      requestKey(makeSimRequest({ method: "PUT", url: "https://h.test/p?a=1&b=2", body: `{"y":2,"x":1}` }))
    ).not.toBe(a)
    expect(requestKey(makeSimRequest({ method: "POST", url: "https://h.test/p", body: "not json" }))).toBe(
      canonicalRequestKey("POST", "https://h.test/p", undefined, "not json")
    )
    expect(requestKey(makeSimRequest({ url: "https://h.test/p" }))).toBe("GET https://h.test/p")
  })

  it("deriveSeed depends on each of its four inputs and nothing else", () => {
    const base = deriveSeed(0, "route", "GET https://h.test/", 0)
    expect(deriveSeed(0, "route", "GET https://h.test/", 0)).toBe(base)
    expect(deriveSeed(1, "route", "GET https://h.test/", 0)).not.toBe(base)
    expect(deriveSeed(0, "other", "GET https://h.test/", 0)).not.toBe(base)
    expect(deriveSeed(0, "route", "GET https://h.test/x", 0)).not.toBe(base)
    expect(deriveSeed(0, "route", "GET https://h.test/", 1)).not.toBe(base)
  })

  it("run seeds normalise to one stable number", () => {
    expect(normalizeRunSeed(undefined)).toBe(0)
    expect(normalizeRunSeed(42)).toBe(42)
    expect(normalizeRunSeed("nightly")).toBe(3631044949)
    expect(normalizeRunSeed("42")).not.toBe(42)
    expect(normalizeRunSeed(1.5)).toBe(3722520708)
  })

  it("a seed offset of zero keeps the seed", () => {
    expect(offsetSeed(7, 0)).toBe(7)
    expect(offsetSeed(7, undefined)).toBe(7)
    expect(offsetSeed(7, 1)).not.toBe(7)
  })

  // canonicalJson sorts keys by insertion below 17 keys and requestKeyOf reads a body's members in
  // place: both must write exactly what sorting with Array#sort and copying the members wrote.
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
    if (Array.isArray(value))
      return `[${value.map((item) => (item === undefined ? "null" : reference(item))).join(",")}]`
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`)
      .join(",")}}`
  }
  const keyName = fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom(...CHAT_KEY_FIELDS),
    fc.constantFrom("é", "Z", "a", "aa", "_", "10", "2", "\u{1F600}")
  )
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.string(),
      fc.array(tie("value"), { maxLength: 4 }),
      tie("object")
    ),
    object: fc.dictionary(keyName, fc.oneof(tie("value"), fc.constant(undefined)), { maxKeys: 24 })
  })).value

  it("canonical JSON is what sorting every object's keys with Array#sort writes", () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(reference(value))
      }),
      { numRuns: 500, seed: 38 }
    )
  })

  it("a string, number or other primitive is written exactly as JSON.stringify writes it", () => {
    const primitive = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({
        unit: fc.constantFrom('"', "\\", "\u0000", "\u001f", " ", "a", "\u2028", "\ud800", "\udc00", "\u{1F600}", "é")
      }),
      fc.double(),
      fc.integer(),
      fc.constantFrom(-0, 1e21, 1e-7, Number.MAX_VALUE, true, false, null, undefined)
    )
    fc.assert(
      fc.property(primitive, (value) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(value) ?? "null")
        expect(canonicalJson({ [String(value)]: value })).toBe(reference({ [String(value)]: value }))
      }),
      { numRuns: 2000, seed: 38 }
    )
  })

  it("a model request's key is the digest of its key fields copied out and written canonically", () => {
    const keyOf = (body: Record<string, unknown>, fields: ReadonlyArray<string>) => {
      const material: Record<string, unknown> = {}
      for (const field of fields) if (body[field] !== undefined) material[field] = body[field]
      return `llm_${createHash("sha256").update(reference(material)).digest("hex").slice(0, 16)}`
    }
    const body = fc.dictionary(keyName, json, { maxKeys: 12 })
    fc.assert(
      fc.property(body, (value) => {
        expect(requestKeyOf(value)).toBe(keyOf(value, CHAT_KEY_FIELDS))
      }),
      { numRuns: 300, seed: 38 }
    )
    const fields = ["b", "a", "b", "messages"]
    expect(requestKeyOf({ a: 1, b: [2], c: 3 }, fields)).toBe(keyOf({ a: 1, b: [2], c: 3 }, fields))
    expect(requestKeyOf({ a: 1 }, fields, { a: 0, model: "m" })).toBe(
      `llm_${createHash("sha256")
        .update(reference({ a: 1, model: "m" }))
        .digest("hex")
        .slice(0, 16)}`
    )
  })
})
