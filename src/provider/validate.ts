/**
 * Checking what callers hand the provider (scripts, rules, driver commands) before anything
 * changes. A refusal is an `InvalidRouteSpec` whose `path` names the offending field, such as
 * `steps[0][1].status`, and whose message repeats the path so a thrown error reads on its own.
 */
import { Result } from "effect"
import type { Schema, SchemaAST } from "effect"
import { decodeAt } from "../registry/schemaPath.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"

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
  Result.mapError(decodeAt(schema, input, base, options), ({ path, message }) => invalidInput(what, path, message))
