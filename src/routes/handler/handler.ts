/**
 * The `handler` route kind: answers with code. The handler sees the request (with the path
 * parameters of its pattern) and returns a `Response`, a promise of one, or an Effect; a thrown
 * error or rejected promise becomes a `RouteFailed` for that request.
 */
import { Effect } from "effect"
import { fromResponse, later, pending, refused } from "../../registry/answer.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import type { Answerer, RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { errorMessage } from "../../registry/util.ts"
import { RouteFailed, type SimnetError } from "../../SimnetError.ts"
import { checked, ROUTE_OPTIONS_ONLY } from "../codeOptions.ts"
import { make, type RouteOptions, usable } from "../make.ts"

/**
 * What a `handler` route's function may return: a `Response`, a promise of one, or an Effect.
 */
export type HandlerResult = Response | PromiseLike<Response> | Effect.Effect<Response, SimnetError>

/**
 * The function behind a `handler` route. It sees the request with its path parameters.
 */
export type Handler = (request: SimRequest, context: RespondContext) => HandlerResult

/**
 * How a handler route answers; `label` names the route in errors. A `Response` answers at once
 * and a promise is awaited outside Effect, so most requests cost no fiber; an Effect the handler
 * returns is run by the door (in the caller's fiber for `HttpClient`).
 */
export const handlerResponder = (fn: Handler, label: string): { readonly answer: Answerer } => {
  const fail = (cause: unknown) =>
    new RouteFailed({ route: label, reason: "handler", message: `handler failed: ${errorMessage(cause)}`, cause })
  const answer: Answerer = (request, context) => {
    let result: HandlerResult
    try {
      result = fn(request, context)
    } catch (cause) {
      return refused(fail(cause))
    }
    if (result instanceof Response) return fromResponse(result)
    if (Effect.isEffect(result)) return pending(Effect.catchDefect(result, (cause) => Effect.fail(fail(cause))))
    return later(
      Promise.resolve(result).catch((cause) => Promise.reject(fail(cause))),
      label
    )
  }
  return { answer }
}

/**
 * Answers with code. The handler sees the request (with `params` from the path pattern) and
 * returns a `Response`, a promise of one, or an Effect. A thrown error or rejected promise
 * becomes a `RouteFailed` for that request.
 *
 * @example Route.handler("GET https://api.example.com/items/:id", (req) => Response.json({ id: req.params.id }))
 */
export const handler = (match: MatcherInput, fn: Handler, options: RouteOptions = {}): Route =>
  checked("handler", ROUTE_OPTIONS_ONLY, options, () =>
    make("handler", match, handlerResponder(fn, usable(options).id ?? "handler"), options)
  )
