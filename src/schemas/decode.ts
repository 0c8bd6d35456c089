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
import type { RouteOptions } from "../routes/make.ts"
import { KEPT_RESPOND, type KindBuilder, type KindContext } from "../routes/spec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { KINDS } from "./kinds.ts"
import { lookupSchema } from "./registry.ts"
import { FamilySpec, RESPOND_KINDS, type Respond, RouteSpec, RouteSpecHead } from "./routeSpec.ts"

/**
 * A route family that fixtures can name: `{ "family": NAME, "baseUrl" }`, given the reference as
 * `FamilySpec` decoded it.
 */
export type FamilyFactory = (spec: FamilySpec) => ReadonlyArray<Route>

/**
 * What decoding may refer to: handlers registered in code and named schemas (`KindContext`; the
 * schemas simnet ships when none are given), families, and the `source` the routes are recorded
 * with. Every kind is in `KINDS` (`schemas/kinds.ts`).
 */
export interface DecodeContext extends KindContext {
  readonly families?: ReadonlyMap<string, FamilyFactory> | undefined
  readonly source?: string | undefined
}

/**
 * Decoded routes, each carrying its JSON path (`specPath`) so later errors name the field.
 */
export interface DecodedRoutes {
  readonly routes: ReadonlyArray<Route>
}

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

/** The route of a decoded `respond`, built by its kind's entry in `KINDS`; `{ "ref" }` names simnet's schemas unless the context gives others. */
const buildKind: KindBuilder<Respond> = (match, respond, options, path, context) =>
  (KINDS[respond.kind].build as KindBuilder<Respond>)(
    match,
    respond,
    options,
    path,
    context.schema === undefined ? { ...context, schema: lookupSchema } : context
  )

/**
 * Decodes `input` under `schema`, failing with an `InvalidRouteSpec` at the first issue's path
 * below `base`. A key the schema does not know is refused, with the nearest known name
 * (`respond.delay: unknown key; did you mean delayMs?`): a typo must not register a route that
 * matches more than its author meant.
 */
const decode = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  base: string,
  strict = true
): Result.Result<S["Type"], InvalidRouteSpec> =>
  Result.mapError(decodeAt(schema, input, base, strict ? STRICT : undefined), (issue) =>
    invalid(issue.path, issue.message)
  )

const STRICT = { onExcessProperty: "error" } as const

