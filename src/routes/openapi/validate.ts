/**
 * Request validation against an OpenAPI operation, as Prism does it: path, query, header and
 * cookie parameters and the body are checked with Ajv (the validator Prism uses, so messages read
 * the same), and every violation is listed with its location (`["query", "limit"]`,
 * `["body", "tags", "0"]`), severity, keyword and message.
 *
 * Schemas are first put in JSON Schema 2020-12 by Effect's `JsonSchema.fromSchemaOpenApi3_0` /
 * `fromSchemaOpenApi3_1` (`nullable`, boolean `exclusiveMinimum`, `#/components/schemas/X` →
 * `#/$defs/X`), then compiled once per operation.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js"
import type { RegExpEngine } from "ajv/dist/types/index.js"
import { ajv2020, ajvFormats } from "../jsonSchema/ajv.ts"
import { JsonSchema } from "effect"
import { linearAjvEngine } from "../../registry/linearRegExp.ts"
import { escapePointer, isJsonObject } from "../../registry/util.ts"
import type { SimRequest } from "../../registry/request.ts"
import type { RequestViolation } from "../../registry/requestLog.ts"
import { type Dereferenced, referencedSchemas } from "./document.ts"

/**
 * One way a request breaks its operation, in Prism's shape (the log records the same).
 */
export type Violation = RequestViolation

/** Where a parameter is read from. */
type Location = "path" | "query" | "header" | "cookie"

/**
 * A parameter as the validator needs it: where and under which name it is read, and how an
 * array is spelled there (`explode`: repeated keys; else comma-separated).
 */
export interface ParameterSpec {
  readonly name: string
  readonly in: Location
  readonly required: boolean
  readonly schema: unknown
  readonly explode: boolean
  /**
   * How the value is spelled (OpenAPI's `style`): `simple`, `label`, `matrix` (path); `form`,
   * `spaceDelimited`, `pipeDelimited`, `deepObject` (query); `simple` (header); `form` (cookie).
   */
  readonly style?: string | undefined
  /** For path parameters: the name the route's pattern gives it (`{pet-id}` → `pet_id`). */
  readonly patternName?: string | undefined
}

/** The request body an operation declares. */
export interface BodySpec {
  readonly required: boolean
  /** Media type → schema (undefined when the media type declares none). */
  readonly content: ReadonlyArray<readonly [string, unknown]>
}

/** Headers OpenAPI says are described elsewhere and are never parameters. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"])

/** The formats OpenAPI adds to JSON Schema's. */
const OPENAPI_FORMATS = {
  int32: { type: "number", validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: "number", validate: (n: number) => Number.isInteger(n) },
  float: { type: "number", validate: () => true },
  double: { type: "number", validate: () => true },
  byte: {
    type: "string",
    validate: (s: string) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)
  },
  binary: { type: "string", validate: () => true },
  password: { type: "string", validate: () => true }
} as const

/**
 * The two validators of a document (parameters and forms with type coercion, JSON bodies
 * without), made once per document: an Ajv instance costs milliseconds to set up.
 */
const instances = new WeakMap<Dereferenced, { readonly params: Ajv2020; readonly bodies: Ajv2020 }>()
const ajvFor = (document: Dereferenced) => {
  let found = instances.get(document)
  if (found === undefined) instances.set(document, (found = { params: makeAjv(true), bodies: makeAjv(false) }))
  return found
}

/**
 * Patterns run on RE2 (`linearAjvEngine`), whose time is linear in the input, instead of
 * JavaScript's backtracking `RegExp`: a document's patterns arrive as data, and `^(a+)+$` took
 * 1.5 s on a 28-character query value, doubling per character.
 */
const makeAjv = (coerce: boolean): Ajv2020 => {
  const ajv = new (ajv2020())({
    strict: false,
    code: { regExp: linearAjvEngine as RegExpEngine },
    allErrors: true,
    validateSchema: false,
    logger: false,
    coerceTypes: coerce ? "array" : false
  })
  ;(ajvFormats() as unknown as (ajv: Ajv2020) => void)(ajv)
  for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format as never)
  return ajv
}

/**
 * A schema of the document as JSON Schema 2020-12, with the definitions its cyclic references
 * need as `$defs`.
 */
