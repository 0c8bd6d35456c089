/**
 * The `fault` route kind: answers that break the way real networks break.
 * - `reset`: headers arrive, then the connection drops mid-body (the body stream errors);
 * - `timeout`: no answer ever comes; the client's own timeout or abort decides;
 * - `malformed-body`: status 200, `application/json`, and a truncated JSON document.
 */
import { pending, refused, streamed } from "../../registry/answer.ts"
import { Effect } from "effect"
import { malformedAnswer, resetAnswer } from "../../registry/faultAnswer.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import type { Route } from "../../registry/route.ts"
import { checked, ROUTE_OPTIONS_ONLY } from "../codeOptions.ts"
import { make, type RouteOptions, type RouteParts } from "../make.ts"

/**
 * The faults a route can inject.
 */
export type Fault = "reset" | "timeout" | "malformed-body"

/**
 * Every fault, for validation and listing.
 */
export const FAULTS: ReadonlyArray<Fault> = ["reset", "timeout", "malformed-body"]

/**
 * The parts of a fault route. An unknown fault is refused at registration.
 */
export const faultResponder = (fault: Fault): RouteParts => {
  const describe = { fault }
  switch (fault) {
    case "timeout":
      return { answer: () => pending(Effect.never), describe, fault: "timeout" }
    case "malformed-body":
      return { answer: () => streamed(malformedAnswer()), describe, fault: "malformed" }
    case "reset":
      return { answer: () => streamed(resetAnswer()), describe, fault: "reset" }
    default: {
      const error = new InvalidRouteSpec({
        path: "respond.fault",
        message: `unknown fault "${String(fault)}"; expected one of ${FAULTS.join(", ")}`
      })
      return { answer: () => refused(error), prepare: Effect.fail(error), describe }
    }
  }
}

/**
 * Breaks the way a real network breaks: `reset` (connection drops mid-body), `timeout` (no answer
 * ever comes; the client's timeout decides), `malformed-body` (200 with truncated JSON).
 */
export const fault = (match: MatcherInput, kind: Fault, options: RouteOptions = {}): Route =>
  checked("fault", ROUTE_OPTIONS_ONLY, options, () => make("fault", match, faultResponder(kind), options))