const decodeMatch = (match: RouteSpec["match"], path: string): Result.Result<MatcherInput, InvalidRouteSpec> => {
  if (typeof match === "string") return Result.succeed(match)
  const at = (field: string) => join(join(path, "match"), field)
  if (match.url !== undefined && match.regex !== undefined)
    return Result.fail(invalid(at("regex"), "give either url or regex, not both"))
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

const decodeFamily = (
  json: unknown,
  path: string,
  context: DecodeContext
): Effect.Effect<ReadonlyArray<Route>, InvalidRouteSpec> => {
  const decoded = decode(FamilySpec, json, path)
  if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
  const spec = decoded.success
  const factory = context.families?.get(spec.family)
  if (factory === undefined) {
    const known = [...(context.families?.keys() ?? [])].sort()
    return Effect.fail(
      invalid(join(path, "family"), `unknown family "${spec.family}"; known families: ${known.join(", ") || "(none)"}`)
    )
  }
  return Effect.succeed(factory(spec))
}

/**
 * DESIGN's shorthand for a kind: `respond: { "graphql": { … } }` (the kind's name holding its
 * fields), or the same beside `match` with no `respond` at all, read as `{ "kind": "graphql", … }`.
 * Only a name holding a JSON object is read so; anything else is left for the Schema to refuse.
 */
const unfoldKind = (json: Record<string, unknown>): Record<string, unknown> => {
  // The keys of `value` that name a kind and hold an object: its fields.
  const kindsIn = (value: Record<string, unknown>): Array<string> =>
    Object.keys(value).filter(
      (key) => (RESPOND_KINDS as ReadonlyArray<string>).includes(key) && isJsonObject(value[key])
    )
  const respond = json.respond
  if (isJsonObject(respond) && !("kind" in respond) && Object.keys(respond).length === 1) {
    const [kind] = kindsIn(respond)
    if (kind !== undefined) return { ...json, respond: { kind, ...(respond[kind] as Record<string, unknown>) } }
  }
  if (respond === undefined) {
    const kinds = kindsIn(json)
    if (kinds.length === 1) {
      const { [kinds[0]]: fields, ...rest } = json
      return { ...rest, respond: { kind: kinds[0], ...(fields as Record<string, unknown>) } }
    }
  }
  return json
}

const decodeRoute = (
  written: Record<string, unknown>,
  path: string,
  context: DecodeContext
): Effect.Effect<Route, InvalidRouteSpec> => {
  const json = unfoldKind(written)
  const head = decode(RouteSpecHead, json, path, false)
  if (Result.isFailure(head)) return Effect.fail(head.failure)
  const decoded = decode(RouteSpec, json, path)
  if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
  const spec = decoded.success
  const match = decodeMatch(spec.match, path)
  if (Result.isFailure(match)) return Effect.fail(match.failure)
  const options: RouteOptions = {
    id: spec.id,
    times: spec.times,
    priority: spec.priority,
    delay: spec.delayMs,
    source: context.source ?? "fixture",
    required: spec.required,
    scenario: spec.scenario,
    requiredState: spec.requiredState,
    newState: spec.newState
  }
  return buildKind(match.success, spec.respond, options, path, context)
}

/**
 * The RouteSpec JSON a route was built from, kept in its listing (`spec`) so that a snapshot can
 * write it back. A family reference's routes all carry the one reference object.
 */
const withSpec = (route: Route, spec: Readonly<Record<string, unknown>>): Route =>
  withFields(route, { describe: { ...route.describe, spec } })

const decodeOne = (
  json: unknown,
  path: string,
  context: DecodeContext
): Effect.Effect<ReadonlyArray<Route>, InvalidRouteSpec> => {
  if (!isJsonObject(json)) return Effect.fail(invalid(path || "$", "a route spec is a JSON object"))
  return Effect.flatMap(
    "family" in json
      ? decodeFamily(json, path, context)
      : Effect.map(decodeRoute(json, path, context), (route) => [route]),
    (routes) => {
      // Decoding refuses deep matchers with their path; what is left deep is refused whole, before it is copied.
      if (depthExceeds(json, MAX_JSON_DEPTH)) {
        return Effect.fail(invalid(path || "$", `a route spec nested deeper than ${MAX_JSON_DEPTH} levels is refused`))
      }
      const kept =
        routes.length === 1 ? (routes[0].describe as Record<symbol, unknown> | undefined)?.[KEPT_RESPOND] : undefined
      const spec: Readonly<Record<string, unknown>> =
        kept === undefined ? structuredClone(json) : { ...structuredClone(json), respond: kept }
      return Effect.succeed(routes.map((route) => withSpec(route, spec)))
    }
  )
}

/**
 * Decodes one RouteSpec, an array of them, or a family reference. Nothing is registered here;
 * the result goes to `register`, which is all or nothing.
 */
export const decodeRouteSpecs = (
  json: unknown,
  context: DecodeContext = {}
): Effect.Effect<DecodedRoutes, InvalidRouteSpec> => {
  const items = Array.isArray(json) ? json : [json]
  const base = (i: number) => (Array.isArray(json) ? `[${i}]` : "")
  return Effect.map(
    Effect.forEach(items, (item, i) =>
      Effect.map(decodeOne(item, base(i), context), (routes) =>
        base(i) === "" ? routes : routes.map((route) => withFields(route, { specPath: base(i) }))
      )
    ),
    (decoded) => ({ routes: decoded.flat() })
  )
}
