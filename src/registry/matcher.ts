/**
 * Compiling request matchers: the string form `"GET https://host/path/:id?q"` and the object
 * form `{ method, url, query, headers, body }` become one `CompiledMatcher` that tests a request,
 * explains a miss, and tells the registry how to index it.
 */
import { match as pathMatch, parse as parsePath, PathError, type Token } from "path-to-regexp"
import { InvalidRouteSpec, type MissReason } from "../SimnetError.ts"
import { LinearRegExp } from "./linearRegExp.ts"
import { bounded, defaultRedactor, MAX_SHOWN_TEXT, MAX_SHOWN_URL, type Redactor } from "./redact.ts"
import type { SimRequest } from "./request.ts"
import { boundedMemo, depthExceeds, isJsonObject, MAX_MATCH_DEPTH, normalizePath } from "./util.ts"
import {
  containsJson,
  firstSegment,
  PATH_SYNTAX,
  safeDecode,
  safeString,
  short,
  showPair,
  showValue,
  splitUrlPattern,
  staticPrefixOf,
  testValue,
  type ValueMatcher
} from "./matcherParts.ts"

export type { ValueMatcher } from "./matcherParts.ts"
export { containsJson } from "./matcherParts.ts"

/**
 * The object form of a matcher. `url` is an absolute URL pattern (path-to-regexp syntax in the
 * path), a RegExp tested against the whole URL, or a predicate. `body` is a partial JSON value
 * the request's JSON body must contain, or a predicate over the parsed body.
 */
export interface MatcherObject {
  readonly method?: string | undefined
  readonly url: string | RegExp | LinearRegExp | ((url: URL, request: SimRequest) => boolean)
  readonly query?: Readonly<Record<string, ValueMatcher | true>> | undefined
  readonly headers?: Readonly<Record<string, ValueMatcher>> | undefined
  readonly body?: unknown
}

/**
 * Anything a route constructor accepts as its matcher.
 */
export type MatcherInput = string | MatcherObject

/**
 * The outcome of testing one request: its path parameters on a match.
 */
export type MatchOutcome = Readonly<Record<string, string>> | undefined

/**
 * Why a matcher did not match, how near it came (higher is nearer), and a readable detail.
 */
export interface Miss {
  readonly reason: MissReason
  readonly detail: string
  readonly score: number
}

/**
 * Where the registry files a matcher: by origin and exact path, by origin and first path
 * segment, by origin only, or in the ordered side list (RegExp and predicate URLs).
 */
export type IndexKey =
  | { readonly _tag: "Exact"; readonly key: string }
  | { readonly _tag: "Segment"; readonly key: string }
  | { readonly _tag: "Origin"; readonly key: string }
  | { readonly _tag: "Side" }

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

class MissValue implements Miss {
  readonly reason: MissReason
  readonly detail: string
  readonly score: number
  constructor(reason: MissReason, detail: string, score: number) {
    this.reason = reason
    this.detail = detail
    this.score = score
  }
}

const isMiss = (u: unknown): u is Miss => u instanceof MissValue

const METHOD_PREFIX = /^([A-Za-z]+)\s+(\S.*)$/

/**
 * The methods a route may name: those of HTTP and WebDAV that `fetch` sends (it refuses
 * `CONNECT`, `TRACE` and `TRACK`). Anything else in a matcher is a typo such as `GETT`.
 */
const HTTP_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
  "QUERY",
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "REPORT",
  "SEARCH",
  "PURGE"
])

const HOST_SCORE = 8
const PATH_SCORE = 4
const METHOD_SCORE = 2

type Pairs = ReadonlyArray<readonly [string, ValueMatcher | true]>
const NO_PAIRS: Pairs = Object.freeze([])
const SIDE: IndexKey = Object.freeze({ _tag: "Side" })

/**
 * A matcher ready to test requests. When the input was malformed, `invalid` holds the error and
 * the registry refuses the route. A class rather than closures: a network may hold many thousands
 * of routes, and fields on one shape cost far less memory than a closure context per route.
 */
export class CompiledMatcher {
  /** A readable form of the matcher, e.g. `GET https://api.example.com/items/:id`. */
  readonly source: string
  readonly method: string | undefined
  /** The origin (`https://host:port`) when the URL is a pattern, else undefined. */
  readonly origin: string | undefined
  readonly hostname: string | undefined
  readonly index: IndexKey
  readonly needsBody: boolean
  /**
   * True when an exact-path URL and the method are all there is to match: the registry's index
   * then decides the match without calling `test`.
   */
  readonly plain: boolean
  readonly invalid: InvalidRouteSpec | undefined
  private readonly url: string | RegExp | LinearRegExp | ((url: URL, request: SimRequest) => boolean) | undefined
  private readonly exactPath: string | undefined
  private readonly matchPath: ReturnType<typeof pathMatch> | undefined
  private readonly query: Pairs
  private readonly headers: Pairs
  private readonly body: unknown

