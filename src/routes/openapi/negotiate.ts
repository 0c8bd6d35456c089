/**
 * What a client asks of a mock as Prism reads it: the `Prefer` header (`code=404`,
 * `example=name`, `dynamic=true`), content negotiation by `Accept` among the media types a
 * response declares, and Prism's problem+json errors.
 */
import type { Violation } from "./validate.ts"

/**
 * The `Prefer` header's preferences that pick a documented response.
 */
export interface Preferences {
  readonly code: string | undefined
  readonly example: string | undefined
  readonly dynamic: boolean | undefined
}

const NO_PREFERENCES: Preferences = { code: undefined, example: undefined, dynamic: undefined }

/**
 * Reads `Prefer: code=404, example=notFound, dynamic=true` (commas or semicolons between
 * preferences; quoted values allowed).
 */
export const parsePrefer = (header: string | null): Preferences => {
  if (header === null || header === "") return NO_PREFERENCES
  const out: { code?: string; example?: string; dynamic?: boolean } = {}
  for (const part of header.split(/[,;]/)) {
    const at = part.indexOf("=")
    if (at < 0) continue
    const name = part.slice(0, at).trim().toLowerCase()
    const value = part
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
    if (name === "code") out.code = value
    else if (name === "example") out.example = value
    else if (name === "dynamic") out.dynamic = value === "true"
  }
  return { code: out.code, example: out.example, dynamic: out.dynamic }
}

interface Accepted {
  readonly type: string
  readonly subtype: string
  readonly q: number
  readonly order: number
}

const parseAccept = (header: string): Array<Accepted> =>
  header.split(",").flatMap((part, order) => {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase())
    const [type, subtype] = range.split("/")
    if (type === undefined || type === "" || subtype === undefined) return []
    const qParam = params.find((p) => p.startsWith("q="))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    return Number.isFinite(q) ? [{ type, subtype, q, order }] : []
  })

const specificity = (a: Accepted) => (a.type === "*" ? 0 : a.subtype === "*" ? 1 : 2)

/**
 * The declared media type that best answers `Accept` (RFC 9110: the most specific matching range
 * gives a type its weight; the highest weight wins, then the order of declaration). Without
 * `Accept`, the first declared type `preferred` accepts (JSON), else the first. `undefined` when
 * nothing declared is acceptable.
 */
export const negotiate = (
  declared: ReadonlyArray<string>,
  accept: string | null,
  preferred: (type: string) => boolean
): string | undefined => {
  if (declared.length === 0) return undefined
  if (accept === null || accept.trim() === "") return declared.find(preferred) ?? declared[0]
  const ranges = parseAccept(accept)
  let best: { type: string; q: number; rank: number } | undefined
  declared.forEach((candidate, index) => {
    const [type, subtype] = candidate.split(";")[0].trim().toLowerCase().split("/")
    let chosen: Accepted | undefined
    for (const range of ranges) {
      const matches =
        (range.type === "*" || range.type === type || type === "*") &&
        (range.subtype === "*" || range.subtype === subtype || subtype === "*")
      if (matches && (chosen === undefined || specificity(range) > specificity(chosen))) chosen = range
    }
    if (chosen === undefined || chosen.q <= 0) return
    // Among equal weights, the declared JSON type first (what a client that accepts anything wants).
    const rank = index - (preferred(candidate) && chosen.type === "*" ? declared.length : 0)
    if (best === undefined || chosen.q > best.q || (chosen.q === best.q && rank < best.rank)) {
      best = { type: candidate, q: chosen.q, rank }
    }
  })
  return (best as { type: string } | undefined)?.type
}

/**
 * simnet's own problem types, a URN (`urn:simnet:problem:UNPROCESSABLE_ENTITY`): never Prism's
 * URI, so with Prism in front a client can still tell whose error it got.
 */
const PROBLEM_TYPES = "urn:simnet:problem:"

/**
 * A problem+json response (RFC 9457) in the shape Prism's users parse (`type`, `title`,
 * `status`, `detail`, and for an invalid request the `validation` list), in simnet's words.
 */
export const problem = (
  status: number,
  type: string,
  title: string,
  detail: string,
  extra: Readonly<Record<string, unknown>> = {}
): Response =>
  new Response(JSON.stringify({ type: `${PROBLEM_TYPES}${type}`, title, status, detail, ...extra }), {
    status,
    headers: { "content-type": "application/problem+json" }
  })

/**
 * The answer to a request that breaks its operation when the operation documents no 422 or 400
 * response of its own.
 */
export const unprocessable = (violations: ReadonlyArray<Violation>): Response =>
  problem(
    422,
    "UNPROCESSABLE_ENTITY",
    "Invalid request",
    `simnet: the request breaks its OpenAPI operation (${violations.length} violation${violations.length === 1 ? "" : "s"}, listed in validation), and the operation documents no 422 or 400 response to answer with.`,
    { validation: violations }
  )
