/**
 * JSON Schema documents as route schemas, converted by Effect itself
 * (`JsonSchema.fromSchemaDraft2020_12` / `fromSchemaDraft07` / `fromSchemaOpenApi3_x`, then
 * `SchemaRepresentation.fromJsonSchemaDocument`), never by a hand-written converter. A document
 * that does not convert is an `InvalidRouteSpec` naming the JSON pointer of the offending keyword.
 */
import { JsonSchema, Result, type Schema, Schema as SchemaModule, SchemaRepresentation } from "effect"
import { ajv2020 } from "./ajv.ts"
import { linearAjvEngine } from "../../registry/linearRegExp.ts"
import { boundedMemo, errorMessage, escapePointer, isJsonObject } from "../../registry/util.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { checkJsonSchema } from "./jsonSchemaBounds.ts"

/** The dialects a document may be written in. */
export type Dialect = "draft-2020-12" | "draft-07" | "openapi-3.1" | "openapi-3.0"

/** The dialect a document declares with `$schema` (2020-12 when it declares none). */
export const dialectOf = (document: Record<string, unknown>): Dialect => {
  const declared = document.$schema
  return typeof declared === "string" && /draft-0[4-7]/.test(declared) ? "draft-07" : "draft-2020-12"
}

/**
 * Turns the path Effect reports (`["schema"]["properties"]["a"]["contains"]`) into a JSON
 * pointer into the source document: `/properties/a/contains` for the root schema, and
 * `{definitionsPointer}/Name/...` for a definition.
 */
const pointerOf = (message: string, definitionsPointer: string): string => {
  const at = /\n\s+at ((?:\[[^\]]*\])+)\s*$/.exec(message)
  if (at === null) return ""
  const tokens = [...at[1].matchAll(/\[([^\]]*)\]/g)].map(([, raw]) => {
    try {
      return String(JSON.parse(raw))
    } catch {
      return raw
    }
  })
  const head = tokens.shift()
  const rest = tokens.map((t) => `/${escapePointer(t)}`).join("")
  return head === "definitions" ? `${definitionsPointer}${rest}` : rest
}

const convertDialect = (document: JsonSchema.JsonSchema, dialect: Dialect): JsonSchema.Document<"draft-2020-12"> => {
  switch (dialect) {
    case "draft-07":
      return JsonSchema.fromSchemaDraft07(document)
    case "openapi-3.1":
      return JsonSchema.fromSchemaOpenApi3_1(document)
    case "openapi-3.0":
      return JsonSchema.fromSchemaOpenApi3_0(document)
    case "draft-2020-12":
      return JsonSchema.fromSchemaDraft2020_12(document)
  }
}

/**
 * Options of `fromJsonSchema`.
 * - `dialect`: the document's dialect (default: from `$schema`, else 2020-12).
 * - `definitions`: shared definitions in the same dialect, referenced as `#/$defs/Name` (OpenAPI
 *   `#/components/schemas/Name` references are rewritten to that form by Effect).
 * - `path`: the spec path reported with a failure; the JSON pointer of the offending keyword is
 *   appended after `#` (`respond.schema.jsonSchema#/properties/a/contains`).
 * - `pointerPrefix`, `definitionsPointer`: where the schema and the definitions sit in a larger
 *   document, for the pointer (defaults: the root, and `/$defs`).
 */
export interface FromJsonSchemaOptions {
  readonly dialect?: Dialect | undefined
  readonly definitions?: Readonly<Record<string, unknown>> | undefined
  readonly path?: string | undefined
  readonly pointerPrefix?: string | undefined
  readonly definitionsPointer?: string | undefined
  /**
   * `"apply"` (the default) checks patterns with Effect's own check, a native `RegExp`: right for
   * values simnet generates from them. `"linear"` checks them on RE2 instead, for a schema that
   * decodes data from outside (an MCP tool's arguments), where a hostile `^(a+)+$` meets a near
   * miss: the schema is converted without its patterns and carries one check, Ajv on
   * `linearAjvEngine` over the whole document, added only when the document has patterns.
   */
  readonly patterns?: "apply" | "linear" | undefined
}

