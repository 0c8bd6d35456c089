/**
 * The simulated network as an Effect service. Its layer provides `SimulationNetwork`, an
 * `HttpClient` that answers from the network, and `FetchHttpClient.Fetch` (so an app layer that
 * builds its own `FetchHttpClient.layer` is simulated too). Code that is not written in Effect
 * calls `SimulationNetwork.start()` and hands `handle.fetch` to its SDK.
 */
import { Context, Effect, Layer, Option } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import { SimulatedProvider, type SimulatedProviderApi } from "./provider/SimulatedProvider.ts"
import { makeFetch, makeHttpClient } from "./registry/adapters.ts"
import { Network, type RouteInfo } from "./registry/network.ts"
import type { RequestCounters, RequestRecord } from "./registry/requestLog.ts"
import { isRoute, type Route } from "./registry/route.ts"
import { normalizeRunSeed } from "./registry/seed.ts"
import type { Handler } from "./Route.ts"
import { defaultDecodeContext } from "./routes/families/index.ts"
import { decodeRouteSpecs } from "./RouteSpec.ts"
import type { LlmScript } from "./schemas/llmScript.ts"
import { InvalidLlmInput, InvalidNetworkOption, InvalidRouteSpec, type SimnetError } from "./SimnetError.ts"

export type { RouteInfo } from "./registry/network.ts"

/**
 * Options for a new network.
 * - `seed`: the run seed (number or string, default 0); generated answers derive from it.
 * - `routes`: routes to register at start (and again on `reset`).
 * - `logLimit`: how many request records the ring keeps (default 10 000); counters stay exact.
 * - `handlers`: named handlers that RouteSpec JSON can refer to (`{ kind: "handler", name }`).
 * - `epoch`: the `created` time (Unix seconds) the simulated model's answers report (default
 *   `DEFAULT_EPOCH`, fixed so that runs serve identical bytes; `"clock"` follows Effect's Clock).
 */
export interface NetworkOptions {
  readonly seed?: number | string | undefined
  readonly routes?: Iterable<Route> | undefined
  readonly logLimit?: number | undefined
  readonly handlers?: Readonly<Record<string, Handler>> | undefined
  /** Scripts to queue on the simulated model at start (and again on `reset`). */
  readonly llm?: Iterable<LlmScript> | undefined
  readonly epoch?: number | "clock" | undefined
}

/**
 * What a test can see of a network at one moment.
 */
export interface NetworkSnapshot {
  readonly seed: number
  readonly routes: ReadonlyArray<RouteInfo>
  readonly log: ReadonlyArray<RequestRecord>
  readonly counters: RequestCounters
}

/**
 * The service. Effects describe state changes and reads; `fetch` and `httpClient` are plain
 * values to hand to code under test.
 */
export interface SimulationNetworkApi {
  /** The run seed, as a number. */
  readonly seed: number
  /** Registers one route or a batch, all or nothing; succeeds with the ids given. */
  readonly register: (routes: Route | ReadonlyArray<Route>) => Effect.Effect<ReadonlyArray<string>, SimnetError>
  /**
   * Decodes RouteSpec JSON (one spec, an array, or a family reference) and registers it. The
   * routes' `source` in the log is "code" unless told (the control endpoint says "control").
   */
  readonly registerSpec: (json: unknown, options?: { readonly source?: string }) => Effect.Effect<ReadonlyArray<string>, SimnetError>
  /** Removes a route; false when no route has that id. */
  readonly unregister: (id: string) => Effect.Effect<boolean>
  /** Back to the start: the initial routes only, fresh use counts, an empty log. */
  readonly reset: Effect.Effect<void, SimnetError>
  /** Every registered route with its use count. */
  readonly routes: Effect.Effect<ReadonlyArray<RouteInfo>>
  /** The request log (the ring's records, oldest first). */
  readonly log: Effect.Effect<ReadonlyArray<RequestRecord>>
  /** The records after a sequence number. */
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<RequestRecord>>
  /** Exact counters, unaffected by the ring's bound. */
  readonly counters: Effect.Effect<RequestCounters>
  /** Routes, log and counters at this moment. */
  readonly snapshot: Effect.Effect<NetworkSnapshot>
  /**
   * Removes every route and, when the network built its own model, resets it (ending its pending
   * invocations); later requests fail closed.
   */
  readonly close: Effect.Effect<void>
  /** Routes never used (like undici's `pendingInterceptors`). */
  readonly unused: Effect.Effect<ReadonlyArray<RouteInfo>>
  /** Reproduces the body a seeded (`jsonSchema`) route served for a logged request. */
  readonly regenerate: (record: RequestRecord) => Effect.Effect<string, SimnetError>
  /** The simulated model behind `Routes.openai`: script queue, rules, log, counters, driver. */
  readonly llm: SimulatedProviderApi
  /** A WHATWG `fetch` answering from this network. */
  readonly fetch: typeof globalThis.fetch
  /** An Effect `HttpClient` answering from this network. */
  readonly httpClient: HttpClient.HttpClient
}

