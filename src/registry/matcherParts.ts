/**
 * The pieces a matcher is compiled from: a URL pattern split into origin, path and query, value
 * tests and how a label shows them, and JSON containment for body matchers.
 */
import type { Token } from "path-to-regexp"
import { bounded, defaultRedactor, REDACTED } from "./redact.ts"
import { isJsonObject } from "./util.ts"

/**
 * A header or query value to match: an exact string or a RegExp.
 */
export type ValueMatcher = string | RegExp

/**
 * Whether `actual` contains `expected`: objects by their listed keys (recursively), arrays
 * element by element with the same length, anything else by equality.
 */
export const containsJson = (actual: unknown, expected: unknown): boolean => {
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) return false
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(actual, key) || !containsJson(actual[key], expected[key])) return false
    }
    return true
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false
    for (let i = 0; i < expected.length; i++) if (!containsJson(actual[i], expected[i])) return false
    return true
  }
  return Object.is(actual, expected)
}

export const testValue = (m: ValueMatcher | true, value: string | null): boolean => {
  if (value === null) return false
  if (m === true) return true
  if (typeof m === "string") return m === value
  m.lastIndex = 0
  return m.test(value)
}

export const showValue = (m: ValueMatcher | true): string => (m === true ? "(present)" : String(m))

/** `decodeURIComponent` that leaves a malformed escape as it is instead of throwing. */
export const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * Percent-encodes what the URL parser would encode in a path (spaces, quotes, angle brackets,
 * backticks, controls and non-ASCII), leaving path-to-regexp syntax alone, so a pattern such as
 * `/café/a b` matches the request path `/caf%C3%A9/a%20b`.
 */
const encodePathPattern = (path: string): string =>
  path.replace(/[\u0000-\u0020"<>`\u007f-\uffff]+/g, (chars) => encodeURIComponent(chars))

export const PATH_SYNTAX = /[:*{}()\\]/

/** Any value as a bounded string, never throwing (a Symbol, an object whose `toString` throws). */
export const safeString = (u: unknown): string => {
  try {
    return bounded(typeof u === "symbol" ? u.toString() : String(u))
  } catch {
    return `<${typeof u}>`
  }
}

export const short = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** A matcher's query pair as its label shows it: a credential-like parameter's value is not shown. */
export const showPair = ([k, v]: readonly [string, ValueMatcher | true]): string =>
  v === true ? k : `${k}=${defaultRedactor.isCredentialQuery(k) ? REDACTED : String(v)}`

export interface UrlPattern {
  readonly origin: string
  readonly hostname: string
  readonly pathname: string
  readonly query: Record<string, ValueMatcher | true>
}

const origins = new Map<string, { readonly origin: string; readonly hostname: string } | undefined>()

/** Parses `scheme://host/` once per distinct origin: route tables name few origins many times. */
export const parseOrigin = (base: string): { readonly origin: string; readonly hostname: string } | undefined => {
  if (origins.has(base)) return origins.get(base)
  let parsed: { readonly origin: string; readonly hostname: string } | undefined
  try {
    const url = new URL(base)
    parsed = { origin: url.origin, hostname: url.hostname }
  } catch {
    parsed = undefined
  }
  if (origins.size >= 1_000) origins.clear()
  origins.set(base, parsed)
  return parsed
}

export const splitUrlPattern = (url: string): UrlPattern | string => {
  const m = /^(https?|wss?):\/\/([^/?#]+)([^?#]*)(\?[^#]*)?$/i.exec(url)
  if (m === null) return `expected an absolute http(s) URL such as "https://host/path", got "${short(url)}"`
  const parsed = parseOrigin(`${m[1]}://${m[2]}/`)
  if (parsed === undefined) return `"${short(m[2])}" is not a valid host`
  const query: Record<string, ValueMatcher | true> = {}
  if (m[4] !== undefined && m[4].length > 1) {
    for (const part of m[4].slice(1).split("&")) {
      if (part === "") continue
      const eq = part.indexOf("=")
      if (eq === -1) query[safeDecode(part)] = true
      else query[safeDecode(part.slice(0, eq))] = safeDecode(part.slice(eq + 1))
    }
  }
  return {
    origin: parsed.origin,
    hostname: parsed.hostname,
    pathname: m[3] === "" ? "/" : encodePathPattern(m[3]),
    query
  }
}

export const staticPrefixOf = (tokens: ReadonlyArray<Token>): { prefix: string; complete: boolean } => {
  let prefix = ""
  for (const token of tokens) {
    if (token.type !== "text") return { prefix, complete: false }
    prefix += token.value
  }
  return { prefix, complete: true }
}

export const firstSegment = (path: string): string | undefined => {
  const end = path.indexOf("/", 1)
  return end === -1 ? undefined : path.slice(0, end)
}
