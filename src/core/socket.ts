/**
 * A WebSocket as a route sees it once a door has upgraded the connection: frames out (`send`),
 * frames in (`onMessage`), and the close. The doors make one over a real `ws` socket (the Node
 * door: `simnet serve`, its proxy tunnels, and `network.createConnection` in process); a route
 * kind (`webSocket`, the model APIs that speak WebSocket) runs its session on it.
 */

/** One frame: text for a text frame, bytes for a binary one. */
export type Frame = string | Uint8Array

export interface SocketPeer {
  /** Sends one frame; a no-op once the socket is closed. */
  readonly send: (frame: Frame) => void
  /** Closes the socket with `code` (default 1000) and `reason`; a no-op once it is closed. */
  readonly close: (code?: number, reason?: string) => void
  /** Called with each frame the client sends, in order. */
  readonly onMessage: (listener: (frame: Frame) => void) => void
  /** Called once when the socket closes, from either side, with the close code and reason. */
  readonly onClose: (listener: (code: number, reason: string) => void) => void
  /** Whether the socket is closed. */
  readonly closed: () => boolean
}

/** What a route does with an accepted socket: runs its session until the socket closes. */
export type SocketSession = (peer: SocketPeer) => void

/**
 * The request headers of a WebSocket client's own handshake: not passed on when the request is
 * sent on in another form (to an upstream by record mode, as an HTTP call by the Responses
 * WebSocket).
 */
export const HANDSHAKE_HEADERS: ReadonlySet<string> = new Set([
  "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol", "content-length", "transfer-encoding"
])

/** Whether a request asks to be upgraded to a WebSocket (`Upgrade: websocket` and a key). */
export const asksForWebSocket = (headers: Headers | Readonly<Record<string, string>>): boolean => {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? undefined
  return get("upgrade")?.toLowerCase() === "websocket" && get("sec-websocket-key") !== undefined
}