const toJsonSchema = (document: unknown): JsonSchema.JsonSchema | undefined =>
  typeof document === "boolean" ? (document ? {} : { not: {} }) : isJsonObject(document) ? document : undefined

/**
 * Converts a JSON Schema document into an Effect schema. The document is checked first
 * (`jsonSchemaBounds.ts`: its meta-schema, patterns on RE2, the size of its smallest value), then
 * its patterns are applied. A document refused or that does not convert is an
 * `InvalidRouteSpec` whose path ends in the JSON pointer of the offending keyword.
 */
export const fromJsonSchema = (
  document: unknown,
  options: FromJsonSchemaOptions = {}
): Result.Result<Schema.Codec<unknown, unknown>, InvalidRouteSpec> => {
  // A document converted before (the same route spec in network after fresh network: a property
  // test's cases) is converted once, and so hands back the same schema, whose generator is then
  // compiled once too. Documents whose JSON passes CONVERTED_KEY_LIMIT are converted every time.
  let key: string | undefined
  try {
    key = JSON.stringify([
      document,
      options.dialect,
      options.definitions,
      options.path,
      options.pointerPrefix,
      options.definitionsPointer,
      options.patterns
    ])
  } catch {
    // Cyclic or too deep to key: converted (and refused) below.
  }
  if (key === undefined || key.length > CONVERTED_KEY_LIMIT) return convert(document, options)
  return keptConversion(key, () => convert(document, options))
}

/** The conversions kept (at most 256, each keyed by its document's JSON of at most `CONVERTED_KEY_LIMIT` characters). */
const keptConversion = boundedMemo<Result.Result<Schema.Codec<unknown, unknown>, InvalidRouteSpec>>(256)
const CONVERTED_KEY_LIMIT = 64 * 1024

const convert = (
  document: unknown,
  options: FromJsonSchemaOptions
): Result.Result<Schema.Codec<unknown, unknown>, InvalidRouteSpec> => {
  const path = options.path ?? "respond.schema.jsonSchema"
  const prefix = options.pointerPrefix ?? ""
  const source = toJsonSchema(document)
  if (source === undefined) {
    return Result.fail(new InvalidRouteSpec({ path, message: "a JSON Schema document is an object (or a boolean)" }))
  }
  const dialect = options.dialect ?? dialectOf(source)
  const checked = checkJsonSchema(source, dialect)
  if (checked.issue !== undefined) {
    const pointer = `${prefix}${checked.issue.pointer}`
    return Result.fail(
      new InvalidRouteSpec({
        path: `${path}#${pointer}`,
        message: `JSON Schema refused at #${pointer}: ${checked.issue.message}`
      })
    )
  }
  const linear = options.patterns === "linear"
  const unevaluated = hasUnevaluated(source) || Object.values(options.definitions ?? {}).some(hasUnevaluated)
  try {
    const converted = convertDialect(unevaluated ? withoutUnevaluated(source) : source, dialect)
    const definitions: Record<string, JsonSchema.JsonSchema> = { ...converted.definitions }
    for (const [name, definition] of Object.entries(options.definitions ?? {})) {
      const part = toJsonSchema(definition) ?? {}
      definitions[name] = convertDialect(unevaluated ? withoutUnevaluated(part) : part, dialect).schema
    }
    const schema = SchemaRepresentation.fromJsonSchemaDocument(
      { ...converted, definitions },
      { patterns: linear ? "ignore" : "apply" }
    ) as Schema.Codec<unknown, unknown>
    if (unevaluated) {
      // Effect has no `unevaluated*` constraint: the schema converts without those keywords, and
      // one Ajv check of the whole document (in its own dialect, definitions included) keeps them.
      const whole =
        options.definitions === undefined
          ? source
          : { ...source, $defs: { ...(isJsonObject(source.$defs) ? source.$defs : {}), ...options.definitions } }
      return Result.succeed(schema.check(ajvCheck(rewriteComponentRefs(whole), linear)))
    }
    return Result.succeed(linear && checked.patterns ? schema.check(linearPatterns(source)) : schema)
  } catch (error) {
    const message = errorMessage(error)
    const relative = pointerOf(message, options.definitionsPointer ?? "/$defs")
    const pointer = relative.startsWith(options.definitionsPointer ?? "/$defs") ? relative : `${prefix}${relative}`
    return Result.fail(
      new InvalidRouteSpec({
        path: `${path}#${pointer}`,
        message: `JSON Schema does not convert at #${pointer}: ${message.split("\n")[0]}`
      })
    )
  }
}

