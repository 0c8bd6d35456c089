/**
 * An OpenAPI document made ready to serve: every `$ref` resolved by
 * `@apidevtools/json-schema-ref-parser` (the dereferencer behind swagger-parser), once per
 * document however many routes share it. External references (files, URLs) are never followed:
 * a simulated network reads nothing from outside.
 */
import type * as RefParser from "@apidevtools/json-schema-ref-parser"
import { Effect } from "effect"
import { errorMessage, escapePointer, isJsonObject } from "../../registry/util.ts"
import type { Dialect } from "../jsonSchema/jsonSchemaDocument.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"

/** A JSON pointer from its tokens: `["paths", "/pets", "get"]` → `/paths/~1pets/get`. */
export const pointerOf = (tokens: ReadonlyArray<string | number>): string =>
  tokens.map((token) => `/${escapePointer(String(token))}`).join("")

/**
 * A dereferenced document. References that close a cycle are left as `$ref`s (to
 * `#/components/schemas/...` in any real document), so the result is a finite tree that JSON
 * Schema converters and validators can walk; every other `$ref` is replaced by its target.
 */
export interface Dereferenced {
  readonly document: Record<string, unknown>
  readonly dialect: Dialect
  /** `components.schemas`, dereferenced: the targets of the references left in place. */
  readonly schemas: Readonly<Record<string, unknown>>
  /** Whether some references close a cycle (and were left in place). */
  readonly circular: boolean
}

const refused = (pointer: string, message: string) => new InvalidRouteSpec({ path: `openapi#${pointer}`, message })

/** The dereferencer, loaded with the first OpenAPI document rather than with simnet. */
let refParser: Promise<typeof RefParser> | undefined
const loadRefParser = () => (refParser ??= import("@apidevtools/json-schema-ref-parser"))

const firstError =
  (module: typeof RefParser | undefined) =>
  (error: unknown): InvalidRouteSpec => {
    const errors: ReadonlyArray<RefParser.JSONParserError> =
      module !== undefined && error instanceof module.JSONParserErrorGroup ? error.errors : []
    const first = errors[0]
    if (first === undefined) return refused("", `the document cannot be dereferenced: ${errorMessage(error)}`)
    const at = `${pointerOf(first.path ?? [])}/$ref`
    return refused(at, `unresolvable $ref at #${at}: ${first.message}`)
  }

/**
 * Dereferences a document (a copy: the caller's object is left as it is). An unresolvable
 * reference is an `InvalidRouteSpec` whose path is the JSON pointer of that `$ref`
 * (`openapi#/paths/~1pets/get/responses/200/$ref`).
 */
export const dereference = (
  document: Record<string, unknown>,
  dialect: Dialect
): Effect.Effect<Dereferenced, InvalidRouteSpec> =>
  Effect.flatMap(Effect.tryPromise({ try: loadRefParser, catch: firstError(undefined) }), (module) =>
    Effect.tryPromise({
      try: async () => {
        const parser = new module.default()
        const copy = structuredClone(document)
        const dereferenced = await parser.dereference(copy, {
          continueOnError: true,
          resolve: { external: false },
          dereference: { circular: "ignore" }
        })
        return { parser, dereferenced }
      },
      catch: firstError(module)
    })
  ).pipe(
    Effect.map(({ dereferenced, parser }) => {
      const root = dereferenced as Record<string, unknown>
      const components = isJsonObject(root.components) ? root.components : {}
      const schemas: Record<string, unknown> = { ...(isJsonObject(components.schemas) ? components.schemas : {}) }
      settle(root, schemas, dialect)
      return { document: root, dialect, schemas, circular: parser.$refs.circular }
    })
  )

const SCHEMAS = "#/components/schemas/"

/** The node a local JSON pointer (`#/paths/~1pets/get`) names in a document, if any. */
const resolvePointer = (root: unknown, ref: string): unknown => {
  let node: unknown = root
  for (const token of ref.slice(2).split("/")) {
    if (token === "" && ref === "#/") break
    const key = decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~")
    node = Array.isArray(node) ? node[Number(key)] : isJsonObject(node) ? node[key] : undefined
    if (node === undefined) return undefined
  }
  return node
}

