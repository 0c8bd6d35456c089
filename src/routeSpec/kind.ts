/**
 * What a route kind of RouteSpec JSON is to the decoder: a function from its decoded `respond`
 * object (the kind's own Schema in `schemas/routeSpec.ts`, `RESPONDS`) to its route. The table
 * of every kind is `routeSpec/kinds.ts`; this file holds only the types, so a kind's module and the
 * table can both name them.
 */
import type { Effect } from "effect"
import type { MatcherInput } from "../core/matcher.ts"
import type { Route } from "../core/route.ts"
import type * as R from "../kinds/kinds.ts"
import type { Respond } from "../schemas/routeSpec.ts"
import type { InvalidRouteSpec } from "../SimnetError.ts"

/** What a kind's builder may refer to: the handlers registered in code, by name, and the fixture's folder. */
export interface KindContext {
  readonly handlers?: ReadonlyMap<string, R.Handler> | undefined
  /** The folder of the fixture file being decoded: where files it names (`{ "file" }`) are read, and nowhere else. */
  readonly baseDir?: string | undefined
}

/**
 * Builds the route of one kind from its decoded `respond` object; `path` is where the route
 * stands in the JSON (`[2]`), for errors that name a field (`[2].respond.base64`).
 */
export type KindBuilder<Spec extends Respond = Respond> = (
  match: MatcherInput,
  respond: Spec,
  options: R.RouteOptions,
  path: string,
  context: KindContext
) => Effect.Effect<Route, InvalidRouteSpec>

/**
 * Where a builder that reads a file its spec names (a GraphQL schema's `{ "file" }`) keeps, in the
 * route's `describe`, its `respond` with the file's text in place: the spec the route's listing
 * and a snapshot carry then restores with no fixture beside it. A symbol, so no listing shows it.
 */
export const KEPT_RESPOND: unique symbol = Symbol("simnet/kept-respond")
