/**
 * The `openapi` family: a mock of an OpenAPI 3.0 or 3.1 document as faithful as Prism, every
 * operation a seeded route (kind `openapi`). The document is dereferenced once for all its routes
 * (`routes/openapi/document.ts`); each operation is compiled when its route is registered
 * (`routes/openapi/operation.ts`): request validation, `Prefer`, content negotiation, examples,
 * generated bodies and headers.
 */
import { fromResponse, refused as refusedAnswer } from "../registry/answer.ts"
import { Effect, Result } from "effect"
import type { Route } from "../registry/route.ts"
import { isJsonObject } from "../registry/util.ts"
import type { Dialect } from "../routes/jsonSchema/jsonSchemaDocument.ts"
import { InvalidRouteSpec, type RegenerateError, RouteFailed } from "../SimnetError.ts"
import { requireBase, trimBase } from "./shared.ts"
import { make, refused } from "../routes/make.ts"
import type * as Document from "../routes/openapi/document.ts"
import type * as Operation from "../routes/openapi/operation.ts"
import type { CompiledOperation, OperationOptions } from "../routes/openapi/operation.ts"

export type { OperationOptions } from "../routes/openapi/operation.ts"

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

/**
 * Literal path text as path-to-regexp pattern text: `#` and `?`, which would end a URL's path,
 * percent-encoded (`/cookies#formExploded` is served at `/cookies%23formExploded`, where a client
 * that escapes the path sends it), and the pattern syntax characters escaped.
 */
