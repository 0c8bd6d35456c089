/**
 * The engine of the `graphql` route kind, loaded with graphql-js when such a route is first
 * registered (`import("simnet")` loads neither). `compileGraphql` builds the schema from its SDL
 * and checks the route's resolvers, scalars and bounds against it; `answerGraphql` serves one
 * request as the GraphQL-over-HTTP specification says: `GET` (`query`, `operationName`,
 * `variables` in the URL; no mutations) and `POST` of `application/json`; the answer in
 * `application/graphql-response+json` when the client accepts it (a request error then is a
 * `400`), else `application/json` (a well-formed request is always `200`); `{ errors: [{ message,
 * locations, path }] }` as graphql-js writes them. An operation runs through graphql-js's
 * `execute` with the seeded resolvers of `generate.ts`, so introspection, fragments, variables
 * and abstract types behave as on any graphql-js server.
 */
import {
  buildSchema,
  type DocumentNode,
  execute,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  parse,
  validate
} from "graphql"
import { type Answer, later, whole, type Whole } from "../../registry/answer.ts"
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import { offsetSeed } from "../../registry/seed.ts"
import { errorMessage } from "../../registry/util.ts"
import { checkFieldHints, type FieldHints } from "../jsonSchema/fieldHints.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import {
  fieldResolver,
  type Generation,
  type GraphqlResolvers,
  type GraphqlScalarGenerators,
  type ListSize,
  overLimit,
  rootValue,
  typeResolver
} from "./generate.ts"
import { checkDocument, checkText, DEFAULT_LIMITS, type GraphqlLimits, MAX_LIMITS, nesting } from "./limits.ts"

/** The options of a `graphql` route (see `Route.graphql`). */
export interface GraphqlOptions {
  readonly schema: string
  readonly resolvers?: GraphqlResolvers | undefined
  readonly scalars?: GraphqlScalarGenerators | undefined
  readonly fields?: FieldHints | undefined
  readonly listSize?: { readonly min?: number | undefined; readonly max?: number | undefined } | undefined
  readonly limits?: GraphqlLimits | undefined
  readonly seedOffset?: number | undefined
}

/** A `graphql` route compiled: its schema and everything checked against it. */
export interface CompiledGraphql {
  readonly schema: GraphQLSchema
  readonly resolvers: GraphqlResolvers
  readonly scalars: GraphqlScalarGenerators
  readonly fields: FieldHints | undefined
  readonly dotted: boolean
  readonly listSize: ListSize
  readonly limits: Required<GraphqlLimits>
  readonly seedOffset: number | undefined
  /** The root fields, for the route's listing. */
  readonly operations: Readonly<Record<string, ReadonlyArray<string>>>
  /** Each leaf field's draw, made on its first value (see `generate.ts`). */
  readonly draws: Map<object | string, (seed: number) => unknown>
}

/** The longest SDL a route takes. */
export const MAX_SDL = 2_000_000
/** The deepest an SDL may nest its brackets (a type's fields, a list type, arguments): far past any schema's. */
const MAX_SDL_NESTING = 64
/** The most items a generated list may be given. */
export const MAX_LIST = 100

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

const where = (error: GraphQLError): string => {
  const at = error.locations?.[0]
  return at === undefined ? "" : ` (line ${at.line}, column ${at.column})`
}

