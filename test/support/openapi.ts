/**
 * What the OpenAPI tests need beside simnet, none of it simnet's own code: an Ajv validator of
 * the document's schemas (an independent judge of every answer), and valid requests for an
 * operation, built from its examples or the least its schemas need and serialized in each
 * parameter's `style` as OpenAPI 3 defines them.
 */
import { Ajv, type AnySchemaObject } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import formatsPlugin from "ajv-formats"
import { generateSync } from "json-schema-faker"

export type Json = Record<string, any>

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

/** A JSON pointer token. */
export const escapeToken = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * A (dereferenced) document as the judge reads it, in place: OpenAPI 3.0's `nullable` and boolean
 * `exclusiveMinimum`/`exclusiveMaximum` in JSON Schema terms, and a `oneOf`/`anyOf` with a
 * `discriminator` as OpenAPI defines it (a value picks its branch by the discriminator: the
 * mapping's keys, else the branch's schema name), which plain JSON Schema cannot say.
 */
const judged = (document: Json): Json => {
  const v30 = document.openapi.startsWith("3.0")
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) {
      node.forEach(visit)
      return
    }
    const schema = node as Json
    for (const key of Object.keys(schema)) visit(schema[key])
    if (
      v30 ||
      typeof schema.exclusiveMinimum === "boolean" ||
      typeof schema.exclusiveMaximum === "boolean" ||
      "nullable" in schema
    ) {
      for (const [flag, bound] of [
        ["exclusiveMinimum", "minimum"],
        ["exclusiveMaximum", "maximum"]
      ] as const) {
        if (typeof schema[flag] === "boolean") {
          if (schema[flag] && typeof schema[bound] === "number") {
            schema[flag] = schema[bound]
            delete schema[bound]
          } else delete schema[flag]
        }
      }
      if (schema.nullable === true) {
        delete schema.nullable
        if (typeof schema.type === "string") schema.type = [schema.type, "null"]
        if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
      } else if (schema.nullable === false) delete schema.nullable
    }
    const property = schema.discriminator?.propertyName
    const key = Array.isArray(schema.oneOf) ? "oneOf" : Array.isArray(schema.anyOf) ? "anyOf" : undefined
    if (typeof property === "string" && key !== undefined) {
      const mapping = (schema.discriminator.mapping ?? {}) as Record<string, string>
      const nameOf = (branch: Json) =>
        typeof branch.$ref === "string"
          ? branch.$ref.split("/").pop()
          : Object.keys(schemas).find((name) => schemas[name] === branch)
      schema[key] = (schema[key] as Array<Json>).map((branch) => {
        const name = nameOf(branch)
        const values = Object.entries(mapping)
          .filter(([, target]) => target.split("/").pop() === name)
          .map(([value]) => value)
        if (name !== undefined && !values.includes(name)) values.push(name)
        return { allOf: [{ properties: { [property]: { enum: values } }, required: [property] }, branch] }
      })
    }
  }
  visit(document)
  return document
}

/** A validator of schemas by their pointer in the (dereferenced) document, in the document's own dialect. */
export const documentValidator = (raw: Json) => {
  const document = judged(raw)
  const ajv = document.openapi.startsWith("3.0")
    ? new Ajv({ strict: false, allErrors: true, validateSchema: false, unicodeRegExp: false })
    : new Ajv2020({ strict: false, allErrors: true, validateSchema: false, unicodeRegExp: false })
  ;(formatsPlugin as unknown as (ajv: unknown) => void)(ajv)
  ajv.addFormat("int32", { type: "number", validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31 })
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isInteger(n) })
  for (const name of ["float", "double"]) ajv.addFormat(name, { type: "number", validate: () => true })
  for (const name of ["binary", "byte", "password"]) ajv.addFormat(name, () => true)
  ajv.addSchema(document as AnySchemaObject, "doc")
  return (pointer: string, value: unknown) => {
    const valid = ajv.validate({ $ref: `doc#${pointer}` }, value)
    return valid ? [] : (ajv.errors ?? []).map((e) => `${pointer} ${e.instancePath} ${e.message}`)
  }
}

