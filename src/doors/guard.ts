/**
 * The network guard: while simnet answers the whole process (`installGlobal`, and so
 * `--import simnet/register`), every outbound TCP or TLS connection the process opens goes
 * through `net.Socket.prototype.connect`, and one to a host no allowance names fails at once
 * with `ConnectionDenied` naming the host, whatever library opened it. Interception answers the
 * requests simnet knows how to read (fetch, undici's global dispatcher, `node:http(s)`); the
 * guard closes what it cannot read: undici with its own `Agent`, a direct `Client` or `Pool`,
 * raw `net.connect`/`tls.connect`, database drivers (`http2.connect` is answered instead: `http2.ts`).
 *
 * Allowed: Unix sockets and named pipes (no network), the loopback route's own forward to the
 * app's local server (recognised by the request simnet is answering), hosts listed for
 * passthrough, and hosts listed in `allowHosts` (names, `host:port`, or RegExps tested against
 * the host; `localhost` and `127.0.0.1` are not allowed unless listed).
 *
 * Not covered (documented): UDP (`dgram`), DNS look-ups (no connection is made), child
 * processes, worker threads (each has its own `net`), Node's internal bindings
 * (`process.binding("tcp_wrap")`, which `net` itself is built on), and native addons that open
 * sockets themselves.
 */
import type * as net from "node:net"
import { ConnectionDenied } from "../SimnetError.ts"

/** Where a connection goes: a host and port, or a local path (a Unix socket, a pipe). */
type Destination = { readonly host: string; readonly port: number | undefined } | { readonly path: string }

/** `net.Socket#connect`'s arguments as Node itself reads them (`(options)`, `(port, host?)`, `(path)`). */
type NormalizeArgs = (args: ReadonlyArray<unknown>) => [Record<string, unknown>, unknown]

/**
 * The port Node connects to for `value`: what `validatePort` lets through (a number or a string
 * that is a whole number from 0 to 65535 once read as a number: `" 80"`, `"0x50"`, `"80.0"`),
 * then `port | 0`. Undefined for no port, or one Node itself refuses (its `connect` throws).
 */
const portOf = (value: unknown): number | undefined => {
  if (typeof value !== "number" && typeof value !== "string") return undefined
  if (typeof value === "string" && value.trim() === "") return undefined
  const n = +value
  return n === n >>> 0 && n <= 0xffff ? n | 0 : undefined
}

/**
 * Where `Socket#connect(...args)` goes, read as Node reads it: its arguments through Node's own
 * `net._normalizeArgs` (or the array `net.connect` already normalised), then as `Socket#connect`
 * does — a pipe when `path` is truthy (`{ path: "" }` is TCP), else `host || "localhost"` and
 * the port `lookupAndConnect` takes.
 */
const destinationOf = (
  normalize: NormalizeArgs,
  marker: symbol | undefined,
  args: ReadonlyArray<unknown>
): Destination => {
  const given = args[0] as Record<symbol, unknown> | undefined
  const normalized =
    Array.isArray(given) && marker !== undefined && given[marker] === true
      ? (given as unknown as ReturnType<NormalizeArgs>)
      : normalize(args)
  const options = normalized[0] as { host?: unknown; port?: unknown; path?: unknown }
  if (options.path) return { path: String(options.path) }
  return {
    host: typeof options.host === "string" && options.host !== "" ? options.host : "localhost",
    port: portOf(options.port)
  }
}

/**
 * Whether `host` (and `port`) is named by one of `allowed`: a name or `name:port` (in any case,
 * IPv6 with or without brackets), or a RegExp tested against the host as given. Passthrough hosts
 * and the guard's `allowHosts` are both read this way.
 */
export const hostAllowed = (
  allowed: ReadonlyArray<string | RegExp>,
  host: string,
  port: number | undefined
): boolean => {
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
  const module = process.getBuiltinModule("node:net") as typeof net & { readonly _normalizeArgs: NormalizeArgs }
  // The mark Node puts on arguments it has normalised (what `net.connect` hands `Socket#connect`).
  const marker = Object.getOwnPropertySymbols(module._normalizeArgs([]))[0]
  const Socket = module.Socket
  const original = Socket.prototype.connect
  Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: Array<unknown>) {
    const destination = destinationOf(module._normalizeArgs, marker, args)
    if ("path" in destination || allow(destination.host, destination.port)) {
      return (original as (...a: Array<unknown>) => net.Socket).apply(this, args)
    }
    const error = new ConnectionDenied({ host: destination.host, port: destination.port })
    // As a refused connection fails: asynchronously, through the socket's 'error' event.
    process.nextTick(() => this.destroy(error))
    return this
  } as typeof net.Socket.prototype.connect
  return () => {
    Socket.prototype.connect = original
  }
}
