/**
 * `simnet serve`: a loopback HTTP server that answers from a simulated network. A request to
 * `http://127.0.0.1:PORT/HOST/PATH?QUERY` is dispatched as `https://HOST/PATH?QUERY` through the
 * network's Node door (`doors/node.ts`), so an SDK's base URL becomes
 * `http://127.0.0.1:PORT/api.openai.com/v1`. It binds 127.0.0.1 only; the control endpoint and
 * the inspector mount beside it on `effect/http`'s router.
 *
 * The same port is a forward proxy (`serve/proxy.ts`): absolute-form requests and `CONNECT`
 * tunnels (TLS terminated by a local CA) reach the same routes, so a process that only honours
 * `HTTP_PROXY`/`HTTPS_PROXY` is simulated too (`simnet run`).
 *
 * A request no route answers gets `502` with `{ "error": { "tag", "message", "method", "url",
 * "candidates" } }`, so a process on the other side of the socket still learns which request
 * failed and which routes came closest. Every error body shows the request through the network's
 * redactor: no credential header, userinfo or credential-like query value is sent back.
 *
 * A client that goes away interrupts its request (the network logs it as `Interrupted`), and
 * closing the server's scope (SIGTERM, SIGINT) destroys the connections in flight instead of
 * waiting for them.
 */
import * as http from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { touch } from "../registry/activity.ts"
import { engineOf, type SimulationNetworkApi } from "../network/network.ts"
import { CONTROL_BASE } from "../control/endpoint.ts"
import { caDirectory, type CertificateAuthority, loadCa } from "./ca.ts"
import { type DoorWatch, makeNodeDoor, type NodeDoor } from "../doors/node.ts"
import { makeProxy, type ProxyServer } from "./proxy.ts"
import { doorIncomingMessage } from "../doors/incoming.ts"
import { upgradeResponse } from "../doors/webSocket.ts"
import { targetUrl } from "./target.ts"

export { DEFAULT_BODY_LIMIT } from "../doors/node.ts"
export type { DoorRequest, DoorWatch, RefusalShown, Watcher } from "../doors/node.ts"

/**
 * Stops the server at once when its scope closes: no new connections, and every open one is
 * destroyed, so the requests in flight (a hanging route, a delay, a stalled upload) are
 * interrupted and logged as `Interrupted` rather than waited for. A simulated network has no
 * work worth a graceful drain, and SIGTERM/SIGINT must exit promptly.
 */
const stopAtOnce = (server: http.Server) =>
  Layer.effectDiscard(
    Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (server.listening) server.close()
        server.closeAllConnections()
      })
    )
  )

/**
 * Options of `serveLayer`: `routerPrefix`, the path under which every mounted route lives (the
 * door leaves those paths to the router; default `CONTROL_BASE`), `watch` (told of every request
 * for the network: the trace, the stdout line, the inspector) and `bodyLimit`.
 */
export interface ServeOptions {
  readonly routerPrefix?: string | undefined
  readonly watch?: ReadonlyArray<DoorWatch> | undefined
  /** The largest request body taken on a network path, in bytes (default `DEFAULT_BODY_LIMIT`); 413 past it. */
  readonly bodyLimit?: number | undefined
  /**
   * Where the proxy's local CA lives (see `serve/ca.ts`; default: `SIMNET_CA_DIR`, else the
   * user's config directory). It is made there at the first `CONNECT`, not before.
   */
  readonly caDir?: string | undefined
  /** A CA already loaded (its hosts' certificates made once for every server given it), in place of `caDir`'s. */
  readonly ca?: CertificateAuthority | undefined
  /** Told, once the server is made, how to hand it connections from a sealed run's room (`isolate.ts`). */
  readonly room?:
    | ((hooks: {
        readonly adopt: (socket: Socket, port: number) => void
        readonly connection: (socket: Socket) => void
      }) => void)
    | undefined
  /** The status of a refusal's answer (default 502; see `NodeDoorOptions.refusalStatus`). */
  readonly refusalStatus?: number | undefined
}

