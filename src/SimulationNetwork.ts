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
import { engineOf, make, type NetworkOptions, type SimulationNetworkApi } from "./network/network.ts"
import type { Har } from "./network/har.ts"
import { SimulatedProvider, type SimulatedProviderApi } from "./models/provider/SimulatedProvider.ts"
import { installGlobal, installGlobalScoped, type GlobalOptions, type RestoreGlobal } from "./doors/global.ts"
import { globalDoor } from "./doors/http1.ts"
import type { RequestRecord } from "./core/requestLog.ts"
import type { RouteInfo } from "./core/engine.ts"
import type { ScenarioInfo } from "./core/scenarios.ts"
import type { Route } from "./core/route.ts"
import type { McpServerDefinition } from "./kinds/mcp/definitions.ts"
import type { McpServerView } from "./kinds/mcp/state.ts"
import type { GlobalInstallConflict, MakeError, SimnetError, StrictViolation } from "./SimnetError.ts"

export type { NetworkMetrics, NetworkOptions, NetworkSnapshot, RouteInfo, ScenarioInfo, SimulationNetworkApi } from "./network/network.ts"
export type { ChaosFault, ChaosHit, ChaosOptions } from "./core/chaos.ts"
export type { Har } from "./network/har.ts"
export { CONTROL_BASE, SimulationControl, type ControlRouter } from "./control/service.ts"
export type { ControlEvent, ControlOptions } from "./control/endpoint.ts"

/**
 * A handle on a network for code that is not written in Effect (a vitest suite driving the
 * `openai` SDK, say). Every method returns a promise or a plain value.
 */
export interface NetworkHandle {
  readonly network: SimulationNetworkApi
  readonly fetch: typeof globalThis.fetch
  /** A Node `createConnection` leading into the network (see `SimulationNetworkApi.createConnection`): for `ws`, `ResponsesWS`, `http.request`. */
  readonly createConnection: SimulationNetworkApi["createConnection"]
  /** The network's model; its `enqueue`, `rule` and `addRules` throw `InvalidLlmInput` on bad input and change nothing. */
  readonly llm: SimulatedProviderApi
  /** The MCP servers by route id, as `SimulationNetworkApi.mcp` with a promise from `update`. */
  readonly mcp: {
    readonly get: (id: string) => McpServerView | undefined
    readonly counts: (id: string) => Readonly<Record<string, number>>
    readonly update: (id: string, change: (current: McpServerDefinition) => McpServerDefinition) => Promise<void>
  }
  readonly register: (routes: Route | ReadonlyArray<Route>) => Promise<ReadonlyArray<string>>
  readonly registerSpec: (json: unknown) => Promise<ReadonlyArray<string>>
  readonly unregister: (id: string) => boolean
  readonly log: () => ReadonlyArray<RequestRecord>
  /** The log as a HAR 1.2 document (see `SimulationNetworkApi.har`). */
  readonly har: (since?: number) => Har
  readonly routes: () => ReadonlyArray<RouteInfo>
  /** The scenarios the routes name, as `SimulationNetworkApi.scenarios` with plain values. */
  readonly scenarios: {
    readonly list: () => ReadonlyArray<ScenarioInfo>
    readonly reset: () => void
    readonly set: (name: string, state: string) => boolean
  }
  readonly regenerate: (record: RequestRecord) => Promise<string>
  readonly unused: () => ReadonlyArray<RouteInfo>
  /** Resolves when no request is in flight (see `SimulationNetworkApi.quiescent`). */
  readonly quiescent: () => Promise<void>
  /** In record mode, what was recorded so far as a fixture (see `NetworkOptions.record`). */
  readonly recording: () => { readonly routes: ReadonlyArray<Record<string, unknown>>; readonly llm?: { readonly rules: ReadonlyArray<Record<string, unknown>> } | undefined }
  readonly reset: () => Promise<void>
  /** Rejects with `StrictViolation` when a request was refused or a `required` route went unused (see `SimulationNetworkApi.verify`). */
  readonly verify: () => Promise<void>
  /** Closes the network; a `strict` one then rejects with `StrictViolation` when it was not clean. */
  readonly close: () => Promise<void>
  /** Answers the whole process's `fetch`, undici and `node:http(s)` from this network; resolves to the restore function. */
  readonly installGlobal: (options?: GlobalOptions) => Promise<RestoreGlobal>
}

