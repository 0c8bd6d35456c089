/**
 * The WebSocket half of the Node door: a `101` that carries a session (`Whole.upgrade`, from a
 * `webSocket` route or a model API that speaks WebSocket) is completed on the upgrade's socket by
 * `ws` (the handshake, framing, masking, ping/pong, close codes), and the session gets the socket
 * as a `SocketPeer`. Frames a session has not started listening for yet are held for it.
 */
import type * as http from "node:http"
import { createRequire } from "node:module"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import type * as Ws from "ws"
import type { RawData, WebSocket } from "ws"
import type { Frame, SocketPeer, SocketSession } from "../core/socket.ts"

/**
 * A Node response on an upgrade's socket, for an answer that is not a WebSocket: the door writes
 * it as any response, then the socket closes.
 */
export const upgradeResponse = (req: http.IncomingMessage, socket: Duplex): http.ServerResponse => {
  const res = new (process.getBuiltinModule("node:http") as typeof http).ServerResponse(req)
  res.shouldKeepAlive = false
  res.assignSocket(socket as Socket)
  res.once("finish", () => {
    res.detachSocket(socket as Socket)
    socket.end()
  })
  return res
}

/** An upgrade request's socket and the bytes that came after its head. */
export interface Upgrading {
  readonly socket: Duplex
  readonly head: Buffer
}

/** A frame `ws` delivered, as a route sees it: text decoded as UTF-8, binary as bytes. */
export const frameOf = (data: RawData, isBinary: boolean): Frame => {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
  return isBinary ? new Uint8Array(bytes) : bytes.toString("utf8")
}

/** A close code as one side can send it on: `1005` (none given) and `1006` (dropped) are only ever reported, so they go on as `1000`. */
export const sendableClose = (code: number): number => (code === 1005 || code === 1006 ? 1000 : code)

/** A `ws` socket as a route's `SocketPeer`. */
const peerOf = (ws: WebSocket): SocketPeer => {
  let held: Array<Frame> | undefined = []
  let listener: ((frame: Frame) => void) | undefined
  ws.on("message", (data, isBinary) => {
    const frame = frameOf(data, isBinary)
    if (listener !== undefined) listener(frame)
    else held?.push(frame)
  })
  ws.on("error", () => ws.terminate())
  const open = () => ws.readyState === ws.OPEN
  return {
    send: (frame) => {
      if (open()) ws.send(frame, { binary: typeof frame !== "string" })
    },
    close: (code = 1000, reason = "") => {
      if (ws.readyState === ws.CONNECTING || open()) ws.close(code, reason)
    },
    onMessage: (next) => {
      listener = next
      const waiting = held ?? []
      held = undefined
      for (const frame of waiting) next(frame)
    },
    onClose: (next) => {
      if (ws.readyState === ws.CLOSED) return next(1006, "")
      ws.once("close", (code, reason) => next(code, reason.toString()))
    },
    closed: () => !open()
  }
}

/**
 * Completes upgrades for a door whose requests may carry up to `maxPayload` bytes: the handshake
 * on the socket, then `session` runs on the peer; `ended` is called when the socket closes. A
 * handshake `ws` refuses (a bad key or version) gets its 400 from `ws` and ends at once.
 */
export const webSocketAcceptor = (maxPayload: number) => {
  // `ws` is loaded with the first upgrade: a network that never upgrades never loads it.
  let server: Ws.WebSocketServer | undefined
  return (req: http.IncomingMessage, upgrade: Upgrading, session: SocketSession, ended: () => void): void => {
    upgrade.socket.once("close", ended)
    server ??= new (createRequire(import.meta.url)("ws") as typeof Ws).WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload, clientTracking: false })
    server.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      const peer = peerOf(ws)
      try {
        session(peer)
      } catch {
        peer.close(1011, "simnet: the route's session failed")
      }
    })
  }
}
