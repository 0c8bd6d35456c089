/**
 * Route constructors. Each takes a matcher first (`"GET https://host/path/:id"` or an object
 * `{ method, url, query, headers, body }`), then what to answer, then options shared by every
 * kind: `id`, `times`, `priority`, `delay`.
 *
 * Constructors never throw: a malformed matcher or option is carried inside the route and
 * refused, with the JSON path of the field, when the route is registered.
 */
import { refused } from "../core/answer.ts"
import { answerWith } from "../core/route.ts"
import { Effect } from "effect"
import type { Schema } from "effect"
import { Schema as SchemaModule } from "effect"
import { InvalidRouteSpec, type RouteFailed } from "../SimnetError.ts"
import { foreignSchema } from "./effectCopy.ts"
import { compileMatcher, type MatcherInput } from "../core/matcher.ts"
import type { Route as RouteValue } from "../core/route.ts"
import type { McpServerDefinition } from "./mcp/definitions.ts"
import { mcpRoute } from "./mcp/route.ts"
import { faultResponder, type Fault } from "./fault.ts"
import { handlerResponder, type Handler } from "./handler.ts"
import { jsonSchemaResponder, type JsonSchemaOptions } from "./jsonSchema/jsonSchema.ts"
import { isLoopbackHost, loopbackDenied, loopbackResponder } from "./loopback.ts"
import { codeOptionsProblem } from "./codeOptions.ts"
import { make, refused as refusedRoute, type RouteOptions } from "./make.ts"
import { bytesResponder, routeTemplates, statusResponder, textResponder, type StaticResponseOptions, type TemplateOptions } from "./static.ts"
import { graphqlResponder, type GraphqlOptions } from "./graphql/graphql.ts"
import { eventStream, type SseEvent, type SseOptions, sseResponder } from "./sse/sse.ts"
import { scriptedSession, type WebSocketHandler, type WebSocketScript, webSocketMatch, webSocketResponder } from "./webSocket.ts"

export type { MatcherInput, MatcherObject, ValueMatcher } from "../core/matcher.ts"
export type {
  McpContent,
  McpPrompt,
  McpPromptArgument,
  McpResource,
  McpServerDefinition,
  McpTool,
  McpToolAnswer,
  McpToolContext
} from "./mcp/definitions.ts"
export { isRoute } from "../core/route.ts"
export type { RespondContext, SimRequest } from "../core/route.ts"
export type { Fault } from "./fault.ts"
export type { Handler, HandlerResult } from "./handler.ts"
export type { JsonSchemaOptions } from "./jsonSchema/jsonSchema.ts"
export type { FieldHint, FieldHints } from "./jsonSchema/realism.ts"
export type { RouteOptions } from "./make.ts"
export type { StaticResponseOptions, TemplateOptions } from "./static.ts"
export type { SseEvent, SseOptions } from "./sse/sse.ts"
export type { GraphqlLimits, GraphqlOptions, GraphqlResolver, GraphqlResolverContext, GraphqlResolvers, GraphqlScalarGenerators } from "./graphql/graphql.ts"
export type { Frame, ScriptFrame, SocketPeer, WebSocketHandler, WebSocketReply, WebSocketScript } from "./webSocket.ts"

/** Options a responder can read: anything but an object reads as none (`make` refuses it at registration). */
const usable = <O extends object>(options: O): O => (typeof options === "object" && options !== null ? options : ({} as O))

/**
 * The route `build` makes, when `options` hold only what a `kind` route takes, checked as RouteSpec
 * JSON checks them (`codeOptions.ts`); else a route whose registration fails naming the option.
 */
const checked = (kind: Parameters<typeof codeOptionsProblem>[0], options: RouteOptions, build: () => Route): Route => {
  const problem = codeOptionsProblem(kind, options)
  return problem === undefined ? build() : refusedRoute(kind, problem, usable(options).source)
}

/** How a route is named in a template's errors: its id, else its matcher. */
const labelOf = (match: MatcherInput | undefined, options: RouteOptions): string =>
  usable(options).id ?? (typeof match === "string" ? match : "(matcher object)")

/**
 * A generated JSON route whose headers are templates (`template: true`): the body is generated
 * from the schema as ever (a template has no place in generated values), and the header values
 * with `{{` are written for each request. No `reproduce`: the headers depend on the request.
 */
const withHeaderTemplates = (parts: ReturnType<typeof jsonSchemaResponder>, headers: Readonly<Record<string, string>>, label: string) => {
  const templates = routeTemplates(headers, undefined, label)
  const answer: typeof parts.answer = (request, context) => {
    const answered = parts.answer(request, context)
    if (answered._tag !== "Whole") return answered
    try {
      const own = answered.headers instanceof Headers ? Object.fromEntries(answered.headers) : answered.headers
      return { ...answered, headers: templates.headers(answered.status, own, request, context) }
    } catch (error) {
      return refused(error as RouteFailed)
    }
  }
  return { ...parts, answer, prepare: Effect.andThen(parts.prepare, templates.prepare), reproduce: undefined }
}

