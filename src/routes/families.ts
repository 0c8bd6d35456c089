/**
 * Route families: the routes a real app calls at startup, answering with production-shaped,
 * seeded data. Each family returns plain routes, so a test can override any one of them by
 * registering its own route for the same request later (the latest registration wins), and each
 * is usable from code (`Routes.models()`) and from a fixture (`{ "family": "models" }`).
 *
 * Also here: `openapi`, which turns every operation of an OpenAPI 3.0/3.1 document into a route
 * answering its success response schema, and the `jsonSchema` RouteSpec kind decoder.
 */
import { Effect, Result, type Schema } from "effect"
import type { Route } from "../registry/route.ts"
import * as R from "../Route.ts"
import type { FamilyFactory, KindDecoder } from "../RouteSpec.ts"
import * as Account from "../schemas/account.ts"
import * as Installation from "../schemas/installation.ts"
import { type Dialect, fromJsonSchema } from "../schemas/jsonSchemaDocument.ts"
import * as Models from "../schemas/models.ts"
import { lookupSchema, type NamedSchema } from "../schemas/registry.ts"
import * as Share from "../schemas/share.ts"
import * as Skills from "../schemas/skills.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import type { JsonSchemaOptions } from "./jsonSchema/jsonSchema.ts"

const named = (match: string, entry: NamedSchema, source: string, options: JsonSchemaOptions = {}): Route =>
  R.json(match, entry.schema, { narrow: entry.narrow, ...options, source })

const trimBase = (baseUrl: string): string => baseUrl.replace(/\/+$/, "")

const requireBase = (family: string, baseUrl: string | undefined): string => {
  if (baseUrl === undefined || baseUrl === "") {
    throw new InvalidRouteSpec({ path: "baseUrl", message: `the ${family} family needs a baseUrl` })
  }
  try {
    return trimBase(new URL(baseUrl).href)
  } catch {
    throw new InvalidRouteSpec({ path: "baseUrl", message: `the ${family} family's baseUrl is not a URL: ${baseUrl}` })
  }
}

const schemaOf = (schema: Schema.Top, narrow?: Schema.Top): NamedSchema => ({
  schema: schema as Schema.Codec<unknown, unknown>,
  narrow
})

/**
 * The models.dev catalog: `GET {baseUrl}/api.json` answers a record of providers and their
 * models (`src/schemas/models.ts`), generated from a narrowed schema with real provider and model
 * ids, and proven to decode under the full catalog schema.
 *
 * Replaces, at app startup: the fetch of `https://models.dev/api.json` (or a vendored snapshot).
 */
export const models = (baseUrl = "https://models.dev"): Array<Route> => [
  named(`GET ${trimBase(baseUrl)}/api.json`, schemaOf(Models.Catalog, Models.CatalogGenerated), "models")
]

/**
 * An account service at `baseUrl`: device authorization (`POST /auth/device/code`, then
 * `POST /auth/device/token`, which answers a token at once), token refresh (`POST /auth/token`),
 * `GET /api/user`, `GET /api/orgs` and `GET /api/config`. Token lifetimes are seconds on the
 * wire, `Duration`s in the app. To test the pending branch of the device flow, register
 * `Route.json("POST {baseUrl}/auth/device/token", DeviceTokenResponse, { narrow: DeviceTokenError, status: 400 })`
 * with `times: 1` after the family.
 */
export const account = (baseUrl: string): Array<Route> => {
  const base = requireBase("account", baseUrl)
  return [
    named(`POST ${base}/auth/device/code`, schemaOf(Account.DeviceCode, Account.DeviceCodeGenerated(base)), "account"),
    named(`POST ${base}/auth/device/token`, schemaOf(Account.DeviceTokenResponse, Account.TokenGenerated), "account"),
    named(`POST ${base}/auth/token`, schemaOf(Account.TokenSuccess, Account.TokenGenerated), "account"),
    named(`GET ${base}/api/user`, schemaOf(Account.User), "account"),
    named(`GET ${base}/api/orgs`, schemaOf(Account.Orgs, Account.OrgsGenerated), "account"),
    named(`GET ${base}/api/config`, schemaOf(Account.RemoteConfig), "account")
  ]
}

/**
 * The session-sharing service: `POST {baseUrl}/api/share` creates a share (`{id, url, secret}`),
 * `POST {baseUrl}/api/share/:id/sync` and `DELETE {baseUrl}/api/share/:id` answer 204.
 */