const firstType = (schema: Json): string | undefined => {
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type
  return type ?? (schema.properties ? "object" : schema.items ? "array" : undefined)
}

/** A minimal valid value for a (dereferenced) schema: its example, first enum member, or the least the type needs. */
export const sample = (schema: Json | undefined, depth = 0): unknown => {
  if (schema === undefined || schema === null || typeof schema !== "object" || depth > 8) return undefined
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (schema.const !== undefined) return schema.const
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: Json) => sample(s, depth + 1))
    return parts.every((p: unknown) => typeof p === "object" && p !== null && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0]
  }
  for (const key of ["oneOf", "anyOf"]) if (Array.isArray(schema[key])) return sample(schema[key][0], depth + 1)
  switch (firstType(schema)) {
    case "integer":
    case "number":
      return schema.minimum ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1)
    case "boolean":
      return true
    case "string":
      return schema.format === "date"
        ? "2024-01-02"
        : schema.format === "date-time"
          ? "2024-01-02T03:04:05Z"
          : schema.format === "email"
            ? "a@example.com"
            : schema.format === "uuid"
              ? "123e4567-e89b-12d3-a456-426614174000"
              : schema.format === "uri"
                ? "https://example.com/"
                : "abc".padEnd(schema.minLength ?? 0, "c").slice(0, schema.maxLength ?? 100)
    case "array":
      return schema.maxItems === 0
        ? []
        : Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, depth + 1))
    case "object": {
      const out: Json = {}
      // The required properties, or every property when none is required (an empty object says little).
      const keys = (schema.required ?? []).length > 0 ? schema.required : Object.keys(schema.properties ?? {})
      for (const key of keys) out[key] = sample(schema.properties?.[key] ?? {}, depth + 1) ?? "abc"
      return out
    }
    default:
      return undefined
  }
}

/**
 * Checks a value against the schema at a pointer of the document: the problems, none when valid.
 */
export type Validate = (pointer: string, value: unknown) => ReadonlyArray<string>

/**
 * The first of some candidate values that the schema at `pointer` accepts: the given ones (the
 * document's examples, then a minimal sample), then values json-schema-faker generates from the
 * schema (references resolved against the document) under seeds 1 to 30. The last candidate when
 * none is accepted, so the request goes out and the answer says what was wrong with it.
 */
export const validValue = (
  validate: Validate,
  pointer: string,
  schema: Json | undefined,
  document: Json,
  given: ReadonlyArray<unknown>,
  unsatisfied: Array<string> = []
): unknown => {
  if (schema === undefined) return given.find((v) => v !== undefined)
  const tried: Array<unknown> = []
  const accepts = (value: unknown) => {
    tried.push(value)
    return value !== undefined && validate(pointer, value).length === 0
  }
  for (const value of [...given, sample(schema)]) if (accepts(value)) return value
  if (schema !== undefined && typeof schema === "object") {
    const rooted = { ...schema, components: document.components, paths: document.paths }
    for (let seed = 1; seed <= 30; seed++) {
      let value: unknown
      try {
        value = generateSync(rooted as Parameters<typeof generateSync>[0], { seed, maxDepth: 4, refDepthMax: 2 })
      } catch {
        continue
      }
      if (accepts(value)) return value
    }
  }
  unsatisfied.push(pointer)
  return tried.find((v) => v !== undefined)
}

/** The examples a parameter or media type object gives, first to last. */
const examplesOf = (object: Json): Array<unknown> => [
  ...(object.example === undefined ? [] : [object.example]),
  ...Object.values((object.examples ?? {}) as Record<string, Json>).map((e) => e?.value)
]