/**
 * Closes `network`; a strict one is checked first (before its routes go) and fails with the
 * `StrictViolation` after closing, so the test that owned it fails, naming what was refused or unused.
 */
const closeChecked = (network: SimulationNetworkApi): Effect.Effect<void, StrictViolation> =>
  network.strict
    ? Effect.flatMap(Effect.exit(network.verify), (checked) => Effect.andThen(network.close, checked))
    : network.close

/**
 * The simulated network service.
 */
export class SimulationNetwork extends Context.Service<SimulationNetwork, SimulationNetworkApi>()("simnet/SimulationNetwork") {
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
  static layer(options: NetworkOptions = {}): Layer.Layer<SimulationNetwork | HttpClient.HttpClient | SimulatedProvider, MakeError> {
    return Layer.effectContext(
      Effect.map(Effect.tap(make(options), (network) => Effect.addFinalizer(() => Effect.orDie(closeChecked(network)))), (network) =>
        Context.make(SimulationNetwork, network).pipe(
          Context.add(HttpClient.HttpClient, network.httpClient),
          Context.add(SimulatedProvider, network.llm),
          Context.add(FetchHttpClient.Fetch, network.fetch)
        ))
    )
  }

  /**
   * As `layer`, and for the layer's lifetime the whole process's `fetch`, undici and
   * `node:http(s)` clients are answered by the network (see `installGlobal`).
   */
  static layerGlobal(options: NetworkOptions & GlobalOptions = {}): Layer.Layer<SimulationNetwork | HttpClient.HttpClient | SimulatedProvider, MakeError | GlobalInstallConflict> {
    const install = Effect.flatMap(Effect.service(SimulationNetwork), (network) => installGlobalScoped(network.fetch, options, doorOf(network)))
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
  static layerControl(options: ControlOptions = {}): Layer.Layer<SimulationControl, never, SimulationNetwork | HttpRouter.HttpRouter> {
    // The endpoint and its router load when this layer is built, not with `import("simnet")`.
    return Layer.unwrap(Effect.map(Effect.promise(() => import("./control/endpoint.ts")), (endpoint) =>
      Layer.merge(
        Layer.unwrap(Effect.map(Effect.service(SimulationNetwork), (network) => endpoint.controlRoutes(network, options))),
        Layer.succeed(SimulationControl, endpoint.controlRouter(options))
      )))
  }

  /**
   * Starts a network outside Effect. The promise rejects with the registration error when an
   * initial route is invalid.
   */
  static async start(options: NetworkOptions = {}): Promise<NetworkHandle> {
    const network = await Effect.runPromise(make(options))
    const run = <A>(effect: Effect.Effect<A, SimnetError>) => Effect.runPromise(effect)
    return {
      network,
      fetch: network.fetch,
      createConnection: network.createConnection,
      llm: network.llm,
      mcp: {
        get: (id) => network.mcp.get(id),
        counts: (id) => network.mcp.counts(id),
        update: (id, change) => run(network.mcp.update(id, change))
      },
      register: (routes) => run(network.register(routes)),
      registerSpec: (json) => run(network.registerSpec(json)),
      unregister: (id) => Effect.runSync(network.unregister(id)),
      log: () => Effect.runSync(network.log),
      har: (since) => Effect.runSync(network.har(since)),
      routes: () => Effect.runSync(network.routes),
      scenarios: {
        list: () => Effect.runSync(network.scenarios.list),
        reset: () => Effect.runSync(network.scenarios.reset),
        set: (name, state) => Effect.runSync(network.scenarios.set(name, state))
      },
      regenerate: (record) => run(network.regenerate(record)),
      unused: () => Effect.runSync(network.unused),
      quiescent: () => Effect.runPromise(network.quiescent),
      recording: () => Effect.runSync(network.recording),
      reset: () => run(network.reset),
      verify: () => run(network.verify),
      close: () => run(closeChecked(network)),
      installGlobal: async (global) => installGlobal(network.fetch, global, doorOf(network))
    }
  }
}

/** The Node door `node:http` clients are answered by under `installGlobal` (none for a network not made by `make`). */
const doorOf = (network: SimulationNetworkApi) => {
  const engine = engineOf(network)
  return engine === undefined ? undefined : globalDoor(engine)
}