export const share = (baseUrl = "https://opncd.ai"): Array<Route> => {
  const base = trimBase(baseUrl)
  return [
    named(`POST ${base}/api/share`, schemaOf(Share.ShareCreated, Share.ShareCreatedGenerated(base)), "share"),
    R.status(`POST ${base}/api/share/:id/sync`, 204, { source: "share" }),
    R.status(`DELETE ${base}/api/share/:id`, 204, { source: "share" })
  ]
}

/**
 * The Markdown body of a simulated skill file: a front-matter header naming the skill, then a
 * short body. A pure function of the skill and file names.
 */
export const skillFileText = (skill: string, file: string): string =>
  file === "SKILL.md"
    ? `---\nname: ${skill}\ndescription: Simulated skill "${skill}" served by simnet.\n---\n\n# ${skill}\n\nFollow the steps in reference.md.\n`
    : file.endsWith(".sh")
    ? `#!/bin/sh\necho "${skill}: ${file}"\n`
    : `# ${skill}: ${file}\n\nReference material for the ${skill} skill.\n`

/**
 * Whether a generated skill index can list `file` under `skill`: the names and files the narrowed
 * generator (`Skills.SkillIndexGenerated`) picks from.
 */
const isListableSkillFile = (skill: string, file: string): boolean =>
  (Skills.SKILL_NAMES as ReadonlyArray<string>).includes(skill) && Skills.SKILL_FILES.includes(file)

/**
 * A skill registry at `baseUrl`: `GET {baseUrl}/index.json` answers `{skills: [{name, files}]}`
 * and every file an index can list is served as text at `{baseUrl}/{name}/{file}`. Any other
 * skill or file under the registry answers 404 with a JSON error body, as a real registry does.
 */
export const skills = (baseUrl: string): Array<Route> => {
  const base = requireBase("skills", baseUrl)
  const file = (skill: string, path: string): Response =>
    isListableSkillFile(skill, path)
      ? new Response(skillFileText(skill, path), {
        headers: { "content-type": path.endsWith(".md") ? "text/markdown; charset=utf-8" : "text/plain; charset=utf-8" }
      })
      : Response.json({ error: "not_found", message: `no file "${path}" in skill "${skill}"` }, { status: 404 })
  return [
    named(`GET ${base}/index.json`, schemaOf(Skills.SkillIndex, Skills.SkillIndexGenerated), "skills"),
    R.handler(`GET ${base}/:skill/:file`, (request) => file(request.params.skill, request.params.file), { source: "skills" }),
    R.handler(`GET ${base}/:skill/scripts/:file`, (request) => file(request.params.skill, `scripts/${request.params.file}`), {
      source: "skills"
    })
  ]
}

/**
 * What a self-update check asks for: the latest GitHub release of any repository
 * (`GET https://api.github.com/repos/:owner/:repo/releases/latest`), npm registry metadata
 * (`GET https://registry.npmjs.org/:pkg` with `dist-tags`, and `/:pkg/latest`), and Homebrew
 * formula metadata (`GET https://formulae.brew.sh/api/formula/:name.json`).
 */
export const installation = (): Array<Route> => [
  named(
    "GET https://api.github.com/repos/:owner/:repo/releases/latest",
    schemaOf(Installation.GitHubRelease, Installation.GitHubReleaseGenerated),
    "installation"
  ),
  named(
    "GET https://registry.npmjs.org/:pkg",
    schemaOf(Installation.NpmPackument, Installation.NpmPackumentGenerated),
    "installation"
  ),
  named("GET https://registry.npmjs.org/:pkg/latest", schemaOf(Installation.NpmVersion), "installation"),
  named("GET https://formulae.brew.sh/api/formula/:name.json", schemaOf(Installation.BrewFormula), "installation")
]

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

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

/** Statuses whose responses have no body (a `Response` with a body and one of these throws). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304])

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
  if (!isObject(server) || typeof server.url !== "string") return undefined
  const variables = isObject(server.variables) ? server.variables : {}
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name]
    return isObject(variable) && typeof variable.default === "string" ? variable.default : whole
  })
}

/**
 * Where the operations live. Without `baseUrl`: the absolute `servers[0].url`. With a `baseUrl`
 * that is an origin only (`https://mock.example.com`): that origin plus the path of
 * `servers[0].url` (absolute or relative, `https://api.example.com/v2` or `/v2`). With a `baseUrl`
 * that has a path (`https://mock.example.com/v2`): `baseUrl` itself.
 */
