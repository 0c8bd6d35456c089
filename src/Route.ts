/**
 * Routes: what answers a request. Each kind has a constructor here (`text`, `json`, `bytes`,
 * `status`, `handler`, `fault`, `loopback`, `mcp`, `webSocket`, `sse`, `graphql`), `isRoute`
 * tells a route, and the types their arguments take. A public face: each kind lives in its own
 * folder under `routes/` (the MCP route in `mcp-route/`), and what is public is named here.
 *
 * Constructors take a matcher first (`"GET https://host/path/:id"` or an object `{ method, url,
 * query, headers, body }`), then what to answer, then options shared by every kind: `id`,
 * `times`, `priority`, `delay`, a scenario's. They never throw: a malformed matcher or option (one
 * RouteSpec JSON would refuse too, an unknown key among them) is carried inside the route and
 * refused, with the JSON path of the field, when the route is registered.
 */
import type { Route as RouteValue } from "./registry/route.ts"

export { fault } from "./routes/fault/fault.ts"
export { graphql } from "./routes/graphql/graphql.ts"
export { handler } from "./routes/handler/handler.ts"
export { json } from "./routes/jsonSchema/jsonSchema.ts"
export { loopback } from "./routes/loopback/loopback.ts"
export { mcp } from "./mcp-route/route.ts"
export { eventStream, sse } from "./routes/sse/sse.ts"
export { bytes, status, text } from "./routes/static/static.ts"
export { webSocket } from "./routes/webSocket/webSocket.ts"
export { isRoute } from "./registry/route.ts"

/**
 * A route: a matcher, an answer, and the options that govern its use. A plain value: tagged
 * (`_tag: "Route"`), recognised by `Route.isRoute`.
 */
export type Route = RouteValue

export type { Fault } from "./routes/fault/fault.ts"
export type {
  GraphqlLimits,
  GraphqlOptions,
  GraphqlResolver,
  GraphqlResolverContext,
  GraphqlResolvers,
  GraphqlScalarGenerators
} from "./routes/graphql/graphql.ts"
export type { Handler, HandlerResult } from "./routes/handler/handler.ts"
export type { JsonSchemaOptions } from "./routes/jsonSchema/jsonSchema.ts"
export type { FieldHint, FieldHints } from "./routes/jsonSchema/realism.ts"
export type { RouteOptions } from "./routes/make.ts"
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
export type { SseEvent, SseOptions } from "./routes/sse/sse.ts"
export type { StaticResponseOptions, TemplateOptions } from "./routes/static/static.ts"
export type {
  Frame,
  ScriptFrame,
  SocketPeer,
  WebSocketHandler,
  WebSocketReply,
  WebSocketScript
} from "./routes/webSocket/webSocket.ts"
export type { MatcherInput, MatcherObject, ValueMatcher } from "./registry/matcher.ts"
export type { RespondContext, SimRequest } from "./registry/route.ts"
