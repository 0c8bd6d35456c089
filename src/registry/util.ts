/**
 * Small helpers the whole package shares, each written once.
 */

/**
 * Whether a value is a JSON object (not null, not an array).
 */
export const isJsonObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Whether a host names this machine: `localhost`, an address in 127.0.0.0/8, or `::1`, as a URL
 * hostname (`[::1]`), a `Host` header's name, or a socket's peer address (`::ffff:127.0.0.1`), in
 * any case. The one test of "loopback" for loopback routes, the network guard and the control
 * plane.
 */
export const isLoopbackHost = (hostname: string): boolean => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  const host = bare.toLowerCase().replace(/^::ffff:(?=\d+\.)/, "")
  if (host === "localhost" || host === "::1" || host === "0:0:0:0:0:0:0:1") return true
  const parts = host.split(".")
  return parts.length === 4 && parts[0] === "127" && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)
}

/** A JSON pointer token, escaped (RFC 6901): `a/b~c` → `a~1b~0c`. */
export const escapePointer = (token: string): string => token.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * Statuses whose responses carry no body: a WHATWG `Response` with a body and one of these throws.
 */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304])

/**
 * A URL path without its trailing slash (`/a/` → `/a`; `/` stays `/`), the form routes are filed
 * and compared under.
 */
export const normalizePath = (path: string): string =>
  path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path

/**
 * The message of a thrown value: an `Error`'s message, anything else as a string.
 */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * How deep a request body's JSON may nest (arrays and objects) and still be read as JSON. A body
 * nested deeper is treated as text: it has no JSON value (`SimRequest.json()` is `undefined`), so
 * its canonical key is its exact text, JSON body matchers miss it and model routes answer it as
 * an invalid request. Nothing that reads a body recurses deeper than this.
 */
export const MAX_JSON_DEPTH = 512

/**
 * How deep a JSON body matcher (`match.json`, `body`) may nest. A deeper one is refused when the
 * route is registered.
 */
export const MAX_MATCH_DEPTH = 64

/**
 * Whether a value nests arrays and objects more than `limit` deep, found without recursion (a
 * cyclic value counts as too deep).
 */
export const depthExceeds = (value: unknown, limit: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  const stack: Array<unknown> = [value]
  const depths: Array<number> = [1]
  let visited = 0
  while (stack.length > 0) {
    const node = stack.pop() as object
    const depth = depths.pop()!
    if (depth > limit) return true
    if (++visited > 10_000_000) return true
    const children = Array.isArray(node) ? node : Object.values(node)
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        stack.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return false
}

/** The longest text that cannot hold JSON nested past `MAX_JSON_DEPTH`. */
const SHALLOW_TEXT = 2 * MAX_JSON_DEPTH + 1

/**
 * `text` as JSON, or `undefined` when it is not JSON or nests deeper than `MAX_JSON_DEPTH`: how a
 * request body is read as JSON (`SimRequest.json()`), and how recorded bodies are.
 */
export const parseJson = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    // JSON nested past the limit opens and closes more than `MAX_JSON_DEPTH` arrays or objects,
    // two characters each: a shorter text cannot (most bodies; no walk over their values).
    return text.length > SHALLOW_TEXT && depthExceeds(value, MAX_JSON_DEPTH) ? undefined : value
  } catch {
    return undefined
  }
}

/**
 * Whether a value is plain JSON data — null, strings, booleans, finite numbers, and arrays and
 * plain objects of them (a property set to `undefined` counts as absent) — nested at most `limit`
 * deep: what a snapshot can write and read back unchanged. Functions, class instances (an Effect
 * Schema, a `RegExp`, bytes) and cyclic values are not. Checked without recursion.
 */
export const isPlainJson = (value: unknown, limit: number = MAX_JSON_DEPTH): boolean => {
  const stack: Array<unknown> = [value]
  const depths: Array<number> = [0]
  let visited = 0
  while (stack.length > 0) {
    const node = stack.pop()
    const depth = depths.pop()!
    if (node === null || typeof node === "string" || typeof node === "boolean") continue
    if (typeof node === "number") {
      if (Number.isFinite(node)) continue
      return false
    }
    if (typeof node !== "object") return false
    // A cyclic value never ends: it is refused as too deep.
    if (depth >= limit || ++visited > 10_000_000) return false
    if (Array.isArray(node)) {
      for (const item of node) {
        stack.push(item)
        depths.push(depth + 1)
      }
      continue
    }
    if (Object.getPrototypeOf(node) !== Object.prototype) return false
    for (const item of Object.values(node)) {
      if (item === undefined) continue
      stack.push(item)
      depths.push(depth + 1)
    }
  }
  return true
}

/**
 * `crypto.createHash`, with `node:crypto` loaded at the first hash rather than with
 * `import("simnet")` (2 ms of a cold start).
 */
export const createHash = (algorithm: string): import("node:crypto").Hash => nodeCrypto().createHash(algorithm)

/** The SHA-256 of `data` in hex, in one call (`crypto.hash`: no `Hash` object made for it). */
export const sha256Hex = (data: string | Uint8Array): string => nodeCrypto().hash("sha256", data, "hex")

let loadedCrypto: typeof import("node:crypto") | undefined

/** `node:crypto`, loaded once, when first asked for (every model call hashes its request). */
const nodeCrypto = (): typeof import("node:crypto") =>
  (loadedCrypto ??= process.getBuiltinModule("node:crypto") as typeof import("node:crypto"))

/**
 * Characters a terminal acts on rather than shows: C0 and C1 controls but tab, newline and a
 * carriage return before a newline (a CRLF line end), DEL, and the bidirectional overrides.
 */
const UNPRINTABLE =
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` safe to print on a terminal: every character a terminal would act on (an escape sequence
 * that sets the title or clears the screen, a carriage return that overwrites the line, a
 * bidirectional override) written as its JSON escape (`\u001b`). Tab, newline and CRLF stay. Text that
 * is JSON stays JSON of the same value (such characters only appear inside its strings). Every
 * line the command line prints goes through it.
 */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * A bounded memo of values made from string keys: `kept(key, make)` hands back the value made
 * for `key` before, else makes and keeps it. Past `limit` keys it forgets them all and starts
 * again (the kept values are caches: nothing depends on one staying).
 */
export const boundedMemo = <A>(limit: number): ((key: string, make: () => A) => A) => {
  const kept = new Map<string, A>()
  return (key, make) => {
    let value = kept.get(key)
    if (value === undefined) {
      if (kept.size >= limit) kept.clear()
      kept.set(key, (value = make()))
    }
    return value
  }
}
