/**
 * The `handler` route kind: answers with code. The handler sees the request (with the path
 * parameters of its pattern) and returns a `Response`, a promise of one, or an Effect; a thrown
 * error or rejected promise becomes a `RouteFailed` for that request.
 */
import { Effect } from "effect"
import type { DirectResponder, RespondContext, Responder, SimRequest } from "../registry/route.ts"
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
 * How a handler route answers; `label` names the route in errors. `respondDirect` answers outside
 * Effect when the handler returns a `Response` or a promise (an Effect it returns runs with the
 * network's services), so most requests cost no fiber; `respond` is the same as an Effect.
 */
export const handlerResponder = (fn: Handler, label: string): { readonly respond: Responder; readonly respondDirect: DirectResponder } => {
  const fail = (cause: unknown) => new RouteFailed({ route: label, message: `handler failed: ${errorMessage(cause)}`, cause })
  const respond: Responder = (request, context) =>
    Effect.suspend(() => {
      const result = fn(request, context)
      if (result instanceof Response) return Effect.succeed(result)
      if (Effect.isEffect(result)) return result
      return Effect.tryPromise({ try: () => Promise.resolve(result), catch: fail })
    }).pipe(Effect.catchDefect((cause) => Effect.fail(fail(cause))))
  const respondDirect = (request: SimRequest, context: RespondContext): Response | Promise<Response> => {
    let result: HandlerResult
    try {
      result = fn(request, context)
    } catch (cause) {
      return Promise.reject(fail(cause))
    }
    if (result instanceof Response) return result
    if (Effect.isEffect(result)) return context.run(Effect.catchDefect(result, (cause) => Effect.fail(fail(cause))), request.signal)
    return Promise.resolve(result).catch((cause) => Promise.reject(fail(cause)))
  }
  return { respond, respondDirect }
}