const wholeNumber = (value: unknown, path: string, min: number, max: number): number | InvalidRouteSpec | undefined =>
  value === undefined
    ? undefined
    : typeof value === "number" && Number.isInteger(value) && value >= min && value <= max
      ? value
      : invalid(path, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value) ?? typeof value}`)

const checkLimits = (given: GraphqlLimits | undefined): Required<GraphqlLimits> | InvalidRouteSpec => {
  const out: Record<string, number> = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(given ?? {})) {
    if (!(key in DEFAULT_LIMITS))
      return invalid(`respond.limits.${key}`, `unknown bound; bounds: ${Object.keys(DEFAULT_LIMITS).join(", ")}`)
    const value = wholeNumber(
      (given as Record<string, unknown>)[key],
      `respond.limits.${key}`,
      1,
      MAX_LIMITS[key as keyof typeof MAX_LIMITS]
    )
    if (value instanceof InvalidRouteSpec) return value
    if (value !== undefined) out[key] = value
  }
  return out as Required<GraphqlLimits>
}

const checkResolvers = (schema: GraphQLSchema, resolvers: GraphqlResolvers): InvalidRouteSpec | undefined => {
  if (typeof resolvers !== "object" || resolvers === null)
    return invalid("respond.resolvers", "resolvers are { Type: { field: value or function } }")
  for (const [typeName, byField] of Object.entries(resolvers)) {
    const type = schema.getType(typeName)
    if (!isObjectType(type) && !isInterfaceType(type)) {
      const known = Object.values(schema.getTypeMap())
        .filter((t) => isObjectType(t) && !t.name.startsWith("__"))
        .map((t) => t.name)
      return invalid(
        `respond.resolvers.${typeName}`,
        `the schema has no object type ${typeName}; its object types: ${known.join(", ")}`
      )
    }
    if (typeof byField !== "object" || byField === null)
      return invalid(`respond.resolvers.${typeName}`, "a type's resolvers are { field: value or function }")
    const fields = type.getFields()
    for (const field of Object.keys(byField)) {
      if (!Object.hasOwn(fields, field))
        return invalid(
          `respond.resolvers.${typeName}.${field}`,
          `${typeName} has no field ${field}; its fields: ${Object.keys(fields).join(", ")}`
        )
    }
  }
  return undefined
}

const checkScalars = (schema: GraphQLSchema, scalars: GraphqlScalarGenerators): InvalidRouteSpec | undefined => {
  for (const [name, generator] of Object.entries(scalars)) {
    const type = schema.getType(name)
    if (!isScalarType(type) || isSpecifiedScalarType(type))
      return invalid(`respond.scalars.${name}`, `the schema has no custom scalar ${name}`)
    if (typeof generator !== "function")
      return invalid(`respond.scalars.${name}`, "a scalar's generator is a function of the seed")
  }
  return undefined
}

/**
 * Compiles a route's SDL and options, or says what is wrong, naming the place: an SDL that does
 * not parse or build (`respond.schema`, with line and column), a resolver of a type or field the
 * schema lacks (`respond.resolvers.User.emial`), a bad bound (`respond.limits.depth`).
 */
export const compileGraphql = (options: GraphqlOptions): CompiledGraphql | InvalidRouteSpec => {
  const sdl = options.schema
  if (typeof sdl !== "string") return invalid("respond.schema", "the schema is GraphQL SDL text")
  if (sdl.length > MAX_SDL) return invalid("respond.schema", `the schema is ${sdl.length} characters, over ${MAX_SDL}`)
  // graphql-js's parser descends once per level: a hostile nesting is refused before it runs.
  if (nesting(sdl, MAX_SDL_NESTING) > MAX_SDL_NESTING)
    return invalid("respond.schema", `the schema nests its brackets deeper than ${MAX_SDL_NESTING} levels`)
  let schema: GraphQLSchema
  try {
    schema = buildSchema(sdl)
  } catch (error) {
    return invalid(
      "respond.schema",
      error instanceof GraphQLError ? `${error.message}${where(error)}` : errorMessage(error)
    )
  }
  const query = schema.getQueryType()
  if (query === undefined || query === null) return invalid("respond.schema", "the schema has no Query type")
  const badResolver = checkResolvers(schema, options.resolvers ?? {})
  if (badResolver !== undefined) return badResolver
  const badScalar = checkScalars(schema, options.scalars ?? {})
  if (badScalar !== undefined) return badScalar
  const badField = checkFieldHints(options.fields)
  if (badField !== undefined) return invalid(`respond.fields.${badField[0]}`, badField[1])
  const limits = checkLimits(options.limits)
  if (limits instanceof InvalidRouteSpec) return limits
  const min = wholeNumber(options.listSize?.min, "respond.listSize.min", 0, MAX_LIST)
  if (min instanceof InvalidRouteSpec) return min
  const max = wholeNumber(options.listSize?.max, "respond.listSize.max", 0, MAX_LIST)
  if (max instanceof InvalidRouteSpec) return max
  const listSize = { min: min ?? Math.min(1, max ?? 1), max: max ?? Math.max(min ?? 0, 3) }
  if (listSize.min > listSize.max) return invalid("respond.listSize", `min ${listSize.min} is over max ${listSize.max}`)
  if (options.seedOffset !== undefined && !Number.isSafeInteger(options.seedOffset))
    return invalid("respond.seedOffset", "must be a whole number")
  const roots = {
    query: schema.getQueryType(),
    mutation: schema.getMutationType(),
    subscription: schema.getSubscriptionType()
  }
  const operations: Record<string, ReadonlyArray<string>> = {}
  for (const [name, type] of Object.entries(roots))
    if (type !== null && type !== undefined) operations[name] = Object.keys(type.getFields())
  return {
    schema,
    resolvers: options.resolvers ?? {},
    scalars: options.scalars ?? {},
    fields: options.fields,
    dotted: Object.keys(options.fields ?? {}).some((key) => key.includes(".")),
    listSize,
    limits,
    seedOffset: options.seedOffset,
    operations,
    draws: new Map()
  }
}

// ---- one request ----------------------------------------------------------------------------

const GRAPHQL_RESPONSE = "application/graphql-response+json"
const JSON_TYPE = "application/json"
type MediaType = typeof GRAPHQL_RESPONSE | typeof JSON_TYPE

/**
 * The media type to answer in, by the `Accept` header's preferences: the GraphQL response type
 * when the client names it at least as high as JSON, else JSON (no header, `*\/*` and
 * `application/*` read as JSON, as the specification asks for older clients); undefined when it
 * accepts neither (a `406`).
 */
