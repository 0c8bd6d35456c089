/**
 * Record mode for WebSockets: an upgrade no route answers is opened to its real upstream (or the
 * one given for its host) with the client's headers, the client's upgrade is completed only once
 * the upstream's is (an upstream that refuses gets the client the same status), and every frame
 * is relayed both ways as it comes. What was said is kept as a `webSocket` script: the frames the
 * upstream sent before the client's first (`open`), then per client frame the frames that
 * answered it (`replies`, matched by the client frame's text). A session is kept when it closes,
 * bounded as any recording; no request header is kept.
 */
import { createRequire } from "node:module"
import { hostLocalMessage, isHostLocal, publicLookup } from "../../registry/hostLocal.ts"
import type * as Ws from "ws"
import { whole, upgraded, type Whole } from "../../registry/answer.ts"
import type { Redactor } from "../../registry/redact.ts"
import type { SimRequest } from "../../registry/request.ts"
import { type Frame, HANDSHAKE_HEADERS, SOCKET_HIGH_WATER, type SocketPeer } from "../../registry/socket.ts"
import { frameOf, sendableClose } from "../../doors/webSocket.ts"
import {
  type ScriptFrame,
  upgradeRequired,
  type WebSocketReply,
  type WebSocketScript
} from "../../routes/webSocket/webSocket.ts"

/** A WebSocket session as record mode keeps it. */
export interface RecordedSocket {
  readonly open: ReadonlyArray<Frame>
  readonly replies: ReadonlyArray<{ readonly client: Frame; readonly server: ReadonlyArray<Frame> }>
}

const sizeOf = (frame: Frame) => (typeof frame === "string" ? frame.length * 2 : frame.byteLength)

/** What the recorder is told of a session while it is open, so a recording made meanwhile holds it as it stands. */
export interface SocketWatch {
  readonly opened: (session: RecordedSocket) => void
  readonly changed: () => void
  readonly closed: (session: RecordedSocket) => void
}

/**
 * The answer of record mode to an upgrade request for `target`: the upstream's upgrade, then the
 * relay. `keep` is given the session and its frames' size when it ends, if it stayed under `limit`
 * bytes; `watch` hears of it while it is open (a recording written before it ends holds it). With
 * `publicOnly`, no address on the host's own networks is reached (`hostLocal.ts`).
 */
export const recordSocket = (
  request: SimRequest,
  target: URL,
  limit: number,
  keep: (session: RecordedSocket, bytes: number) => void,
  watch?: SocketWatch,
  publicOnly = false
): Promise<Whole> =>
  new Promise((resolve) => {
    const ws = createRequire(import.meta.url)("ws") as typeof Ws
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      if (!HANDSHAKE_HEADERS.has(name)) headers[name] = value
    })
    const protocols = request.headers
      .get("sec-websocket-protocol")
      ?.split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "")
    const url = new URL(target)
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:"
    const failed = (status: number, text: string) =>
      resolve(whole(status, { "content-type": "text/plain; charset=utf-8" }, text))
    if (publicOnly && isHostLocal(url.hostname))
      return failed(502, `simnet record: ${hostLocalMessage(url.hostname, url.hostname)}\n`)
    // ws hands its options to net.connect, which takes `lookup` (its types leave it out).
    const upstream = new ws.WebSocket(url, protocols, {
      headers,
      perMessageDeflate: false,
      ...(publicOnly ? { lookup: publicLookup } : {})
    } as Ws.ClientOptions)
    upstream.once("unexpected-response", (_req, res) => {
      upstream.terminate()
      failed(res.statusCode ?? 502, `simnet record: the upstream refused the WebSocket (${res.statusCode})\n`)
    })
    upstream.once("error", (error) => failed(502, `simnet record: the upstream WebSocket failed: ${error.message}\n`))
    upstream.once("open", () => {
      const session = { open: [] as Array<Frame>, replies: [] as Array<{ client: Frame; server: Array<Frame> }> }
      let size = 0
      const note = (frame: Frame) => {
        size += sizeOf(frame)
        if (size <= limit) watch?.changed()
        return size <= limit
      }
      watch?.opened(session)
      // Frames that came before the client's socket was handed over are sent first. Each way,
      // the side that is not keeping up holds the other back: the upstream is not read while the
      // client has more than the high-water mark waiting for it (or while the early frames are
      // over it), nor the client while the upstream does.
      let peer: SocketPeer | undefined
      const early: Array<Frame> = []
      let earlyBytes = 0
      let upstreamPaused = false
      const holdUpstream = (until: Promise<void>) => {
        if (upstreamPaused) return
        upstreamPaused = true
        upstream.pause()
        void until.then(() => {
          upstreamPaused = false
          upstream.resume()
        })
      }
      let handedOver: (() => void) | undefined
      upstream.on("message", (data, isBinary) => {
        const frame = frameOf(data, isBinary)
        if (note(frame)) (session.replies.at(-1)?.server ?? session.open).push(frame)
        if (peer !== undefined) {
          peer.send(frame)
          const waiting = peer.writable()
          if (waiting !== undefined) holdUpstream(waiting)
          return
        }
        early.push(frame)
        earlyBytes += sizeOf(frame)
        if (earlyBytes > SOCKET_HIGH_WATER) holdUpstream(new Promise((resume) => void (handedOver = resume)))
      })
      resolve(
        upgraded((socket) => {
          peer = socket
          for (const frame of early.splice(0)) socket.send(frame)
          if (handedOver !== undefined) {
            const waiting = socket.writable()
            if (waiting === undefined) handedOver()
            else void waiting.then(handedOver)
          }
          socket.onMessage((frame) => {
            if (note(frame)) session.replies.push({ client: frame, server: [] })
            if (upstream.readyState !== upstream.OPEN) return
            upstream.send(frame, { binary: typeof frame !== "string" }, () => {
              if (upstream.bufferedAmount <= SOCKET_HIGH_WATER) socket.resume()
            })
            if (upstream.bufferedAmount > SOCKET_HIGH_WATER) socket.pause()
          })
          socket.onClose((code) => {
            if (upstream.readyState === upstream.OPEN) upstream.close(sendableClose(code))
            watch?.closed(session)
            if (size <= limit) keep(session, size)
          })
          upstream.once("close", (code, reason) => socket.close(sendableClose(code), reason.toString()))
        }, upgradeRequired)
      )
    })
  })

const scriptFrame = (frame: Frame): ScriptFrame =>
  typeof frame === "string" ? frame : { base64: Buffer.from(frame).toString("base64") }

/**
 * A recorded session as a `webSocket` script: its open frames, and a reply to each client frame
 * by its text (a frame whose text held a credential, which the redactor changes, matches any).
 */
export const socketScript = (session: RecordedSocket, redactor: Redactor): WebSocketScript => ({
  open: session.open.map(scriptFrame),
  replies: session.replies.map(({ client, server }): WebSocketReply => {
    const text = typeof client === "string" ? client : undefined
    const shown = text === undefined ? undefined : redactor.bodyText(text)
    return {
      ...(text !== undefined && shown === text ? { when: { equals: text } } : {}),
      send: server.map((frame) => scriptFrame(typeof frame === "string" ? redactor.bodyText(frame) : frame))
    }
  })
})
