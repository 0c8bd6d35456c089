/**
 * `simnet serve` as a forward proxy on its own port, for processes simnet does not live in: a
 * request in absolute form (`GET http://api.example.com/items/1`, what a client sends to an
 * `HTTP_PROXY`) and every request inside a `CONNECT host:443` tunnel (TLS terminated with a
 * certificate for that host from the local CA, `ca.ts`) are answered by the same routes as
 * `/HOST/PATH`, with the same log, near misses and inspector. The scheme the client used is kept:
 * `http://` and `https://` match as written. Nothing is ever forwarded beyond the network: a
 * request no route answers gets the usual 502 naming it.
 *
 * Proxy requests never reach the control endpoint, the driver socket or the inspector: their
 * path is replaced (`/.proxy/…`) before the router sees them, and their target is the host they
 * named, which only the network answers.
 */
import type * as http from "node:http"
import { Duplex } from "node:stream"
import * as tls from "node:tls"
import type { Handovers } from "../handover.ts"
import type { CertificateAuthority } from "./ca.ts"

/** The path a proxied request is given for the router: outside every mounted route. */
const PROXY_PATH = "/.proxy"

const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/

/** The target of an absolute-form request line (`http://host/path`), or undefined. */
const absoluteTarget = (url: string | undefined): string | undefined => {
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined
  return URL.parse(url)?.href
}

/** A stream that yields `head`, then what `socket` reads, and writes to `socket`. */
const replaying = (socket: Duplex, head: Buffer): Duplex => {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, encoding, done) => void socket.write(chunk, encoding, done),
    final: (done) => {
      socket.end()
      done()
    },
    destroy: (error, done) => {
      socket.destroy(error ?? undefined)
      done(error)
    }
  })
  stream.push(head)
  socket.on("data", (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause()
  })
  socket.on("end", () => stream.push(null))
  return stream
}

/** Where a tunnel leads: the scheme spoken inside it and the authority as a URL writes it. */
interface Tunnel {
  readonly scheme: "http" | "https"
  readonly authority: string
}

/**
 * The proxy half of a server: handles Node's `request` and `upgrade` (absolute form, or inside a
 * tunnel: their target is recorded and their path replaced) and `connect` events, and answers
 * whether it took the event (only a `connect`). `server` is told of each tunnel's
 * decrypted connection, as of any other.
 */
export const makeProxy = (handovers: Handovers, ca: () => CertificateAuthority, connection: (socket: Duplex) => void) => {
  const tunnels = new WeakMap<object, Tunnel>()

  const request = (req: http.IncomingMessage): void => {
    const tunnel = tunnels.get(req.socket)
    const target = tunnel !== undefined && req.url?.startsWith("/") === true
      ? `${tunnel.scheme}://${tunnel.authority}${req.url}`
      : absoluteTarget(req.url)
    if (target === undefined) return
    handovers.proxied(req, target)
    const url = new URL(target)
    req.url = `${PROXY_PATH}${url.pathname}${url.search}`
  }

  const connect = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const found = AUTHORITY.exec(req.url ?? "")
    const port = found === null ? Number.NaN : Number(found[2])
    if (found === null || port < 1 || port > 65_535) {
      socket.end("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nsimnet: CONNECT needs host:port\n")
      return
    }
    const host = found[1]
    socket.on("error", () => socket.destroy())
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
    // Port 80 tunnels plain HTTP (a WebSocket client's `ws://` through a proxy, say); any other
    // port is TLS, terminated here with a certificate for the host the tunnel names.
    if (port === 80) {
      if (head.length > 0) socket.unshift(head)
      tunnels.set(socket, { scheme: "http", authority: host })
      connection(socket)
      return
    }
    let authority: CertificateAuthority
    try {
      authority = ca()
    } catch (error) {
      socket.destroy(error as Error)
      return
    }
    // Bytes that came with the CONNECT line are replayed through a stream the TLS layer reads;
    // without any (what clients send), TLS takes the socket itself.
    const carrier = head.length === 0 ? socket : replaying(socket, head)
    const secure = new tls.TLSSocket(carrier, {
      isServer: true,
      secureContext: authority.contextFor(host.replace(/^\[|\]$/g, "")),
      SNICallback: (name, done) => {
        try {
          done(null, authority.contextFor(name))
        } catch (error) {
          done(error as Error)
        }
      },
      ALPNProtocols: ["http/1.1"]
    })
    secure.on("error", () => secure.destroy())
    tunnels.set(secure, { scheme: "https", authority: port === 443 ? host : `${host}:${port}` })
    connection(secure)
  }

  return (event: string, args: Array<any>): boolean => {
    if (event === "connect") {
      connect(args[0], args[1], args[2])
      return true
    }
    request(args[0])
    return false
  }
}
