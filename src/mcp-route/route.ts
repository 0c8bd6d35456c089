/**
 * The parts of an `mcp` route for `Route.make`: a responder that hands each request to the
 * engine, a `prepare` that refuses a definition that does not compile (naming its path), and the
 * route's state (`McpServerState`), reachable by route id through `McpServers`.
 */
import { Effect, Result } from "effect"
import { RouteFailed, type InvalidRouteSpec } from "../SimnetError.ts"
import { compileServer, type McpServerDefinition } from "./definitions.ts"
import { answer } from "./engine.ts"
import type { Route } from "./registry.ts"
import { McpServerState } from "./state.ts"

/** The parts `Route.make` builds an `mcp` route from. */
export interface McpRouteParts {
  readonly respond: Route["respond"]
  readonly prepare: () => Effect.Effect<void, InvalidRouteSpec>
  readonly annotated: true
  readonly state: McpServerState | undefined
  readonly describe: Readonly<Record<string, unknown>>
}

const noop = () => {}

/**
 * Compiles a server definition into route parts. `base` is the JSON path of the definition in
 * errors (`respond.server` for RouteSpec JSON, `server` from code).
 */
export const mcpRouteParts = (definition: McpServerDefinition, label: string, base = "server"): McpRouteParts => {
  const compiled = compileServer(definition, base)
  if (Result.isFailure(compiled)) {
    const error = compiled.failure
    return { respond: () => Effect.fail(error), prepare: () => Effect.fail(error), annotated: true, state: undefined, describe: {} }
  }
  const state = new McpServerState(compiled.success)
  return {
    respond: (request, context) =>
      Effect.flatMap(Effect.context<never>(), (services) =>
        Effect.tryPromise({
          try: () =>
            answer(state, request, {
              runSeed: context.runSeed,
              identity: context.identity,
              annotate: context.annotate ?? noop,
              run: (effect) => Effect.runPromiseWith(services)(effect, request.signal === undefined ? undefined : { signal: request.signal })
            }),
          catch: (cause) =>
            new RouteFailed({ route: label, message: `the MCP server failed: ${cause instanceof Error ? cause.message : String(cause)}`, cause })
        })),
    prepare: () => Effect.void,
    annotated: true,
    state,
    describe: {
      server: definition.name,
      version: definition.version,
      mode: definition.stateless === true ? "stateless" : "stateful"
    }
  }
}