  constructor(fields: {
    readonly source: string
    readonly method?: string | undefined
    readonly origin?: string | undefined
    readonly hostname?: string | undefined
    readonly index?: IndexKey | undefined
    readonly invalid?: InvalidRouteSpec | undefined
    readonly url?: string | RegExp | LinearRegExp | ((url: URL, request: SimRequest) => boolean) | undefined
    readonly exactPath?: string | undefined
    readonly matchPath?: ReturnType<typeof pathMatch> | undefined
    readonly query?: Pairs | undefined
    readonly headers?: Pairs | undefined
    readonly body?: unknown
  }) {
    this.source = fields.source
    this.method = fields.method
    this.origin = fields.origin
    this.hostname = fields.hostname
    this.index = fields.index ?? SIDE
    this.invalid = fields.invalid
    this.url = fields.url
    this.exactPath = fields.exactPath
    this.matchPath = fields.matchPath
    this.query = fields.query === undefined || fields.query.length === 0 ? NO_PAIRS : fields.query
    this.headers = fields.headers === undefined || fields.headers.length === 0 ? NO_PAIRS : fields.headers
    this.body = fields.body
    this.needsBody = fields.body !== undefined
    this.plain = this.index._tag === "Exact" && this.query.length === 0 && this.headers.length === 0 && !this.needsBody
  }

  test(request: SimRequest): MatchOutcome {
    if (this.invalid !== undefined || this.url === NOTHING) return undefined
    // A miss of any part is a miss: the method, the cheapest to tell, first.
    if (this.method !== undefined && this.method !== request.method) return undefined
    const result = this.evaluate(request, false, defaultRedactor)
    return isMiss(result) ? undefined : result
  }

  /**
   * Why the matcher misses `request`, or undefined when it matches. The detail never shows the
   * value of a header or query parameter that `redactor` counts as a credential, and is bounded
   * in length.
   */
  explain(request: SimRequest, redactor: Redactor = defaultRedactor): Miss | undefined {
    if (this.invalid !== undefined || this.url === NOTHING) return undefined
    const result = this.evaluate(request, true, redactor)
    return isMiss(result) ? result : undefined
  }

  private testUrl(u: URL, request: SimRequest): MatchOutcome | Miss {
    const url = this.url
    if (typeof url === "string") {
      if (u.origin !== this.origin) {
        // Only the scheme differs (`http://` through a proxy for an `https://` route): the nearest
        // of misses when the path fits too, and said so.
        const sameHost = this.origin!.slice(this.origin!.indexOf("//")) === u.origin.slice(u.origin.indexOf("//"))
        const pathFits =
          sameHost &&
          (this.exactPath !== undefined
            ? normalizePath(u.pathname) === this.exactPath
            : this.matchPath!(u.pathname) !== false)
        return new MissValue(
          "host",
          `expects ${short(this.origin!)}, got ${short(u.origin)}${sameHost ? " (only the scheme differs)" : ""}`,
          sameHost ? (pathFits ? HOST_SCORE + PATH_SCORE : HOST_SCORE) : 0
        )
      }
      if (this.exactPath !== undefined) {
        return normalizePath(u.pathname) === this.exactPath ? NO_PARAMS : pathMiss(url, u.pathname)
      }
      const result = this.matchPath!(u.pathname)
      return result === false ? pathMiss(url, u.pathname) : (result.params as Record<string, string>)
    }
    if (url instanceof RegExp || url instanceof LinearRegExp) {
      if (url instanceof RegExp) url.lastIndex = 0
      return url.test(u.href) ? NO_PARAMS : new MissValue("path", `URL does not match ${short(String(url))}`, 0)
    }
    return url!(u, request) ? NO_PARAMS : new MissValue("predicate", "the URL predicate returned false", 0)
  }