/**
 * The last touches a dereferenced document needs before its schemas convert, made in place on
 * the copy, each node once (shared nodes and cycles included):
 * - a reference left in place (it closes a cycle) that points anywhere but
 *   `#/components/schemas/Name` (`#/paths/~1pets/post/requestBody/…`, allowed by OpenAPI) is
 *   given a name among `schemas` and pointed there, the only form JSON Schema converters take;
 * - in a 3.1 document, the 3.0 spellings many carry over (`nullable`, boolean
 *   `exclusiveMinimum`/`exclusiveMaximum`) are read as 3.0 meant them, as Prism reads them,
 *   rather than refused by the validator;
 * - a `oneOf`/`anyOf` with a `discriminator` gets OpenAPI's meaning: each branch accepts only the
 *   discriminator values that name it (its `mapping` keys, and its own schema name), so a value
 *   valid under two branches picks one by its discriminator, as clients and servers read it.
 */
const settle = (root: Record<string, unknown>, schemas: Record<string, unknown>, dialect: Dialect): void => {
  const hoisted = new Map<string, string>()
  const seen = new Set<unknown>()
  // Each node with whether its keys are names (`properties`, `schemas`, …) rather than keywords.
  const stack: Array<readonly [unknown, boolean]> = [[root, false]]
  while (stack.length > 0) {
    const [node, names] = stack.pop()!
    if (typeof node !== "object" || node === null || seen.has(node)) continue
    seen.add(node)
    if (Array.isArray(node)) {
      for (const item of node) stack.push([item, false])
      continue
    }
    const record = node as Record<string, unknown>
    const ref = record.$ref
    if (typeof ref === "string" && ref.startsWith("#/") && !ref.startsWith(SCHEMAS)) {
      let name = hoisted.get(ref)
      if (name === undefined) {
        let target = resolvePointer(root, ref)
        // A reference to a reference (`#/paths/…` → `#/components/schemas/X`) is the latter.
        for (
          let hops = 0;
          hops < 32 && isJsonObject(target) && typeof target.$ref === "string" && target.$ref !== ref;
          hops++
        ) {
          if (target.$ref.startsWith(SCHEMAS)) break
          target = resolvePointer(root, target.$ref)
        }
        if (isJsonObject(target) && typeof target.$ref === "string" && target.$ref.startsWith(SCHEMAS)) {
          name = target.$ref.slice(SCHEMAS.length)
        } else if (target !== undefined) {
          name = `simnet-ref-${hoisted.size + 1}`
          schemas[name] = target
          stack.push([target, false])
        }
        if (name !== undefined) hoisted.set(ref, name)
      }
      if (name !== undefined) record.$ref = `${SCHEMAS}${name}`
    }
    if (names) {
      for (const key in record) stack.push([record[key], false])
      continue
    }
    if (isJsonObject(record.discriminator)) discriminate(record, schemas, root)
    if (dialect === "openapi-3.1") lenient31(record)
    if (typeof record.pattern === "string") record.pattern = unicodePattern(record.pattern)
    // Values are left as the document wrote them; the keys of name maps are not keywords.
    for (const key in record) if (!VALUES.has(key)) stack.push([record[key], NAME_MAPS.has(key)])
  }
}

const VALUES = new Set(["example", "examples", "default", "const", "enum"])
const NAME_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "schemas",
  "paths",
  "responses",
  "content",
  "headers",
  "parameters",
  "requestBodies",
  "callbacks",
  "webhooks",
  "pathItems",
  "dependentSchemas"
])

/**
 * A `pattern` as a Unicode-mode regular expression (how JSON Schema tools and Effect read
 * patterns), when the document wrote it in JavaScript's legacy syntax: a `{` that starts no
 * quantifier, a lone `}` or `]`, escaped (`^{[0-9a-f]{4}}$` → `^\{[0-9a-f]{4}\}$`, what Prism and
 * legacy-mode JavaScript read). A pattern already valid, or still invalid after, is left as it is.
 */
