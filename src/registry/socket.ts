/**
 * A WebSocket as a route sees it once a door has upgraded the connection: frames out (`send`),
 * frames in (`onMessage`), and the close. The doors make one over a real `ws` socket (the Node
 * door: `simnet serve`, its proxy tunnels, and `network.createConnection` in process); a route
 * kind (`webSocket`, the model APIs that speak WebSocket) runs its session on it.
 */

/** One frame: text for a text frame, bytes for a binary one. */
export type Frame = string | Uint8Array

export interface SocketPeer {
  /**
   * Sends one frame; a no-op once the socket is closed. A client that does not read what is sent
   * to it is paused, then closed at a bound (`SOCKET_HIGH_WATER`, `SOCKET_SEND_LIMIT`): a session
   * that sends unasked (a relay, a stream) waits for `writable` between frames.
   */
  readonly send: (frame: Frame) => void
  /**
   * Undefined when the client takes what is sent to it; else a promise that resolves once what
   * waits for it is drained (or the socket closed): the door's back-pressure, for sessions that
   * send more than they are asked for.
   */
  readonly writable: () => Promise<void> | undefined
  /**
   * Stops reading the client's frames (they wait in its connection) until `resume`: how a relay
   * holds a client back while the other side is not keeping up.
   */
  readonly pause: () => void
  /** Reads the client's frames again after `pause`. */
  readonly resume: () => void
  /** Closes the socket with `code` (default 1000) and `reason`; a no-op once it is closed. */
  readonly close: (code?: number, reason?: string) => void
  /** Called with each frame the client sends, in order. */
  readonly onMessage: (listener: (frame: Frame) => void) => void
  /** Called once when the socket closes, from either side, with the close code and reason. */
  readonly onClose: (listener: (code: number, reason: string) => void) => void
  /** Whether the socket is closed. */
  readonly closed: () => boolean
}

/**
 * Bytes waiting to be sent to a WebSocket's client past which the door stops reading that
 * client's frames until they are drained (1 MiB): an echo, or any session that answers what it
 * reads, holds at most about this much for a client that does not read.
 */
export const SOCKET_HIGH_WATER = 1024 * 1024

/**
 * Bytes waiting to be sent to a WebSocket's client past which a frame sent to it closes the
 * socket instead (16 MiB; close code 1008, logged): a session that sends unasked to a client that
 * does not read holds at most this much and one frame.
 */
export const SOCKET_SEND_LIMIT = 16 * 1024 * 1024

/** What a route does with an accepted socket: runs its session until the socket closes. */
export type SocketSession = (peer: SocketPeer) => void

/**
 * The request headers of a WebSocket client's own handshake: not passed on when the request is
 * sent on in another form (to an upstream by record mode, as an HTTP call by the Responses
 * WebSocket).
 */
export const HANDSHAKE_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "upgrade",
  "connection",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-extensions",
  "sec-websocket-protocol",
  "content-length",
  "transfer-encoding"
])

/** Whether a request asks to be upgraded to a WebSocket (`Upgrade: websocket` and a key). */
export const asksForWebSocket = (headers: Headers | Readonly<Record<string, string>>): boolean => {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? undefined
  return get("upgrade")?.toLowerCase() === "websocket" && get("sec-websocket-key") !== undefined
}
