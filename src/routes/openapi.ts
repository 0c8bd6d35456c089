/**
 * The `openapi` family: a Prism-like mock of an OpenAPI 3.0 or 3.1 document, every operation a
 * seeded route.
 */
import { Result } from "effect"
import type { Route } from "../registry/route.ts"
import { isJsonObject, NULL_BODY_STATUSES } from "../registry/util.ts"
import * as R from "../Route.ts"
import { type Dialect, fromJsonSchema } from "../schemas/jsonSchemaDocument.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { requireBase, trimBase } from "./families/shared.ts"

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const escapePointer = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1")

/**
 * The response an operation answers: the lowest `2xx` code, else `2XX`, else `default` (as 200);
 * an operation that documents no success answers its lowest other declared status (`3XX` counts
 * as 300), and one that documents no response at all answers 200.
 */
const chosenResponse = (responses: Record<string, unknown>): readonly [string | undefined, number] => {
  const codes = Object.keys(responses)
  const exact = codes.filter((c) => /^2\d\d$/.test(c)).sort()
  if (exact.length > 0) return [exact[0], Number(exact[0])]
  if (codes.includes("2XX")) return ["2XX", 200]
  if (codes.includes("default")) return ["default", 200]
  const others = codes
    .map((code) => [code, /^[2-5]\d\d$/.test(code) ? Number(code) : /^[3-5]XX$/.test(code) ? Number(code[0]) * 100 : NaN] as const)
    .filter(([, status]) => !Number.isNaN(status))
    .sort(([, a], [, b]) => a - b)
  return others.length > 0 ? others[0] : [undefined, 200]
}

/** Literal path text as path-to-regexp pattern text: its syntax characters escaped. */
const literalPath = (text: string): string => text.replace(/[{}()[\]+?!:*\\]/g, "\\$&")

/**
 * An OpenAPI path template as a path-to-regexp pattern: `{petId}` becomes `:petId`, and literal
 * text is escaped, so `/models/{model}:generate` has one parameter and a literal `:generate`.
 * Parameter names become ASCII identifiers (`{pet-id}` → `:pet_id`, numbered when two collide),
 * since the matcher percent-encodes anything else in a pattern.
 */
const pathPattern = (template: string): string => {
  const seen = new Set<string>()
  return template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!(part.startsWith("{") && part.endsWith("}"))) return literalPath(part)
      const base = part.slice(1, -1).replace(/[^A-Za-z0-9_$]/g, "_").replace(/^(?=\d)/, "_")
      let name = base
      for (let n = 2; seen.has(name); n++) name = `${base}_${n}`
      seen.add(name)
      return `:${name}`
    })
    .join("")
}

/** `servers[0].url` with its `{variables}` replaced by their defaults, if the document has one. */
const serverUrl = (document: Record<string, unknown>): string | undefined => {
  const server = Array.isArray(document.servers) ? document.servers[0] : undefined
  if (!isJsonObject(server) || typeof server.url !== "string") return undefined
  const variables = isJsonObject(server.variables) ? server.variables : {}
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name]
    return isJsonObject(variable) && typeof variable.default === "string" ? variable.default : whole
  })
}

/**
 * Where the operations live. Without `baseUrl`: the absolute `servers[0].url`. With a `baseUrl`
 * that is an origin only (`https://mock.example.com`): that origin plus the path of
 * `servers[0].url` (absolute or relative, `https://api.example.com/v2` or `/v2`). With a `baseUrl`
 * that has a path (`https://mock.example.com/v2`): `baseUrl` itself.
 */
