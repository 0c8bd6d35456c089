/**
 * The `webSocket` kind in RouteSpec JSON: a scripted session (frames on open, replies to the frames
 * that come in, an echo, a close).
 */
import { Effect, Schema } from "effect"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { at, decodeBase64, routeKind } from "../spec.ts"
import { webSocket } from "./webSocket.ts"

/** One frame of a scripted WebSocket: text, or `{ base64 }` for a binary frame. */
const WebSocketFrame = Schema.Union([Schema.String, Schema.Struct({ base64: Schema.String })])

/** A close code a server may send: 1000–1003, 1007–1014, or an application's 3000–4999. */
const CloseCode = Schema.Union([
  Schema.Literals([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014]),
  Schema.Int.check(Schema.isBetween({ minimum: 3000, maximum: 4999 }))
])

/**
 * `{ kind: "webSocket", open?, replies?, echo? }`: frames sent when the socket opens; replies to
 * incoming frames (`when: { equals?, contains? }`, first match first: `send` frames, then
 * `close` if given); `echo` sends back a frame no reply matches.
 */
export const WebSocketRespond = Schema.Struct({
  kind: Schema.Literal("webSocket"),
  open: Schema.optional(Schema.Array(WebSocketFrame)),
  replies: Schema.optional(
    Schema.Array(
      Schema.Struct({
        when: Schema.optional(
          Schema.Struct({ equals: Schema.optional(Schema.String), contains: Schema.optional(Schema.String) })
        ),
        send: Schema.optional(Schema.Array(WebSocketFrame)),
        close: Schema.optional(
          Schema.Struct({
            code: Schema.optional(CloseCode),
            reason: Schema.optional(Schema.String.check(Schema.isMaxLength(123)))
          })
        )
      })
    )
  ),
  echo: Schema.optional(Schema.Boolean)
})

/** The `webSocket` kind: a binary frame whose base64 does not decode is refused at its path. */
export const webSocketKind = routeKind(WebSocketRespond, (match, r, options, path) => {
  const frames = [
    ...(r.open ?? []).map((frame, i) => [`open[${i}]`, frame] as const),
    ...(r.replies ?? []).flatMap((reply, i) =>
      (reply.send ?? []).map((frame, j) => [`replies[${i}].send[${j}]`, frame] as const)
    )
  ]
  const bad = frames.find(([, frame]) => typeof frame !== "string" && decodeBase64(frame.base64) === undefined)
  return bad !== undefined
    ? Effect.fail(new InvalidRouteSpec({ path: at(path, `${bad[0]}.base64`), message: "not valid base64" }))
    : Effect.succeed(webSocket(match, { open: r.open, replies: r.replies, echo: r.echo }, options))
})