export const toJsonSchema2020 = (schema: unknown, document: Dereferenced): Record<string, unknown> => {
  const convert = document.dialect === "openapi-3.0" ? JsonSchema.fromSchemaOpenApi3_0 : JsonSchema.fromSchemaOpenApi3_1
  const source = isJsonObject(schema) ? schema : {}
  const converted = convert(source)
  const defs: Record<string, unknown> = { ...converted.definitions }
  for (const [name, definition] of Object.entries(referencedSchemas(source, document.schemas))) {
    defs[name] = convert(isJsonObject(definition) ? definition : {}).schema
  }
  return Object.keys(defs).length === 0 ? { ...converted.schema } : { ...converted.schema, $defs: defs }
}

const unescapePointer = (token: string) => token.replace(/~1/g, "/").replace(/~0/g, "~")

const violationsOf = (
  prefix: ReadonlyArray<string>,
  errors: ReadonlyArray<ErrorObject> | null | undefined
): Array<Violation> =>
  (errors ?? []).map((error) => ({
    location: [
      ...prefix,
      ...(error.instancePath === "" ? [] : error.instancePath.slice(1).split("/").map(unescapePointer))
    ],
    severity: "Error",
    code: error.keyword,
    message: error.message ?? "is invalid"
  }))

const mediaBase = (contentType: string): string => contentType.split(";")[0].trim().toLowerCase()

const isJsonMedia = (type: string) => type === "application/json" || type.endsWith("+json")

/** The declared media type a request's content type falls under (`application/*` and `*\/*` count). */
const declaredFor = (content: BodySpec["content"], contentType: string): readonly [string, unknown] | undefined =>
  content.find(([type]) => mediaBase(type) === contentType) ??
  content.find(([type]) => mediaBase(type) === `${contentType.split("/")[0]}/*`) ??
  content.find(([type]) => mediaBase(type) === "*/*")

const splitArray = (values: ReadonlyArray<string>, explode: boolean): string | Array<string> =>
  explode ? (values.length === 1 ? values[0] : [...values]) : values.flatMap((v) => v.split(","))

/** The shape a parameter's schema gives its value: what its text is split into. */
const shapeOf = (schema: unknown): "array" | "object" | "primitive" => {
  if (!isJsonObject(schema)) return "primitive"
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes("array") || (schema.type === undefined && schema.items !== undefined)) return "array"
  if (types.includes("object") || (schema.type === undefined && isJsonObject(schema.properties))) return "object"
  return "primitive"
}

/** `k,v,k2,v2` (or exploded `k=v,k2=v2`, split by `separator`) as an object. */
const objectOf = (parts: ReadonlyArray<string>, exploded: boolean): Record<string, string> => {
  const out: Record<string, string> = {}
  if (exploded) {
    for (const part of parts) {
      const at = part.indexOf("=")
      if (at > 0) out[part.slice(0, at)] = part.slice(at + 1)
    }
  } else {
    for (let i = 0; i + 1 < parts.length; i += 2) out[parts[i]] = parts[i + 1]
  }
  return out
}

/**
 * A path, header or cookie parameter's text read in its style (OpenAPI 3 "Style Values"): `simple`
 * `a,b` / `k,v` / `k=v`; `label` `.a.b` / `.a,b`; `matrix` `;id=a;id=b` / `;id=a,b` / `;k=v`.
 * `undefined` when the text does not have the style's shape (the value is then missing).
 */
const fromStyledText = (spec: ParameterSpec, text: string): unknown => {
  const shape = shapeOf(spec.schema)
  const style = spec.style ?? "simple"
  let body = text
  let separator = ","
  if (style === "label") {
    if (!body.startsWith(".")) return undefined
    body = body.slice(1)
    if (spec.explode) separator = "."
  } else if (style === "matrix") {
    if (!body.startsWith(";")) return undefined
    if (spec.explode && shape !== "primitive") {
      const parts = body.slice(1).split(";")
      if (shape === "object") return objectOf(parts, true)
      const prefix = `${spec.name}=`
      return parts.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length))
    }
    const prefix = `;${spec.name}=`
    if (!body.startsWith(prefix) && body !== `;${spec.name}`) return undefined
    body = body.slice(prefix.length)
  }
  if (shape === "primitive") return body
  const parts = body === "" ? [] : body.split(separator)
  return shape === "array" ? parts : objectOf(parts, spec.explode && style !== "matrix")
}

