/**
 * Decoding RouteSpec JSON into routes. Fixture files, `registerSpec` and the control endpoint all
 * come through here, with the one Schema of `schemas/routeSpec.ts`. Every problem is an
 * `InvalidRouteSpec` naming the JSON path of the field, such as `[2].match.regex`.
 */
import { Effect, Result, type Schema } from "effect"
import { decodeAt, joinPath as join } from "./registry/schemaPath.ts"
import type { MatcherInput, MatcherObject } from "./registry/matcher.ts"
import type { Route } from "./registry/route.ts"
import * as R from "./Route.ts"
import { FamilySpec, RESPOND_KINDS, RouteSpec, type Respond } from "./schemas/routeSpec.ts"
import { InvalidRouteSpec, type SimnetError } from "./SimnetError.ts"

/**
 * A route family that fixtures can name: `{ "family": NAME, "baseUrl" }`.
 */
export type FamilyFactory = (spec: { readonly baseUrl?: string | undefined; readonly [key: string]: unknown }) => ReadonlyArray<Route>

/**
 * Decoders for the kinds whose routes are built by other modules (`jsonSchema`, `mcp`): they
 * receive the validated `respond` object and the route options.
 */
export type KindDecoder = (
  match: MatcherInput,
  respond: Respond,
  options: R.RouteOptions,
  path: string
) => Effect.Effect<Route, SimnetError>

/**
 * What decoding may refer to: handlers registered in code, families, kind decoders, and the
 * `source` the routes are recorded with.
 */
export interface DecodeContext {
  readonly handlers?: ReadonlyMap<string, R.Handler> | undefined
  readonly families?: ReadonlyMap<string, FamilyFactory> | undefined
  readonly kinds?: ReadonlyMap<string, KindDecoder> | undefined
  readonly source?: string | undefined
}

/**
 * Decoded routes, each carrying its JSON path (`specPath`) so later errors name the field.
 */
export interface DecodedRoutes {
  readonly routes: ReadonlyArray<Route>
}

const firstIssue = (schema: Schema.Top, input: unknown, base: string): { path: string; message: string } | undefined => {
  const result = decodeAt(schema as Schema.Codec<unknown, unknown>, input, base)
  return Result.isFailure(result) ? result.failure : undefined
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

const decodeMatch = (match: typeof RouteSpec.Type["match"], path: string): MatcherInput | InvalidRouteSpec => {
  if (typeof match === "string") return match
  const at = (field: string) => join(join(path, "match"), field)
  if (match.url !== undefined && match.regex !== undefined) return invalid(at("regex"), "give either url or regex, not both")
  let url: MatcherObject["url"]
  if (match.regex !== undefined) {
    try {
      url = new RegExp(match.regex)
    } catch (error) {
      return invalid(at("regex"), `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`)
    }
  } else if (match.url !== undefined) {
    url = match.url
  } else {
    return invalid(join(path, "match"), "a matcher object needs url or regex")
  }
  return { method: match.method, url, query: match.query, headers: match.headers, body: match.json }
}

const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, "")) ) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

const decodeOne = (json: unknown, path: string, context: DecodeContext): Effect.Effect<ReadonlyArray<Route>, SimnetError> => {
  if (!isObject(json)) return Effect.fail(invalid(path || "$", "a route spec is a JSON object"))
  if ("family" in json) {
    const issue = firstIssue(FamilySpec, json, path)
    if (issue !== undefined) return Effect.fail(invalid(issue.path, issue.message))
    const name = json.family as string
    const factory = context.families?.get(name)
    if (factory === undefined) {
      const known = [...(context.families?.keys() ?? [])].sort()
      return Effect.fail(invalid(join(path, "family"), `unknown family "${name}"; known families: ${known.join(", ") || "(none)"}`))
    }
    return Effect.try({
      try: () => factory(json as FamilySpec),
      catch: (error) =>
        error instanceof InvalidRouteSpec
          ? invalid(path === "" ? error.path : `${path}.${error.path}`, error.message)
          : invalid(join(path, "family"), `the ${name} family failed: ${String(error)}`)
    })
  }
  const respond = json.respond
  if (!isObject(respond)) return Effect.fail(invalid(join(path, "respond"), "respond must be an object with a kind"))
  if (typeof respond.kind !== "string" || !(RESPOND_KINDS as ReadonlyArray<string>).includes(respond.kind)) {
    return Effect.fail(
      invalid(join(join(path, "respond"), "kind"), `unknown kind ${JSON.stringify(respond.kind)}; expected one of ${RESPOND_KINDS.join(", ")}`)
    )
  }
  const issue = firstIssue(RouteSpec, json, path)
  if (issue !== undefined) return Effect.fail(invalid(issue.path, issue.message))
  const spec = json as RouteSpec
  const match = decodeMatch(spec.match, path)
  if (match instanceof InvalidRouteSpec) return Effect.fail(match)
  const options: R.RouteOptions = {
    id: spec.id,
    times: spec.times,
    priority: spec.priority,
    delay: spec.delayMs === undefined ? undefined : spec.delayMs,
    source: context.source ?? "fixture"
  }
  const r = spec.respond
  const at = (field: string) => join(join(path, "respond"), field)
  switch (r.kind) {
    case "text":
      return Effect.succeed([R.text(match, r.body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers })])
    case "bytes": {
      const bytes = decodeBase64(r.base64)
      if (bytes === undefined) return Effect.fail(invalid(at("base64"), "not valid base64"))
      return Effect.succeed([R.bytes(match, bytes, { ...options, contentType: r.contentType, status: r.status, headers: r.headers })])
    }
    case "status":
      return Effect.succeed([R.status(match, r.status, { ...options, headers: r.headers, body: r.body })])
    case "handler": {
      const handler = context.handlers?.get(r.name)
      if (handler === undefined) {
        const known = [...(context.handlers?.keys() ?? [])].sort()
        return Effect.fail(invalid(at("name"), `no handler named "${r.name}"; registered handlers: ${known.join(", ") || "(none)"}`))
      }
      return Effect.succeed([R.handler(match, handler, options)])
    }
    case "fault":
      return Effect.succeed([R.fault(match, r.fault, options)])
    case "loopback":
      return Effect.succeed([R.loopback(match, options)])
    case "jsonSchema":
    case "mcp": {
      const decoder = context.kinds?.get(r.kind)
      if (decoder === undefined) return Effect.fail(invalid(at("kind"), `kind "${r.kind}" is not available in this network`))
      return Effect.map(decoder(match, r, options, path), (route) => [route])
    }
  }
}

/**
 * Decodes one RouteSpec, an array of them, or a family reference. Nothing is registered here;
 * the result goes to `register`, which is all or nothing.
 */
export const decodeRouteSpecs = (json: unknown, context: DecodeContext = {}): Effect.Effect<DecodedRoutes, SimnetError> => {
  const items = Array.isArray(json) ? json : [json]
  const base = (i: number) => (Array.isArray(json) ? `[${i}]` : "")
  return Effect.map(
    Effect.forEach(items, (item, i) =>
      Effect.map(decodeOne(item, base(i), context), (routes) =>
        base(i) === "" ? routes : routes.map((route) => ({ ...route, specPath: base(i) })))),
    (decoded) => ({ routes: decoded.flat() })
  )
}