const pathsFor = (routes: ReadonlyArray<Route>, batch: boolean): ReadonlyArray<string> =>
  routes.map((route, i) => route.specPath ?? (batch ? `[${i}]` : ""))

/** The first element of a batch that is not a route (say `undefined` or a bare object), refused at its index. */
const notARoute = (routes: ReadonlyArray<unknown>, batch: boolean): InvalidRouteSpec | undefined => {
  const i = routes.findIndex((route) => !isRoute(route))
  if (i === -1) return undefined
  return new InvalidRouteSpec({
    path: batch ? `[${i}]` : "$",
    message: `not a route (got ${routes[i] === null ? "null" : typeof routes[i]}); build routes with Route.* or Routes.*`
  })
}

/**
 * Builds a network with the services of the current context (its `Clock` among them). The
 * network's simulated model is the `SimulatedProvider` of the context when there is one (say from
 * `SimulatedProvider.layer()`), else a new one.
 */
export const make = (options: NetworkOptions = {}): Effect.Effect<SimulationNetworkApi, SimnetError> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const logLimit = options.logLimit ?? 10_000
    if (typeof logLimit !== "number" || !Number.isInteger(logLimit) || logLimit < 0) {
      return yield* new InvalidNetworkOption({ option: "logLimit", detail: `must be a whole number of at least 0, got ${String(logLimit)}` })
    }
    const provided = yield* Effect.serviceOption(SimulatedProvider)
    const llm = Option.isSome(provided)
      ? provided.value
      : yield* Effect.try({
        try: () => SimulatedProvider.make({ logLimit, epoch: options.epoch }),
        catch: (error) => error as InvalidLlmInput
      })
    const network = new Network(normalizeRunSeed(options.seed), logLimit, context, Context.make(SimulatedProvider, llm) as Context.Context<never>)
    const initial = options.routes === undefined ? [] : Array.from(options.routes)
    const handlers = new Map(Object.entries(options.handlers ?? {}))
    const scripts = options.llm === undefined ? [] : Array.from(options.llm)
    const enqueue = (script: LlmScript, i: number) =>
      Effect.try({
        try: () => llm.enqueue(script),
        catch: (error) =>
          error instanceof InvalidLlmInput
            ? new InvalidLlmInput({ input: "script", path: `llm[${i}]${error.path === "$" ? "" : `.${error.path}`}`, detail: error.detail })
            : new InvalidLlmInput({ input: "script", path: `llm[${i}]`, detail: String(error) })
      })
    const register = (routes: Route | ReadonlyArray<Route>) =>
      Effect.suspend(() => {
        const batch = Array.isArray(routes)
        const list: ReadonlyArray<Route> = batch ? routes : [routes as Route]
        const refused = notARoute(list, batch)
        return refused === undefined ? network.register(list, pathsFor(list, batch)) : Effect.fail(refused)
      })
    const registerInitial = Effect.andThen(register(initial), Effect.forEach(scripts, enqueue, { discard: true }))
    yield* registerInitial
    return {
      seed: network.runSeed,
      register,
      registerSpec: (json, specOptions) =>
        Effect.flatMap(decodeRouteSpecs(json, { ...defaultDecodeContext, handlers, source: specOptions?.source ?? "code" }), (decoded) =>
          network.register(decoded.routes, pathsFor(decoded.routes, false))),
      unregister: (id) => Effect.sync(() => network.registry.remove(id)),
      reset: Effect.suspend(() => {
        network.registry.clear()
        network.clearState()
        llm.reset()
        return Effect.asVoid(registerInitial)
      }),
      routes: Effect.sync(() => network.routes()),
      log: Effect.sync(() => network.records()),
      logSince: (seq) => Effect.sync(() => network.records(seq)),
      counters: Effect.sync(() => network.counters()),
      snapshot: Effect.sync(() => ({
        seed: network.runSeed,
        routes: network.routes(),
        log: network.records(),
        counters: network.counters()
      })),
      unused: Effect.sync(() => network.unused()),
      regenerate: (record) => network.regenerate(record),
      close: Effect.sync(() => {
        network.registry.clear()
        // A provider handed in through the context belongs to its giver, who may hand it on.
        if (Option.isNone(provided)) llm.reset()
      }),
      llm,
      fetch: makeFetch(network),
      httpClient: makeHttpClient(network)
    } satisfies SimulationNetworkApi
  })