/**
 * A query parameter read in its style: `form` (exploded: repeated keys, or an object's own keys;
 * else `a,b`), `spaceDelimited` (`a b`), `pipeDelimited` (`a|b`), `deepObject` (`id[k]=v`).
 */
const fromQuery = (spec: ParameterSpec, query: URLSearchParams): unknown => {
  const shape = shapeOf(spec.schema)
  const style = spec.style ?? "form"
  if (shape === "object") {
    if (style === "deepObject") {
      const out: Record<string, string> = {}
      const prefix = `${spec.name}[`
      for (const [key, value] of query)
        if (key.startsWith(prefix) && key.endsWith("]")) out[key.slice(prefix.length, -1)] = value
      return Object.keys(out).length === 0 ? undefined : out
    }
    if (spec.explode) {
      const properties =
        isJsonObject(spec.schema) && isJsonObject(spec.schema.properties) ? Object.keys(spec.schema.properties) : []
      const out: Record<string, string> = {}
      for (const name of properties) {
        const value = query.get(name)
        if (value !== null) out[name] = value
      }
      return Object.keys(out).length === 0 ? undefined : out
    }
    const value = query.get(spec.name)
    return value === null
      ? undefined
      : objectOf(value.split(style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ","), false)
  }
  const all = query.getAll(spec.name)
  if (all.length === 0) return undefined
  if (shape === "primitive") return all.length === 1 ? all[0] : [...all]
  if (spec.explode) return [...all]
  const separator = style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ","
  return all.flatMap((v) => v.split(separator))
}

const cookiesOf = (header: string | null): Map<string, string> => {
  const out = new Map<string, string>()
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=")
    if (at > 0) out.set(part.slice(0, at).trim(), part.slice(at + 1).trim())
  }
  return out
}

/**
 * Thrown by `compileRequestValidator` when Ajv cannot compile a schema (a malformed `pattern`,
 * say); carries the JSON pointer of the schema.
 */
export class UncompilableSchema extends Error {
  readonly pointer: string
  constructor(pointer: string, message: string) {
    super(message)
    this.pointer = pointer
  }
}

/**
 * The outcome of validating one request: its violations (empty when valid), or `unsupported`
 * when its body is in a media type the operation does not accept (Prism answers 415).
 */
export interface RequestCheck {
  readonly violations: ReadonlyArray<Violation>
  readonly unsupported: string | undefined
}

/**
 * The validator of one operation. Its schemas are converted now and compiled by Ajv at the first
 * request (once); a schema Ajv refuses (a malformed `pattern`) throws `UncompilableSchema` naming
 * its JSON pointer then.
 */
