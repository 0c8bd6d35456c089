/**
 * The network guard: while simnet answers the whole process (`installGlobal`, and so
 * `--import simnet/register`), every outbound TCP or TLS connection the process opens goes
 * through `net.Socket.prototype.connect`, and one to a host no allowance names fails at once
 * with `ConnectionDenied` naming the host, whatever library opened it. Interception answers the
 * requests simnet knows how to read (fetch, undici's global dispatcher, `node:http(s)`); the
 * guard closes what it cannot read: undici with its own `Agent`, a direct `Client` or `Pool`,
 * `http2.connect`, raw `net.connect`/`tls.connect`, database drivers.
 *
 * Allowed: Unix sockets and named pipes (no network), the loopback route's own forward to the
 * app's local server (recognised by the request simnet is answering), hosts listed for
 * passthrough, and hosts listed in `allowHosts` (names, `host:port`, or RegExps tested against
 * the host; `localhost` and `127.0.0.1` are not allowed unless listed).
 *
 * Not covered (documented): UDP (`dgram`), DNS look-ups (no connection is made), child
 * processes, worker threads (each has its own `net`), and native addons that open sockets
 * themselves.
 */
import type * as net from "node:net"
import { ConnectionDenied } from "../SimnetError.ts"

/** Where a connection goes: a host and port, or a local path (a Unix socket, a pipe). */
type Destination =
  | { readonly host: string; readonly port: number | undefined }
  | { readonly path: string }

const numeric = (value: unknown): number | undefined => {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value
  return typeof n === "number" && Number.isFinite(n) ? n : undefined
}

/** Reads `Socket#connect`'s arguments: `(options)`, `(port, host?)`, `(path)`, or Node's normalised array. */
const destinationOf = (args: ReadonlyArray<unknown>): Destination => {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0]
  if (typeof first === "object" && first !== null) {
    const options = first as { host?: unknown; hostname?: unknown; port?: unknown; path?: unknown }
    if (typeof options.path === "string") return { path: options.path }
    const host = typeof options.host === "string" ? options.host : typeof options.hostname === "string" ? options.hostname : "localhost"
    return { host, port: numeric(options.port) }
  }
  if (typeof first === "string" && numeric(first) === undefined) return { path: first }
  return { host: typeof args[1] === "string" ? args[1] : "localhost", port: numeric(first) }
}

/**
 * Whether `host` (and `port`) is named by one of `allowed`: a name or `name:port` (in any case,
 * IPv6 with or without brackets), or a RegExp tested against the host as given. Passthrough hosts
 * and the guard's `allowHosts` are both read this way.
 */
export const hostAllowed = (allowed: ReadonlyArray<string | RegExp>, host: string, port: number | undefined): boolean => {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "")
  return allowed.some((entry) => {
    if (typeof entry !== "string") {
      entry.lastIndex = 0
      return entry.test(host)
    }
    const lower = entry.toLowerCase().replace(/^\[(.*)\]/, "$1")
    return lower === name || (port !== undefined && lower === `${name}:${port}`)
  })
}

/** What the guard asks of an installation: whether a connection to `host:port` is allowed now. */
export type Allowance = (host: string, port: number | undefined) => boolean

/**
 * Puts the guard on `net.Socket.prototype.connect`; returns what takes it off. One at a time:
 * `installGlobal`, its only caller, allows one installation per process.
 */
export const installGuard = (allow: Allowance): (() => void) => {
  const Socket = (process.getBuiltinModule("node:net") as typeof net).Socket
  const original = Socket.prototype.connect
  Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: Array<unknown>) {
    const destination = destinationOf(args)
    if ("path" in destination || allow(destination.host, destination.port)) {
      return (original as (...a: Array<unknown>) => net.Socket).apply(this, args)
    }
    const where = `${destination.host}${destination.port === undefined ? "" : `:${destination.port}`}`
    const error = new ConnectionDenied({
      host: destination.host,
      port: destination.port,
      message: `simnet: connection to ${where} refused by the network guard: simnet answers this process, and no route, passthrough host or allowHosts entry names ${where}`
    })
    // As a refused connection fails: asynchronously, through the socket's 'error' event.
    process.nextTick(() => this.destroy(error))
    return this
  } as typeof net.Socket.prototype.connect
  return () => {
    Socket.prototype.connect = original
  }
}