/**
 * A route: a matcher, an answer, and the options that govern its use. A plain value: tagged
 * (`_tag: "Route"`), recognised by `Route.isRoute`.
 */
export type Route = RouteValue

/**
 * Answers with JSON generated from the app's own production schema (kind `jsonSchema`). Values
 * come from `narrow ?? schema`, are encoded with `schema` (so wire transformations such as
 * seconds → `Duration` hold) and are proven to decode under it before they are served. The body
 * is a pure function of the run seed, the route's identity, the canonical request and its
 * occurrence. A schema that cannot be generated fails the registration, naming the schema path;
 * so does a Schema built by another copy of effect than simnet's, naming both copies.
 *
 * @example Route.json("GET https://api.example.com/users/:id", User)
 */
export const json = <S extends Schema.Top>(match: MatcherInput, schema: S, options: RouteOptions & JsonSchemaOptions & TemplateOptions = {}): Route =>
  checked("jsonSchema", options, () => jsonRoute(match, schema, options))

const jsonRoute = <S extends Schema.Top>(match: MatcherInput, schema: S, options: RouteOptions & JsonSchemaOptions & TemplateOptions): Route => {
  const matcher = compileMatcher(match)
  const error = !SchemaModule.isSchema(schema)
    ? new InvalidRouteSpec({ path: "schema", message: `Route.json needs an Effect Schema, got ${schema === null ? "null" : typeof schema}` })
    : foreignSchema(schema, "schema") ?? foreignSchema(usable(options).narrow, "narrow")
  if (error !== undefined) return make("jsonSchema", matcher, { answer: () => refused(error), prepare: Effect.fail(error) }, options)
  const parts = jsonSchemaResponder(schema as unknown as Schema.Codec<unknown, unknown>, usable(options), usable(options).id ?? `jsonSchema ${matcher.source}`)
  return make("jsonSchema", matcher, usable(options).template === true ? withHeaderTemplates(parts, usable(options).headers ?? {}, labelOf(match, options)) : parts, options)
}

/**
 * Answers with a fixed text body.
 *
 * @example Route.text("GET https://api.example.com/health", "ok")
 */
export const text = (match: MatcherInput, body: string, options: RouteOptions & StaticResponseOptions & TemplateOptions = {}): Route =>
  checked("text", options, () => make("text", match, textResponder(body, { ...usable(options), label: labelOf(match, options) }), options))

/**
 * Answers with fixed bytes.
 */
export const bytes = (match: MatcherInput, body: Uint8Array, options: RouteOptions & StaticResponseOptions = {}): Route =>
  checked("bytes", options, () => make("bytes", match, bytesResponder(body, usable(options)), options))

/**
 * Answers with a status, optional headers and an empty body.
 *
 * @example Route.status("DELETE https://api.example.com/items/:id", 204)
 */
export const status = (
  match: MatcherInput,
  code: number,
  options: RouteOptions & TemplateOptions & { readonly headers?: Readonly<Record<string, string>> | undefined; readonly body?: string | undefined } = {}
): Route => checked("status", options, () => make("status", match, statusResponder(code, { ...usable(options), label: labelOf(match, options) }), options))

/**
 * Answers with code. The handler sees the request (with `params` from the path pattern) and
 * returns a `Response`, a promise of one, or an Effect. A thrown error or rejected promise
 * becomes a `RouteFailed` for that request.
 *
 * @example Route.handler("GET https://api.example.com/items/:id", (req) => Response.json({ id: req.params.id }))
 */
export const handler = (match: MatcherInput, fn: Handler, options: RouteOptions = {}): Route =>
  checked("handler", options, () => make("handler", match, handlerResponder(fn, usable(options).id ?? "handler"), options))

/**
 * Breaks the way a real network breaks: `reset` (connection drops mid-body), `timeout` (no answer
 * ever comes; the client's timeout decides), `malformed-body` (200 with truncated JSON).
 */
export const fault = (match: MatcherInput, kind: Fault, options: RouteOptions = {}): Route =>
  checked("fault", options, () => make("fault", match, faultResponder(kind), options))

const anyLoopback = (url: URL) => isLoopbackHost(url.hostname)

/**
 * Lets requests through to the app's own local server. Without a matcher it matches every request
 * to a loopback host. Registering one for any other host is a `LoopbackDenied` error.
 *
 * @example Route.loopback("http://127.0.0.1:4096/{*path}")
 */
export const loopback = (match?: MatcherInput, options: RouteOptions = {}): Route =>
  checked("loopback", options, () => loopbackRoute(match, options))

