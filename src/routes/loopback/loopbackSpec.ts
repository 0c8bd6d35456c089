/**
 * The `loopback` kind in RouteSpec JSON: requests let through to the app's own local server.
 */
import { Effect, Schema } from "effect"
import { routeKind } from "../spec.ts"
import { loopback } from "./loopback.ts"

/** `{ kind: "loopback" }` */
export const LoopbackRespond = Schema.Struct({
  kind: Schema.Literal("loopback")
})

/** The `loopback` kind. */
export const loopbackKind = routeKind(LoopbackRespond, (match, _r, options) => Effect.succeed(loopback(match, options)))
