/**
 * What a JSON Schema document that arrives as data (a fixture, the control endpoint, the
 * inspector, an MCP definition) may ask of simnet, checked before it is converted:
 *
 * - it is a valid schema of its dialect (Ajv's meta-schema for draft 2020-12 or draft-07):
 *   `{"type": "nope"}` is refused with its JSON pointer rather than served as `null`;
 * - every `pattern` (and `patternProperties` key) compiles on the linear-time engine (RE2):
 *   validation of requests runs on it (`routes/openapi/validate.ts`);
 * - the smallest value it describes fits `GENERATION_LIMITS`: no `minItems: 5e7` that would take
 *   the process to gigabytes, no `minLength` that takes the generator minutes. The estimate is a
 *   lower bound in bytes of JSON, computed by a bounded walk (`maxDepth`, local `$ref`s followed
 *   once per path).
 */
import type { Ajv } from "ajv"
import type { Ajv2020 } from "ajv/dist/2020.js"
import { ajv2020, ajvDraft07 } from "./ajv.ts"
import { LinearRegExp } from "../../registry/linearRegExp.ts"
import { escapePointer, isJsonObject } from "../../registry/util.ts"

/**
 * The documented bounds of a JSON Schema that simnet generates values from.
 * - `smallestBytes`: the smallest value it describes, in bytes of JSON (64 KiB);
 * - `minLength`: the largest `minLength` of a string (1 024 characters);
 * - `minItems`, `minProperties`: the largest lower bound of an array or object (1 000 / 256);
 * - `depth`: the deepest nesting of schema objects walked (64).
 */
export const GENERATION_LIMITS = {
  smallestBytes: 64 * 1024,
  minLength: 1024,
  minItems: 1000,
  minProperties: 256,
  depth: 64
} as const

/** A refusal: what is wrong, at which JSON pointer of the document. */
export interface BoundsIssue {
  readonly pointer: string
  readonly message: string
}

const count = (u: unknown): number => (typeof u === "number" && Number.isFinite(u) && u > 0 ? u : 0)

/** The most schema objects one check visits, `$ref`s expanded (each definition once). */
const MAX_VISITS = 50_000

/** One check's walk: the document, the sizes of the `$ref`s already walked, and how many nodes it visited. */
interface Walk {
  readonly document: unknown
  readonly refs: Map<string, number>
  visited: number
}

class Refused {
  readonly issue: BoundsIssue
  constructor(issue: BoundsIssue) {
    this.issue = issue
  }
}

/** Resolves a local `$ref` (`#/$defs/A`, `#/definitions/A`, `#/components/schemas/A`), else undefined. */
const resolveLocal = (root: unknown, ref: string): unknown => {
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (!isJsonObject(node)) return undefined
    node = node[token]
  }
  return node
}

/**
 * A lower bound of the JSON size of the smallest value `node` describes; throws `Refused` past a
 * limit. `seen` holds the `$ref`s on the current path, so a recursive schema costs its base case.
 */
