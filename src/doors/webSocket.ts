/**
 * The WebSocket half of the Node door: a `101` that carries a session (`Whole.upgrade`, from a
 * `webSocket` route or a model API that speaks WebSocket) is completed on the upgrade's socket by
 * `ws` (the handshake, framing, masking, ping/pong, close codes), and the session gets the socket
 * as a `SocketPeer`. Frames a session has not started listening for yet are held for it. A client
 * that does not read is paused, then closed at a bound (`peerOf`).
 */
import type * as http from "node:http"
import { createRequire } from "node:module"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import type * as Ws from "ws"
import type { RawData, WebSocket } from "ws"
import type { SocketLog, Upgrade } from "../registry/answer.ts"
import { type Frame, SOCKET_HIGH_WATER, SOCKET_SEND_LIMIT, type SocketPeer } from "../registry/socket.ts"

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
  const bytes = Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
  return isBinary ? new Uint8Array(bytes) : bytes.toString("utf8")
}

/** A close code as one side can send it on: `1005` (none given) and `1006` (dropped) are only ever reported, so they go on as `1000`. */
export const sendableClose = (code: number): number => (code === 1005 || code === 1006 ? 1000 : code)

/**
 * A `ws` socket as a route's `SocketPeer`, with back-pressure: once more than
 * `SOCKET_HIGH_WATER` bytes wait to be sent to the client, its frames are not read (nor answered)
 * until they drain; a frame sent while more than `SOCKET_SEND_LIMIT` wait closes the socket
 * instead (1008). Frames that come before the session listens are held, and reading stops while
 * they are over the mark too. `log` is told of each pause and of the close.
 */
const peerOf = (ws: WebSocket, socket: Duplex, log: ((event: SocketLog) => void) | undefined): SocketPeer => {
  let held: Array<Frame> | undefined = []
  let heldBytes = 0
  let listener: ((frame: Frame) => void) | undefined
  /** The session asked for a pause; what waits for the client is over the mark. */
  let asked = false
  let backedUp = false
  let pauses = 0
  /** How the socket was closed, when simnet or the session closed it (the client's close is read off the socket). */
  let closing: { readonly code: number; readonly reason: string; readonly by: "session" | "simnet" } | undefined
  let waiters: Array<() => void> = []
  const reading = () => {
    if (asked || backedUp || heldBytes > SOCKET_HIGH_WATER) ws.pause()
    else ws.resume()
  }
  const wake = () => {
    const woken = waiters
    waiters = []
    for (const resolve of woken) resolve()
  }
  // `drain` comes once the socket has written everything it held.
  socket.on("drain", () => {
    if (!backedUp || ws.bufferedAmount > SOCKET_HIGH_WATER) return
    backedUp = false
    reading()
    wake()
  })
  ws.on("message", (data, isBinary) => {
    const frame = frameOf(data, isBinary)
    if (listener !== undefined) return listener(frame)
    if (held === undefined) return
    held.push(frame)
    heldBytes += sizeOf(frame)
    reading()
  })
  ws.on("error", () => ws.terminate())
  ws.once("close", (code, reason) => {
    wake()
    log?.({ closed: closing ?? { code, reason: reason.toString(), by: "client" } })
  })
  const open = () => ws.readyState === ws.OPEN
  return {
    send: (frame) => {
      if (!open()) return
      const waiting = ws.bufferedAmount
      if (waiting > SOCKET_SEND_LIMIT) {
        // The client read nothing while the bound filled: its connection goes, and what waited with it.
        closing = {
          code: 1008,
          reason: `simnet: the client read nothing while ${waiting} bytes waited for it`,
          by: "simnet"
        }
        return ws.terminate()
      }
      ws.send(frame, { binary: typeof frame !== "string" })
      if (backedUp || ws.bufferedAmount <= SOCKET_HIGH_WATER) return
      backedUp = true
      log?.({ paused: ++pauses })
      reading()
    },
    writable: () =>
      backedUp && ws.readyState !== ws.CLOSED ? new Promise<void>((resolve) => void waiters.push(resolve)) : undefined,
    pause: () => {
      asked = true
      reading()
    },
    resume: () => {
      asked = false
      reading()
    },
    close: (code = 1000, reason = "") => {
      if (ws.readyState !== ws.CONNECTING && !open()) return
      closing ??= { code, reason, by: "session" }
      ws.close(code, reason)
    },
    onMessage: (next) => {
      listener = next
      const waiting = held ?? []
      held = undefined
      heldBytes = 0
      for (const frame of waiting) next(frame)
      reading()
    },
    onClose: (next) => {
      if (ws.readyState === ws.CLOSED) return next(closing?.code ?? 1006, closing?.reason ?? "")
      ws.once("close", (code, reason) => next(closing?.code ?? code, closing?.reason ?? reason.toString()))
    },
    closed: () => !open()
  }
}

const sizeOf = (frame: Frame) => (typeof frame === "string" ? Buffer.byteLength(frame) : frame.byteLength)

/**
 * Completes upgrades for a door whose requests may carry up to `maxPayload` bytes: the handshake
 * on the socket, then `session` runs on the peer; `ended` is called when the socket closes. A
 * handshake `ws` refuses (a bad key or version) gets its 400 from `ws` and ends at once.
 */
export const webSocketAcceptor = (maxPayload: number) => {
  // `ws` is loaded with the first upgrade: a network that never upgrades never loads it.
  let server: Ws.WebSocketServer | undefined
  return (req: http.IncomingMessage, upgrade: Upgrading, answer: Upgrade, ended: () => void): void => {
    upgrade.socket.once("close", ended)
    server ??= new (createRequire(import.meta.url)("ws") as typeof Ws).WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      maxPayload,
      clientTracking: false
    })
    server.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      const peer = peerOf(ws, upgrade.socket, answer.log)
      try {
        answer.accept(peer)
      } catch {
        peer.close(1011, "simnet: the route's session failed")
      }
    })
  }
}
