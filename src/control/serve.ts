/**
 * `simnet serve`: a loopback HTTP server that answers from a simulated network. A request to
 * `http://127.0.0.1:PORT/HOST/PATH?QUERY` is dispatched as `https://HOST/PATH?QUERY` through the
 * network's own `HttpClient`, so an SDK's base URL becomes `http://127.0.0.1:PORT/api.openai.com/v1`.
 * It binds 127.0.0.1 only, and is built on `effect/http`'s router so that the control endpoint can
 * mount beside it.
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
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { SimulationNetworkApi } from "../network/network.ts"
import { CONTROL_BASE } from "./endpoint.ts"
import { Handovers } from "./handover.ts"
import { forward } from "./serve/forward.ts"
import { caDirectory, type CertificateAuthority, loadCa } from "./serve/ca.ts"
import { LaneServer, makeLane, type LaneReport } from "./serve/lane.ts"
import { makeProxy } from "./serve/proxy.ts"

export { DEFAULT_BODY_LIMIT, forward } from "./serve/forward.ts"
export type { LaneReport } from "./serve/lane.ts"

/**
 * The router layer of `simnet serve`: every path not claimed by a more specific route (such as
 * the control endpoint) is forwarded into the network.
 */
export const networkRoutes = (network: SimulationNetworkApi, handovers: Handovers, bodyLimit?: number) =>
  HttpRouter.add("*", "/*", forward(network, handovers, bodyLimit))

/**
 * Stops the server at once when its scope closes: no new connections, and every open one is
 * destroyed, so the requests in flight (a hanging route, a delay, a stalled upload) are
 * interrupted and logged as `Interrupted` rather than waited for. A simulated network has no
 * work worth a graceful drain, and SIGTERM/SIGINT must exit promptly.
 */
const stopAtOnce = (server: http.Server) =>
  Layer.effectDiscard(Effect.addFinalizer(() =>
    Effect.sync(() => {
      if (server.listening) server.close()
      server.closeAllConnections()
    })
  ))

/**
 * Options of `serveLayer`: `routerPrefix`, the path under which every mounted route lives (the
 * lane leaves those paths to the router; default `CONTROL_BASE`), and `report`, told
 * of each request the lane answered (the router's middleware sees the others), and `watched`.
 */
export interface ServeOptions {
  readonly routerPrefix?: string | undefined
  readonly report?: LaneReport | undefined
  /** While this answers true (an inspector page listens), the lane leaves every request to the router. */
  readonly watched?: (() => boolean) | undefined
  /** The largest request body taken on a network path, in bytes (default `DEFAULT_BODY_LIMIT`); 413 past it. */
  readonly bodyLimit?: number | undefined
  /** The table the lane hands requests to the router through; give the reporter's (`controlRuntime`) to share it. */
  readonly handovers?: Handovers | undefined
  /**
   * Where the proxy's local CA lives (see `serve/ca.ts`; default: `SIMNET_CA_DIR`, else the
   * user's config directory). It is made there at the first `CONNECT`, not before.
   */
  readonly caDir?: string | undefined
}

/**
 * A layer serving the network on 127.0.0.1 at `port` (0 for any free port), with `routes` (more
 * router layers, such as the control endpoint) mounted beside the network. Closing its scope
 * returns promptly whatever is in flight.
 */
export const serveLayer = (
  network: SimulationNetworkApi,
  port: number,
  routes: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.empty,
  options: ServeOptions = {}
) =>
  Layer.unwrap(Effect.sync(() => {
    const handovers = options.handovers ?? new Handovers()
    let ca: CertificateAuthority | undefined
    const authority = () => (ca ??= loadCa(caDirectory(options.caDir)))
    const lane = makeLane(network, handovers, options.routerPrefix ?? CONTROL_BASE, options.report, options.watched)
    const server: LaneServer = new LaneServer(lane, makeProxy(handovers, authority, (socket) => server.emit("connection", socket)))
    return stopAtOnce(server).pipe(
      Layer.provideMerge(HttpRouter.serve(Layer.mergeAll(networkRoutes(network, handovers, options.bodyLimit), routes), { disableLogger: true, disableListenLog: true })),
      Layer.provideMerge(NodeHttpServer.layer(() => server, { port, host: "127.0.0.1", gracefulShutdownTimeout: 0 }))
    )
  }))