const negotiate = (accept: string | null): MediaType | undefined => {
  if (accept === null || accept.trim() === "") return JSON_TYPE
  let graphql = 0
  let json = 0
  for (const range of accept.split(",")) {
    const [type, ...params] = range
      .trim()
      .toLowerCase()
      .split(";")
      .map((p) => p.trim())
    const q = params.find((p) => p.startsWith("q="))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    if (!Number.isFinite(weight)) continue
    if (type === GRAPHQL_RESPONSE) graphql = Math.max(graphql, weight)
    else if (type === JSON_TYPE || type === "*/*" || type === "application/*") json = Math.max(json, weight)
  }
  if (graphql > 0 && graphql >= json) return GRAPHQL_RESPONSE
  return json > 0 ? JSON_TYPE : undefined
}

const bodyOf = (
  status: number,
  media: MediaType,
  value: unknown,
  extra: Readonly<Record<string, string>> = {}
): Whole => whole(status, { "content-type": `${media}; charset=utf-8`, ...extra }, JSON.stringify(value))

/** A request that is not a GraphQL-over-HTTP request at all: `400` (or the status given) whatever the media type. */
const malformed = (media: MediaType, message: string, status = 400, extra?: Readonly<Record<string, string>>): Whole =>
  bodyOf(status, media, { errors: [{ message: `simnet: ${message}` }] }, extra)

/** A request error (no `data`): `400` in the GraphQL response type, `200` in JSON. */
const requestError = (media: MediaType, errors: ReadonlyArray<GraphQLError>): Whole =>
  bodyOf(media === GRAPHQL_RESPONSE ? 400 : 200, media, { errors })

interface Params {
  readonly query: string
  readonly operationName: string | undefined
  readonly variables: Readonly<Record<string, unknown>> | undefined
}

