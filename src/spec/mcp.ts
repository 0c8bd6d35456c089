/**
 * The RouteSpec decoder of `{ "kind": "mcp", "server": {...} }`, for `DecodeContext.kinds`. The
 * shape is checked by the RouteSpec Schema; here the server is compiled (JSON Schemas converted,
 * generators proven), and a problem names its JSON path (`[0].respond.server.tools[1].outputSchema`).
 */
import { Effect, Result } from "effect"
import type { KindDecoder } from "./decode.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { compileServer } from "../routes/mcp/definitions.ts"
import { mcpRouteOf } from "../routes/mcp/route.ts"

/** Decodes an `mcp` RouteSpec into its route. */
export const mcpKind: KindDecoder = (match, respond, options, path) =>
  Effect.suspend(() => {
    const base = path === "" ? "respond" : `${path}.respond`
    if (respond.kind !== "mcp") return Effect.fail(new InvalidRouteSpec({ path: `${base}.kind`, message: "not an mcp route" }))
    const compiled = compileServer(respond.server, `${base}.server`)
    return Result.isFailure(compiled) ? Effect.fail(compiled.failure) : Effect.succeed(mcpRouteOf(match, compiled.success, options))
  })
