/**
 * The `webSocket` route kind: a route that answers a WebSocket. A request that asks to be
 * upgraded (`Upgrade: websocket` with its key) is answered `101` and its session runs on the
 * socket; any other request to the route gets `426 Upgrade Required`, as from a real WebSocket
 * server. The session is the route's own code (`Route.webSocket(match, handler)`) or a script of
 * RouteSpec JSON: frames sent on open, replies to the frames that come in (first match wins), an
 * echo of the rest when asked, and a close.
 *
 * Which doors can upgrade: the Node door (`simnet serve`, through `/HOST/PATH`, as a proxy and
 * inside its `CONNECT` tunnels) and `network.createConnection` in process. `fetch` and
 * `HttpClient` cannot, so they see the `426`.
 */
import { Effect } from "effect"
import { upgraded, whole } from "../../registry/answer.ts"
import type { RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { asksForWebSocket, type Frame, type SocketPeer } from "../../registry/socket.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import { checked, ROUTE_OPTIONS_ONLY } from "../codeOptions.ts"
import { make, type RouteOptions, type RouteParts } from "../make.ts"

export type { Frame, SocketPeer } from "../../registry/socket.ts"

/**
 * A WebSocket route's session: runs when the socket opens, with the request that opened it. A
 * throw, or a rejected promise or failed Effect it returns, closes the socket with `1011`.
 */
export type WebSocketHandler = (
  socket: SocketPeer,
  request: SimRequest,
  context: RespondContext
) => void | PromiseLike<void> | Effect.Effect<void, unknown>

/** What a client that did not ask to upgrade gets from a WebSocket route. */
export const upgradeRequired = whole(
  426,
  { "content-type": "text/plain; charset=utf-8", upgrade: "websocket", connection: "Upgrade" },
  "simnet: this route answers WebSocket connections only (Upgrade: websocket)\n"
)

const failed = (socket: SocketPeer) => () => socket.close(1011, "simnet: the route's session failed")

/** The parts of a WebSocket route whose session is `handler`. */
export const webSocketResponder = (handler: WebSocketHandler): RouteParts => ({
  answer: (request, context) =>
    asksForWebSocket(request.headers)
      ? upgraded((socket) => {
          try {
            const ran = handler(socket, request, context)
            if (Effect.isEffect(ran)) void context.run(ran as Effect.Effect<void, unknown>).catch(failed(socket))
            else if (ran !== undefined && typeof (ran as PromiseLike<void>).then === "function")
              (ran as PromiseLike<void>).then(undefined, failed(socket))
          } catch {
            failed(socket)()
          }
        }, upgradeRequired)
      : upgradeRequired,
  describe: { kind: "webSocket" }
})

/** One frame of a scripted session: text, or bytes given in base64. */
export type ScriptFrame = string | { readonly base64: string }

/** A reply of a scripted session: to the first incoming frame `when` matches (any frame without one). */
export interface WebSocketReply {
  readonly when?: { readonly equals?: string | undefined; readonly contains?: string | undefined } | undefined
  readonly send?: ReadonlyArray<ScriptFrame> | undefined
  readonly close?: { readonly code?: number | undefined; readonly reason?: string | undefined } | undefined
}

/** A scripted session (RouteSpec `{ kind: "webSocket" }`). */
export interface WebSocketScript {
  /** Frames sent as soon as the socket opens. */
  readonly open?: ReadonlyArray<ScriptFrame> | undefined
  /** Replies to incoming frames, first match first. */
  readonly replies?: ReadonlyArray<WebSocketReply> | undefined
  /** Whether a frame no reply matches is sent back as it came. */
  readonly echo?: boolean | undefined
}

const frameOf = (frame: ScriptFrame): Frame =>
  typeof frame === "string" ? frame : new Uint8Array(Buffer.from(frame.base64, "base64"))

const matches = (reply: WebSocketReply, frame: Frame): boolean => {
  const when = reply.when
  if (when === undefined) return true
  const text = typeof frame === "string" ? frame : Buffer.from(frame).toString("utf8")
  return (
    (when.equals === undefined || text === when.equals) && (when.contains === undefined || text.includes(when.contains))
  )
}

/** The session of a script: its open frames, then a reply (or echo) to each frame that comes in. */
export const scriptedSession =
  (script: WebSocketScript): WebSocketHandler =>
  (socket) => {
    for (const frame of script.open ?? []) socket.send(frameOf(frame))
    socket.onMessage((frame) => {
      const reply = script.replies?.find((candidate) => matches(candidate, frame))
      if (reply === undefined) {
        if (script.echo === true) socket.send(frame)
        return
      }
      for (const out of reply.send ?? []) socket.send(frameOf(out))
      if (reply.close !== undefined) socket.close(reply.close.code ?? 1000, reply.close.reason ?? "")
    })
  }

const httpScheme = (url: string): string => url.replace(/^ws(s?):\/\//i, "http$1://")

/**
 * A WebSocket route's matcher as the network sees its requests: `wss://` and `ws://` are the
 * `https://` and `http://` of the upgrade request, and a matcher that names no method is `GET`.
 */
export const webSocketMatch = (match: MatcherInput): MatcherInput => {
  if (typeof match === "string") {
    const trimmed = match.trim()
    return /^[a-z]+:\/\//i.test(trimmed)
      ? `GET ${httpScheme(trimmed)}`
      : trimmed.replace(/^(\S+\s+)(wss?:\/\/)/i, (_all, method: string, scheme: string) => method + httpScheme(scheme))
  }
  if (typeof match !== "object" || match === null) return match
  return {
    ...match,
    method: match.method ?? "GET",
    ...(typeof match.url === "string" ? { url: httpScheme(match.url) } : {})
  }
}

/**
 * Answers WebSocket connections (kind `webSocket`): a request that asks to upgrade gets `101` and
 * `handler` runs on the socket (frames out with `send`, in with `onMessage`, `close`); any other
 * request gets `426 Upgrade Required`. Upgrades happen through `simnet serve` (also as a proxy and
 * in its tunnels) and `network.createConnection` in process; `fetch` cannot upgrade. A matcher
 * without a method matches `GET`.
 *
 * @example Route.webSocket("wss://echo.example.com/ws", (socket) => socket.onMessage((frame) => socket.send(frame)))
 */
export const webSocket = (
  match: MatcherInput,
  handler: WebSocketHandler | WebSocketScript,
  options: RouteOptions = {}
): Route =>
  checked("webSocket", ROUTE_OPTIONS_ONLY, options, () =>
    make(
      "webSocket",
      webSocketMatch(match),
      webSocketResponder(typeof handler === "function" ? handler : scriptedSession(handler)),
      options
    )
  )
