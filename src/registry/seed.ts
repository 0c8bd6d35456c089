/**
 * Seeds for generated responses. A response is a pure function of (run seed, route identity,
 * canonical request key, occurrence of that key), so the seed is derived from exactly those four
 * and nothing else: no clock, no registration order, no global counter, no `Math.random`.
 *
 * The hash is FNV-1a over the UTF-16 code units of a canonical string, finished with the
 * murmur3 avalanche step. It is stable across runs, processes and platforms, and is part of what
 * "generated values are stable within a simnet version" means.
 */
import type { SimRequest } from "./request.ts"

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * A 32-bit unsigned hash of a string: FNV-1a over its UTF-16 code units, then the murmur3
 * finaliser so that strings differing in one character give unrelated seeds.
 */
export const hashString = (input: string): number => {
  let h = FNV_OFFSET
  for (let i = 0; i < input.length; i++) {
    h ^= input.charCodeAt(i)
    h = Math.imul(h, FNV_PRIME)
  }
  return avalanche(h)
}

/**
 * The murmur3 finaliser: mixes every bit of a 32-bit hash into every other, so inputs that differ
 * in one character give unrelated results. Returns an unsigned 32-bit integer.
 */
export const avalanche = (h: number): number => {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * Turns the run seed a user gives (`seed: 42` or `seed: "nightly"`) into the number the network
 * carries in `RespondContext.runSeed`. Safe integers are kept as they are; any other number or a
 * string is hashed, so every input has one stable numeric form.
 */
export const normalizeRunSeed = (seed: number | string | undefined): number => {
  if (seed === undefined) return 0
  if (typeof seed === "number" && Number.isSafeInteger(seed)) return seed
  return hashString(typeof seed === "number" ? `number:${seed}` : `string:${seed}`)
}

/**
 * An object's own keys in `Array.prototype.sort`'s default order (UTF-16 code units). A body's
 * objects have a few keys each: they are sorted in place by insertion, which allocates nothing,
 * where `sort()` makes a work area of its own on every call.
 */
const sortedKeys = (record: object): Array<string> => {
  const keys = Object.keys(record)
  if (keys.length > 16) return keys.sort()
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]
    let j = i - 1
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j]
      j--
    }
    keys[j + 1] = key
  }
  return keys
}

/**
 * Characters `JSON.stringify` writes other than as themselves in a string: controls, `"`, `\\`,
 * and surrogates (a lone one is escaped; a string with a pair takes `JSON.stringify` too).
 */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * A primitive as `JSON.stringify` writes it ("null" for what it drops). A string with nothing to
 * escape, and a number, are written here: `JSON.stringify`'s own set-up cost more than the
 * writing, several times over on every model call's key.
 */
export const primitiveJson = (value: unknown): string => {
  if (typeof value === "string") return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null"
  if (typeof value === "boolean") return value ? "true" : "false"
  const encoded = JSON.stringify(value)
  return encoded === undefined ? "null" : encoded
}

/**
 * Serialises a JSON value with object keys sorted at every depth, so two bodies that differ only
 * in key order have the same canonical form. `undefined` members are dropped as `JSON.stringify`
 * drops them; non-finite numbers become `null`, as in JSON.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return primitiveJson(value)
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      out += (i === 0 ? "" : ",") + (item === undefined ? "null" : canonicalJson(item))
    }
    return out + "]"
  }
  return canonicalMembers(value as Record<string, unknown>, sortedKeys(value))
}

/**
 * The canonical JSON of the members of `record` named by `keys` (already in canonical order),
 * those that are undefined left out. `members`, when given, holds each key's `"key":` as
 * `JSON.stringify` writes it (for a list of keys used again and again).
 */
export const canonicalMembers = (
  record: Readonly<Record<string, unknown>>,
  keys: ReadonlyArray<string>,
  members?: ReadonlyArray<string>
): string => {
  let out = "{"
  for (let i = 0; i < keys.length; i++) {
    const item = record[keys[i]]
    if (item === undefined) continue
    out +=
      (out.length === 1 ? "" : ",") +
      (members === undefined ? primitiveJson(keys[i]) + ":" : members[i]) +
      canonicalJson(item)
  }
  return out + "}"
}

/**
 * The URL with its query parameters sorted by name (stable for repeated names) and its fragment
 * dropped: `https://h/p?b=2&a=1#x` and `https://h/p?a=1&b=2` have one canonical form.
 */
export const canonicalUrl = (url: URL | string): string => {
  if (typeof url !== "string" && url.search === "" && url.hash === "") return url.href
  const parsed = new URL(typeof url === "string" ? url : url.href)
  parsed.hash = ""
  parsed.searchParams.sort()
  return parsed.href
}

/**
 * The canonical key of a request: upper-cased method, canonical URL and, when there is a body,
 * its canonical JSON (`bodyJson`) or, for a body that is not JSON, its exact text (`bodyText`).
 * Pass neither for a request without a body.
 *
 * When to use: the registry counts occurrences per key and feeds the key to `deriveSeed`.
 */
export const canonicalRequestKey = (
  method: string,
  url: URL | string,
  bodyJson?: unknown,
  bodyText?: string
): string => {
  const head = `${method.toUpperCase()} ${canonicalUrl(url)}`
  if (bodyJson !== undefined) return `${head}\njson:${canonicalJson(bodyJson)}`
  if (bodyText !== undefined && bodyText.length > 0) return `${head}\ntext:${bodyText}`
  return head
}

/**
 * The canonical key of a `SimRequest`: its JSON body when the body parses as JSON, its exact text
 * when it does not, and no body part when it is empty.
 */
export const requestKey = (request: SimRequest): string => {
  if (request.body === undefined || request.body.length === 0) {
    return canonicalRequestKey(request.method, request.url)
  }
  const json = request.json()
  return json === undefined
    ? canonicalRequestKey(request.method, request.url, undefined, request.text())
    : canonicalRequestKey(request.method, request.url, json)
}

/**
 * The seed of one generated response: a 32-bit unsigned integer that depends on the run seed,
 * the route identity (its `id`, or its kind and matcher), the canonical request key and how many
 * earlier requests with that key the route has answered — and on nothing else.
 */
export const deriveSeed = (runSeed: number, identity: string, requestKey: string, occurrence: number): number =>
  hashString(`simnet/seed/v1\u0000${runSeed}\u0000${identity}\u0000${requestKey}\u0000${occurrence}`)

/**
 * Mixes a route's `seedOffset` into a derived seed, keeping the result a 32-bit unsigned integer.
 * An offset of 0 leaves the seed unchanged.
 */
export const offsetSeed = (seed: number, offset: number | undefined): number =>
  offset === undefined || offset === 0 ? seed : hashString(`simnet/offset/v1\u0000${seed}\u0000${offset}`)

/**
 * A stream of numbers in [0, 1) from a 32-bit seed (mulberry32): the same seed gives the same
 * numbers on every run and platform. What a seeded route draws from its derived seed (an
 * embedding's direction, a template's `randomInt`).
 */
export const seededStream = (seed: number): (() => number) => {
  let state = seed | 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