  private evaluate(request: SimRequest, full: boolean, redactor: Redactor): MatchOutcome | Miss {
    let score = 0
    let firstMiss: Miss | undefined
    const miss = (reason: MissReason, detail: string): boolean => {
      if (firstMiss === undefined) firstMiss = new MissValue(reason, detail, 0)
      return full
    }
    const urlResult = this.testUrl(request.url, request)
    let params: Readonly<Record<string, string>> = NO_PARAMS
    if (isMiss(urlResult)) {
      score += urlResult.reason === "host" ? urlResult.score : HOST_SCORE + urlResult.score
      if (!miss(urlResult.reason, urlResult.detail)) return firstMiss
    } else {
      score += HOST_SCORE + PATH_SCORE
      params = urlResult ?? NO_PARAMS
    }
    if (this.method !== undefined && this.method !== request.method) {
      if (!miss("method", `expects ${this.method}, got ${request.method}`)) return firstMiss
    } else {
      score += METHOD_SCORE
    }
    for (const [name, expected] of this.query) {
      const values = request.url.searchParams.getAll(name)
      if (!values.some((value) => testValue(expected, value))) {
        const detail =
          values.length === 0
            ? `query parameter "${short(name)}" is missing`
            : redactor.isCredentialQuery(name)
              ? `query parameter "${short(name)}" differs (values of credential parameters are not shown)`
              : `query parameter "${short(name)}" expects ${short(showValue(expected))}, got "${short(values[0])}"`
        if (!miss("query", detail)) return firstMiss
      } else score += 1
    }
    for (const [name, expected] of this.headers) {
      const actual = request.headers.get(name)
      if (!testValue(expected, actual)) {
        const detail =
          actual === null
            ? `header "${name}" is missing`
            : redactor.isCredentialHeader(name)
              ? `header "${name}" differs (values of credential headers are not shown)`
              : `header "${name}" expects ${short(showValue(expected))}, got "${short(actual)}"`
        if (!miss("header", detail)) return firstMiss
      } else score += 1
    }
    const bodyPattern = this.body
    if (bodyPattern !== undefined) {
      const body = request.json()
      const ok = typeof bodyPattern === "function" ? Boolean(bodyPattern(body)) : containsJson(body, bodyPattern)
      if (!ok) {
        const detail =
          typeof bodyPattern === "function"
            ? "the body predicate returned false"
            : `JSON body does not contain ${short(redactor.bodyText(short(JSON.stringify(bodyPattern), MAX_SHOWN_TEXT)))}`
        if (!miss("body", detail)) return firstMiss
      } else score += 1
    }
    if (firstMiss !== undefined) return new MissValue(firstMiss.reason, firstMiss.detail, score)
    return params
  }
}

/** The URL test of `matchNothing`. */
const NOTHING = (): boolean => false

/**
 * A matcher that matches no request and is never named as a candidate: for a listed route that
 * stands for something simnet does not simulate (an MCP config's local server). `source` is what
 * the route listing shows as its match.
 */
export const matchNothing = (source: string): CompiledMatcher =>
  new CompiledMatcher({ source: bounded(source, MAX_SHOWN_URL), url: NOTHING })

const invalidMatcher = (path: string, message: string, source: string): CompiledMatcher =>
  new CompiledMatcher({ source, invalid: new InvalidRouteSpec({ path, message }) })

/**
 * Compiles a matcher. `path` is the JSON path of the matcher in its specification, used to
 * name the field of an `InvalidRouteSpec`.
 */
export const compileMatcher = (input: MatcherInput, path = "match"): CompiledMatcher => {
  // A string matcher compiles to the same immutable matcher every time: a family's routes,
  // registered again in every fresh network of a property test, are compiled once.
  if (typeof input !== "string" || input.length > MAX_KEPT_SOURCE) return compileNow(input, path)
  return keptMatcher(`${path}\u0000${input}`, () => compileNow(input, path))
}

/** The string matchers compiled so far (at most 4 096, each at most `MAX_KEPT_SOURCE` characters). */
const keptMatcher = boundedMemo<CompiledMatcher>(4096)
const MAX_KEPT_SOURCE = 2048