/** The value a parameter sends: a valid one of its examples, else one its schema accepts. */
const parameterValue = (
  parameter: Json,
  at: string,
  validate: Validate,
  document: Json,
  unsatisfied: Array<string>
): unknown => {
  if (parameter.content !== undefined) {
    const [type, media] = Object.entries(parameter.content as Record<string, Json>)[0]
    return validValue(
      validate,
      `${at}/content/${escapeToken(type)}/schema`,
      media.schema,
      document,
      [...examplesOf(parameter), ...examplesOf(media)],
      unsatisfied
    )
  }
  return validValue(validate, `${at}/schema`, parameter.schema, document, examplesOf(parameter), unsatisfied)
}

const primitive = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/**
 * A parameter as OpenAPI serializes it (3.0 §4.7.12.4, "Style Values"): `[name, value]` pairs for
 * the query, or the text for a path segment, a header or a cookie.
 */
const serialize = (
  parameter: Json,
  value: unknown
): { readonly pairs?: Array<[string, string]>; readonly text?: string } => {
  const where = parameter.in as string
  const name = parameter.name as string
  if (parameter.content !== undefined) {
    const text = JSON.stringify(value)
    return where === "query" ? { pairs: [[name, text]] } : { text }
  }
  const style = parameter.style ?? (where === "query" || where === "cookie" ? "form" : "simple")
  const explode = parameter.explode ?? style === "form"
  const isArray = Array.isArray(value)
  const isObject = !isArray && typeof value === "object" && value !== null
  const entries = isObject ? Object.entries(value as Json).map(([k, v]) => [k, primitive(v)] as [string, string]) : []
  const items = isArray ? (value as Array<unknown>).map(primitive) : []
  switch (style) {
    case "matrix":
      if (isArray)
        return {
          text: explode
            ? items.map((v) => `;${name}=${encodeURIComponent(v)}`).join("")
            : `;${name}=${items.map(encodeURIComponent).join(",")}`
        }
      if (isObject)
        return {
          text: explode
            ? entries.map(([k, v]) => `;${k}=${encodeURIComponent(v)}`).join("")
            : `;${name}=${entries.flat().map(encodeURIComponent).join(",")}`
        }
      return { text: `;${name}=${encodeURIComponent(primitive(value))}` }
    case "label":
      if (isArray) return { text: `.${items.map(encodeURIComponent).join(explode ? "." : ",")}` }
      if (isObject)
        return {
          text: `.${explode ? entries.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(".") : entries.flat().map(encodeURIComponent).join(",")}`
        }
      return { text: `.${encodeURIComponent(primitive(value))}` }
    case "spaceDelimited":
    case "pipeDelimited": {
      const joiner = style === "spaceDelimited" ? " " : "|"
      if (isArray) return { pairs: explode ? items.map((v) => [name, v]) : [[name, items.join(joiner)]] }
      if (isObject) return { pairs: explode ? entries : [[name, entries.flat().join(joiner)]] }
      return { pairs: [[name, primitive(value)]] }
    }
    case "deepObject":
      return { pairs: isObject ? entries.map(([k, v]) => [`${name}[${k}]`, v]) : [[name, primitive(value)]] }
    case "form":
      if (where === "cookie")
        return { text: isArray ? items.join(",") : isObject ? entries.flat().join(",") : primitive(value) }
      if (isArray) return { pairs: explode ? items.map((v) => [name, v]) : [[name, items.join(",")]] }
      if (isObject) return { pairs: explode ? entries : [[name, entries.flat().join(",")]] }
      return { pairs: [[name, primitive(value)]] }
    default: {
      // simple
      const text = isArray
        ? items.join(",")
        : isObject
          ? explode
            ? entries.map(([k, v]) => `${k}=${v}`).join(",")
            : entries.flat().join(",")
          : primitive(value)
      return { text: where === "path" ? text.split(",").map(encodeURIComponent).join(",") : text }
    }
  }
}

