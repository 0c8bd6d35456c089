/**
 * The `fault` kind in RouteSpec JSON: a route that breaks the way a real network breaks.
 */
import { Effect, Schema } from "effect"
import { routeKind } from "../spec.ts"
import { fault } from "./fault.ts"

/** `{ kind: "fault", fault }` */
export const FaultRespond = Schema.Struct({
  kind: Schema.Literal("fault"),
  fault: Schema.Literals(["reset", "timeout", "malformed-body"])
})

/** The `fault` kind. */
export const faultKind = routeKind(FaultRespond, (match, r, options) => Effect.succeed(fault(match, r.fault, options)))
