/**
 * The text a `json` action answers a structured-output call with: its `value` as JSON, or a value
 * generated from the JSON Schema the call asks for (seeded by the call, proven to decode under the
 * schema, as a `jsonSchema` route's answers are), or `{}` in JSON mode without a schema.
 */
import { Result, type Schema } from "effect"
import { decodeAt } from "../../registry/schemaPath.ts"
import { deriveSeed } from "../../registry/seed.ts"
import { compileGenerator, type CompiledGenerator } from "../../routes/jsonSchema/generate.ts"
import { fromJsonSchema } from "../../routes/jsonSchema/jsonSchemaDocument.ts"
import type { LlmRequest } from "./conversation.ts"
import type { Part } from "./parts.ts"

/** The deepest a requested schema is walked to normalize it; deeper is refused, not recursed into. */
const MAX_SCHEMA_DEPTH = 64
/** The largest schema (as JSON text) whose compiled generator is kept for the next call. */
const MAX_CACHED_SCHEMA = 64 * 1024
/** How many compiled generators are kept, most recent last. */
const CACHE_LIMIT = 64

/** A requested schema, converted, and its generator: what a `json` action checks a value against and generates from. */
interface Compiled {
  readonly schema: Schema.Codec<unknown, unknown>
  readonly generator: CompiledGenerator
}

/** Compiled schemas by their JSON text: a bounded, pure memo (a schema always compiles alike). */
const compiled = new Map<string, Result.Result<Compiled, string>>()

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
    out[key] =
      key === "type" && typeof value === "string"
        ? value.toLowerCase()
        : key === "type" && Array.isArray(value)
          ? value.map((t) => (typeof t === "string" ? t.toLowerCase() : t))
          : key === "enum" || key === "const" || key === "default" || key === "examples"
            ? value
            : normalized(value, depth + 1)
  }
  return out
}

const compiledFor = (schema: unknown): Result.Result<Compiled, string> => {
  let document: unknown
  try {
    document = normalized(schema)
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message : String(error))
  }
  const text = JSON.stringify(document)
  const cached = compiled.get(text)
  if (cached !== undefined) return cached
  const converted = fromJsonSchema(document, { path: "structured" })
  const result: Result.Result<Compiled, string> = Result.isFailure(converted)
    ? Result.fail(converted.failure.message)
    : Result.match(compileGenerator(converted.success, { label: "structured output", allOptionals: true }), {
        onFailure: (error) => Result.fail(error.message),
        onSuccess: (generator) => Result.succeed({ schema: converted.success, generator })
      })
  if (text.length <= MAX_CACHED_SCHEMA) {
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!)
    compiled.set(text, result)
  }
  return result
}

/**
 * The answer text of a `json` action for `request` (call number `seq`): `value` as JSON when
 * given, once checked against the schema the call asks for (a mismatch is refused, naming the
 * path); else a value of that schema, or `{}`. A failure is why (the call then gets an error
 * event in its API's shape).
 */
export const jsonAnswer = (
  value: unknown,
  request: LlmRequest | undefined,
  seq: number
): Result.Result<string, string> => {
  const schema = request?.structured?.schema
  if (schema === undefined) return Result.succeed(value === undefined ? "{}" : JSON.stringify(value))
  const ready = compiledFor(schema)
  if (Result.isFailure(ready))
    return value === undefined
      ? Result.fail(`simnet: no value can be generated for the schema this call asks for: ${ready.failure}`)
      : Result.succeed(JSON.stringify(value))
  if (value !== undefined) {
    const checked = decodeAt(ready.success.schema, value, "$")
    return Result.isSuccess(checked)
      ? Result.succeed(JSON.stringify(value))
      : Result.fail(
          `simnet: the json action's value does not fit the schema this call asks for, at ${checked.failure.path}: ${checked.failure.message}`
        )
  }
  return Result.mapError(
    ready.success.generator.generate(deriveSeed(0, "structured", request?.key ?? "", seq)),
    (error) => error.message
  )
}

/**
 * Why the text `parts` answer a structured-output call with does not fit what it asks for (JSON,
 * or JSON valid against its schema, naming the path), or undefined when it does, when the call
 * asks for nothing, or when the answer has no text (a tool call is not the structured answer).
 */
export const structuredMismatch = (request: LlmRequest, parts: ReadonlyArray<Part>): string | undefined => {
  if (request.structured === undefined) return undefined
  let text = ""
  for (const part of parts) if (part.kind === "text") text += part.text
  if (text === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return "the scripted text is not JSON, and the call asks for JSON"
  }
  if (request.structured.schema === undefined) return undefined
  const ready = compiledFor(request.structured.schema)
  if (Result.isFailure(ready)) return undefined
  const checked = decodeAt(ready.success.schema, value, "$")
  return Result.isSuccess(checked)
    ? undefined
    : `the scripted text does not fit the schema the call asks for, at ${checked.failure.path}: ${checked.failure.message}`
}
