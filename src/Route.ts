/**
 * Route constructors. Each takes a matcher first (`"GET https://host/path/:id"` or an object
 * `{ method, url, query, headers, body }`), then what to answer, then options shared by every
 * kind: `id`, `times`, `priority`, `delay`.
 *
 * Constructors never throw: a malformed matcher or option is carried inside the route and
 * rejected, with the JSON path of the field, when the route is registered.
 */
import { Duration, Effect } from "effect"
import { CompiledMatcher, compileMatcher, type MatcherInput } from "./internal/matcher.ts"
import type { RespondContext, Responder, Route as RouteRecord, SimRequest } from "./internal/types.ts"
import { InvalidRouteSpec, RouteFailed, type SimnetError } from "./SimnetError.ts"
import { faultResponder, FAULTS, type Fault } from "./routes/fault.ts"
import { isLoopbackHost, loopbackDenied, loopbackResponder } from "./routes/loopback.ts"
import { jsonSchemaResponder, type JsonSchemaOptions } from "./routes/jsonSchema.ts"
import { bytesResponder, statusResponder, textResponder, type StaticResponseOptions } from "./routes/static.ts"
import { mcpRouteParts } from "./mcp-route/route.ts"
import type { McpServerDefinition } from "./mcp-route/definitions.ts"
import type { Schema } from "effect"

export type { Fault } from "./routes/fault.ts"
export type {
  McpContent,
  McpPrompt,
  McpPromptArgument,
  McpResource,
  McpServerDefinition,
  McpTool,
  McpToolAnswer,
  McpToolContext
} from "./mcp-route/definitions.ts"
export type { JsonSchemaOptions } from "./routes/jsonSchema.ts"
export type { MatcherInput, MatcherObject, ValueMatcher } from "./internal/matcher.ts"
export type { RespondContext, Responder, SimRequest } from "./internal/types.ts"

/**
 * A route: a matcher, an answer, and the options that govern its use.
 */
export type Route = RouteRecord

/**
 * Options every route kind takes.
 * - `id`: a stable name (default: kind and matcher); ids are unique within a network.
 * - `times`: the route is exhausted after this many uses and requests fall through to the next.
 * - `priority`: higher first (default 0); within a priority the latest registration wins.
 * - `delay`: wait this long on Effect's `Clock` before answering (`TestClock` controls it).
 */
export interface RouteOptions {
  readonly id?: string | undefined
  readonly times?: number | undefined
  readonly priority?: number | undefined
  readonly delay?: Duration.Input | undefined
  /** Who registers the route (default "code"); families set their own name. */
  readonly source?: string | undefined
}

/**
 * What a `handler` route's function may return: a `Response`, a promise of one, or an Effect.
 */
export type HandlerResult = Response | PromiseLike<Response> | Effect.Effect<Response, SimnetError>

/**
 * The function behind a `handler` route. It sees the request with its path parameters.
 */
export type Handler = (request: SimRequest, context: RespondContext) => HandlerResult

interface Parts {
  readonly respond: Responder
  readonly respondSync?: RouteRecord["respondSync"]
  readonly prepare?: (() => Effect.Effect<void, SimnetError>) | undefined
  readonly seeded?: boolean | undefined
  readonly regenerate?: ((seed: number) => Effect.Effect<string, SimnetError>) | undefined
  readonly describe?: Readonly<Record<string, unknown>> | undefined
  readonly annotated?: boolean | undefined
  readonly state?: RouteRecord["state"]
}

const toDuration = (input: Duration.Input | undefined): Duration.Duration | undefined | InvalidRouteSpec => {
  if (input === undefined) return undefined
  const invalid = new InvalidRouteSpec({
    path: "delay",
    message: `delay must be a finite, non-negative duration (such as "2 seconds" or a number of milliseconds), got ${JSON.stringify(String(input))}`
  })
  if (typeof input === "number" && (!Number.isFinite(input) || input < 0)) return invalid
  const parsed = Duration.fromInput(input)
  if (parsed._tag === "None" || !Duration.isFinite(parsed.value) || Duration.isNegative(parsed.value)) return invalid
  return Duration.isZero(parsed.value) ? undefined : parsed.value
}

/**
 * A prepare step that fails with `error` before running `next` (when there is one).
 */
const failFirst = (error: InvalidRouteSpec, next: Parts["prepare"]) => () =>
  next === undefined ? Effect.fail(error) : Effect.andThen(Effect.fail(error), next())

/**
 * Builds a route of any kind from a compiled matcher and its parts. Used by the constructors
 * below and by route families; most code wants a constructor instead.
 */
export const make = (kind: string, matcher: CompiledMatcher | MatcherInput, parts: Parts, options: RouteOptions = {}): Route => {
  const delay = toDuration(options.delay)
  return {
    id: options.id,
    kind,
    matcher: matcher instanceof CompiledMatcher ? matcher : compileMatcher(matcher),
    times: options.times,
    priority: options.priority ?? 0,
    delay: delay instanceof InvalidRouteSpec ? undefined : delay,
    source: options.source ?? "code",
    respond: parts.respond,
    respondSync: parts.respondSync,
    prepare: delay instanceof InvalidRouteSpec ? failFirst(delay, parts.prepare) : parts.prepare,
    seeded: parts.seeded,
    regenerate: parts.regenerate,
    describe: parts.describe,
    annotated: parts.annotated,
    state: parts.state
  }
}

