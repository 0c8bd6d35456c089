/**
 * `node:http` and `node:https` clients under whole-process interception (axios, got,
 * `http.request`): every request is sent on a kept-alive in-memory connection (`connection.ts`)
 * into a private Node server that the Node door answers, so HTTP/1.1 is spoken by Node on both
 * ends, a connection serves request after request as a real keep-alive connection does, and no
 * socket is made per request (`@mswjs/interceptors`, which makes one, stays for the
 * `passthrough` mode only, where an unmatched request must still reach the real network).
 *
 * `http.request`, `http.get`, `https.request` and `https.get` are wrapped to hand each request an
 * agent of simnet's own in place of the one it names: one for the default agents and `agent:
 * false`, one per agent given (so a client's own pool stays its own), each keeping its
 * connections alive. The loopback route's forward (marked by `forwarding`) goes out as it was
 * asked. A request no route answers fails with the typed error itself, as through `fetch`.
 */
import type * as Http from "node:http"
import type * as Https from "node:https"
import type { Socket } from "node:net"
import { isLoopbackHost } from "../registry/util.ts"
import { failClient, makeConnectionDoor, type ConnectionOptions } from "./connection.ts"
import type { Network } from "../registry/engine.ts"
import { makeNodeDoor, type NodeDoor } from "./node.ts"

type RequestFunction = typeof Http.request

/** The options among a `http.request`'s arguments (`(url, options?, callback?)` or `(options, callback?)`). */
const optionsOf = (args: ReadonlyArray<unknown>): Http.RequestOptions | undefined => {
  const [first, second] = args
  const options = typeof first === "object" && first !== null && !(first instanceof URL) ? first : second
  return typeof options === "object" && options !== null ? (options as Http.RequestOptions) : undefined
}

/** The host a `http.request`'s arguments name. */
const hostOf = (args: ReadonlyArray<unknown>): string | undefined => {
  const options = optionsOf(args)
  const named = options?.hostname ?? options?.host
  if (typeof named === "string") return named
  const first = args[0]
  if (typeof first === "string") return URL.parse(first)?.hostname
  return first instanceof URL ? first.hostname : undefined
}

/** The arguments with `agent` in place of the agent they name. */
const withAgent = (args: ReadonlyArray<unknown>, agent: Http.Agent): Array<unknown> => {
  const [first, second, ...rest] = args
  if (typeof first === "string" || first instanceof URL) {
    if (typeof second === "object" && second !== null) return [first, { ...second, agent }, ...rest]
    return second === undefined ? [first, { agent }] : [first, { agent }, second, ...rest]
  }
  return [{ ...(first as object | undefined), agent }, ...(second === undefined ? [] : [second]), ...rest]
}

/**
 * Sends `node:http`/`node:https` requests into `door` over in-memory connections; `forwarding`
 * tells whether the caller is the loopback route's forward. Returns the function that puts the
 * four functions back and closes the connections.
 */
export const installHttp1 = (door: NodeDoor, forwarding: () => boolean): (() => void) => {
  const http = process.getBuiltinModule("node:http") as typeof Http
  const https = process.getBuiltinModule("node:https") as typeof Https
  const connect = makeConnectionDoor(door)
  class SimHttpAgent extends http.Agent {
    override createConnection(options: ConnectionOptions): Socket {
      return connect(options)
    }
  }
  class SimHttpsAgent extends https.Agent {
    override createConnection(options: ConnectionOptions): Socket {
      return connect({ ...options, protocol: "https:" })
    }
  }
  const made: Array<Http.Agent> = []
  const make = (secure: boolean): Http.Agent => {
    const agent = secure ? new SimHttpsAgent({ keepAlive: true }) : new SimHttpAgent({ keepAlive: true })
    made.push(agent)
    return agent
  }
  const defaults = { http: make(false), https: make(true) }
  const own = new WeakMap<object, Http.Agent>()
  const agentFor = (given: unknown, secure: boolean): Http.Agent => {
    if (typeof given !== "object" || given === null || given === http.globalAgent || given === https.globalAgent)
      return secure ? defaults.https : defaults.http
    let agent = own.get(given)
    if (agent === undefined)
      own.set(given, (agent = make(given instanceof https.Agent || (secure && !(given instanceof http.Agent)))))
    return agent
  }
  const originals = { httpRequest: http.request, httpGet: http.get, httpsRequest: https.request, httpsGet: https.get }
  const wrap = (original: RequestFunction, secure: boolean): RequestFunction =>
    function (this: unknown, ...args: Array<unknown>) {
      const host = hostOf(args)
      if (forwarding() && host !== undefined && isLoopbackHost(host)) return Reflect.apply(original, this, args)
      return Reflect.apply(original, this, withAgent(args, agentFor(optionsOf(args)?.agent, secure)))
    } as RequestFunction
  const patched = {
    httpRequest: wrap(originals.httpRequest, false),
    httpGet: wrap(originals.httpGet, false),
    httpsRequest: wrap(originals.httpsRequest, true),
    httpsGet: wrap(originals.httpsGet, true)
  }
  http.request = patched.httpRequest
  http.get = patched.httpGet
  https.request = patched.httpsRequest
  https.get = patched.httpsGet
  return () => {
    if (http.request === patched.httpRequest) http.request = originals.httpRequest
    if (http.get === patched.httpGet) http.get = originals.httpGet
    if (https.request === patched.httpsRequest) https.request = originals.httpsRequest
    if (https.get === patched.httpsGet) https.get = originals.httpsGet
    for (const agent of made) agent.destroy()
  }
}

/** The Node door these connections lead into: a refusal fails the client's request with the typed error. */
export const globalDoor = (engine: Network): NodeDoor =>
  makeNodeDoor(engine, { onRefusal: (error, res) => failClient(res.socket, error) })
