/**
 * The route kinds of RouteSpec JSON, in one table: each kind's name, the Schema of its `respond`
 * object and its builder (`RouteKind`, from the kind's own `KINDSpec.ts`). RouteSpec decoding and
 * the `Respond` Schema (`schemas/routeSpec.ts`, which adds the MCP route kind from its own room) read
 * every kind from here rather than from a `switch`, so a new kind is a folder and a line here.
 */
import { faultKind } from "./fault/faultSpec.ts"
import { graphqlKind } from "./graphql/graphqlSpec.ts"
import { handlerKind } from "./handler/handlerSpec.ts"
import { jsonSchemaKind } from "./jsonSchema/jsonSchemaSpec.ts"
import { loopbackKind } from "./loopback/loopbackSpec.ts"
import { sseKind } from "./sse/sseSpec.ts"
import { bytesKind, statusKind, textKind } from "./static/staticSpec.ts"
import { webSocketKind } from "./webSocket/webSocketSpec.ts"

/** Every kind of `routes/`, by its `respond.kind`. */
export const ROUTE_KINDS = {
  jsonSchema: jsonSchemaKind,
  text: textKind,
  bytes: bytesKind,
  status: statusKind,
  handler: handlerKind,
  loopback: loopbackKind,
  fault: faultKind,
  webSocket: webSocketKind,
  sse: sseKind,
  graphql: graphqlKind
} as const