/** A request body for a media type: a valid example, else a value its schema accepts, in that media type's encoding. */
const bodyFor = (
  type: string,
  media: Json,
  at: string,
  validate: Validate,
  document: Json,
  unsatisfied: Array<string>
): BodyInit => {
  const value = validValue(validate, `${at}/schema`, media.schema, document, examplesOf(media), unsatisfied) ?? {}
  const base = type.split(";")[0].trim().toLowerCase()
  if (base === "application/x-www-form-urlencoded") {
    return new URLSearchParams(Object.entries(value as Json).map(([k, v]) => [k, primitive(v)])).toString()
  }
  if (base === "multipart/form-data") {
    const form = new FormData()
    for (const [k, v] of Object.entries(value as Json)) form.append(k, primitive(v))
    return form
  }
  if (base.endsWith("json") || base === "*/*") return JSON.stringify(value)
  return typeof value === "string" ? value : JSON.stringify(value)
}

/**
 * A valid request for an operation: every path parameter and required parameter the operation or
 * its path item declares, serialized in its style, and a body in its first declared media type.
 * Where no value the judge accepts could be found (a schema no value satisfies, `allOf` of a string
 * and an integer, say), the pointer of that schema is pushed onto `unsatisfied`.
 */
export const requestFor = (
  base: string,
  path: string,
  method: string,
  item: Json,
  operation: Json,
  validate: Validate = () => [],
  document: Json = {},
  unsatisfied: Array<string> = []
): [string, RequestInit] => {
  const seen = new Set<string>()
  const at = `/paths/${escapeToken(path)}`
  const declared = [
    ...(operation.parameters ?? []).map((p: Json, i: number) => [p, `${at}/${method}/parameters/${i}`] as const),
    ...(item.parameters ?? []).map((p: Json, i: number) => [p, `${at}/parameters/${i}`] as const)
  ]
  const parameters = declared.filter(([p]) => {
    const key = `${p.in} ${p.name}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  let url = path.replace(/#/g, "%23")
  const query: Array<[string, string]> = []
  const cookies: Array<string> = []
  const headers: Record<string, string> = { accept: "application/json, */*;q=0.5" }
  for (const [parameter, pointer] of parameters) {
    if (parameter.in !== "path" && parameter.required !== true) continue
    if (
      parameter.in === "header" &&
      ["accept", "content-type", "authorization"].includes(String(parameter.name).toLowerCase())
    )
      continue
    const serialized = serialize(
      parameter,
      parameterValue(parameter, pointer, validate, document, unsatisfied) ?? "abc"
    )
    if (parameter.in === "path") url = url.replaceAll(`{${parameter.name}}`, serialized.text ?? "")
    else if (parameter.in === "query") query.push(...(serialized.pairs ?? []))
    else if (parameter.in === "header") headers[parameter.name] = serialized.text ?? ""
    else if (parameter.in === "cookie") cookies.push(`${parameter.name}=${serialized.text ?? ""}`)
  }
  if (cookies.length > 0) headers.cookie = cookies.join("; ")
  const init: RequestInit = { method: method.toUpperCase(), headers }
  const content = operation.requestBody?.content as Record<string, Json> | undefined
  if (content !== undefined && Object.keys(content).length > 0 && method !== "get" && method !== "head") {
    const [type, media] = Object.entries(content)[0]
    const body = bodyFor(
      type,
      media,
      `${at}/${method}/requestBody/content/${escapeToken(type)}`,
      validate,
      document,
      unsatisfied
    )
    if (!(body instanceof FormData)) headers["content-type"] = type.includes("*") ? "application/json" : type
    init.body = body
  }
  const search = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")
  return [`${base}${url}${search === "" ? "" : `?${search}`}`, init]
}

export const operationsOf = (document: Json) =>
  Object.entries((document.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({
      path,
      method,
      item,
      operation: item[method] as Json
    }))
  )
