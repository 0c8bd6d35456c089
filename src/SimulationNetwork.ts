/**
 * The simulated network as an Effect service. Its layer provides `SimulationNetwork`, an
 * `HttpClient` that answers from the network, and `FetchHttpClient.Fetch` (so an app layer that
 * builds its own `FetchHttpClient.layer` is simulated too). Code that is not written in Effect
 * calls `SimulationNetwork.start()` and hands `handle.fetch` to its SDK.
 *
 * A public face: the network itself is built in `network/`, the control plane in `control/`;
 * this file assembles the service and its layers from them.
 */
import { Context, Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpRouter from "effect/http/HttpRouter"
import type { ControlOptions } from "./control/endpoint.ts"
import { SimulationControl } from "./control/service.ts"
import { closeChecked, doorOf, type NetworkHandle, startHandle } from "./network/handle.ts"
import { make, type NetworkOptions, type SimulationNetworkApi } from "./network/network.ts"
import { SimulatedProvider } from "./models/provider/SimulatedProvider.ts"
import { installGlobalScoped, type GlobalOptions } from "./doors/global.ts"
import type { GlobalInstallConflict, MakeError } from "./SimnetError.ts"

export type { NetworkHandle } from "./network/handle.ts"
export type {
  NetworkMetrics,
  NetworkOptions,
  NetworkSnapshot,
  RouteInfo,
  ScenarioInfo,
  SimulationNetworkApi
} from "./network/network.ts"
export type { ChaosFault, ChaosHit, ChaosOptions } from "./registry/chaos.ts"
export type { Har } from "./network/har.ts"
export { CONTROL_BASE, SimulationControl, type ControlRouter } from "./control/service.ts"
export type { ControlEvent, ControlOptions } from "./control/endpoint.ts"

/**
 * The simulated network service.
 */
export class SimulationNetwork extends Context.Service<SimulationNetwork, SimulationNetworkApi>()(
  "simnet/SimulationNetwork"
) {
  /**
   * Builds a network as a value, without a layer: for runners that make thousands of isolated
   * networks (property tests) and pass `network.fetch` or `network.httpClient` around.
   */
  static make(options: NetworkOptions = {}): Effect.Effect<SimulationNetworkApi, MakeError> {
    return make(options)
  }

  /**
   * Completes when the network in context has no request in flight (see
   * `SimulationNetworkApi.quiescent`): what a property-test runner waits for after each action.
   */
  static get quiescent(): Effect.Effect<void, never, SimulationNetwork> {
    return Effect.flatMap(SimulationNetwork, (network: SimulationNetworkApi) => network.quiescent)
  }

  /**
   * A layer providing `SimulationNetwork`, `HttpClient.HttpClient`, `FetchHttpClient.Fetch` and
   * the network's model as `SimulatedProvider` (so `yield* SimulatedProvider.enqueue(script)` works).
   *
   * @example
   * const TestNetwork = SimulationNetwork.layer({ seed: 1, routes: [Route.text("GET https://api.example.com/health", "ok")] })
   */
  static layer(
    options: NetworkOptions = {}
  ): Layer.Layer<SimulationNetwork | HttpClient.HttpClient | SimulatedProvider, MakeError> {
    return Layer.effectContext(
      Effect.map(
        Effect.tap(make(options), (network) => Effect.addFinalizer(() => Effect.orDie(closeChecked(network)))),
        (network) =>
          Context.make(SimulationNetwork, network).pipe(
            Context.add(HttpClient.HttpClient, network.httpClient),
            Context.add(SimulatedProvider, network.llm),
            Context.add(FetchHttpClient.Fetch, network.fetch)
          )
      )
    )
  }

  /**
   * As `layer`, and for the layer's lifetime the whole process's `fetch`, undici and
   * `node:http(s)` clients are answered by the network (see `installGlobal`).
   */
  static layerGlobal(
    options: NetworkOptions & GlobalOptions = {}
  ): Layer.Layer<SimulationNetwork | HttpClient.HttpClient | SimulatedProvider, MakeError | GlobalInstallConflict> {
    const install = Effect.flatMap(Effect.service(SimulationNetwork), (network) =>
      installGlobalScoped(network.fetch, options, doorOf(network))
    )
    return Layer.provideMerge(Layer.effectDiscard(install), SimulationNetwork.layer(options))
  }

  /**
   * The control endpoint and the driver socket of the network in context, mounted on the app's
   * `effect/http` router under `/experimental/simulation` (see `control/endpoint.ts`). Off unless
   * asked for; loopback peers only; `Authorization: Bearer $SIMNET_TOKEN` when that is set (or
   * `options.token`). It provides `SimulationControl`, whose `add` mounts the app's own
   * endpoints under the same base, behind the same checks.
   *
   * @example
   * HttpRouter.serve(Layer.mergeAll(AppRoutes, SimulationNetwork.layerControl())).pipe(
   *   Layer.provide(SimulationNetwork.layer({ routes })), Layer.provide(NodeHttpServer.layer(http.createServer, { port: 0, host: "127.0.0.1" })))
   */
  static layerControl(
    options: ControlOptions = {}
  ): Layer.Layer<SimulationControl, never, SimulationNetwork | HttpRouter.HttpRouter> {
    // The endpoint and its router load when this layer is built, not with `import("simnet")`.
    return Layer.unwrap(
      Effect.map(
        Effect.promise(() => import("./control/endpoint.ts")),
        (endpoint) =>
          Layer.merge(
            Layer.unwrap(
              Effect.map(Effect.service(SimulationNetwork), (network) => endpoint.controlRoutes(network, options))
            ),
            Layer.succeed(SimulationControl, endpoint.controlRouter(options))
          )
      )
    )
  }

  /**
   * Starts a network outside Effect. The promise rejects with the registration error when an
   * initial route is invalid.
   */
  static start(options: NetworkOptions = {}): Promise<NetworkHandle> {
    return startHandle(options)
  }
}