const literalPath = (text: string): string =>
  text.replace(/[#?]/g, encodeURIComponent).replace(/[{}()[\]+?!:*\\]/g, "\\$&")

/**
 * An OpenAPI path template as a path-to-regexp pattern: `{petId}` becomes `:petId`, and literal
 * text is escaped, so `/models/{model}:generate` has one parameter and a literal `:generate`.
 * Parameter names become ASCII identifiers (`{pet-id}` → `:pet_id`, numbered when two collide),
 * since the matcher percent-encodes anything else in a pattern.
 */
const pathPattern = (template: string): { readonly pattern: string; readonly names: ReadonlyMap<string, string> } => {
  const seen = new Set<string>()
  const names = new Map<string, string>()
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!(part.startsWith("{") && part.endsWith("}"))) return literalPath(part)
      const base = part
        .slice(1, -1)
        .replace(/[^A-Za-z0-9_$]/g, "_")
        .replace(/^(?=\d)/, "_")
      let name = base
      for (let n = 2; seen.has(name); n++) name = `${base}_${n}`
      seen.add(name)
      names.set(part.slice(1, -1), name)
      return `:${name}`
    })
    .join("")
  return { pattern, names }
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
const openapiBase = (
  document: Record<string, unknown>,
  baseUrl: string | undefined
): Result.Result<string, InvalidRouteSpec> => {
  const server = serverUrl(document)
  if (baseUrl === undefined) {
    if (server !== undefined && /^https?:\/\//i.test(server)) return requireBase("openapi", server)
    return Result.fail(
      new InvalidRouteSpec({
        path: "openapi#/servers/0/url",
        message: `needs a baseUrl, or an absolute servers[0].url (got ${server === undefined ? "none" : `"${server}"`})`
      })
    )
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
 * Options of `Routes.openapi`: `baseUrl` (where the operations live; see below), and the
 * per-route options of every operation: `examples` (default true: serve the document's
 * `example`/`examples`), `validate` (default true: 422 for a request that breaks its operation),
 * `fields` (realistic-value overrides, as `Route.json` takes them).
 */
export interface OpenApiOptions extends OperationOptions {
  readonly baseUrl?: string | undefined
  /**
   * What the ids of operations with an `operationId` start with. Default: where the operations
   * live, host and base path, then a colon (`petstore.example.com/v3:findPets`), so two documents
   * that share an `operationId` (`deletePet`) can be served together. `""` gives bare ids. An
   * operation without `operationId` is named by its method and URL, distinct already. The prefix
   * changes no generated byte: seeds derive from the bare `operationId`.
   */
  readonly idPrefix?: string | undefined
}

/**
 * A local path item reference (`#/components/pathItems/Pets`), followed far enough to list the
 * operations it holds; the dereferencer resolves it (and reports it if it cannot) at registration.
 */
const pathItemOf = (document: Record<string, unknown>, item: unknown): Record<string, unknown> | undefined => {
  if (!isJsonObject(item)) return undefined
  if (typeof item.$ref !== "string" || !item.$ref.startsWith("#/")) return item
  let node: unknown = document
  for (const token of item.$ref.slice(2).split("/")) {
    node = isJsonObject(node) ? node[token.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined
  }
  return isJsonObject(node) ? node : item
}

/**
 * Path items ordered so that the more literal path of two that both match a request is registered
 * later, and so wins (`/pet/findByStatus` over `/pet/{petId}`, as OpenAPI requires): most
 * template parameters first, then the path whose first literal segment comes later.
 */
const byGenerality = <A>(entries: ReadonlyArray<readonly [string, A]>): Array<readonly [string, A]> => {
  const shape = (path: string) =>
    path
      .split("/")
      .map((segment) => (segment.includes("{") ? "0" : "1"))
      .join("")
  const params = (path: string) => (path.match(/\{/g) ?? []).length
  return [...entries].sort(
    ([a], [b]) => params(b) - params(a) || (shape(a) < shape(b) ? -1 : shape(a) > shape(b) ? 1 : 0)
  )
}

/**
 * A Prism-like mock of an OpenAPI 3.0 or 3.1 document: every operation becomes a route (kind
 * `openapi`) at `{base}{path}` (`{param}` becomes `:param`), whose id is its `operationId` where
 * present. Every `$ref` is resolved when the routes are registered (cycles included); one that
 * cannot be is an `InvalidRouteSpec` naming its JSON pointer, as is a schema that does not
 * convert.
 *
 * A request is validated against its operation (path, query, header and cookie parameters, the
 * body): one that breaks it is answered with the operation's own 422 or 400 response, else
 * Prism's 422 problem+json listing the violations; the log record carries them too. Otherwise the
 * response is the first success (the lowest `2xx`, else `2XX`, else `default`; without any, the
 * lowest declared status), or the one `Prefer: code=404` names; its media type is negotiated by
 * `Accept` among those declared (JSON first); its body is the `example` or the first of the
 * `examples` (`Prefer: example=name` picks one; `Prefer: dynamic=true` or `examples: false`
 * generates instead), else generated from the schema with the request's seed; its declared
 * headers are generated likewise.
 *
 * The base is `baseUrl` plus the path of `servers[0].url` when `baseUrl` is an origin only,
 * `baseUrl` when it has a path, and `servers[0].url` without a `baseUrl`. A document that cannot
 * be served is one refused route whose registration fails with the error (the family never throws).
 */
export const openapi = (document: unknown, options: OpenApiOptions = {}): Array<Route> =>
  Result.match(openapiRoutes(document, options), {
    onFailure: (error) => [refused("openapi", error, "openapi")],
    onSuccess: (routes) => routes
  })

/**
 * The OpenAPI engine (dereferencing, operations, validation), loaded when a document's routes
 * are first prepared rather than with `import("simnet")`.
 */
let loading:
  | Promise<{
      readonly dereference: typeof Document.dereference
      readonly compileOperation: typeof Operation.compileOperation
      readonly notServed: typeof Operation.notServed
    }>
  | undefined
const engine = Effect.promise(
  () =>
    (loading ??= Promise.all([import("../routes/openapi/document.ts"), import("../routes/openapi/operation.ts")]).then(
      ([document, operation]) => ({
        dereference: document.dereference,
        compileOperation: operation.compileOperation,
        notServed: operation.notServed
      })
    ))
)

const openapiRoutes = (document: unknown, options: OpenApiOptions): Result.Result<Array<Route>, InvalidRouteSpec> => {
  if (!isJsonObject(document) || typeof document.openapi !== "string") {
    return Result.fail(
      new InvalidRouteSpec({ path: "openapi", message: "not an OpenAPI 3.x document (needs openapi)" })
    )
  }
  if (!/^3\.[01]\./.test(document.openapi)) {
    return Result.fail(
      new InvalidRouteSpec({
        path: "openapi#/openapi",
        message: `OpenAPI ${document.openapi} is not supported (3.0 and 3.1 are)`
      })
    )
  }
  // 3.1 makes `paths` optional: a document of only `webhooks` (requests the API sends, not ones it
  // answers) or `components` serves no operation. 3.0 requires it.
  const paths = isJsonObject(document.paths)
    ? document.paths
    : document.openapi.startsWith("3.1") && document.paths === undefined
      ? {}
      : undefined
  if (paths === undefined) {
    return Result.fail(
      new InvalidRouteSpec({ path: "openapi#/paths", message: "an OpenAPI 3.0 document needs paths (an object)" })
    )
  }
  const dialect: Dialect = document.openapi.startsWith("3.0") ? "openapi-3.0" : "openapi-3.1"
  const based = openapiBase(document, options.baseUrl)
  if (Result.isFailure(based)) return Result.fail(based.failure)
  const base = based.success
  const prefix = options.idPrefix ?? `${base.replace(/^https?:\/\//i, "")}:`
  const dereferenced = Effect.runSync(
    Effect.cached(Effect.flatMap(engine, ({ dereference }) => dereference(document, dialect)))
  )
  const routes: Array<Route> = []
  for (const [path, raw] of byGenerality(Object.entries(paths))) {
    const item = pathItemOf(document, raw)
    if (item === undefined) continue
    const { names, pattern } = pathPattern(path)
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (!isJsonObject(operation)) continue
      const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined
      const id = operationId === undefined ? undefined : `${prefix}${operationId}`
      const label = id ?? `${method.toUpperCase()} ${path}`
      let compiled: CompiledOperation | undefined
      // Why this operation is not served, when its schemas cannot be (the document is served
      // all the same): shown in the route listing, `simnet serve`'s banner and the inspector.
      let refused: string | undefined
      let refusal: Response | undefined
      const notReady = (): RouteFailed =>
        new RouteFailed({
          route: label,
          reason: "misconfigured",
          message: `simnet: the openapi route ${label} was not registered`
        })
      const answerAtOnce = (
        request: Parameters<CompiledOperation["answer"]>[0],
        context: Parameters<CompiledOperation["answer"]>[1]
      ) =>
        refusal !== undefined
          ? Result.succeed(refusal.clone())
          : compiled === undefined
            ? Result.fail(notReady())
            : compiled.answer(request, context)
      const body = (seed: number): Result.Result<string, RegenerateError> =>
        compiled === undefined
          ? Result.fail(
              refused === undefined
                ? notReady()
                : new RouteFailed({ route: label, reason: "misconfigured", message: refused })
            )
          : compiled.body(seed)
      routes.push(
        make(
          "openapi",
          `${method.toUpperCase()} ${base}${pattern}`,
          {
            answer: (request, context) => {
              const answered = answerAtOnce(request, context)
              return Result.isFailure(answered) ? refusedAnswer(answered.failure) : fromResponse(answered.success)
            },
            prepare: Effect.flatMap(Effect.zip(dereferenced, engine), ([ready, { compileOperation, notServed }]) =>
              Effect.sync(() => {
                if (compiled !== undefined || refusal !== undefined) return
                const result = compileOperation(ready, { path, method, patternNames: names, label }, options)
                if (Result.isSuccess(result)) {
                  compiled = result.success
                  return
                }
                refused = `${result.failure.path}: ${result.failure.message}`
                refusal = notServed(label, refused)
              })
            ),
            seeded: true,
            regenerate: (seed) => Effect.suspend(() => Effect.fromResult(body(seed))),
            describe: { operation: `${method.toUpperCase()} ${path}` },
            describeLater: () => (refused === undefined ? undefined : { refused }),
            seedIdentity: operationId
          },
          { id, source: "openapi" }
        )
      )
    }
  }
  return Result.succeed(routes)
}
