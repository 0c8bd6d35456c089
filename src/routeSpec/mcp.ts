/**
 * The route of `{ "kind": "mcp", "server": {...} }` (its entry in `routeSpec/kinds.ts`). The
 * shape is checked by the RouteSpec Schema; here the server is compiled (JSON Schemas converted,
 * generators proven), and a problem names its JSON path (`[0].respond.server.tools[1].outputSchema`).
 */
import { Effect, Result } from "effect"
import type { KindBuilder } from "./kind.ts"
import type { McpRespond } from "../schemas/routeSpec.ts"
import { compileServer } from "../mcp-route/definitions.ts"
import { mcpRouteOf } from "../mcp-route/route.ts"

/** Decodes an `mcp` RouteSpec into its route. */
export const mcpKind: KindBuilder<typeof McpRespond.Type> = (match, respond, options, path) =>
  Effect.suspend(() => {
    const base = path === "" ? "respond" : `${path}.respond`
    const compiled = compileServer(respond.server, `${base}.server`)
    return Result.isFailure(compiled) ? Effect.fail(compiled.failure) : Effect.succeed(mcpRouteOf(match, compiled.success, options))
  })
