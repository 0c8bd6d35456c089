/**
 * What a route kind is to RouteSpec JSON: the Schema of its `respond` object and a builder from the
 * decoded object to its route (`RouteKind`), and what a builder may refer to (`KindContext`). Each
 * kind keeps both beside it (`routes/KIND/KINDSpec.ts`); `routes/kinds.ts` is the table of them, and
 * RouteSpec decoding (`schemas/decode.ts`) looks a kind up there. The shapes several kinds' Schemas
 * share, and their builders' small helpers, are here too.
 */
import { type Effect, type Result, Schema } from "effect"
import type { MatcherInput } from "../registry/matcher.ts"
import type { Route } from "../registry/route.ts"
import { joinPath } from "../registry/schemaPath.ts"
import type { InvalidRouteSpec } from "../SimnetError.ts"
import type { Handler } from "./handler/handler.ts"
import type { RouteOptions } from "./make.ts"

/**
 * A named schema: the production `schema` a response must decode under, and the `narrow` schema
 * values are generated from (when absent, the production schema itself).
 */
export interface NamedSchema {
  readonly schema: Schema.Codec<unknown, unknown>
  readonly narrow?: Schema.Top | undefined
}

/**
 * What a kind's builder may refer to: the handlers registered in code, by name, the schemas a
 * `{ "ref": NAME }` names (simnet's shipped ones, `schemas/registry.ts`: RouteSpec decoding gives
 * them), an unknown name failing at `path` with the names there are, and the fixture's folder.
 */
export interface KindContext {
  readonly handlers?: ReadonlyMap<string, Handler> | undefined
  readonly schema?: ((ref: string, path: string) => Result.Result<NamedSchema, InvalidRouteSpec>) | undefined
  /** The folder of the fixture file being decoded: where files it names (`{ "file" }`) are read, and nowhere else. */
  readonly baseDir?: string | undefined
}

/**
 * Builds the route of one kind from its decoded `respond` object; `path` is where the route
 * stands in the JSON (`[2]`), for errors that name a field (`[2].respond.base64`).
 */
export type KindBuilder<Spec> = (
  match: MatcherInput,
  respond: Spec,
  options: RouteOptions,
  path: string,
  context: KindContext
) => Effect.Effect<Route, InvalidRouteSpec>

/** A route kind of RouteSpec JSON: the Schema of its `respond` object, and how a decoded one becomes its route. */
export interface RouteKind<S extends Schema.Top> {
  readonly respond: S
  readonly build: KindBuilder<S["Type"]>
}

/** A kind's Schema and builder together, the builder typed by the Schema: one without the other does not compile. */
export const routeKind = <S extends Schema.Top>(respond: S, build: KindBuilder<S["Type"]>): RouteKind<S> => ({
  respond,
  build
})

/** The JSON path of a field of the route's `respond` object: `[2].respond.base64`. */
export const at = (path: string, field: string): string => joinPath(joinPath(path, "respond"), field)

/** Bytes from base64 text (whitespace allowed), or undefined when it is not base64. */
export const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, ""))) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

/** A respond object's headers: names to values. */
export const RespondHeaders = Schema.Record(Schema.String, Schema.String)

/** A respond object's status: 200 to 599. */
export const RespondStatus = Schema.Int.check(Schema.isBetween({ minimum: 200, maximum: 599 }))

/** `template: true`: the body and headers are Handlebars templates over the request (`routes/template.ts`). */
export const RespondTemplate = Schema.optional(Schema.Boolean)

/** A wait in milliseconds: finite, not negative. */
export const RespondMillis = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Where a builder that reads a file its spec names (a GraphQL schema's `{ "file" }`) keeps, in the
 * route's `describe`, its `respond` with the file's text in place: the spec the route's listing
 * and a snapshot carry then restores with no fixture beside it. A symbol, so no listing shows it.
 */
export const KEPT_RESPOND: unique symbol = Symbol("simnet/kept-respond")
