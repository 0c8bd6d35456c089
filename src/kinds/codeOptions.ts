/**
 * The options each `Route.*` constructor takes, checked as RouteSpec JSON checks them. One Schema
 * per kind, derived from RouteSpec's own: the route-level fields of `RouteSpec` (`id`, `times`,
 * `priority`, `required`, the scenario's options) and the kind's `respond` fields but those given
 * as arguments (`text`'s body, `status`'s code; a time in milliseconds as a `Duration`, `retryMs` as
 * `retry`), plus what only code can give (`delay` as a `Duration`, `source`, `Route.json`'s
 * `narrow` and `fields`). A key neither knows is refused with
 * the nearest known name, as in JSON: `{ tims: 1 }` must not register a route that answers twice.
 */
import { Result, Schema } from "effect"
import { decodeAt } from "../core/schemaPath.ts"
import { isJsonObject } from "../core/util.ts"
import { RESPONDS, RouteSpec } from "../schemas/routeSpec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"

/** What only code gives a route: checked by `make` (`delay`) or by the kind (`narrow`, `fields`). */
const CODE_ONLY = {
  delay: Schema.optional(Schema.Unknown),
  source: Schema.optional(Schema.String)
}

/** The route-level fields of RouteSpec, as a constructor takes them (`delayMs` is `delay` in code). */
const { match: _match, respond: _respond, delayMs: _delayMs, ...routeLevel } = RouteSpec.fields

type Kind = keyof typeof RESPONDS

/**
 * The kind's `respond` fields a constructor takes as options: all but `kind` and its arguments; a
 * time in milliseconds (`retryMs`) is taken as a `Duration` without the suffix (`retry`), as
 * `delayMs` is `delay`, and checked by the kind.
 */
const respondFields = (kind: Kind, positional: ReadonlyArray<string>): Record<string, Schema.Top> =>
  Object.fromEntries(Object.entries(RESPONDS[kind].fields).flatMap(([name, field]): Array<[string, Schema.Top]> =>
    name === "kind" || positional.includes(name) ? [] : name.endsWith("Ms") ? [[name.slice(0, -2), Schema.optional(Schema.Unknown)]] : [[name, field]]))

const optionsOf = (kind: Kind, positional: ReadonlyArray<string>, own: Record<string, Schema.Top> = {}) => {
  const respond = respondFields(kind, positional)
  return { schema: Schema.Struct({ ...routeLevel, ...CODE_ONLY, ...respond, ...own }), respond: new Set(Object.keys(respond)) }
}

/**
 * Each constructor's options, by kind. Its arguments are left out: `Route.text(match, body)` takes
 * no `body` option, `Route.webSocket(match, script)` no `open` or `replies`.
 */
const CODE_OPTIONS: { readonly [K in Kind]: ReturnType<typeof optionsOf> } = {
  text: optionsOf("text", ["body"]),
  bytes: optionsOf("bytes", ["base64"]),
  status: optionsOf("status", ["status"]),
  jsonSchema: optionsOf("jsonSchema", ["schema"], { narrow: Schema.optional(Schema.Unknown), fields: Schema.optional(Schema.Unknown) }),
  handler: optionsOf("handler", ["name"]),
  fault: optionsOf("fault", ["fault"]),
  loopback: optionsOf("loopback", []),
  webSocket: optionsOf("webSocket", ["open", "replies", "echo"]),
  mcp: optionsOf("mcp", ["server"]),
  sse: optionsOf("sse", ["events"]),
  // Everything of a GraphQL route's own is its second argument (`GraphqlOptions`).
  graphql: optionsOf("graphql", Object.keys(RESPONDS.graphql.fields))
}

/**
 * The first problem with the options given to a `Route.*` constructor of `kind`, named as RouteSpec
 * names it: an unknown key at its own name, with the nearest known one; a bad value of the kind's
 * own (`status`, `headers`) under `respond.`. Options that are not an object are `make`'s to refuse.
 */
export const codeOptionsProblem = (kind: Kind, options: unknown): InvalidRouteSpec | undefined => {
  if (!isJsonObject(options)) return undefined
  const { schema, respond } = CODE_OPTIONS[kind]
  const decoded = decodeAt(schema, options, "", { onExcessProperty: "error" })
  if (Result.isSuccess(decoded)) return undefined
  const { path, message } = decoded.failure
  const key = path.split(/[.[]/)[0]
  return new InvalidRouteSpec({ path: respond.has(key) ? `respond.${path}` : path, message })
}
