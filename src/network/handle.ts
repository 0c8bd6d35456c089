/**
 * A network for code that is not written in Effect (`SimulationNetwork.start`, `property`'s cases,
 * a test runner's fixture): the handle whose every method returns a promise or a plain value, and
 * how a network is closed so that a strict one fails the test that owned it.
 */
import { Effect } from "effect"
import { installGlobal, type GlobalOptions, type RestoreGlobal } from "../doors/global.ts"
import { globalDoor } from "../doors/http1.ts"
import type { McpServerDefinition } from "../mcp-route/definitions.ts"
import type { McpServerView } from "../mcp-route/state.ts"
import type { SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import type { RouteInfo } from "../registry/engine.ts"
import type { RequestRecord } from "../registry/requestLog.ts"
import type { ScenarioInfo } from "../registry/scenarios.ts"
import type { Route } from "../registry/route.ts"
import type { SimnetError, StrictViolation } from "../SimnetError.ts"
import type { Har } from "./har.ts"
import { engineOf, make, type NetworkOptions, type SimulationNetworkApi } from "./network.ts"

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
  readonly recording: () => {
    readonly routes: ReadonlyArray<Record<string, unknown>>
    readonly llm?: { readonly rules: ReadonlyArray<Record<string, unknown>> } | undefined
  }
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
export const closeChecked = (network: SimulationNetworkApi): Effect.Effect<void, StrictViolation> =>
  network.strict
    ? Effect.flatMap(Effect.exit(network.verify), (checked) => Effect.andThen(network.close, checked))
    : network.close

/** The Node door `node:http` clients are answered by under `installGlobal` (none for a network not made by `make`). */
export const doorOf = (network: SimulationNetworkApi) => {
  const engine = engineOf(network)
  return engine === undefined ? undefined : globalDoor(engine)
}

/**
 * Starts a network outside Effect (`SimulationNetwork.start`). The promise rejects with the
 * registration error when an initial route is invalid.
 */
export const startHandle = async (options: NetworkOptions = {}): Promise<NetworkHandle> => {
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
