/**
 * The `handler` kind in RouteSpec JSON: a handler registered in code under a name, looked up in the
 * decoding context's `handlers`.
 */
import { Effect, Schema } from "effect"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { at, routeKind } from "../spec.ts"
import { handler } from "./handler.ts"

/** `{ kind: "handler", name }`: a handler registered in code under that name. */
export const HandlerRespond = Schema.Struct({
  kind: Schema.Literal("handler"),
  name: Schema.String
})

/** The `handler` kind: an unknown name is refused at `respond.name`, listing the handlers there are. */
export const handlerKind = routeKind(HandlerRespond, (match, r, options, path, context) => {
  const named = context.handlers?.get(r.name)
  if (named !== undefined) return Effect.succeed(handler(match, named, options))
  const known = [...(context.handlers?.keys() ?? [])].sort()
  return Effect.fail(
    new InvalidRouteSpec({
      path: at(path, "name"),
      message: `no handler named "${r.name}"; registered handlers: ${known.join(", ") || "(none)"}`
    })
  )
})