export const unicodePattern = (pattern: string): string => {
  if (compiles(pattern)) return pattern
  let out = ""
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "")
      i++
    } else if (inClass) {
      if (c === "]") inClass = false
      out += c
    } else if (c === "[") {
      inClass = true
      out += c
    } else if (c === "{") {
      const quantifier = /^\{\d+(,\d*)?\}/.exec(pattern.slice(i))
      if (quantifier === null) out += "\\{"
      else {
        out += quantifier[0]
        i += quantifier[0].length - 1
      }
    } else if (c === "}" || c === "]") {
      out += `\\${c}`
    } else {
      out += c
    }
  }
  return compiles(out) ? out : pattern
}

const compiles = (pattern: string): boolean => {
  try {
    new RegExp(pattern, "u")
    return true
  } catch {
    return false
  }
}

/** The 3.0 spellings of `settle`, for one schema of a 3.1 document. */
const lenient31 = (schema: Record<string, unknown>): void => {
  for (const [flag, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"]
  ] as const) {
    if (typeof schema[flag] !== "boolean") continue
    if (schema[flag] === true && typeof schema[bound] === "number") {
      schema[flag] = schema[bound]
      delete schema[bound]
    } else {
      delete schema[flag]
    }
  }
  if (typeof schema.nullable !== "boolean") return
  const nullable = schema.nullable
  delete schema.nullable
  if (!nullable || schema.type === undefined) return
  // `{ type: T, nullable: true, …}` is `{ anyOf: [{ type: T, … }, { type: "null" }] }`, in place.
  const copy = { ...schema }
  for (const key of Object.keys(schema)) delete schema[key]
  schema.anyOf = [copy, { type: "null" }]
}

/** The discriminator rule of `settle`, for one schema. */
const discriminate = (
  schema: Record<string, unknown>,
  schemas: Record<string, unknown>,
  root: Record<string, unknown>
): void => {
  const discriminator = schema.discriminator as Record<string, unknown>
  const property = discriminator.propertyName
  const key = Array.isArray(schema.oneOf) ? "oneOf" : Array.isArray(schema.anyOf) ? "anyOf" : undefined
  if (typeof property !== "string" || key === undefined) return
  const branches = schema[key] as Array<unknown>
  const nameOf = (branch: unknown): string | undefined => {
    if (isJsonObject(branch) && typeof branch.$ref === "string" && branch.$ref.startsWith(SCHEMAS))
      return branch.$ref.slice(SCHEMAS.length)
    return Object.keys(schemas).find((name) => schemas[name] === branch)
  }
  const targetOf = (value: string): unknown => (value.startsWith("#/") ? resolvePointer(root, value) : schemas[value])
  const mapping = isJsonObject(discriminator.mapping) ? discriminator.mapping : {}
  const values = branches.map((branch) => {
    const name = nameOf(branch)
    const mapped = Object.keys(mapping).filter((value) => {
      const target = mapping[value]
      if (typeof target !== "string") return false
      return targetOf(target) === branch || (name !== undefined && (target === name || target === `${SCHEMAS}${name}`))
    })
    return name === undefined || mapped.includes(name) ? mapped : [...mapped, name]
  })
  // A branch no discriminator value names keeps the union as it was: better loose than unservable.
  if (values.some((v) => v.length === 0)) return
  schema[key] = branches.map((branch, i) => ({
    allOf: [
      { type: "object", required: [property], properties: { [property]: { type: "string", enum: values[i] } } },
      branch
    ]
  }))
}

/**
 * The names of `components.schemas` a schema still refers to (cycles), transitively: the
 * definitions a converter needs for it, and no others.
 */
export const referencedSchemas = (
  schema: unknown,
  schemas: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) {
      node.forEach(visit)
      return
    }
    const record = node as Record<string, unknown>
    const ref = record.$ref
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
      const name = ref.slice("#/components/schemas/".length).replace(/~1/g, "/").replace(/~0/g, "~")
      if (!(name in out) && name in schemas) {
        out[name] = schemas[name]
        visit(schemas[name])
      }
    }
    for (const key in record) visit(record[key])
  }
  visit(schema)
  return out
}