const loopbackRoute = (match: MatcherInput | undefined, options: RouteOptions): Route => {
  const matcher = compileMatcher(match ?? { url: anyLoopback })
  return make("loopback", matcher, {
    answer: answerWith(loopbackResponder(usable(options).id ?? `loopback ${matcher.source}`)),
    prepare: matcher.hostname !== undefined && !isLoopbackHost(matcher.hostname) ? Effect.fail(loopbackDenied(matcher.hostname)) : undefined
  }, options)
}

/**
 * An MCP server over Streamable HTTP at `url` (kind `mcp`), built from tool, resource and prompt
 * definitions: `POST` JSON-RPC (`initialize`, `ping`, `tools/list`, `tools/call`,
 * `resources/list`, `resources/read`, `prompts/list`, `prompts/get`), sessions (or
 * `stateless: true`), `DELETE` to end a session. A tool is answered by its `handler`, its fixed
 * `result`, or a value generated from its output schema with the network's seed. Every call is in
 * the log with its method and tool (`record.detail`); `network.mcp` reads counts and changes the
 * definitions while the app runs. Sessions and counts live in the network (`McpServers`), so one
 * route value can serve several networks. A definition that does not compile fails the
 * registration, naming its path.
 *
 * @example Route.mcp("https://mcp.example.com/mcp", { name: "docs", version: "1.0.0", tools: [{ name: "search", input: Query, handler: (q) => `found ${q.text}` }] })
 */
export const mcp = (url: string, server: McpServerDefinition, options: RouteOptions = {}): Route =>
  checked("mcp", options, () => mcpRoute({ url }, server, options))

/**
 * Answers WebSocket connections (kind `webSocket`): a request that asks to upgrade gets `101` and
 * `handler` runs on the socket (frames out with `send`, in with `onMessage`, `close`); any other
 * request gets `426 Upgrade Required`. Upgrades happen through `simnet serve` (also as a proxy and
 * in its tunnels) and `network.createConnection` in process; `fetch` cannot upgrade. A matcher
 * without a method matches `GET`.
 *
 * @example Route.webSocket("wss://echo.example.com/ws", (socket) => socket.onMessage((frame) => socket.send(frame)))
 */
export const webSocket = (match: MatcherInput, handler: WebSocketHandler | WebSocketScript, options: RouteOptions = {}): Route =>
  checked("webSocket", options, () => make("webSocket", webSocketMatch(match), webSocketResponder(typeof handler === "function" ? handler : scriptedSession(handler)), options))

/**
 * Answers with server-sent events (kind `sse`): `events` (`{ data, event?, id?, delay? }`, data a
 * string or any JSON value) framed as an event stream, `retry` first when given. A client that
 * reconnects with `Last-Event-ID` gets the events after that id, and `204` once it has seen the
 * last one (an `EventSource` then stops). `interval` (or an event's `delay`) paces the events on
 * the network's `Clock`. An event without data, or with an id or name that would break its line,
 * fails the registration naming its index.
 *
 * @example Route.sse("GET https://api.example.com/events", [{ event: "progress", data: { done: 1 }, id: "1" }], { retry: 1000 })
 */
export const sse = (match: MatcherInput, events: ReadonlyArray<SseEvent>, options: RouteOptions & SseOptions = {}): Route =>
  checked("sse", options, () => make("sse", match, sseResponder(events, usable(options)), options))

/**
 * An event stream as a handler's answer: an array or an Effect `Stream` of events, written one by
 * one (`retry` first, `interval` between them, on the `Clock` of the Effect running it).
 *
 * @example Route.handler("GET https://api.example.com/progress", () => Route.eventStream(Stream.make({ data: "1" }, { data: "2" })))
 */
export { eventStream }

/**
 * A GraphQL endpoint answered from SDL (kind `graphql`): queries and mutations, over `GET` and
 * `POST` as the GraphQL-over-HTTP specification says, get seeded values shaped by their selection
 * set (aliases, fragments, variables, lists, enums, interfaces and unions, custom scalars), the
 * same for the same seed, request and occurrence; introspection works; a query that does not
 * parse or validate gets `{ errors: [{ message, locations }] }`. `resolvers` fix the fields a
 * test cares about (`{ Query: { viewer: { login: "ada" } } }`; a function gets the arguments),
 * `scalars` generate custom scalars, `fields` override realistic values by field name as
 * `Route.json`'s do, `listSize` and `limits` bound the answers and the queries. graphql-js loads
 * when the first such route is registered; an SDL that does not build fails the registration,
 * naming line and column. A matcher without a method takes both `GET` and `POST`.
 *
 * @example Route.graphql("https://api.example.com/graphql", { schema: "type Query { viewer: User } type User { login: String, email: String }" })
 */
export const graphql = (match: MatcherInput, schema: GraphqlOptions, options: RouteOptions = {}): Route =>
  checked("graphql", options, () => {
    const matcher = compileMatcher(match)
    return make("graphql", matcher, graphqlResponder(usable(schema), usable(options).id ?? `graphql ${matcher.source}`), options)
  })
