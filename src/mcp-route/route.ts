/**
 * The `mcp` route: a responder that finds its server's state in the network's `McpServers` and
 * hands the request to the engine. The engine is promise-based, so the route answers through
 * a promise and a request costs no fiber. The route value carries only the compiled
 * definitions; a definition that does not compile is refused at registration, naming its path.
 */
import { Context, Option, Result } from "effect"
import { RouteFailed } from "../SimnetError.ts"
import { compileServer, type CompiledServer, type McpServerDefinition } from "./definitions.ts"
import type * as Engine from "./engine.ts"
import {
  checked,
  errorMessage,
  make,
  type MatcherInput,
  refused,
  type RespondContext,
  type Route,
  ROUTE_OPTIONS_ONLY,
  type RouteOptions,
  type SimRequest
} from "./floor.ts"
import { type McpAnswerer, McpServers } from "./state.ts"
import { fromResult } from "../registry/answer.ts"

const noop = () => {}

/**
 * The engine, and with it the MCP SDK (about 65 ms and 10 MB to load), is loaded on the first MCP
 * request rather than with simnet: a network without an MCP route never loads it.
 */
let engine: typeof Engine | undefined
let loading: Promise<typeof Engine> | undefined
const loadEngine = (): Promise<typeof Engine> => (loading ??= import("./engine.ts").then((module) => (engine = module)))

/** An `mcp` route serving already compiled definitions. */
export const mcpRouteOf = (match: MatcherInput, compiled: CompiledServer, options: RouteOptions = {}): Route => {
  const label = options.id ?? "mcp"
  const failed = (cause: unknown) =>
    new RouteFailed({
      route: label,
      reason: "handler",
      message: `the MCP server failed: ${errorMessage(cause)}`,
      cause
    })
  const engineAnswer = (request: SimRequest, context: RespondContext): Response | Promise<Response> => {
    if (engine === undefined)
      return loadEngine().then(
        () => engineAnswer(request, context),
        (cause) => Promise.reject(failed(cause))
      )
    const servers = Context.getOption(context.services as Context.Context<McpServers>, McpServers)
    if (Option.isNone(servers))
      return Promise.reject(
        new RouteFailed({
          route: context.identity,
          reason: "service",
          message: `simnet: this network has no ${McpServers.key}`
        })
      )
    const state = servers.value.server(context.identity, compiled)
    let answered: Response | Promise<Response>
    try {
      answered = engine.answer(state, request, {
        runSeed: context.runSeed,
        identity: context.identity,
        annotate: context.annotate ?? noop,
        run: context.run
      })
    } catch (cause) {
      return Promise.reject(failed(cause))
    }
    return answered instanceof Response ? answered : answered.catch((cause) => Promise.reject(failed(cause)))
  }
  const answer: McpAnswerer = Object.assign(
    (request: SimRequest, context: RespondContext) => fromResult(engineAnswer(request, context), label),
    { compiled }
  )
  const definition = compiled.definition
  return make(
    "mcp",
    match,
    {
      answer,
      annotated: true,
      describe: {
        server: definition.name,
        version: definition.version,
        mode: definition.stateless === true ? "stateless" : "stateful"
      }
    },
    options
  )
}

/**
 * An `mcp` route from definitions; `base` is the JSON path of the definition in errors. A
 * definition that does not compile makes a route whose registration fails naming the field.
 */
export const mcpRoute = (
  match: MatcherInput,
  definition: McpServerDefinition,
  options: RouteOptions = {},
  base = "server"
): Route => {
  const compiled = compileServer(definition, base)
  return Result.isFailure(compiled)
    ? refused("mcp", compiled.failure, options.source)
    : mcpRouteOf(match, compiled.success, options)
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
  checked("mcp", ROUTE_OPTIONS_ONLY, options, () => mcpRoute({ url }, server, options))
