/**
 * Checking what callers hand the provider (scripts, rules, driver commands) before anything
 * changes. A refusal is an `InvalidLlmInput` that says which input it was and whose `path` names
 * the offending field, such as `steps[0][1].status`.
 */
import { Result } from "effect"
import type { Schema, SchemaAST } from "effect"
import { decodeAt } from "../registry/schemaPath.ts"
import { InvalidLlmInput, type LlmInputKind } from "../SimnetError.ts"

/**
 * The refusal of an input at `path` (`$` when empty).
 */
export const invalidInput = (input: LlmInputKind, path: string, detail: string): InvalidLlmInput =>
  new InvalidLlmInput({ input, path: path === "" ? "$" : path, detail })

/**
 * Decodes `input` under `schema`; a mismatch is refused at the first issue's path below `base`.
 */
export const decodeInput = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  what: LlmInputKind,
  base: string,
  options?: SchemaAST.ParseOptions
): Result.Result<S["Type"], InvalidLlmInput> =>
  Result.mapError(decodeAt(schema, input, base, options), ({ path, message }) => invalidInput(what, path, message))