const openapiBase = (document: Record<string, unknown>, baseUrl: string | undefined): string => {
  const server = serverUrl(document)
  if (baseUrl === undefined) {
    if (server !== undefined && /^https?:\/\//i.test(server)) return requireBase("openapi", server)
    throw new InvalidRouteSpec({
      path: "openapi#/servers/0/url",
      message: `needs a baseUrl, or an absolute servers[0].url (got ${server === undefined ? "none" : `"${server}"`})`
    })
  }
  const base = requireBase("openapi", baseUrl)
  if (new URL(base).pathname !== "/" || server === undefined) return base
  let prefix: string
  try {
    prefix = new URL(server, "http://server.invalid/").pathname
  } catch {
    throw new InvalidRouteSpec({ path: "openapi#/servers/0/url", message: `not a URL: "${server}"` })
  }
  return trimBase(`${base}${literalPath(prefix)}`)
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
 * naming its JSON pointer in the document.
 */
export const openapi = (document: unknown, options: { readonly baseUrl?: string | undefined } = {}): Array<Route> => {
  if (!isObject(document) || typeof document.openapi !== "string" || !isObject(document.paths)) {
    throw new InvalidRouteSpec({ path: "openapi", message: "not an OpenAPI 3.x document (needs openapi and paths)" })
  }
  const dialect: Dialect = document.openapi.startsWith("3.0") ? "openapi-3.0" : "openapi-3.1"
  const components = isObject(document.components) && isObject(document.components.schemas)
    ? document.components.schemas
    : {}
  const base = openapiBase(document, options.baseUrl)
  const routes: Array<Route> = []
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue
    const pattern = pathPattern(path)
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (!isObject(operation)) continue
      const responses = isObject(operation.responses) ? operation.responses : {}
      const [code, status] = chosenResponse(responses)
      const match = `${method.toUpperCase()} ${base}${pattern}`
      const id = typeof operation.operationId === "string" ? operation.operationId : undefined
      const response = code === undefined ? undefined : responses[code]
      const content = isObject(response) && isObject(response.content) ? response.content : {}
      const mediaType = Object.keys(content).find((type) => type === "application/json" || type.endsWith("+json"))
      const media = mediaType === undefined ? undefined : content[mediaType]
      if (code === undefined || mediaType === undefined || !isObject(media) || media.schema === undefined || NULL_BODY_STATUSES.has(status)) {
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
      if (Result.isFailure(converted)) throw converted.failure
      routes.push(R.json(match, converted.success, { id, status, source: "openapi" }))
    }
  }
  return routes
}

/**
 * The families a fixture can name (`{ "family": NAME, "baseUrl" }`), for `DecodeContext.families`.
 * A family that needs a base URL throws an `InvalidRouteSpec` without one.
 */
export const FAMILIES: ReadonlyMap<string, FamilyFactory> = new Map<string, FamilyFactory>([
  ["models", (spec) => models(spec.baseUrl)],
  ["account", (spec) => account(spec.baseUrl ?? "")],
  ["share", (spec) => share(spec.baseUrl)],
  ["skills", (spec) => skills(spec.baseUrl ?? "")],
  ["installation", () => installation()]
])

/**
 * The RouteSpec decoder of `{ "kind": "jsonSchema", "schema": { "ref" } | { "jsonSchema" } }`, for
 * `DecodeContext.kinds`. An unknown `ref` lists the known names; a JSON Schema that does not
 * convert names its JSON pointer (`[0].respond.schema.jsonSchema#/properties/a`).
 */
export const jsonSchemaKind: KindDecoder = (match, respond, options, path) =>
  Effect.suspend(() => {
    if (respond.kind !== "jsonSchema") {
      return Effect.fail(new InvalidRouteSpec({ path: `${path}.respond.kind`, message: "not a jsonSchema route" }))
    }
    const at = (field: string) => (path === "" ? `respond.schema.${field}` : `${path}.respond.schema.${field}`)
    const resolved: Result.Result<NamedSchema, InvalidRouteSpec> = "ref" in respond.schema
      ? lookupSchema(respond.schema.ref, at("ref"))
      : Result.map(fromJsonSchema(respond.schema.jsonSchema, { path: at("jsonSchema") }), (schema) => ({ schema }))
    if (Result.isFailure(resolved)) return Effect.fail(resolved.failure)
    return Effect.succeed(
      R.json(match, resolved.success.schema, {
        ...options,
        narrow: resolved.success.narrow,
        status: respond.status,
        headers: respond.headers,
        seedOffset: respond.seedOffset
      })
    )
  })
