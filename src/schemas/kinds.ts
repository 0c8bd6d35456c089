/**
 * Every kind of RouteSpec JSON, by its `respond.kind`: the route kinds' table (`routes/kinds.ts`)
 * and the MCP route kind, a room of its own one floor up. The `Respond` Schema
 * (`schemas/routeSpec.ts`) and decoding (`schemas/decode.ts`) read every kind from here; it is not
 * part of the public `Schemas`, its builders being machinery.
 */
import { mcpKind } from "../mcp-route/mcpSpec.ts"
import { ROUTE_KINDS } from "../routes/kinds.ts"

/** Each kind's `respond` Schema and builder, by its kind. */
export const KINDS = { ...ROUTE_KINDS, mcp: mcpKind } as const
