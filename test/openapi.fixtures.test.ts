/**
 * Routes.openapi against real documents no one here wrote (from `@readme/oas-examples`, MIT):
 * the Petstore 3.0 and 3.1 examples and the Star Trek API (STAPI, 120 operations). Every
 * operation is called with a valid request; every answer must be a status the operation
 * documents, and its body and headers must validate against the document with Ajv, a validator
 * independent of simnet's generator. Generated bodies are byte-identical across networks with
 * the same seed.
 */
import $RefParser from "@apidevtools/json-schema-ref-parser"
import { Ajv, type AnySchemaObject } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import formatsPlugin from "ajv-formats"
import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { Routes, SimulationNetwork } from "simnet"

const FIXTURES = [
  ["petstore-3.0", "https://petstore.example.com"],
  ["petstore-3.1", "https://petstore.example.com"],
  ["stapi-3.0", "https://stapi.example.com"]
] as const

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

type Json = Record<string, any>

const load = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../fixtures/openapi/${name}.json`, import.meta.url), "utf8"))

const escapePointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1")

/** A validator of schemas by their pointer in the (dereferenced) document, in the document's own dialect. */
const documentValidator = (document: Json) => {
  const ajv = document.openapi.startsWith("3.0")
    ? new Ajv({ strict: false, allErrors: true, validateSchema: false })
    : new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
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

/** A minimal valid value for a (dereferenced) schema: its example, first enum member, or the least the type needs. */
const sample = (schema: Json | undefined, depth = 0): unknown => {
  if (schema === undefined || depth > 8) return undefined
  if (schema.example !== undefined) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if (schema.const !== undefined) return schema.const
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "integer":
    case "number":
      return schema.minimum ?? 1
    case "boolean":
      return true
    case "string":
      return schema.format === "date" ? "2024-01-02" : schema.format === "date-time" ? "2024-01-02T03:04:05Z" : "abc"
    case "array":
      return schema.maxItems === 0 ? [] : [sample(schema.items, depth + 1)]
    case "object": {
      const out: Json = {}
      for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key], depth + 1)
      return out
    }
    default:
      return undefined
  }
}

/** A valid request for an operation: path parameters filled, required query, headers and body given. */
const requestFor = (base: string, path: string, method: string, item: Json, operation: Json): [string, RequestInit] => {
  const parameters: Array<Json> = [...(operation.parameters ?? []), ...(item.parameters ?? [])]
  let url = path
  const query = new URLSearchParams()
  const headers: Record<string, string> = { accept: "application/json" }
  for (const parameter of parameters) {
    const value = sample(parameter.schema)
    const text = Array.isArray(value) ? value.join(",") : String(value)
    if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, encodeURIComponent(text))
    else if (parameter.required && parameter.in === "query") query.set(parameter.name, text)
    else if (parameter.required && parameter.in === "header") headers[parameter.name] = text
  }
  const init: RequestInit = { method: method.toUpperCase(), headers }
  const content = operation.requestBody?.content
  if (content !== undefined && operation.requestBody.required) {
    const [type, media] = Object.entries(content as Record<string, Json>)[0]
    headers["content-type"] = type
    const value = sample(media.schema)
    init.body =
      type === "application/x-www-form-urlencoded"
        ? new URLSearchParams(Object.entries(value as Json).map(([k, v]) => [k, String(v)])).toString()
        : JSON.stringify(value)
  }
  return [`${base}${url}${query.size > 0 ? `?${query}` : ""}`, init]
}

const operationsOf = (document: Json) =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({
      path,
      method,
      item,
      operation: item[method] as Json
    }))
  )

/** The document's base path under a host: the path of `servers[0].url`. */
const basePath = (document: Json) => new URL(document.servers[0].url).pathname.replace(/\/$/, "")

describe.each(FIXTURES)("Routes.openapi on %s", (name, origin) => {
  const raw = load(name)

  it("every operation answers a documented status, and every answer validates against the document", async () => {
    const document = (await $RefParser.dereference(structuredClone(raw), {
      resolve: { external: false },
      dereference: { circular: "ignore" }
    })) as Json
    const validate = documentValidator(document)
    const routes = Routes.openapi(raw, { baseUrl: origin })
    const network = await SimulationNetwork.start({ seed: 3, routes })
    const base = `${origin}${basePath(raw)}`
    const problems: Array<string> = []
    let validated = 0
    for (const { item, method, operation, path } of operationsOf(document)) {
      for (let round = 0; round < 2; round++) {
        const [url, init] = requestFor(base, path, method, item, operation)
        const response = await network.fetch(url, init)
        const label = `${method.toUpperCase()} ${path} → ${response.status}`
        const code = [String(response.status), `${String(response.status)[0]}XX`, "default"].find(
          (c) => operation.responses[c] !== undefined
        )
        if (code === undefined) {
          problems.push(`${label}: status not documented (${await response.text()})`)
          continue
        }
        const declared = operation.responses[code]
        const pointer = `/paths/${escapePointer(path)}/${method}/responses/${escapePointer(code)}`
        const type = response.headers.get("content-type")
        const text = await response.text()
        if (declared.content === undefined) {
          if (text !== "") problems.push(`${label}: a body where none is declared`)
        } else if (type !== null && declared.content[type]?.schema !== undefined && method !== "head") {
          expect(type).toMatch(/json/)
          problems.push(
            ...validate(`${pointer}/content/${escapePointer(type)}/schema`, JSON.parse(text)).map(
              (p) => `${label}: ${p}`
            )
          )
          validated++
        } else if (text !== "") {
          problems.push(`${label}: content type ${type} is not declared`)
        }
        for (const [header, spec] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
          const value = response.headers.get(header)
          if (value === null) {
            if (spec.required) problems.push(`${label}: header ${header} missing`)
            continue
          }
          const typed = spec.schema?.type === "integer" || spec.schema?.type === "number" ? Number(value) : value
          problems.push(
            ...validate(`${pointer}/headers/${escapePointer(header)}/schema`, typed).map((p) => `${label}: ${p}`)
          )
        }
      }
    }
    expect(problems).toEqual([])
    expect(validated).toBeGreaterThan(operationsOf(document).length / 2)
    expect(network.unused().map((r) => r.id)).toEqual([])
    expect(network.log().filter((r) => r.violations !== undefined)).toEqual([])
  }, 120_000)

  it("the same seed serves byte-identical bodies, another seed other bodies", async () => {
    const bodies = async (seed: number) => {
      const network = await SimulationNetwork.start({
        seed,
        routes: Routes.openapi(raw, { baseUrl: origin, examples: false })
      })
      const out: Array<string> = []
      for (const { item, method, operation, path } of operationsOf(raw)) {
        if (method !== "get" || JSON.stringify(operation).includes('$ref":"#/components/parameters')) continue
        const [url, init] = requestFor(`${origin}${basePath(raw)}`, path, method, item, operation)
        out.push(await (await network.fetch(url, init)).text())
      }
      return out
    }
    const [first, again, other] = [await bodies(11), await bodies(11), await bodies(12)]
    expect(first.length).toBeGreaterThan(2)
    expect(again).toEqual(first)
    expect(other).not.toEqual(first)
  }, 120_000)
})
