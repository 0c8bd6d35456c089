/**
 * Routes: what answers a request. Each kind has a constructor here (`text`, `json`, `bytes`,
 * `status`, `handler`, `fault`, `loopback`, `mcp`, `webSocket`, `sse`, `graphql`), `isRoute` tells a route, and the types their
 * arguments take. A public face: the kinds live in `kinds/`; what is public is named here.
 */
export { bytes, eventStream, fault, graphql, handler, isRoute, json, loopback, mcp, sse, status, text, webSocket } from "./kinds/kinds.ts"
export type {
  Fault,
  FieldHint,
  Frame,
  FieldHints,
  GraphqlLimits,
  GraphqlOptions,
  GraphqlResolver,
  GraphqlResolverContext,
  GraphqlResolvers,
  GraphqlScalarGenerators,
  Handler,
  HandlerResult,
  JsonSchemaOptions,
  MatcherInput,
  MatcherObject,
  McpContent,
  McpPrompt,
  McpPromptArgument,
  McpResource,
  McpServerDefinition,
  McpTool,
  McpToolAnswer,
  McpToolContext,
  RespondContext,
  Route,
  RouteOptions,
  ScriptFrame,
  SimRequest,
  SocketPeer,
  SseEvent,
  SseOptions,
  StaticResponseOptions,
  ValueMatcher,
  WebSocketHandler,
  WebSocketReply,
  WebSocketScript
} from "./kinds/kinds.ts"