/**
 * Answers with JSON generated from the app's own production schema (kind `jsonSchema`). Values
 * come from `narrow ?? schema`, are encoded with `schema` (so wire transformations such as
 * seconds → `Duration` hold) and are proven to decode under it before they are served. The body
 * is a pure function of the run seed, the route's identity, the canonical request and its
 * occurrence. A schema that cannot be generated fails the registration, naming the schema path.
 *
 * @example Route.json("GET https://api.example.com/users/:id", User)
 */
export const json = <S extends Schema.Top>(match: MatcherInput, schema: S, options: RouteOptions & JsonSchemaOptions = {}): Route => {
  const matcher = compileMatcher(match)
  const parts = jsonSchemaResponder(schema as unknown as Schema.Codec<unknown, unknown>, options, options.id ?? `jsonSchema ${matcher.source}`)
  return make("jsonSchema", matcher, parts, options)
}

/**
 * Answers with a fixed text body.
 *
 * @example Route.text("GET https://api.example.com/health", "ok")
 */
export const text = (match: MatcherInput, body: string, options: RouteOptions & StaticResponseOptions = {}): Route =>
  make("text", match, textResponder(body, options), options)

/**
 * Answers with fixed bytes.
 */
export const bytes = (match: MatcherInput, body: Uint8Array, options: RouteOptions & StaticResponseOptions = {}): Route =>
  make("bytes", match, bytesResponder(body, options), options)

/**
 * Answers with a status, optional headers and an empty body.
 *
 * @example Route.status("DELETE https://api.example.com/items/:id", 204)
 */
export const status = (
  match: MatcherInput,
  code: number,
  options: RouteOptions & { readonly headers?: Readonly<Record<string, string>> | undefined; readonly body?: string | undefined } = {}
): Route => make("status", match, statusResponder(code, options), options)

/**
 * Answers with code. The handler sees the request (with `params` from the path pattern) and
 * returns a `Response`, a promise of one, or an Effect. A thrown error or rejected promise
 * becomes a `RouteFailed` for that request.
 *
 * @example Route.handler("GET https://api.example.com/items/:id", (req) => Response.json({ id: req.params.id }))
 */
export const handler = (match: MatcherInput, fn: Handler, options: RouteOptions = {}): Route => {
  const label = options.id ?? "handler"
  const fail = (cause: unknown) =>
    new RouteFailed({ route: label, message: `handler failed: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
  return make("handler", match, {
    respond: (request, context) =>
      Effect.suspend(() => {
        const result = fn(request, context)
        if (result instanceof Response) return Effect.succeed(result)
        if (Effect.isEffect(result)) return result
        return Effect.tryPromise({ try: () => Promise.resolve(result), catch: fail })
      }).pipe(Effect.catchDefect((cause) => Effect.fail(fail(cause))))
  }, options)
}

/**
 * Breaks the way a real network breaks: `reset` (connection drops mid-body), `timeout` (no answer
 * ever comes; the client's timeout decides), `malformed-body` (200 with truncated JSON).
 */
export const fault = (match: MatcherInput, kind: Fault, options: RouteOptions = {}): Route => {
  const base = make("fault", match, { respond: faultResponder(kind), describe: { fault: kind } }, options)
  if (FAULTS.includes(kind)) return base
  return {
    ...base,
    prepare: () =>
      Effect.fail(
        new InvalidRouteSpec({ path: "respond.fault", message: `unknown fault "${String(kind)}"; expected one of ${FAULTS.join(", ")}` })
      )
  }
}

const anyLoopback = (url: URL) => isLoopbackHost(url.hostname)

/**
 * Lets requests through to the app's own local server. Without a matcher it matches every request
 * to a loopback host. Registering one for any other host is a `LoopbackDenied` error.
 *
 * @example Route.loopback("http://127.0.0.1:4096/{*path}")
 */
export const loopback = (match?: MatcherInput, options: RouteOptions = {}): Route => {
  const matcher = compileMatcher(match ?? { url: anyLoopback })
  const label = options.id ?? `loopback ${matcher.source}`
  return make("loopback", matcher, {
    respond: loopbackResponder(label),
    prepare: () =>
      matcher.hostname !== undefined && !isLoopbackHost(matcher.hostname)
        ? Effect.fail(loopbackDenied(matcher.hostname))
        : Effect.void
  }, options)
}

/**
 * An MCP server over Streamable HTTP at `url` (kind `mcp`), built from tool, resource and prompt
 * definitions: `POST` JSON-RPC (`initialize`, `ping`, `tools/list`, `tools/call`,
 * `resources/list`, `resources/read`, `prompts/list`, `prompts/get`), sessions (or
 * `stateless: true`), `DELETE` to end a session. A tool is answered by its `handler`, its fixed
 * `result`, or a value generated from its output schema with the network's seed. Every call is in
 * the log with its method and tool (`record.detail`); `network.mcp` reads counts and changes the
 * definitions while the app runs. A definition that does not compile fails the registration.
 *
 * Gotcha: the server's sessions and counts live with the route value; build routes per network.
 *
 * @example Route.mcp("https://mcp.example.com/mcp", { name: "docs", version: "1.0.0", tools: [{ name: "search", input: Query, handler: (q) => `found ${q.text}` }] })
 */
export const mcp = (url: string, server: McpServerDefinition, options: RouteOptions = {}): Route => {
  const label = options.id ?? `mcp ${url}`
  return make("mcp", { url }, mcpRouteParts(server, label), options)
}
