/**
 * Decoding RouteSpec JSON into routes. Fixture files, `registerSpec` and the control endpoint all
 * come through here, with the one Schema of `schemas/routeSpec.ts`. Every problem is an
 * `InvalidRouteSpec` naming the JSON path of the field, such as `[2].match.regex`.
 */
import { Effect, Result, type Schema } from "effect"
import type { MatcherInput, MatcherObject } from "../registry/matcher.ts"
import { withFields, type Route } from "../registry/route.ts"
import { decodeAt, joinPath as join } from "../registry/schemaPath.ts"
import { LinearRegExp } from "../registry/linearRegExp.ts"
import { depthExceeds, isJsonObject, MAX_JSON_DEPTH, MAX_MATCH_DEPTH } from "../registry/util.ts"
import * as R from "../routes/kinds.ts"
import { FamilySpec, RouteSpec, RouteSpecHead, type Respond } from "../schemas/routeSpec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"

/**
 * A route family that fixtures can name: `{ "family": NAME, "baseUrl" }`, given the reference as
 * `FamilySpec` decoded it.
 */
export type FamilyFactory = (spec: FamilySpec) => ReadonlyArray<Route>

/**
 * Decoders for the kinds whose routes are built by other modules (`jsonSchema`, `mcp`): they
 * receive the validated `respond` object and the route options.
 */
export type KindDecoder = (
  match: MatcherInput,
  respond: Respond,
  options: R.RouteOptions,
  path: string
) => Effect.Effect<Route, InvalidRouteSpec>

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

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

/**
 * Decodes `input` under `schema`, failing with an `InvalidRouteSpec` at the first issue's path
 * below `base`. A key the schema does not know is refused, with the nearest known name
 * (`respond.delay: unknown key; did you mean delayMs?`): a typo must not register a route that
 * matches more than its author meant.
 */
const decode = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, input: unknown, base: string, strict = true): Result.Result<S["Type"], InvalidRouteSpec> =>
  Result.mapError(decodeAt(schema, input, base, strict ? STRICT : undefined), (issue) => invalid(issue.path, issue.message))

const STRICT = { onExcessProperty: "error" } as const

const decodeMatch = (match: RouteSpec["match"], path: string): Result.Result<MatcherInput, InvalidRouteSpec> => {
  if (typeof match === "string") return Result.succeed(match)
  const at = (field: string) => join(join(path, "match"), field)
  if (match.url !== undefined && match.regex !== undefined) return Result.fail(invalid(at("regex"), "give either url or regex, not both"))
  let url: MatcherObject["url"]
  if (match.regex !== undefined) {
    // A pattern from data runs on RE2 (linear time), never on the backtracking engine.
    const compiled = LinearRegExp.compile(match.regex)
    if (typeof compiled === "string") return Result.fail(invalid(at("regex"), LinearRegExp.refusal(compiled)))
    url = compiled
  } else if (match.url !== undefined) {
    url = match.url
  } else {
    return Result.fail(invalid(join(path, "match"), "a matcher object needs url or regex"))
  }
  if (match.json !== undefined && depthExceeds(match.json, MAX_MATCH_DEPTH)) {
    return Result.fail(invalid(at("json"), `a JSON body matcher may nest at most ${MAX_MATCH_DEPTH} levels deep`))
  }
  return Result.succeed({ method: match.method, url, query: match.query, headers: match.headers, body: match.json })
}

const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, ""))) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

const decodeFamily = (json: unknown, path: string, context: DecodeContext): Effect.Effect<ReadonlyArray<Route>, InvalidRouteSpec> => {
  const decoded = decode(FamilySpec, json, path)
  if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
  const spec = decoded.success
  const factory = context.families?.get(spec.family)
  if (factory === undefined) {
    const known = [...(context.families?.keys() ?? [])].sort()
    return Effect.fail(invalid(join(path, "family"), `unknown family "${spec.family}"; known families: ${known.join(", ") || "(none)"}`))
  }
  return Effect.succeed(factory(spec))
}