const UNEVALUATED = ["unevaluatedProperties", "unevaluatedItems"]

/** Whether a schema uses `unevaluatedProperties` or `unevaluatedItems` anywhere (a cycle-safe walk). */
const hasUnevaluated = (schema: unknown): boolean => {
  const seen = new Set<unknown>()
  const stack: Array<unknown> = [schema]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== "object" || node === null || seen.has(node)) continue
    seen.add(node)
    if (!Array.isArray(node) && UNEVALUATED.some((k) => k in node)) return true
    for (const value of Object.values(node)) stack.push(value)
  }
  return false
}

/**
 * A copy of a schema without `unevaluatedProperties`/`unevaluatedItems`, shared nodes copied once.
 * Schemas reaching here passed `checkJsonSchema`, whose depth bound bounds this recursion.
 */
const withoutUnevaluated = <A>(schema: A, copies: Map<unknown, unknown> = new Map()): A => {
  if (typeof schema !== "object" || schema === null) return schema
  const done = copies.get(schema)
  if (done !== undefined) return done as A
  if (Array.isArray(schema)) {
    const out: Array<unknown> = []
    copies.set(schema, out)
    for (const item of schema) out.push(withoutUnevaluated(item, copies))
    return out as A
  }
  const out: Record<string, unknown> = {}
  copies.set(schema, out)
  for (const [key, value] of Object.entries(schema))
    if (!UNEVALUATED.includes(key)) out[key] = withoutUnevaluated(value, copies)
  return out as A
}

/** OpenAPI's `#/components/schemas/Name` references as `#/$defs/Name`, where `fromJsonSchema` puts shared definitions. */
const rewriteComponentRefs = (schema: JsonSchema.JsonSchema): JsonSchema.JsonSchema =>
  JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, '"#/$defs/'))

/**
 * An Ajv check of data against a whole document (2020-12 semantics; patterns on RE2 when
 * `linear`), for the constraints Effect's schemas cannot carry.
 */
const ajvCheck = (document: JsonSchema.JsonSchema, linear: boolean) => {
  const validate = new (ajv2020())({
    strict: false,
    validateFormats: false,
    logger: false,
    ...(linear ? { code: { regExp: linearAjvEngine as never } } : {})
  }).compile(document)
  return SchemaModule.makeFilter<unknown>((data) => {
    if (validate(data) === true) return true
    const error = validate.errors?.[0]
    return `${error?.instancePath === "" || error?.instancePath === undefined ? "the value" : error.instancePath} ${error?.message ?? "is invalid"}`
  })
}

/**
 * The check of `fromJsonSchema`'s `"linear"` mode: data against a document's `pattern`s and
 * `patternProperties`, run on RE2 (Ajv with `linearAjvEngine`, which validates the rest of the
 * document too). An instance of its own per document: documents may reuse an `$id`.
 */
const linearPatterns = (document: JsonSchema.JsonSchema) => {
  const validate = new (ajv2020())({
    strict: false,
    validateFormats: false,
    logger: false,
    code: { regExp: linearAjvEngine as never }
  }).compile(document)
  return SchemaModule.makeFilter<unknown>((data) => {
    if (validate(data) === true) return true
    const error = validate.errors?.[0]
    return `${error?.instancePath === "" || error?.instancePath === undefined ? "the arguments" : error.instancePath} ${error?.message ?? "are invalid"}`
  })
}
