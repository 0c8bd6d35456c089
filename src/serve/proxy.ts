/**
 * `simnet serve` as a forward proxy on its own port, for processes simnet does not live in: a
 * request in absolute form (`GET http://api.example.com/items/1`, what a client sends to an
 * `HTTP_PROXY`) and every request inside a `CONNECT host:443` tunnel (TLS terminated with a
 * certificate for that host from the local CA, `ca.ts`, on a thread of its own, `tls.ts`) are answered by the same routes as
 * `/HOST/PATH`, with the same log, near misses and inspector. The scheme the client used is kept:
 * `http://` and `https://` match as written. Nothing is ever forwarded beyond the network: a
 * request no route answers gets the usual 502 naming it.
 *
 * Proxy requests never reach the control endpoint, the driver socket or the inspector: the
 * server hands each to the Node door with the target it named, which only the network answers.
 */
import type * as http from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import type { CertificateAuthority } from "./ca.ts"
import { terminatorOf } from "./tls.ts"

const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/

/** The target of an absolute-form request line (`http://host/path`), or undefined. */
const absoluteTarget = (url: string | undefined): string | undefined => {
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined
  return URL.parse(url)?.href
}

/**
 * Where a tunnel leads: the scheme spoken inside it and the authority as a URL writes it; for a
 * connection adopted from a sealed run (`adopt`), no authority: each request's `Host` names it.
 */
interface Tunnel {
  readonly scheme: "http" | "https"
  readonly authority: string | undefined
}

/** A request's `Host` as the authority of its URL: the scheme's default port left out. */
const hostAuthority = (req: http.IncomingMessage, scheme: "http" | "https"): string => {
  const host = (req.headers.host ?? "").trim().toLowerCase()
  const named = AUTHORITY.exec(host) !== null || /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host) ? host : "localhost"
  return named.replace(scheme === "https" ? /:443$/ : /:80$/, "")
}

/** The proxy half of a server: the target of a request in proxy form, and `CONNECT` tunnels. */
export interface ProxyServer {
  /** The URL a request in absolute form, or inside a tunnel, is for; undefined for any other request. */
  readonly targetOf: (req: http.IncomingMessage) => string | undefined
  /** Opens a tunnel (TLS terminated with the local CA, but for port 80). */
  readonly connect: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void
  /**
   * Takes a connection a sealed run's program opened to port 80 or 443 of a name simnet resolved
   * (`isolate.ts`): plain HTTP on 80, TLS on any other port, terminated with a certificate for
   * the name the client sent (SNI); each request is for the host its `Host` names.
   */
  readonly adopt: (socket: Socket, port: number) => void
}

/**
 * The proxy half of a server. `connection` is told of each tunnel's decrypted connection, as of
 * any other; the requests inside it name their target through `targetOf`.
 */
export const makeProxy = (ca: () => CertificateAuthority, connection: (socket: Duplex) => void): ProxyServer => {
  const tunnels = new WeakMap<object, Tunnel>()

  const targetOf = (req: http.IncomingMessage): string | undefined => {
    const tunnel = tunnels.get(req.socket)
    return tunnel !== undefined && req.url?.startsWith("/") === true
      ? `${tunnel.scheme}://${tunnel.authority ?? hostAuthority(req, tunnel.scheme)}${req.url}`
      : absoluteTarget(req.url)
  }

  const adopt = (socket: Socket, port: number): void => {
    socket.on("error", () => socket.destroy())
    if (port === 80) {
      tunnels.set(socket, { scheme: "http", authority: undefined })
      connection(socket)
      socket.resume()
      return
    }
    let authority: CertificateAuthority
    try {
      authority = ca()
    } catch {
      socket.destroy()
      return
    }
    // TLS on the proxy's TLS thread, with the certificate for the name the client sends (`localhost` when it sends none).
    const plain = terminatorOf(authority).open(socket, "localhost")
    tunnels.set(plain, { scheme: "https", authority: undefined })
    connection(plain)
  }

  const connect = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const found = AUTHORITY.exec(req.url ?? "")
    const port = found === null ? Number.NaN : Number(found[2])
    if (found === null || port < 1 || port > 65_535) {
      socket.end(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nsimnet: CONNECT needs host:port\n"
      )
      return
    }
    const host = found[1]
    socket.on("error", () => socket.destroy())
    // Port 80 tunnels plain HTTP (a WebSocket client's `ws://` through a proxy, say); any other
    // port is TLS, terminated here with a certificate for the host the tunnel names.
    if (port === 80) {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      if (head.length > 0) socket.unshift(head)
      tunnels.set(socket, { scheme: "http", authority: host })
      connection(socket)
      return
    }
    let authority: CertificateAuthority
    try {
      authority = ca()
    } catch (error) {
      // A CA that cannot be made or used refuses the tunnel, saying why; the server goes on.
      const message = `simnet: the proxy's CA cannot be used: ${error instanceof Error ? error.message : String(error)}\n`
      socket.end(
        `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(message)}\r\nconnection: close\r\n\r\n${message}`
      )
      return
    }
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
    // Bytes that came with the CONNECT line go back into the socket, read first. TLS is
    // terminated on the proxy's TLS thread (`tls.ts`), the host's certificate signed there when it
    // is new: the handshakes of a flood of new hosts never hold up the requests of others.
    if (head.length > 0) socket.unshift(head)
    const plain = terminatorOf(authority).open(socket, host.replace(/^\[|\]$/g, ""))
    tunnels.set(plain, { scheme: "https", authority: port === 443 ? host : `${host}:${port}` })
    connection(plain)
  }

  return { targetOf, connect, adopt }
}