const decodeRoute = (json: unknown, path: string, context: DecodeContext): Effect.Effect<Route, InvalidRouteSpec> => {
  const head = decode(RouteSpecHead, json, path, false)
  if (Result.isFailure(head)) return Effect.fail(head.failure)
  const decoded = decode(RouteSpec, json, path)
  if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
  const spec = decoded.success
  const match = decodeMatch(spec.match, path)
  if (Result.isFailure(match)) return Effect.fail(match.failure)
  const options: R.RouteOptions = {
    id: spec.id,
    times: spec.times,
    priority: spec.priority,
    delay: spec.delayMs,
    source: context.source ?? "fixture"
  }
  const r: Respond = spec.respond
  const at = (field: string) => join(join(path, "respond"), field)
  switch (r.kind) {
    case "text":
      return Effect.succeed(R.text(match.success, r.body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers }))
    case "bytes": {
      const bytes = decodeBase64(r.base64)
      if (bytes === undefined) return Effect.fail(invalid(at("base64"), "not valid base64"))
      return Effect.succeed(R.bytes(match.success, bytes, { ...options, contentType: r.contentType, status: r.status, headers: r.headers }))
    }
    case "status":
      return Effect.succeed(R.status(match.success, r.status, { ...options, headers: r.headers, body: r.body }))
    case "handler": {
      const handler = context.handlers?.get(r.name)
      if (handler === undefined) {
        const known = [...(context.handlers?.keys() ?? [])].sort()
        return Effect.fail(invalid(at("name"), `no handler named "${r.name}"; registered handlers: ${known.join(", ") || "(none)"}`))
      }
      return Effect.succeed(R.handler(match.success, handler, options))
    }
    case "fault":
      return Effect.succeed(R.fault(match.success, r.fault, options))
    case "loopback":
      return Effect.succeed(R.loopback(match.success, options))
    case "jsonSchema":
    case "mcp": {
      const decoder = context.kinds?.get(r.kind)
      if (decoder === undefined) return Effect.fail(invalid(at("kind"), `kind "${r.kind}" is not available in this network`))
      return decoder(match.success, r, options, path)
    }
  }
}

/**
 * The RouteSpec JSON a route was built from, kept in its listing (`spec`) so that a snapshot can
 * write it back. A family reference's routes all carry the one reference object.
 */
const withSpec = (route: Route, spec: Readonly<Record<string, unknown>>): Route =>
  withFields(route, { describe: { ...route.describe, spec } })

const decodeOne = (json: unknown, path: string, context: DecodeContext): Effect.Effect<ReadonlyArray<Route>, InvalidRouteSpec> => {
  if (!isJsonObject(json)) return Effect.fail(invalid(path || "$", "a route spec is a JSON object"))
  return Effect.flatMap(
    "family" in json ? decodeFamily(json, path, context) : Effect.map(decodeRoute(json, path, context), (route) => [route]),
    (routes) => {
      // Decoding refuses deep matchers with their path; what is left deep is refused whole, before it is copied.
      if (depthExceeds(json, MAX_JSON_DEPTH)) {
        return Effect.fail(invalid(path || "$", `a route spec nested deeper than ${MAX_JSON_DEPTH} levels is refused`))
      }
      const spec: Readonly<Record<string, unknown>> = structuredClone(json)
      return Effect.succeed(routes.map((route) => withSpec(route, spec)))
    }
  )
}

/**
 * Decodes one RouteSpec, an array of them, or a family reference. Nothing is registered here;
 * the result goes to `register`, which is all or nothing.
 */
export const decodeRouteSpecs = (json: unknown, context: DecodeContext = {}): Effect.Effect<DecodedRoutes, InvalidRouteSpec> => {
  const items = Array.isArray(json) ? json : [json]
  const base = (i: number) => (Array.isArray(json) ? `[${i}]` : "")
  return Effect.map(
    Effect.forEach(items, (item, i) =>
      Effect.map(decodeOne(item, base(i), context), (routes) =>
        base(i) === "" ? routes : routes.map((route) => withFields(route, { specPath: base(i) })))),
    (decoded) => ({ routes: decoded.flat() })
  )
}