const smallest = (root: Walk, node: unknown, pointer: string, depth: number, seen: ReadonlySet<string>): number => {
  if (!isJsonObject(node)) return 1
  if (++root.visited > MAX_VISITS) {
    throw new Refused({
      pointer,
      message: `the schema has more than ${MAX_VISITS} schema objects with its $refs expanded; simnet generates from smaller ones`
    })
  }
  if (depth > GENERATION_LIMITS.depth) {
    throw new Refused({ pointer, message: `the schema is nested more than ${GENERATION_LIMITS.depth} deep` })
  }
  const at = (token: string) => `${pointer}/${escapePointer(token)}`
  const limit = (key: "minLength" | "minItems" | "minProperties") => {
    const value = count(node[key])
    if (value > GENERATION_LIMITS[key]) {
      throw new Refused({
        pointer: at(key),
        message: `${key} ${value} is over simnet's limit of ${GENERATION_LIMITS[key]} (GENERATION_LIMITS.${key})`
      })
    }
    return value
  }
  const minLength = limit("minLength")
  const minItems = limit("minItems")
  const minProperties = limit("minProperties")
  let size = 1
  if (typeof node["$ref"] === "string") {
    const ref = node["$ref"]
    const known = root.refs.get(ref)
    if (known !== undefined) size = Math.max(size, known)
    else {
      const target = seen.has(ref) ? undefined : resolveLocal(root.document, ref)
      if (target !== undefined) {
        const refSize = smallest(root, target, at("$ref"), depth + 1, new Set([...seen, ref]))
        // A definition's size is the same wherever it is referenced (a recursive one counts its base case).
        root.refs.set(ref, refSize)
        size = Math.max(size, refSize)
      }
    }
  }
  const type = node["type"]
  const types = Array.isArray(type) ? type : [type]
  if (types.includes("string") || minLength > 0) size = Math.max(size, minLength + 2)
  // Each nested schema is walked once: for its size where the smallest value holds it, else for
  // its own limits only (`walked` keeps the walk linear in the document, not exponential in depth).
  const walked = new Set<unknown>()
  const sizeOf = (child: unknown, pointerOf: string) => {
    walked.add(child)
    return smallest(root, child, pointerOf, depth + 1, seen)
  }
  if (types.includes("array") || minItems > 0 || Array.isArray(node["prefixItems"])) {
    const prefix = Array.isArray(node["prefixItems"]) ? node["prefixItems"] : []
    let array = 2
    prefix.forEach((item, i) => {
      array += sizeOf(item, `${at("prefixItems")}/${i}`) + 1
    })
    const rest = Math.max(0, minItems - prefix.length)
    if (rest > 0) array += rest * (sizeOf(node["items"], at("items")) + 1)
    size = Math.max(size, array)
  }
  if (types.includes("object") || isJsonObject(node["properties"]) || minProperties > 0) {
    const properties = isJsonObject(node["properties"]) ? node["properties"] : {}
    const required = Array.isArray(node["required"])
      ? node["required"].filter((k): k is string => typeof k === "string")
      : []
    let object = 2
    for (const key of new Set(required)) {
      object += key.length + 4 + sizeOf(properties[key], `${at("properties")}/${escapePointer(key)}`)
    }
    object += Math.max(0, minProperties - required.length) * 6
    size = Math.max(size, object)
  }
  const all = node["allOf"]
  if (Array.isArray(all))
    all.forEach((s, i) => {
      size = Math.max(size, sizeOf(s, `${at("allOf")}/${i}`))
    })
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const any = node[keyword]
    if (Array.isArray(any) && any.length > 0) {
      size = Math.max(size, Math.min(...any.map((s, i) => sizeOf(s, `${at(keyword)}/${i}`))))
    }
  }
  // Nested schemas that the smallest value may not reach still have their own limits checked.
  for (const keyword of ["properties", "patternProperties", "$defs", "definitions"] as const) {
    const map = node[keyword]
    if (isJsonObject(map)) {
      for (const [k, s] of Object.entries(map))
        if (!walked.has(s)) checkOnly(root, s, `${at(keyword)}/${escapePointer(k)}`, depth + 1)
    }
  }
  for (const keyword of ["items", "additionalProperties", "not", "contains", "propertyNames"] as const) {
    if (isJsonObject(node[keyword]) && !walked.has(node[keyword]))
      checkOnly(root, node[keyword], at(keyword), depth + 1)
  }
  if (size > GENERATION_LIMITS.smallestBytes) {
    throw new Refused({
      pointer: pointer === "" ? "" : pointer,
      message: `the smallest value this schema describes is at least ${size} bytes, over simnet's limit of ${GENERATION_LIMITS.smallestBytes} (GENERATION_LIMITS.smallestBytes)`
    })
  }
  return size
}