/**
 * A handle on a network for code that is not written in Effect (a vitest suite driving the
 * `openai` SDK, say). Every method returns a promise or a plain value.
 */
export interface NetworkHandle {
  readonly network: SimulationNetworkApi
  readonly fetch: typeof globalThis.fetch
  readonly llm: SimulatedProviderApi
  readonly register: (routes: Route | ReadonlyArray<Route>) => Promise<ReadonlyArray<string>>
  readonly registerSpec: (json: unknown) => Promise<ReadonlyArray<string>>
  readonly unregister: (id: string) => boolean
  readonly log: () => ReadonlyArray<RequestRecord>
  readonly routes: () => ReadonlyArray<RouteInfo>
  readonly regenerate: (record: RequestRecord) => Promise<string>
  readonly unused: () => ReadonlyArray<RouteInfo>
  readonly reset: () => Promise<void>
  readonly close: () => Promise<void>
}

/**
 * The simulated network service.
 */
export class SimulationNetwork extends Context.Service<SimulationNetwork, SimulationNetworkApi>()("simnet/SimulationNetwork") {
  /**
   * Builds a network as a value, without a layer: for runners that make thousands of isolated
   * networks (property tests) and pass `network.fetch` or `network.httpClient` around.
   */
  static make(options: NetworkOptions = {}): Effect.Effect<SimulationNetworkApi, SimnetError> {
    return make(options)
  }

  /**
   * A layer providing `SimulationNetwork`, `HttpClient.HttpClient` and `FetchHttpClient.Fetch`.
   *
   * @example
   * const TestNetwork = SimulationNetwork.layer({ seed: 1, routes: [Route.text("GET https://api.example.com/health", "ok")] })
   */
  static layer(options: NetworkOptions = {}): Layer.Layer<SimulationNetwork | HttpClient.HttpClient, SimnetError> {
    return Layer.effectContext(
      Effect.map(Effect.tap(make(options), (network) => Effect.addFinalizer(() => network.close)), (network) =>
        Context.make(SimulationNetwork, network).pipe(
          Context.add(HttpClient.HttpClient, network.httpClient),
          Context.add(FetchHttpClient.Fetch, network.fetch)
        ))
    )
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
      llm: network.llm,
      register: (routes) => run(network.register(routes)),
      registerSpec: (json) => run(network.registerSpec(json)),
      unregister: (id) => Effect.runSync(network.unregister(id)),
      log: () => Effect.runSync(network.log),
      routes: () => Effect.runSync(network.routes),
      regenerate: (record) => run(network.regenerate(record)),
      unused: () => Effect.runSync(network.unused),
      reset: () => run(network.reset),
      close: () => Effect.runPromise(network.close)
    }
  }
}
