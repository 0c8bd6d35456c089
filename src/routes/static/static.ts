/**
 * The static route kinds: `text`, `bytes` and `status`. Their answers need no Effect, so they
 * offer the registry a synchronous fast path.
 */
import { Effect } from "effect"
import { refused, whole, type Whole } from "../../registry/answer.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import type { Answerer, Route } from "../../registry/route.ts"
import { NULL_BODY_STATUSES } from "../../registry/util.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { make, type RouteOptions, usable } from "../make.ts"

/**
 * Response options shared by the static kinds.
 */
export interface StaticResponseOptions {
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly contentType?: string | undefined
}

/**
 * The answer of a fixed body: the same `Whole` for every request, which `reproduce` gives again.
 */
export interface StaticResponder {
  readonly answer: Answerer
  /** Present when the status or headers are invalid: fails the registration. */
  readonly prepare?: Effect.Effect<never, InvalidRouteSpec> | undefined
  readonly reproduce?: (() => Effect.Effect<Whole>) | undefined
}

/** An RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/**
 * An RFC 9110 field value: visible ASCII and obs-text (bytes 0x80-0xFF) with spaces and tabs
 * inside, none at either end. What both undici's `Headers` and Node's server write: a character
 * past 0xFF (undici takes values as byte strings) or a control character other than a tab is refused.
 */
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/

/**
 * Checks what a WHATWG `Response` would refuse at request time: a status outside 200–599 and
 * malformed header names or values. Undefined when all is well.
 */
export const checkResponseParts = (
  status: number,
  headers: Readonly<Record<string, string>>,
  hasBody: boolean
): InvalidRouteSpec | undefined => {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    return new InvalidRouteSpec({ path: "respond.status", message: `status must be a whole number from 200 to 599, got ${status}` })
  }
  if (hasBody && NULL_BODY_STATUSES.has(status)) {
    return new InvalidRouteSpec({ path: "respond.status", message: `status ${status} carries no body; use a status route for it` })
  }
  for (const name in headers) {
    const value = headers[name]
    if (!HEADER_NAME.test(name) || typeof value !== "string" || !HEADER_VALUE.test(value)) {
      return new InvalidRouteSpec({ path: `respond.headers.${name}`, message: `not a valid HTTP header: ${JSON.stringify(name)}: ${JSON.stringify(value)}` })
    }
  }
  return undefined
}

const fromSync = (
  status: number,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | undefined,
  text?: string
): StaticResponder => {
  const invalid = checkResponseParts(status, headers, body !== undefined)
  if (invalid !== undefined) return { answer: () => refused(invalid), prepare: Effect.fail(invalid) }
  const answer = whole(status, headers, body, text)
  return { answer: () => answer, reproduce: () => Effect.succeed(answer) }
}

const encoder = new TextEncoder()

const headersWith = (options: StaticResponseOptions, defaultType: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  const type = options.contentType ?? defaultType
  if (type !== undefined) headers["content-type"] = type
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v
  return headers
}

/**
 * Answers with a fixed text body (`text/plain; charset=utf-8` unless told otherwise).
 */
export const textResponder = (body: string, options: StaticResponseOptions = {}): StaticResponder => {
  const status = options.status ?? 200
  const headers = headersWith(options, "text/plain; charset=utf-8")
  return fromSync(status, headers, encoder.encode(body), body)
}

/**
 * Answers with fixed bytes (`application/octet-stream` unless told otherwise). The bytes are
 * copied once at construction, so later changes to the caller's array do not leak in.
 */
export const bytesResponder = (body: Uint8Array, options: StaticResponseOptions = {}): StaticResponder => {
  const status = options.status ?? 200
  const headers = headersWith(options, "application/octet-stream")
  const bytes = body.slice()
  return fromSync(status, headers, bytes)
}


/**
 * Answers with a status and headers and an empty body (or `body` when given).
 */
export const statusResponder = (status: number, options: { headers?: Readonly<Record<string, string>> | undefined; body?: string | undefined } = {}): StaticResponder => {
  const headers = headersWith({ headers: options.headers }, options.body === undefined ? undefined : "text/plain; charset=utf-8")
  const body = options.body
  return fromSync(status, headers, body === undefined ? undefined : encoder.encode(body), body)
}

/**
 * Answers with a fixed text body.
 *
 * @example Route.text("GET https://api.example.com/health", "ok")
 */
export const text = (match: MatcherInput, body: string, options: RouteOptions & StaticResponseOptions = {}): Route =>
  make("text", match, textResponder(body, usable(options)), options)

/**
 * Answers with fixed bytes.
 */
export const bytes = (match: MatcherInput, body: Uint8Array, options: RouteOptions & StaticResponseOptions = {}): Route =>
  make("bytes", match, bytesResponder(body, usable(options)), options)

/**
 * Answers with a status, optional headers and an empty body.
 *
 * @example Route.status("DELETE https://api.example.com/items/:id", 204)
 */
export const status = (
  match: MatcherInput,
  code: number,
  options: RouteOptions & { readonly headers?: Readonly<Record<string, string>> | undefined; readonly body?: string | undefined } = {}
): Route => make("status", match, statusResponder(code, usable(options)), options)