/** Checks a schema's limits where its size does not count toward the smallest value (optional parts). */
const checkOnly = (root: Walk, node: unknown, pointer: string, depth: number) => {
  smallest(root, node, pointer, depth, new Set())
}

/**
 * Every `pattern` and `patternProperties` key in the document compiles on RE2 (a bounded walk);
 * answers whether there is any (`fromJsonSchema`'s `"linear"` mode checks them only then).
 */
const checkPatterns = (node: unknown, pointer: string, depth: number): boolean => {
  if (depth > GENERATION_LIMITS.depth * 2) return false
  if (Array.isArray(node))
    return node.reduce<boolean>((found, item, i) => checkPatterns(item, `${pointer}/${i}`, depth + 1) || found, false)
  if (!isJsonObject(node)) return false
  let found = false
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${escapePointer(key)}`
    if ((key === "pattern" && typeof value === "string") || key === "patternProperties") found = true
    if (key === "pattern" && typeof value === "string") {
      const compiled = LinearRegExp.compile(value)
      if (typeof compiled === "string")
        throw new Refused({
          pointer: at,
          message: `pattern ${JSON.stringify(value.slice(0, 200))} does not compile on the linear-time engine (RE2: no lookaround, no backreferences): ${compiled}`
        })
    }
    if (key === "patternProperties" && isJsonObject(value)) {
      for (const source of Object.keys(value)) {
        const compiled = LinearRegExp.compile(source)
        if (typeof compiled === "string")
          throw new Refused({
            pointer: `${at}/${escapePointer(source)}`,
            message: `patternProperties key does not compile on the linear-time engine (RE2): ${compiled}`
          })
      }
    }
    if (checkPatterns(value, at, depth + 1)) found = true
  }
  return found
}

let metaValidators: { readonly draft2020: Ajv2020; readonly draft07: Ajv } | undefined

/** The meta-schema validators, made on first use. */
const meta = () =>
  (metaValidators ??= {
    draft2020: new (ajv2020())({ strict: false, validateFormats: false }),
    draft07: new (ajvDraft07())({ strict: false, validateFormats: false })
  })

/**
 * Whether `document` is a valid schema of `dialect` (draft 2020-12 or draft-07; OpenAPI
 * dialects are checked by their own conversion), and within simnet's limits: the first issue
 * found, or whether the document has any `pattern` (or `patternProperties`).
 */
export const checkJsonSchema = (
  document: unknown,
  dialect: "draft-2020-12" | "draft-07" | "openapi-3.1" | "openapi-3.0"
): { readonly issue: BoundsIssue } | { readonly issue?: undefined; readonly patterns: boolean } => {
  const refused = (issue: BoundsIssue) => ({ issue })
  try {
    const patterns = checkPatterns(document, "", 0)
    if (dialect === "draft-2020-12" || dialect === "draft-07") {
      const ajv = dialect === "draft-07" ? meta().draft07 : meta().draft2020
      const valid = ajv.validateSchema(stripSchemaId(document) as never) as boolean
      if (!valid) {
        const error = ajv.errors?.[0]
        return refused({
          pointer: error?.instancePath ?? "",
          message: `not a valid JSON Schema (${dialect}): ${error?.instancePath === "" ? "the document" : error?.instancePath} ${error?.message ?? "is invalid"}`
        })
      }
    }
    smallest({ document, refs: new Map(), visited: 0 }, document, "", 0, new Set())
    return { patterns }
  } catch (error) {
    if (error instanceof Refused) return refused(error.issue)
    if (error instanceof RangeError) return refused({ pointer: "", message: "the schema is nested too deep to check" })
    throw error
  }
}

/** The document without `$schema`, so Ajv checks it against the meta-schema chosen here. */
const stripSchemaId = (document: unknown): unknown => {
  if (!isJsonObject(document) || !("$schema" in document)) return document
  const { $schema: _, ...rest } = document
  return rest
}
