/**
 * The `mcp` kind in RouteSpec JSON: `{ "kind": "mcp", "server": {...} }`. The shape is checked by
 * its Schema (`mcpServerSpec.ts`); here the server is compiled (JSON Schemas converted, generators
 * proven), and a problem names its JSON path (`[0].respond.server.tools[1].outputSchema`). The MCP
 * route is a room of its own, so it joins the table of kinds one floor up, in `schemas/routeSpec.ts`.
 */
import { Effect, Result } from "effect"
import { routeKind } from "../routes/spec.ts"
import { compileServer } from "./definitions.ts"
import { McpRespond } from "./mcpServerSpec.ts"
import { mcpRouteOf } from "./route.ts"

/** The `mcp` kind. */
export const mcpKind = routeKind(McpRespond, (match, respond, options, path) =>
  Effect.suspend(() => {
    const base = path === "" ? "respond" : `${path}.respond`
    const compiled = compileServer(respond.server, `${base}.server`)
    return Result.isFailure(compiled)
      ? Effect.fail(compiled.failure)
      : Effect.succeed(mcpRouteOf(match, compiled.success, options))
  })
)