const openapiBase = (document: Record<string, unknown>, baseUrl: string | undefined): Result.Result<string, InvalidRouteSpec> => {
  const server = serverUrl(document)
  if (baseUrl === undefined) {
    if (server !== undefined && /^https?:\/\//i.test(server)) return requireBase("openapi", server)
    return Result.fail(new InvalidRouteSpec({
      path: "openapi#/servers/0/url",
      message: `needs a baseUrl, or an absolute servers[0].url (got ${server === undefined ? "none" : `"${server}"`})`
    }))
  }
  return Result.flatMap(requireBase("openapi", baseUrl), (base) => {
    if (new URL(base).pathname !== "/" || server === undefined) return Result.succeed(base)
    try {
      return Result.succeed(trimBase(`${base}${literalPath(new URL(server, "http://server.invalid/").pathname)}`))
    } catch {
      return Result.fail(new InvalidRouteSpec({ path: "openapi#/servers/0/url", message: `not a URL: "${server}"` }))
    }
  })
}

/**
 * A Prism-like mock of an OpenAPI 3.0 or 3.1 document: every operation becomes a route at
 * `{base}{path}` (`{param}` becomes `:param`) answering the JSON schema of its success response
 * (the lowest `2xx`, else `2XX`, else `default`; without any, the lowest declared status), seeded
 * like every generated route. An operation whose chosen response has no JSON schema, or whose
 * status has no body (204, 205, 304), answers that status with an empty body. The base is
 * `baseUrl` plus the path of `servers[0].url` when `baseUrl` is an origin only, `baseUrl` when it
 * has a path, and `servers[0].url` without a `baseUrl`. Route ids are the `operationId`s where
 * present. Schemas are converted with Effect's `JsonSchema.fromSchemaOpenApi3_x` and
 * `components.schemas` are resolved. A schema that does not convert throws an `InvalidRouteSpec`
 * naming its JSON pointer in the document. A document that cannot be served is one refused route
 * whose registration fails with that error (the family never throws).
 */
export const openapi = (document: unknown, options: { readonly baseUrl?: string | undefined } = {}): Array<Route> =>
  Result.match(openapiRoutes(document, options.baseUrl), {
    onFailure: (error) => [R.refused("openapi", error, "openapi")],
    onSuccess: (routes) => routes
  })

const openapiRoutes = (document: unknown, baseUrl: string | undefined): Result.Result<Array<Route>, InvalidRouteSpec> => {
  if (!isJsonObject(document) || typeof document.openapi !== "string" || !isJsonObject(document.paths)) {
    return Result.fail(new InvalidRouteSpec({ path: "openapi", message: "not an OpenAPI 3.x document (needs openapi and paths)" }))
  }
  const dialect: Dialect = document.openapi.startsWith("3.0") ? "openapi-3.0" : "openapi-3.1"
  const components = isJsonObject(document.components) && isJsonObject(document.components.schemas)
    ? document.components.schemas
    : {}
  const based = openapiBase(document, baseUrl)
  if (Result.isFailure(based)) return Result.fail(based.failure)
  const base = based.success
  const routes: Array<Route> = []
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isJsonObject(item)) continue
    const pattern = pathPattern(path)
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (!isJsonObject(operation)) continue
      const responses = isJsonObject(operation.responses) ? operation.responses : {}
      const [code, status] = chosenResponse(responses)
      const match = `${method.toUpperCase()} ${base}${pattern}`
      const id = typeof operation.operationId === "string" ? operation.operationId : undefined
      const response = code === undefined ? undefined : responses[code]
      const content = isJsonObject(response) && isJsonObject(response.content) ? response.content : {}
      const mediaType = Object.keys(content).find((type) => type === "application/json" || type.endsWith("+json"))
      const media = mediaType === undefined ? undefined : content[mediaType]
      if (code === undefined || mediaType === undefined || !isJsonObject(media) || media.schema === undefined || NULL_BODY_STATUSES.has(status)) {
        routes.push(R.status(match, status, { id, source: "openapi" }))
        continue
      }
      const converted = fromJsonSchema(media.schema, {
        dialect,
        definitions: components,
        path: "openapi",
        pointerPrefix: `/paths/${escapePointer(path)}/${method}/responses/${escapePointer(code)}/content/${
          escapePointer(mediaType)
        }/schema`,
        definitionsPointer: "/components/schemas"
      })
      if (Result.isFailure(converted)) return Result.fail(converted.failure)
      routes.push(R.json(match, converted.success, { id, status, source: "openapi" }))
    }
  }
  return Result.succeed(routes)
}