const compileNow = (input: MatcherInput, path: string): CompiledMatcher => {
  let object: MatcherObject
  let urlPath = `${path}.url`
  if (typeof input === "string") {
    const trimmed = input.trim()
    const m = METHOD_PREFIX.exec(trimmed)
    object = m !== null && !/^[a-z]+:\/\//i.test(trimmed) ? { method: m[1], url: m[2] } : { url: trimmed }
    urlPath = path
  } else if (isJsonObject(input)) {
    object = input as MatcherObject
  } else {
    return invalidMatcher(
      path,
      'a matcher is a string such as "GET https://host/path" or an object with a url',
      safeString(input)
    )
  }

  if (object.method !== undefined && typeof object.method !== "string") {
    return invalidMatcher(
      `${path}.method`,
      `method must be a string, got ${safeString(object.method)}`,
      safeString(object.method)
    )
  }
  const method = object.method === undefined || object.method === "*" ? undefined : object.method.toUpperCase()
  if (method !== undefined && !HTTP_METHODS.has(method)) {
    return invalidMatcher(
      typeof input === "string" ? path : `${path}.method`,
      `"${short(object.method!)}" is not an HTTP method a client sends (expected one of GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH, QUERY, or a WebDAV method)`,
      short(object.method!)
    )
  }
  const refusedPart = checkParts(object, path)
  if (refusedPart !== undefined) return refusedPart
  const headers =
    object.headers === undefined
      ? NO_PAIRS
      : Object.entries(object.headers).map(([k, v]) => [k.toLowerCase(), v] as const)
  const queryExtra: Pairs = object.query === undefined ? NO_PAIRS : Object.entries(object.query)
  const url = object.url
  const label = (urlLabel: string, query: Pairs) =>
    bounded(
      `${method ?? "*"} ${urlLabel}${query.length === 0 ? "" : "?" + query.map(showPair).join("&")}`,
      MAX_SHOWN_URL
    )

  if (typeof url === "string") {
    const pattern = splitUrlPattern(url)
    if (typeof pattern === "string") return invalidMatcher(urlPath, pattern, short(url))
    let tokens: ReadonlyArray<Token> = [{ type: "text", value: pattern.pathname }]
    let matchPath: ReturnType<typeof pathMatch> | undefined
    if (PATH_SYNTAX.test(pattern.pathname)) {
      try {
        tokens = parsePath(pattern.pathname).tokens
        matchPath = pathMatch(pattern.pathname, { sensitive: true, decode: safeDecode })
      } catch (error) {
        const message = error instanceof PathError ? error.message : String(error)
        return invalidMatcher(
          urlPath,
          `invalid path pattern "${short(pattern.pathname)}": ${short(message, MAX_SHOWN_TEXT)}`,
          short(url)
        )
      }
    }
    const origin = pattern.origin
    const patternQuery = Object.entries(pattern.query)
    const query = patternQuery.length === 0 ? queryExtra : [...patternQuery, ...queryExtra]
    const { prefix, complete } = staticPrefixOf(tokens)
    const exactPath = complete ? normalizePath(prefix) : undefined
    const segment = exactPath === undefined ? firstSegment(prefix) : undefined
    return new CompiledMatcher({
      source: label(`${origin}${pattern.pathname}`, query),
      method,
      origin,
      hostname: pattern.hostname,
      index:
        exactPath !== undefined
          ? { _tag: "Exact", key: origin + exactPath }
          : segment === undefined
            ? { _tag: "Origin", key: origin }
            : { _tag: "Segment", key: origin + segment },
      url: pattern.pathname,
      exactPath,
      matchPath,
      query,
      headers,
      body: object.body
    })
  }
  if (url instanceof RegExp || url instanceof LinearRegExp || typeof url === "function") {
    const urlLabel =
      url instanceof RegExp || url instanceof LinearRegExp
        ? bounded(String(url), MAX_SHOWN_URL)
        : url.name
          ? `<predicate ${url.name}>`
          : "<predicate>"
    return new CompiledMatcher({
      source: label(urlLabel, queryExtra),
      method,
      url,
      query: queryExtra,
      headers,
      body: object.body
    })
  }
  return invalidMatcher(urlPath, "url must be a string, a RegExp or a function", safeString(url))
}

const isValueMatcher = (v: unknown, presence: boolean): boolean =>
  typeof v === "string" || v instanceof RegExp || v instanceof LinearRegExp || (presence && v === true)

/**
 * The first malformed part of a matcher object, refused: headers and query that are not records
 * of strings or RegExps (`true` for "present" in a query), a JSON body pattern nested deeper than
 * `MAX_MATCH_DEPTH` (or cyclic).
 */
const checkParts = (object: MatcherObject, path: string): CompiledMatcher | undefined => {
  for (const [field, presence] of [
    ["headers", false],
    ["query", true]
  ] as const) {
    const record: unknown = object[field]
    if (record === undefined) continue
    if (!isJsonObject(record))
      return invalidMatcher(`${path}.${field}`, `${field} must be an object of names to values`, safeString(record))
    for (const [name, value] of Object.entries(record)) {
      if (!isValueMatcher(value, presence)) {
        return invalidMatcher(
          `${path}.${field}.${name}`,
          `a ${field === "headers" ? "header" : "query"} value must be a string${presence ? ", true" : ""} or a RegExp, got ${safeString(value)}`,
          safeString(value)
        )
      }
      if (field === "headers" && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        return invalidMatcher(`${path}.headers`, `"${short(name)}" is not a header name`, short(name))
      }
    }
  }
  if (object.body !== undefined && typeof object.body !== "function" && depthExceeds(object.body, MAX_MATCH_DEPTH)) {
    return invalidMatcher(
      `${path}.body`,
      `a JSON body matcher may nest at most ${MAX_MATCH_DEPTH} levels deep`,
      "<deep body matcher>"
    )
  }
  return undefined
}

const pathMiss = (expected: string, actual: string): Miss => {
  let common = 0
  while (common < expected.length && common < actual.length && expected[common] === actual[common]) common++
  return new MissValue("path", `expects ${short(expected)}, got ${short(actual)}`, Math.min(3, Math.floor(common / 4)))
}
