/**
 * Naming where input failed a Schema: the first issue of a decode, as a JSON path such as
 * `routes[1].respond.status` or `steps[0][1].status`. Fixtures, RouteSpec JSON and the model's
 * scripts and rules all report their errors through here.
 */
import { Result, SchemaIssue, SchemaParser } from "effect"
import type { Schema, SchemaAST } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Appends a key to a path: `steps` and `0` give `steps[0]`, `respond` and `kind` give
 * `respond.kind`; an empty base gives the key alone.
 */
export const joinPath = (base: string, key: PropertyKey): string =>
  typeof key === "number" ? `${base}[${key}]` : base === "" ? String(key) : `${base}.${String(key)}`

/**
 * Decodes `input` under `schema`; a mismatch fails with the first issue's message and its path
 * below `base`.
 */
export const decodeAt = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  base: string,
  options?: SchemaAST.ParseOptions
): Result.Result<S["Type"], { readonly path: string; readonly message: string }> =>
  Result.mapError(SchemaParser.decodeUnknownResult(schema, options)(input), (issue) => {
    const [first] = formatter(issue).issues
    if (first === undefined) return { path: base, message: String(issue) }
    const path = (first.path ?? []).reduce<string>(
      (acc, segment) => joinPath(acc, typeof segment === "object" ? segment.key : segment),
      base
    )
    return { path, message: first.message }
  })
