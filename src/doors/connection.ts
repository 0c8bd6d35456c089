/**
 * The in-process connection door (`network.createConnection`): what a Node client that takes a
 * `createConnection` (`ws`, `http.request`, an `http.Agent`) is handed so that its connection
 * leads into the network instead of the machine's. Each call returns one end of an in-memory
 * socket pair; the other end goes to a private Node server (never listening) whose requests and
 * upgrades the Node door answers, so HTTP/1.1 and WebSockets (`ws`'s handshake, framing, close)
 * are spoken for real, only without a kernel socket. The request's target is its `Host` header
 * under the scheme the connection was opened for (`https` for port 443, a `servername` or an
 * `https:`/`wss:` protocol; TLS itself is not spoken in process).
 */
import type * as http from "node:http"
import type { Socket } from "node:net"
import { Duplex } from "node:stream"
import { doorIncomingMessage } from "./incoming.ts"
import type { NodeDoor } from "./node.ts"
import { upgradeResponse } from "./webSocket.ts"

/** What Node passes a `createConnection`: the options of the request or socket being opened. */
export interface ConnectionOptions {
  readonly host?: string | null | undefined
  readonly hostname?: string | null | undefined
  readonly port?: number | string | null | undefined
  readonly servername?: string | undefined
  readonly protocol?: string | null | undefined
}

/**
 * One end of an in-memory socket pair. Writes wait for the other end to take what it was given
 * (no unbounded buffering); destroying one end closes the other, as a reset does. The socket
 * methods Node clients call on a TCP socket (`setNoDelay`, `setTimeout`, …) are accepted.
 */
class End extends Duplex {
  other: End | undefined
  private waiting: (() => void) | undefined

  constructor() {
    super()
    socketLike(this)
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const other = this.other
    if (other === undefined || other.destroyed) {
      done(new Error("simnet: the connection is closed"))
      return
    }
    if (other.push(chunk)) {
      done()
      return
    }
    // The write waits until the other end's reader asks for more (its `_read` calls this).
    this.waiting = () => done()
  }

  override _final(done: (error?: Error | null) => void): void {
    this.other?.push(null)
    done()
  }

  override _read(): void {
    const waiting = this.other?.waiting
    if (this.other !== undefined) this.other.waiting = undefined
    waiting?.()
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const other = this.other
    this.other = undefined
    if (other !== undefined && !other.destroyed) other.destroy()
    done(error)
  }
}

/** What a connection answers that a TCP socket would, where there is no kernel socket to tune. */
interface SocketLike {
  readonly remoteAddress: string
  readonly remotePort: number
  readonly localAddress: string
  setNoDelay(): unknown
  setTimeout(): unknown
  setKeepAlive(): unknown
  ref(): unknown
  unref(): unknown
}

/**
 * `stream` as a connection Node's HTTP server and clients take (an in-memory pair's end, a
 * tunnel's plaintext from another thread): the socket methods they call on a TCP socket
 * (`setNoDelay`, `setTimeout`, …) accepted and doing nothing, the addresses loopback's.
 */
export const socketLike = <S extends Duplex>(stream: S): S & SocketLike => {
  const same = function (this: S) {
    return this
  }
  return Object.assign(stream, {
    remoteAddress: "127.0.0.1",
    remotePort: 0,
    localAddress: "127.0.0.1",
    setNoDelay: same,
    setTimeout: same,
    setKeepAlive: same,
    ref: same,
    unref: same
  })
}

/**
 * Fails the client's end of the in-memory connection whose server end is `inside` with `error`
 * (its request emits it, as a refused `fetch` rejects with it); false for any other socket.
 */
export const failClient = (inside: unknown, error: Error): boolean => {
  const client = inside instanceof End ? inside.other : undefined
  if (client === undefined || client.destroyed) return false
  client.destroy(error)
  return true
}

/** An in-memory socket pair: what one end writes, the other reads; destroying one closes both. */
export const inMemoryPair = (): readonly [Socket, Socket] => {
  const [a, b] = pair()
  return [a as unknown as Socket, b as unknown as Socket]
}

const pair = (): readonly [End, End] => {
  const a = new End()
  const b = new End()
  a.other = b
  b.other = a
  return [a, b]
}

const secure = (options: ConnectionOptions): boolean =>
  options.protocol === "https:" ||
  options.protocol === "wss:" ||
  (options.servername !== undefined && options.servername !== "") ||
  Number(options.port) === 443

/**
 * A `createConnection` for `door`. The server behind it is made on first use and holds no
 * socket of the machine.
 */
export const makeConnectionDoor = (door: NodeDoor): ((options?: ConnectionOptions | unknown) => Socket) => {
  const schemes = new WeakMap<object, "http" | "https">()
  let server: http.Server | undefined
  const target = (req: http.IncomingMessage): string | undefined => {
    const host = req.headers.host
    const scheme = schemes.get(req.socket)
    if (host === undefined || scheme === undefined || req.url?.startsWith("/") !== true) return undefined
    return URL.parse(`${scheme}://${host}${req.url}`)?.href
  }
  const serverOf = (): http.Server => {
    if (server !== undefined) return server
    const node = process.getBuiltinModule("node:http") as typeof http
    const made = node.createServer({ IncomingMessage: doorIncomingMessage(node) })
    made.on("request", (req, res) => door(req, res, target(req)))
    made.on("checkContinue", (req, res) => door.checkContinue(req, res, target(req)))
    made.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      door(req, upgradeResponse(req, socket), target(req), { socket, head })
    })
    return (server = made)
  }
  return (options = {}) => {
    const [client, inside] = pair()
    schemes.set(
      inside,
      secure(typeof options === "object" && options !== null ? (options as ConnectionOptions) : {}) ? "https" : "http"
    )
    serverOf().emit("connection", inside)
    return client as unknown as Socket
  }
}
