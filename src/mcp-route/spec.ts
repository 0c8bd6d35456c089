/**
 * The RouteSpec decoder of `{ "kind": "mcp", "server": {...} }`, for `DecodeContext.kinds`. The
 * shape is checked by the RouteSpec Schema; here the server is compiled (JSON Schemas converted,
 * generators proven), and a problem names its JSON path (`[0].respond.server.tools[1].outputSchema`).
 */
import { Effect } from "effect"
import * as R from "../Route.ts"
import type { KindDecoder } from "../RouteSpec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import type { McpServerDefinition } from "./definitions.ts"
import { mcpRouteParts } from "./route.ts"

/** Decodes an `mcp` RouteSpec into its route. */
export const mcpKind: KindDecoder = (match, respond, options, path) =>
  Effect.suspend(() => {
    const base = path === "" ? "respond" : `${path}.respond`
    if (respond.kind !== "mcp") return Effect.fail(new InvalidRouteSpec({ path: `${base}.kind`, message: "not an mcp route" }))
    const label = options.id ?? `mcp ${typeof match === "string" ? match : String(match.url)}`
    const parts = mcpRouteParts(respond.server as McpServerDefinition, label, `${base}.server`)
    if (parts.state === undefined) return Effect.as(parts.prepare(), R.make("mcp", match, parts, options))
    return Effect.succeed(R.make("mcp", match, parts, options))
  })
