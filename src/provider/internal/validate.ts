/**
 * Checking what callers hand the provider (scripts, rules, driver commands) before anything
 * changes. A refusal is an `InvalidRouteSpec` whose `path` names the offending field, such as
 * `steps[0][1].status`, and whose message repeats the path so a thrown error reads on its own.
 */
import { Result, SchemaIssue, SchemaParser } from "effect"
import type { Schema, SchemaAST } from "effect"
import { InvalidRouteSpec } from "../../SimnetError.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Appends a key to a path: `steps` and `0` give `steps[0]`, `behaviour` and `times` give
 * `behaviour.times`; an empty base gives the key alone.
 */
export const joinPath = (base: string, key: PropertyKey): string =>
  typeof key === "number" ? `${base}[${key}]` : base === "" ? String(key) : `${base}.${String(key)}`

/**
 * The refusal of `what` (say "LLM script") at `path` (`$` when empty).
 */
export const invalidInput = (what: string, path: string, message: string): InvalidRouteSpec => {
  const at = path === "" ? "$" : path
  return new InvalidRouteSpec({ path: at, message: `simnet: invalid ${what} at ${at}: ${message}` })
}

/**
 * Decodes `input` under `schema`; a mismatch is refused at the first issue's path below `base`.
 */
export const decodeInput = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  what: string,
  base: string,
  options?: SchemaAST.ParseOptions
): Result.Result<S["Type"], InvalidRouteSpec> =>
  Result.mapError(SchemaParser.decodeUnknownResult(schema, options)(input), (issue) => {
    const [first] = formatter(issue).issues
    if (first === undefined) return invalidInput(what, base, String(issue))
    const path = (first.path ?? []).reduce<string>(
      (acc, segment) => joinPath(acc, typeof segment === "object" ? segment.key : segment),
      base
    )
    return invalidInput(what, path, first.message)
  })
