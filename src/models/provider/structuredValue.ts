/**
 * The text a `json` action answers a structured-output call with: its `value` as JSON, or a value
 * generated from the JSON Schema the call asks for (seeded by the call, proven to decode under the
 * schema, as a `jsonSchema` route's answers are), or `{}` in JSON mode without a schema.
 */
import { Result } from "effect"
import { deriveSeed } from "../../core/seed.ts"
import { compileGenerator, type CompiledGenerator } from "../../kinds/jsonSchema/generate.ts"
import { fromJsonSchema } from "../../schemas/jsonSchemaDocument.ts"
import type { LlmRequest } from "./conversation.ts"

/** The deepest a requested schema is walked to normalize it; deeper is refused, not recursed into. */
const MAX_SCHEMA_DEPTH = 64
/** The largest schema (as JSON text) whose compiled generator is kept for the next call. */
const MAX_CACHED_SCHEMA = 64 * 1024
/** How many compiled generators are kept, most recent last. */
const CACHE_LIMIT = 64

/** Generators by their schema's JSON text: a bounded, pure memo (a schema always compiles alike). */
const compiled = new Map<string, Result.Result<CompiledGenerator, string>>()

/**
 * A Gemini schema as JSON Schema: its type names upper-case (`OBJECT`, `STRING`), as Gemini's
 * `Schema` writes them and as Gemini CLI sends them even in `responseJsonSchema`, made lower-case.
 */
const normalized = (schema: unknown, depth = 0): unknown => {
  if (depth > MAX_SCHEMA_DEPTH) throw new Error(`the schema nests deeper than ${MAX_SCHEMA_DEPTH}`)
  if (Array.isArray(schema)) return schema.map((item) => normalized(item, depth + 1))
  if (typeof schema !== "object" || schema === null) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "type" && typeof value === "string" ? value.toLowerCase()
      : key === "type" && Array.isArray(value) ? value.map((t) => (typeof t === "string" ? t.toLowerCase() : t))
      : key === "enum" || key === "const" || key === "default" || key === "examples" ? value
      : normalized(value, depth + 1)
  }
  return out
}

const generatorFor = (schema: unknown): Result.Result<CompiledGenerator, string> => {
  let text: string
  try {
    text = JSON.stringify(normalized(schema))
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message : String(error))
  }
  const cached = compiled.get(text)
  if (cached !== undefined) return cached
  const converted = fromJsonSchema(JSON.parse(text), { path: "structured" })
  const result = Result.isFailure(converted)
    ? Result.fail(converted.failure.message)
    : Result.mapError(compileGenerator(converted.success, { label: "structured output", allOptionals: true }), (error) => error.message)
  if (text.length <= MAX_CACHED_SCHEMA) {
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!)
    compiled.set(text, result)
  }
  return result
}

/**
 * The answer text of a `json` action for `request` (call number `seq`): `value` as JSON when
 * given; else a value of the schema the call asks for, or `{}`. A failure is why no value can be
 * made (the call then gets an error event in its API's shape).
 */
export const jsonAnswer = (value: unknown, request: LlmRequest | undefined, seq: number): Result.Result<string, string> => {
  if (value !== undefined) return Result.succeed(JSON.stringify(value))
  const schema = request?.structured?.schema
  if (schema === undefined) return Result.succeed("{}")
  const generator = generatorFor(schema)
  if (Result.isFailure(generator)) return Result.fail(`simnet: no value can be generated for the schema this call asks for: ${generator.failure}`)
  return Result.mapError(generator.success.generate(deriveSeed(0, "structured", request?.key ?? "", seq)), (error) => error.message)
}
