/**
 * What the families share: a named schema served as a `jsonSchema` route, and base URL checks.
 */
import { Result, type Schema } from "effect"
import type { Route } from "../registry/route.ts"
import { boundedMemo } from "../registry/util.ts"
import { json } from "../routes/jsonSchema/jsonSchema.ts"
import { refused } from "../routes/make.ts"
import type { NamedSchema } from "../schemas/registry.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import type { JsonSchemaOptions } from "../routes/jsonSchema/jsonSchema.ts"

/**
 * A `jsonSchema` route answering a named schema (and its narrowed generator) for a family.
 */
export const named = (match: string, entry: NamedSchema, source: string, options: JsonSchemaOptions = {}): Route =>
  json(match, entry.schema, { narrow: entry.narrow, ...options, source })

/**
 * A schema and its optional narrowed generator, as a `NamedSchema`.
 */
export const schemaOf = (schema: Schema.Top, narrow?: Schema.Top): NamedSchema => ({
  schema: schema as Schema.Codec<unknown, unknown>,
  narrow
})

/**
 * A base URL without trailing slashes.
 */
export const trimBase = (baseUrl: string): string => baseUrl.replace(/\/+$/, "")

/**
 * The base URL a family needs, checked: an `InvalidRouteSpec` at `baseUrl` when it is missing or
 * not a URL.
 */
export const requireBase = (family: string, baseUrl: string | undefined): Result.Result<string, InvalidRouteSpec> => {
  if (baseUrl === undefined || baseUrl === "") {
    return Result.fail(new InvalidRouteSpec({ path: "baseUrl", message: `the ${family} family needs a baseUrl` }))
  }
  try {
    return Result.succeed(trimBase(new URL(baseUrl).href))
  } catch {
    return Result.fail(
      new InvalidRouteSpec({ path: "baseUrl", message: `the ${family} family's baseUrl is not a URL: ${baseUrl}` })
    )
  }
}

/**
 * The routes of a family whose base URL checked out, or one refused route carrying the error
 * (registering it fails, naming `baseUrl`): families never throw.
 */
export const withBase = (
  family: string,
  baseUrl: string | undefined,
  build: (base: string) => Array<Route>
): Array<Route> =>
  Result.match(requireBase(family, baseUrl), {
    onFailure: (error) => [refused(family, error, family)],
    onSuccess: build
  })

/**
 * `make` for a base URL, made once per base: a family registered in network after fresh network
 * (a property test's cases) hands each the same schema, whose generator is then compiled once
 * (`compileGenerator` keys on the schema). At most 64 bases are kept.
 */
export const perBase = <A>(make: (base: string) => A): ((base: string) => A) => {
  const kept = boundedMemo<A>(64)
  return (base) => kept(base, () => make(base))
}