export const compileRequestValidator = (
  parameters: ReadonlyArray<ParameterSpec>,
  body: BodySpec | undefined,
  document: Dereferenced,
  pointer: string
): ((request: SimRequest) => RequestCheck) => {
  const lazy = (coerce: boolean, schema: Record<string, unknown>, at: string): ValidateFunction => {
    let compiled: ValidateFunction | undefined
    const validate = ((data: unknown) => {
      if (compiled === undefined) {
        const ajv = ajvFor(document)
        try {
          compiled = (coerce ? ajv.params : ajv.bodies).compile(schema)
        } catch (error) {
          throw new UncompilableSchema(at, error instanceof Error ? error.message : String(error))
        }
      }
      const valid = compiled(data)
      validate.errors = compiled.errors
      return valid
    }) as ValidateFunction
    return validate
  }
  const locations: Array<{
    readonly in: Location
    readonly specs: ReadonlyArray<ParameterSpec>
    readonly validate: ValidateFunction
  }> = []
  for (const where of ["path", "query", "header", "cookie"] as const) {
    const specs = parameters.filter(
      (p) => p.in === where && !(where === "header" && IGNORED_HEADERS.has(p.name.toLowerCase()))
    )
    if (specs.length === 0) continue
    const properties: Record<string, unknown> = {}
    // The definitions every parameter's schema refers to (`#/$defs/Name`) sit at the root of the
    // one schema that holds them all, where those references resolve.
    const $defs: Record<string, unknown> = {}
    for (const spec of specs) {
      const { $defs: own, ...schema } = spec.schema === undefined ? {} : toJsonSchema2020(spec.schema, document)
      if (isJsonObject(own)) Object.assign($defs, own)
      properties[where === "header" ? spec.name.toLowerCase() : spec.name] = schema
    }
    const required = specs.filter((s) => s.required).map((s) => (where === "header" ? s.name.toLowerCase() : s.name))
    locations.push({
      in: where,
      specs,
      validate: lazy(
        true,
        { type: "object", properties, required, ...(Object.keys($defs).length > 0 ? { $defs } : {}) },
        `${pointer}/parameters`
      )
    })
  }
  const media = (body?.content ?? []).map(([type, schema]) => ({
    type,
    base: mediaBase(type),
    validate:
      schema === undefined
        ? undefined
        : lazy(
            false,
            toJsonSchema2020(schema, document),
            `${pointer}/requestBody/content/${escapePointer(type)}/schema`
          ),
    validateCoerced:
      schema === undefined || mediaBase(type) !== "application/x-www-form-urlencoded"
        ? undefined
        : lazy(true, toJsonSchema2020(schema, document), `${pointer}/requestBody/content/${escapePointer(type)}/schema`)
  }))

  return (request) => {
    const violations: Array<Violation> = []
    for (const location of locations) {
      const values: Record<string, unknown> = {}
      const cookies = location.in === "cookie" ? cookiesOf(request.headers.get("cookie")) : undefined
      for (const spec of location.specs) {
        const key = location.in === "header" ? spec.name.toLowerCase() : spec.name
        switch (location.in) {
          case "path": {
            const value = request.params[spec.patternName ?? spec.name]
            const read = value === undefined ? undefined : fromStyledText(spec, value)
            if (read !== undefined) values[key] = read
            break
          }
          case "query": {
            const read = fromQuery(spec, request.url.searchParams)
            if (read !== undefined) values[key] = read
            break
          }
          case "header": {
            const value = request.headers.get(spec.name)
            if (value !== null) values[key] = fromStyledText({ ...spec, style: "simple" }, value)
            break
          }
          case "cookie": {
            const value = cookies!.get(spec.name)
            if (value !== undefined)
              values[key] =
                shapeOf(spec.schema) === "primitive"
                  ? value
                  : fromStyledText({ ...spec, style: "simple", explode: false }, value)
            break
          }
        }
      }
      if (!location.validate(values)) violations.push(...violationsOf([location.in], location.validate.errors))
    }
    let unsupported: string | undefined
    if (body !== undefined) {
      const hasBody = request.body !== undefined && request.body.length > 0
      if (!hasBody) {
        if (body.required)
          violations.push({
            location: ["body"],
            severity: "Error",
            code: "required",
            message: "Body parameter is required"
          })
      } else {
        const contentType = mediaBase(request.headers.get("content-type") ?? "application/json")
        const declared = declaredFor(body.content, contentType)
        const compiled = declared === undefined ? undefined : media.find((m) => m.type === declared[0])
        if (compiled === undefined) {
          if (body.content.length > 0) unsupported = contentType
        } else if (isJsonMedia(contentType)) {
          let parsed: unknown
          let ok = true
          try {
            parsed = JSON.parse(request.text())
          } catch {
            ok = false
          }
          if (!ok)
            violations.push({ location: ["body"], severity: "Error", code: "type", message: "must be valid JSON" })
          else if (compiled.validate !== undefined && !compiled.validate(parsed)) {
            violations.push(...violationsOf(["body"], compiled.validate.errors))
          }
        } else if (compiled.validateCoerced !== undefined) {
          const form: Record<string, string | Array<string>> = {}
          const entries = new URLSearchParams(request.text())
          for (const name of new Set(entries.keys())) form[name] = splitArray(entries.getAll(name), true)
          if (!compiled.validateCoerced(form))
            violations.push(...violationsOf(["body"], compiled.validateCoerced.errors))
        }
      }
    }
    return { violations, unsupported }
  }
}
