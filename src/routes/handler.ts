/**
 * The `handler` route kind: answers with code. The handler sees the request (with the path
 * parameters of its pattern) and returns a `Response`, a promise of one, or an Effect; a thrown
 * error or rejected promise becomes a `RouteFailed` for that request.
 */
import { Effect } from "effect"
import type { RespondContext, Responder, SimRequest } from "../registry/route.ts"
import { errorMessage } from "../registry/util.ts"
import { RouteFailed, type SimnetError } from "../SimnetError.ts"

/**
 * What a `handler` route's function may return: a `Response`, a promise of one, or an Effect.
 */
export type HandlerResult = Response | PromiseLike<Response> | Effect.Effect<Response, SimnetError>

/**
 * The function behind a `handler` route. It sees the request with its path parameters.
 */
export type Handler = (request: SimRequest, context: RespondContext) => HandlerResult

/**
 * The responder of a handler route; `label` names the route in errors.
 */
export const handlerResponder = (fn: Handler, label: string): Responder => {
  const fail = (cause: unknown) => new RouteFailed({ route: label, message: `handler failed: ${errorMessage(cause)}`, cause })
  return (request, context) =>
    Effect.suspend(() => {
      const result = fn(request, context)
      if (result instanceof Response) return Effect.succeed(result)
      if (Effect.isEffect(result)) return result
      return Effect.tryPromise({ try: () => Promise.resolve(result), catch: fail })
    }).pipe(Effect.catchDefect((cause) => Effect.fail(fail(cause))))
}
