/**
 * The `sse` kind in RouteSpec JSON: server-sent events, served as `Route.sse` serves them.
 */
import { Effect, Schema } from "effect"
import { RespondMillis, routeKind } from "../spec.ts"
import { SSE_FIELDS, sse } from "./sse.ts"

/**
 * `{ kind: "sse", events, retryMs?, intervalMs?, status?, headers? }`: server-sent events, each
 * `{ data, event?, id?, delayMs? }` (`data` a string, or any JSON value sent as its JSON);
 * `retryMs` is sent first as the client's reconnection time; `intervalMs` waits before each
 * event after the first (an event's `delayMs` instead). See `Route.sse`.
 */
export const SseRespond = Schema.Struct({
  kind: Schema.Literal("sse"),
  events: Schema.Array(
    Schema.Struct({
      data: Schema.Unknown,
      event: Schema.optional(Schema.String),
      id: Schema.optional(Schema.String),
      delayMs: Schema.optional(RespondMillis)
    })
  ),
  ...SSE_FIELDS
})

/** The `sse` kind: its times in milliseconds are `Route.sse`'s durations. */
export const sseKind = routeKind(SseRespond, (match, r, options) =>
  Effect.succeed(
    sse(
      match,
      r.events.map((e) => ({ data: e.data, event: e.event, id: e.id, delay: e.delayMs })),
      {
        ...options,
        retry: r.retryMs,
        interval: r.intervalMs,
        status: r.status,
        headers: r.headers
      }
    )
  )
)