/**
 * The icon a browser asks for on its own, of any page of this server (the inspector, a control
 * path's JSON opened in a tab). It names no host, so it is no request for the network: the server
 * answers it itself, never logged, traced nor refused.
 */
const FAVICON = "/favicon.ico"

/** No icon, for a day: the browser shows its own and does not ask again. */
const noIcon = (res: http.ServerResponse): true => {
  res.writeHead(204, { "cache-control": "max-age=86400" })
  res.end()
  return true
}

/**
 * A Node server whose requests for the network go through the Node door; the router (mounted by
 * the platform on the same server) sees only the paths under `prefix`. The proxy takes
 * `CONNECT`s and names the target of requests in proxy form or inside its tunnels.
 */
class DoorServer extends http.Server {
  readonly door: NodeDoor
  readonly prefix: string
  readonly proxy: ProxyServer
  constructor(door: NodeDoor, prefix: string, proxy: ProxyServer) {
    super({ IncomingMessage: doorIncomingMessage(http) })
    this.door = door
    this.prefix = prefix
    this.proxy = proxy
    // Node destroys a CONNECT's socket when the server has no `connect` listener; `emit` answers it.
    this.on("connect", () => {})
    // Node answers `Expect: 100-continue` itself unless something listens; `emit` hands it to the door.
    this.on("checkContinue", () => {})
  }

  override emit(event: string | symbol, ...args: Array<unknown>): boolean {
    // A connection, a request, a tunnel: the app is talking to simnet (`registry/activity.ts`).
    if (
      event === "connection" ||
      event === "request" ||
      event === "connect" ||
      event === "upgrade" ||
      event === "checkContinue"
    )
      touch()
    if (event === "connect") {
      this.proxy.connect(args[0] as http.IncomingMessage, args[1] as Duplex, args[2] as Buffer)
      return true
    }
    if (event === "request" || event === "upgrade" || event === "checkContinue") {
      const req = args[0] as http.IncomingMessage
      const proxied = this.proxy.targetOf(req)
      const path = req.url ?? "/"
      // The router answers its own `Expect: 100-continue` (the platform listens for `checkContinue`).
      if (proxied === undefined && path.startsWith(this.prefix)) return super.emit(event, ...args)
      if (proxied === undefined && event === "request" && path === FAVICON)
        return noIcon(args[1] as http.ServerResponse)
      const target = proxied ?? targetUrl(path)
      if (event === "request") this.door(req, args[1] as http.ServerResponse, target)
      else if (event === "checkContinue") this.door.checkContinue(req, args[1] as http.ServerResponse, target)
      else
        this.door(req, upgradeResponse(req, args[1] as Duplex), target, {
          socket: args[1] as Duplex,
          head: args[2] as Buffer
        })
      return true
    }
    return super.emit(event as string, ...args)
  }
}

/**
 * A layer serving the network on 127.0.0.1 at `port` (0 for any free port), with `routes` (more
 * router layers, such as the control endpoint) mounted beside the network. Closing its scope
 * returns promptly whatever is in flight. The network must be one `SimulationNetwork` made.
 */
export const serveLayer = (
  network: SimulationNetworkApi,
  port: number,
  routes: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.empty,
  options: ServeOptions = {}
) =>
  Layer.unwrap(
    Effect.sync(() => {
      const engine = engineOf(network)
      if (engine === undefined) throw new TypeError("simnet serve: the network was not made by SimulationNetwork")
      let ca: CertificateAuthority | undefined
      const authority = () => (ca ??= options.ca ?? loadCa(caDirectory(options.caDir)))
      const door = makeNodeDoor(engine, {
        bodyLimit: options.bodyLimit,
        watch: options.watch,
        refusalStatus: options.refusalStatus
      })
      const server: DoorServer = new DoorServer(
        door,
        options.routerPrefix ?? CONTROL_BASE,
        makeProxy(authority, (socket) => server.emit("connection", socket))
      )
      options.room?.({ adopt: server.proxy.adopt, connection: (socket) => void server.emit("connection", socket) })
      return stopAtOnce(server).pipe(
        Layer.provideMerge(HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true })),
        Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host: "127.0.0.1", gracefulShutdownTimeout: 0 }))
      )
    })
  )
