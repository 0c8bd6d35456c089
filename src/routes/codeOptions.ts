/**
 * The options each `Route.*` constructor takes, checked as RouteSpec JSON checks them. One Schema
 * per kind, derived from RouteSpec's own: the route-level fields of a RouteSpec
 * (`ROUTE_SPEC_OPTIONS`: `id`, `times`, `priority`, `required`, the scenario's options) and the
 * kind's `respond` fields but those given as arguments (`text`'s body, `status`'s code), which
 * each kind names beside its constructor and its `KINDSpec.ts` spreads into its `respond` Schema
 * (a time in milliseconds as a `Duration`, `retryMs` as `retry`), plus what only code can give
 * (`delay` as a `Duration`, `source`, `Route.json`'s `narrow` and `fields`). A key neither knows
 * is refused with the nearest known name, as in JSON: `{ tims: 1 }` must not register a route
 * that answers twice.
 */
import { Result, Schema } from "effect"
import type { Route } from "../registry/route.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import { isJsonObject } from "../registry/util.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { refused, type RouteOptions, RouteOptionsData, usable } from "./make.ts"

const { scenario, requiredState, newState } = RouteOptionsData.fields

/**
 * A route's fields in RouteSpec JSON beside `match` and `respond` (`schemas/routeSpec.ts` spreads
 * them into `RouteSpec`), which every constructor takes too, `delayMs` as `delay`. A scenario's
 * are checked as in code (`RouteOptionsData`); the other values when the route registers, as in
 * code.
 */
export const ROUTE_SPEC_OPTIONS = {
  id: Schema.optional(Schema.String),
  times: Schema.optional(Schema.Number),
  priority: Schema.optional(Schema.Number),
  delayMs: Schema.optional(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  /** A strict network fails when the route was never used. */
  required: Schema.optional(Schema.Boolean),
  scenario,
  requiredState,
  newState
}

/** The route-level fields as a constructor takes them (`delayMs` is `delay` in code). */
const { delayMs: _delayMs, ...routeLevel } = ROUTE_SPEC_OPTIONS

/** What only code gives a route: checked by `make` (`delay`) or by the kind. */
const CODE_ONLY = {
  delay: Schema.optional(Schema.Unknown),
  source: Schema.optional(Schema.String)
}

/** The options one kind's constructor takes, and which of them are its `respond` fields. */
export interface CodeOptions {
  readonly schema: Schema.Codec<unknown, unknown>
  readonly respond: ReadonlySet<string>
}

/**
 * The options of a kind's constructor: `respond`, the kind's `respond` fields that are options
 * rather than arguments (a time in milliseconds, `retryMs`, is taken as a `Duration` without the
 * suffix, `retry`, and checked by the kind, as `delayMs` is `delay`), and `own`, what only code
 * gives this kind (`Route.json`'s `narrow`).
 */
export const codeOptions = (
  respond: Readonly<Record<string, Schema.Top>>,
  own: Readonly<Record<string, Schema.Top>> = {}
): CodeOptions => {
  const fields = Object.fromEntries(
    Object.entries(respond).map(([name, field]): [string, Schema.Top] =>
      name.endsWith("Ms") ? [name.slice(0, -2), Schema.optional(Schema.Unknown)] : [name, field]
    )
  )
  return {
    schema: Schema.Struct({ ...routeLevel, ...CODE_ONLY, ...fields, ...own }) as unknown as Schema.Codec<
      unknown,
      unknown
    >,
    respond: new Set(Object.keys(fields))
  }
}

/** The options of a kind whose own fields are all its constructor's arguments: the route's alone. */
export const ROUTE_OPTIONS_ONLY: CodeOptions = codeOptions({})

/**
 * The first problem with the options given to a constructor that takes `accepted`, named as
 * RouteSpec names it: an unknown key at its own name, with the nearest known one; a bad value of
 * the kind's own (`status`, `headers`) under `respond.`. Options that are not an object are
 * `make`'s to refuse.
 */
export const codeOptionsProblem = (accepted: CodeOptions, options: unknown): InvalidRouteSpec | undefined => {
  if (!isJsonObject(options)) return undefined
  const decoded = decodeAt(accepted.schema, options, "", { onExcessProperty: "error" })
  if (Result.isSuccess(decoded)) return undefined
  const { path, message } = decoded.failure
  const key = path.split(/[.[]/)[0]
  return new InvalidRouteSpec({ path: accepted.respond.has(key) ? `respond.${path}` : path, message })
}

/**
 * The route `build` makes when `options` hold only what a `kind` route takes (`accepted`); else a
 * route whose registration fails naming the option.
 */
export const checked = (kind: string, accepted: CodeOptions, options: RouteOptions, build: () => Route): Route => {
  const problem = codeOptionsProblem(accepted, options)
  return problem === undefined ? build() : refused(kind, problem, usable(options).source)
}
