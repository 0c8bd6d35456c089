/**
 * Checking what callers hand the provider (scripts, rules, driver commands) before anything
 * changes. A refusal is an `InvalidLlmInput` that says which input it was and whose `path` names
 * the offending field, such as `steps[0][1].status`.
 */
import { Effect, Result } from "effect"
import type { Schema, SchemaAST } from "effect"
import { decodeAt } from "../../registry/schemaPath.ts"
import { depthExceeds, MAX_JSON_DEPTH } from "../../registry/util.ts"
import { InvalidLlmInput, type LlmInputKind } from "../../SimnetError.ts"

/**
 * The refusal of an input at `path` (`$` when empty).
 */
export const invalidInput = (input: LlmInputKind, path: string, detail: string): InvalidLlmInput =>
  new InvalidLlmInput({ input, path: path === "" ? "$" : path, detail })

/**
 * A refusal's path below `base`: `llm` and `steps[0]` give `llm.steps[0]`, `llm.rules` and `[1].id`
 * give `llm.rules[1].id`, and the input itself (`$`) is `base`.
 */
const pathUnder = (base: string, path: string): string =>
  base === "" ? path : path === "$" ? base : path.startsWith("[") ? `${base}${path}` : `${base}.${path}`

/** A refusal with its path below `base` (see `pathUnder`), for an input that stands inside another. */
export const rebase = (invalid: InvalidLlmInput, base: string): InvalidLlmInput =>
  base === "" ? invalid : invalidInput(invalid.input, pathUnder(base, invalid.path), invalid.detail)

/**
 * An effect whose `InvalidLlmInput` names its field under `base` (`llm.rules` and `[1].match` give
 * `llm.rules[1].match`): for a network's or a fixture's scripts and rules.
 */
export const under = <A, R>(
  effect: Effect.Effect<A, InvalidLlmInput, R>,
  base: string
): Effect.Effect<A, InvalidLlmInput, R> => Effect.mapError(effect, (invalid) => rebase(invalid, base))

/** Inputs with where each stands in the JSON they came in (`paths[i]`), to name fields in a refusal. */
export interface Batch {
  readonly list: ReadonlyArray<unknown>
  readonly paths: ReadonlyArray<string>
}

/**
 * One input or an array of them (scripts, rule specs), as a list with where each stands: `[i]`
 * in an array, the input itself (`""`) otherwise.
 */
export const batchOf = (input: unknown): Batch =>
  Array.isArray(input) ? { list: input, paths: input.map((_, i) => `[${i}]`) } : { list: [input], paths: [""] }

/**
 * Decodes `input` under `schema`; a mismatch is refused at the first issue's path below `base`,
 * and so is an input nested more than `MAX_JSON_DEPTH` deep (it could not be logged, written to a
 * snapshot or sent on the wire).
 */
export const decodeInput = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  what: LlmInputKind,
  base: string,
  options?: SchemaAST.ParseOptions
): Result.Result<S["Type"], InvalidLlmInput> =>
  depthExceeds(input, MAX_JSON_DEPTH)
    ? Result.fail(
        invalidInput(
          what,
          base,
          `nested more than ${MAX_JSON_DEPTH} deep (arrays and objects); simnet takes JSON up to that depth`
        )
      )
    : Result.mapError(decodeAt(schema, input, base, options), ({ path, message }) => invalidInput(what, path, message))