const jsonParam = (text: string | null): { readonly value: unknown } | undefined => {
  if (text === null) return { value: undefined }
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/** The request's parameters, from its URL (`GET`) or its JSON body (`POST`), or why it has none. */
const paramsOf = (request: SimRequest): Params | string => {
  let raw: Record<string, unknown>
  if (request.method === "GET") {
    const search = request.url.searchParams
    const variables = jsonParam(search.get("variables"))
    if (variables === undefined) return "the variables parameter is not JSON"
    raw = {
      query: search.get("query") ?? undefined,
      operationName: search.get("operationName") ?? undefined,
      variables: variables.value
    }
  } else {
    const body = request.json()
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return "the body is not a JSON object { query, operationName?, variables? }"
    raw = body as Record<string, unknown>
  }
  if (typeof raw.query !== "string") return "the request has no query (a string)"
  if (raw.operationName !== undefined && raw.operationName !== null && typeof raw.operationName !== "string")
    return "operationName is not a string"
  const variables = raw.variables
  if (variables !== undefined && variables !== null && (typeof variables !== "object" || Array.isArray(variables)))
    return "variables is not an object"
  return {
    query: raw.query,
    operationName: (raw.operationName ?? undefined) as string | undefined,
    variables: (variables ?? undefined) as Params["variables"]
  }
}

/** The parse, check and execution of one well-formed request. */
const run = (
  compiled: CompiledGraphql,
  params: Params,
  media: MediaType,
  request: SimRequest,
  context: RespondContext
): Answer => {
  const limits = compiled.limits
  const violation = (error: GraphQLError) => {
    context.recordViolations?.([
      {
        location: ["query"],
        severity: "Error",
        code: String(error.extensions["code"] ?? "GRAPHQL_VALIDATION_FAILED"),
        message: error.message
      }
    ])
    return requestError(media, [error])
  }
  const tooBig = checkText(params.query, limits)
  if (tooBig !== undefined) return violation(tooBig)
  let document: DocumentNode
  try {
    // The token bound keeps a long document of tiny tokens from costing more than a long one should.
    document = parse(params.query, { maxTokens: Math.max(1_000, Math.ceil(limits.documentBytes / 2)) })
  } catch (error) {
    return error instanceof GraphQLError
      ? violation(error)
      : malformed(media, `the query does not parse: ${String(error)}`)
  }
  const invalid = validate(compiled.schema, document)
  if (invalid.length > 0) {
    context.recordViolations?.(
      invalid.slice(0, 10).map((error) => ({
        location: ["query"],
        severity: "Error" as const,
        code: "GRAPHQL_VALIDATION_FAILED",
        message: error.message
      }))
    )
    return requestError(media, invalid)
  }
  const operation = getOperationAST(document, params.operationName)
  if (operation === null || operation === undefined) {
    return requestError(media, [
      new GraphQLError(
        params.operationName === undefined
          ? "Must provide operation name if query contains multiple operations."
          : `Unknown operation named "${params.operationName}".`
      )
    ])
  }
  context.annotate?.({ graphql: { operation: operation.name?.value ?? null, type: operation.operation } })
  if (request.method === "GET" && operation.operation !== "query") {
    return malformed(media, `a ${operation.operation} is sent with POST, not GET`, 405, { allow: "POST" })
  }
  if (operation.operation === "subscription")
    return requestError(media, [
      new GraphQLError(
        "simnet: a graphql route answers queries and mutations; subscriptions need a streaming transport",
        { nodes: [operation] }
      )
    ])
  const bounded = checkDocument(document, operation, limits)
  if (bounded !== undefined) return violation(bounded)
  const seed = offsetSeed(context.seed, compiled.seedOffset)
  const generation: Generation = {
    request,
    resolvers: compiled.resolvers,
    scalars: compiled.scalars,
    fields: compiled.fields,
    dotted: compiled.dotted,
    listSize: compiled.listSize,
    maxValues: limits.values,
    draws: compiled.draws,
    values: 0
  }
  const render = (result: ExecutionResult): Whole => {
    if (overLimit(generation)) {
      const error = new GraphQLError(
        `simnet: the answer would hold more than ${limits.values} values (limits.values)`,
        { extensions: { code: "SIMNET_LIMIT", limit: "values", bound: limits.values } }
      )
      return violation(error)
    }
    return result.data === undefined ? requestError(media, result.errors ?? []) : bodyOf(200, media, result)
  }
  const result = execute({
    schema: compiled.schema,
    document,
    rootValue: rootValue(seed),
    contextValue: generation,
    variableValues: params.variables,
    operationName: params.operationName,
    fieldResolver: fieldResolver(seed),
    typeResolver
  })
  return result instanceof Promise ? later(result.then(render), context.identity) : render(result as ExecutionResult)
}

/** Answers one request to a `graphql` route. */
export const answerGraphql = (compiled: CompiledGraphql, request: SimRequest, context: RespondContext): Answer => {
  const media = negotiate(request.headers.get("accept"))
  if (media === undefined)
    return malformed(
      JSON_TYPE,
      `this route answers ${GRAPHQL_RESPONSE} or ${JSON_TYPE}; the request accepts neither`,
      406
    )
  if (request.method !== "GET" && request.method !== "POST")
    return malformed(media, `a GraphQL request is a GET or a POST, not a ${request.method}`, 405, {
      allow: "GET, POST"
    })
  if (request.method === "POST") {
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase()
    if (type !== JSON_TYPE)
      return malformed(
        media,
        `a GraphQL POST is ${JSON_TYPE}, not ${type === "" ? "a body without a type" : type}`,
        415
      )
  }
  const params = paramsOf(request)
  if (typeof params === "string") return malformed(media, params)
  return run(compiled, params, media, request, context)
}
