/**
 * The simulated network as a value: `make` builds one network (its route table, request log,
 * simulated model and MCP servers) and returns its API. The `SimulationNetwork` service, its
 * layers and the Promise handle are assembled from it in the public face (`SimulationNetwork.ts`).
 */
import { Context, Effect, Option, Result } from "effect"
import type * as HttpClient from "effect/http/HttpClient"
import { McpServers, type McpServersApi } from "../mcp-route/state.ts"
import { SimulatedProvider, SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import { under } from "../models/provider/validate.ts"
import { makeFetch } from "../doors/fetch.ts"
import { makeHttpClient } from "../doors/httpClient.ts"
import { type ConnectionOptions, makeConnectionDoor } from "../doors/connection.ts"
import { makeNodeDoor } from "../doors/node.ts"
import type { Socket } from "node:net"
import { Chaos } from "../registry/chaos.ts"
import type * as Record_ from "./record/record.ts"
import { Network, type RouteInfo } from "../registry/engine.ts"
import { defaultRedactor, Redactor } from "../registry/redact.ts"
import { wholeResponse } from "../registry/keptBodies.ts"
import {
  DEFAULT_LOG_BYTES,
  type KeptResponse,
  type RequestCounters,
  type RequestRecord
} from "../registry/requestLog.ts"
import { isRoute, type Route } from "../registry/route.ts"
import { normalizeRunSeed } from "../registry/seed.ts"
import type { ScenarioInfo } from "../registry/scenarios.ts"
import type { RequestTallies } from "../registry/tally.ts"
import { familiesWith } from "../families/index.ts"
import { withModels } from "../models/apis.ts"
import { decodeRouteSpecs } from "../schemas/decode.ts"
import {
  StrictViolation,
  InvalidNetworkOption,
  InvalidRouteSpec,
  type MakeError,
  type RegenerateError,
  type RegisterError,
  type RestoreError
} from "../SimnetError.ts"
import { type FileContent, filesRefusal } from "../fileSystem/workspace.ts"
import { decodeOptions, type NetworkOptions, withFixture } from "./options.ts"
import { type Har, harOf } from "./har.ts"
import { capture, restore, type NetworkState } from "./snapshot.ts"

export type { RouteInfo } from "../registry/engine.ts"
export type { ScenarioInfo } from "../registry/scenarios.ts"

/**
 * What `GET /experimental/simulation/metrics` exports, exact past the log's bound: the request
 * log's tallies (`registry/tally.ts`: requests by route and outcome, answer times by route, refusals
 * by tag, chaos hits by effect) and the model's calls by API.
 */
export interface NetworkMetrics extends RequestTallies {
  readonly modelCalls: ReadonlyArray<{ readonly api: string; readonly count: number }>
}
export type { NetworkState } from "./snapshot.ts"
export type { NetworkOptions } from "./options.ts"

/** A file system a network's state carries (`attachFiles`): its files now, and how to lay a snapshot's out in it. */
export interface AttachedFiles {
  readonly files: () => Record<string, FileContent>
  readonly restore: (files: Readonly<Record<string, FileContent>>) => Effect.Effect<void, RestoreError>
}

/** How many refused requests a `StrictViolation` names one by one. */
const STRICT_NAMED = 20

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
  readonly register: (routes: Route | ReadonlyArray<Route>) => Effect.Effect<ReadonlyArray<string>, RegisterError>
  /**
   * Decodes RouteSpec JSON (one spec, an array, or a family reference) and registers it. The
   * routes' `source` in the log is "code" unless told (the control endpoint says "control").
   */
  readonly registerSpec: (
    json: unknown,
    options?: { readonly source?: string }
  ) => Effect.Effect<ReadonlyArray<string>, RegisterError>
  /** Removes a route; false when no route has that id. */
  readonly unregister: (id: string) => Effect.Effect<boolean>
  /** Back to the start: the initial routes only, fresh use counts, an empty log. */
  readonly reset: Effect.Effect<void, RestoreError>
  /** Every registered route with its use count. */
  readonly routes: Effect.Effect<ReadonlyArray<RouteInfo>>
  /**
   * The scenarios the routes name (WireMock's, see `RouteOptions.scenario`): `list` each one's
   * state and the states its routes name; `reset` puts every one back in `"Started"` (as the
   * network's `reset` does); `set` moves one to a state, false when no route names it.
   */
  readonly scenarios: {
    readonly list: Effect.Effect<ReadonlyArray<ScenarioInfo>>
    readonly reset: Effect.Effect<void>
    readonly set: (name: string, state: string) => Effect.Effect<boolean>
  }
  /** The request log (the ring's records, oldest first). */
  readonly log: Effect.Effect<ReadonlyArray<RequestRecord>>
  /** The records after a sequence number, oldest first, at most `limit` of them. */
  readonly logSince: (seq: number, limit?: number) => Effect.Effect<ReadonlyArray<RequestRecord>>
  /**
   * The log (records after `since`) as a HAR 1.2 document (`network/har.ts`), redacted; with the
   * bodies when the network keeps them (`keepBodies`).
   */
  readonly har: (since?: number, limit?: number) => Effect.Effect<Har>
  /** Exact counters, unaffected by the ring's bound. */
  readonly counters: Effect.Effect<RequestCounters>
  /** The exact tallies `GET metrics` exports (see `NetworkMetrics`); they start again with the log on `reset`. */
  readonly metrics: Effect.Effect<NetworkMetrics>
  /** Routes, log and counters at this moment. */
  readonly snapshot: Effect.Effect<NetworkSnapshot>
  /**
   * The state that decides later answers, as JSON (see `network/snapshot.ts`): seed, routes as
   * RouteSpecs with their use counts, the routes that cannot be serialized (listed, not dropped),
   * the MCP servers' sessions, counts and changed definitions, the model's queue, rules and
   * counters, and the log. `GET snapshot` serves it.
   */
  readonly state: Effect.Effect<NetworkState>
  /**
   * Restores a `state` (from this process or another), all or nothing: a bad snapshot fails with
   * the JSON path of the field and changes nothing. `POST snapshot` calls it.
   */
  readonly restore: (state: unknown) => Effect.Effect<void, RestoreError>
  /** A file system made part of the state (`SimulationFileSystem.layer` attaches itself): `state` carries its `files`, `restore` lays them out, checked first. */
  readonly attachFiles: (files: AttachedFiles) => Effect.Effect<void>
  /**
   * The files the network was started with (`files`, a fixture's `files`): what a
   * `SimulationFileSystem.layer()` given this network starts with, under the files given to it.
   */
  readonly files: Readonly<Record<string, FileContent>>
  /**
   * Removes every route and, when the network built its own model, resets it (ending its pending
   * invocations); later requests fail closed.
   */
  readonly close: Effect.Effect<void>
  /** Routes never used (like undici's `pendingInterceptors`). */
  readonly unused: Effect.Effect<ReadonlyArray<RouteInfo>>
  /**
   * Fails with `StrictViolation` when a request was refused or a route marked `required` was never
   * used (as nock's `done()`); a network made with `strict: true` checks it when it closes.
   */
  readonly verify: Effect.Effect<void, StrictViolation>
  /** Whether the network was made with `strict: true`. */
  readonly strict: boolean
  /**
   * Completes when no request is in flight (every one answered or refused: no route working, no
   * delay armed, no model call waiting): what a property-test runner waits for after an action.
   */
  readonly quiescent: Effect.Effect<void>
  /** In record mode, what was recorded so far as a fixture (`{ routes }`); `{ routes: [] }` otherwise. */
  readonly recording: Effect.Effect<{
    readonly routes: ReadonlyArray<Record<string, unknown>>
    readonly llm?: { readonly rules: ReadonlyArray<Record<string, unknown>> } | undefined
  }>
  /** Reproduces the body a seeded (`jsonSchema`) route served for a logged request. */
  readonly regenerate: (record: RequestRecord) => Effect.Effect<string, RegenerateError>
  /**
   * The simulated model behind `Routes.openai`: script queue, rules, log, counters, driver. Its
   * `enqueue`, `rule` and `addRules` are the plain face and throw `InvalidLlmInput`; Effect code
   * uses `SimulatedProvider.enqueue(script)` (this model is the layer's `SimulatedProvider`) or
   * `SimulatedProviderApi.enqueue(network.llm, script)`, which fail with it.
   */
  readonly llm: SimulatedProviderApi
  /**
   * The MCP servers of `Route.mcp` and the MCP families, by route id: definitions, sessions,
   * counts per tool, and changes while the app runs. Reset with the network.
   */
  readonly mcp: McpServersApi
  /** A WHATWG `fetch` answering from this network. */
  readonly fetch: typeof globalThis.fetch
  /** An Effect `HttpClient` answering from this network. */
  readonly httpClient: HttpClient.HttpClient
  /**
   * A Node `createConnection` whose connections lead into this network: hand it to a client that
   * takes one (`new WebSocket(url, { createConnection })` of `ws`, the `openai` SDK's
   * `ResponsesWS`, `http.request`, an `http.Agent`) and its HTTP requests and WebSocket upgrades
   * are answered by the routes, in process, with no socket of the machine. The target is the
   * request's `Host` under `https` for port 443 or a TLS option, else `http`.
   */
  readonly createConnection: (options?: ConnectionOptions | unknown) => Socket
  /** How this network shows requests (credentials redacted, lengths bounded): for servers that echo a request. */
  readonly redactor: Redactor
  /**
   * Internal: the engine, for the doors simnet builds in front of a network (`simnet serve`'s
   * Node door), read through `engineOf`. A network not made by `make` has none.
   */
  readonly [EngineKey]?: Network | undefined
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
export const make = (given: NetworkOptions = {}): Effect.Effect<SimulationNetworkApi, MakeError> =>
  Effect.gen(function* () {
    const options = yield* withFixture(given)
    const context = yield* Effect.context<never>()
    const decoded = decodeOptions(options)
    if (Result.isFailure(decoded)) return yield* decoded.failure
    const files = decoded.success.files ?? {}
    const badFile = filesRefusal(files)
    if (badFile !== undefined) return yield* new InvalidNetworkOption({ option: badFile.path, detail: badFile.message })
    const logLimit = decoded.success.logLimit ?? 10_000
    const logBytes = decoded.success.logBytes ?? DEFAULT_LOG_BYTES
    const redact = decoded.success.redact === undefined ? defaultRedactor : new Redactor(decoded.success.redact)
    const provided = yield* Effect.serviceOption(SimulatedProvider)
    const llm = Option.isSome(provided)
      ? provided.value
      : yield* SimulatedProviderApi.make({ logLimit, logBytes, epoch: options.epoch, drive: options.drive })
    const mcp = McpServers.make((id) => {
      const entry = network.registry.entries.get(id)
      return entry === undefined ? undefined : { identity: entry.identity, route: entry.route }
    })
    const services = Context.make(SimulatedProvider, llm).pipe(Context.add(McpServers, mcp))
    const network: Network = new Network(
      normalizeRunSeed(options.seed),
      { limit: logLimit, bytes: logBytes },
      redact,
      context,
      services as Context.Context<never>
    )
    if (decoded.success.chaos !== undefined) network.chaos = new Chaos(decoded.success.chaos)
    network.keepBodies = decoded.success.keepBodies === true
    // Record mode's module loads only when a network records, not with `import("simnet")`.
    const record: typeof Record_ | undefined =
      options.record === undefined ? undefined : yield* Effect.promise(() => import("./record/record.ts"))
    const models = withModels(options.models)
    const families = familiesWith(models)
    const file = options.record?.file
    const problem = file === undefined ? undefined : record?.recordingTargetProblem(file)
    if (problem !== undefined) return yield* new InvalidNetworkOption({ option: "record.file", detail: problem })
    const recorder = record?.recorder({ upstream: options.record?.upstream, cookies: options.record?.cookies })
    let attached: AttachedFiles | undefined
    const persisted =
      record === undefined || recorder === undefined || file === undefined
        ? undefined
        : record.persist(recorder, file, { redactor: network.redactor, seed: network.runSeed, models })
    /** What was recorded so far, as a fixture. */
    const recorded = () =>
      record === undefined || recorder === undefined
        ? { routes: [] }
        : record.recordingOf(recorder.recorded(), network.redactor, models)
    const initial = [
      ...(options.routes === undefined ? [] : Array.from(options.routes)),
      ...(recorder === undefined ? [] : [recorder.route])
    ]
    const handlers = new Map(Object.entries(options.handlers ?? {}))
    const scripts = options.llm === undefined ? [] : Array.from(options.llm)
    const register = (routes: Route | ReadonlyArray<Route>) =>
      Effect.suspend(() => {
        const batch = Array.isArray(routes)
        const list: ReadonlyArray<Route> = batch ? routes : [routes as Route]
        const refused = notARoute(list, batch)
        return refused === undefined ? network.register(list, pathsFor(list, batch)) : Effect.fail(refused)
      })
    const rules = options.llmRules ?? []
    const addRules =
      rules.length === 0 ? Effect.void : Effect.asVoid(under(SimulatedProviderApi.addRules(llm, rules), "llmRules"))
    const registerInitial = Effect.andThen(
      register(initial),
      Effect.andThen(under(SimulatedProviderApi.enqueueAll(llm, scripts), "llm"), addRules)
    )
    yield* registerInitial
    const api: SimulationNetworkApi = {
      get seed() {
        return network.runSeed
      },
      register,
      registerSpec: (json, specOptions) =>
        Effect.flatMap(
          decodeRouteSpecs(json, { families, handlers, source: specOptions?.source ?? "code" }),
          (decoded) => network.register(decoded.routes, pathsFor(decoded.routes, false))
        ),
      unregister: (id) => Effect.sync(() => network.registry.remove(id)),
      reset: Effect.suspend(() => {
        network.registry.clear()
        network.clearState()
        llm.reset()
        mcp.reset()
        return Effect.asVoid(registerInitial)
      }),
      routes: Effect.sync(() => network.routes()),
      scenarios: {
        list: Effect.sync(() => network.registry.scenarios.list()),
        reset: Effect.sync(() => network.registry.scenarios.reset()),
        set: (name, state) => Effect.sync(() => network.registry.scenarios.set(name, state))
      },
      log: Effect.sync(() => network.records()),
      logSince: (seq, limit) => Effect.sync(() => network.records(seq, limit)),
      har: (since, limit) =>
        Effect.gen(function* () {
          // Answers not kept that are a pure function of their route and seed (text, bytes, a
          // status, generated JSON) are made again whole; an OpenAPI operation's body is
          // generated again from its seed. Any other answer's body is said to be missing.
          const exchanges = network.log.exchanges(since, limit)
          const again = new Map<number, KeptResponse | string>()
          for (const { kept, record } of exchanges) {
            if (
              kept ||
              record.status === undefined ||
              record.fault !== undefined ||
              (record.chaos !== undefined && record.chaos.effect !== "latency")
            )
              continue
            const route = record.route === undefined ? undefined : network.registry.entries.get(record.route.id)?.route
            if (
              route?.reproduce !== undefined &&
              route.kind === record.route?.kind &&
              (!route.seeded || record.seed !== undefined)
            ) {
              const answer = yield* Effect.option(route.reproduce(record.seed ?? 0))
              if (Option.isSome(answer))
                again.set(record.seq, network.log.shown(wholeResponse(answer.value, record.time)))
            } else if (record.seed !== undefined) {
              const body = yield* Effect.option(network.regenerate(record))
              if (Option.isSome(body)) again.set(record.seq, body.value)
            }
          }
          return harOf(exchanges, again)
        }),
      counters: Effect.sync(() => network.counters()),
      metrics: Effect.sync(() => ({
        ...network.log.tally.read(),
        modelCalls: Object.entries(llm.state.calls ?? {}).map(([api, count]) => ({ api, count }))
      })),
      snapshot: Effect.sync(() => ({
        seed: network.runSeed,
        routes: network.routes(),
        log: network.records(),
        counters: network.counters()
      })),
      state: Effect.sync(() => {
        const state = capture(network, llm, mcp, network.counters())
        return attached === undefined ? state : { ...state, files: attached.files() }
      }),
      restore: (state) =>
        Effect.suspend(() => {
          const files =
            attached === undefined
              ? undefined
              : (state as { files?: Readonly<Record<string, FileContent>> } | null)?.files
          const refused = files === undefined ? undefined : filesRefusal(files)
          if (refused !== undefined) return Effect.fail(refused)
          return Effect.andThen(
            restore(
              network,
              llm,
              mcp,
              SimulatedProvider.make({ logLimit: 1 }),
              state,
              { handlers, families },
              (routes) => network.register(routes, pathsFor(routes, false))
            ),
            files === undefined ? Effect.void : attached!.restore(files)
          )
        }),
      attachFiles: (files) => Effect.sync(() => void (attached = files)),
      files,
      unused: Effect.sync(() => network.unused()),
      verify: Effect.suspend(() => {
        const denied = network.counters().denied
        const unused = network
          .unused()
          .filter((route) => route.required === true)
          .map((route) => route.id)
        if (denied === 0 && unused.length === 0) return Effect.void
        const refused = network
          .records()
          .filter((record) => record.denial !== undefined)
          .slice(0, STRICT_NAMED)
          .map((record) => ({ method: record.method, url: network.redactor.url(record.url), tag: record.denial ?? "" }))
        return Effect.fail(new StrictViolation({ denied, refused, unused }))
      }),
      strict: decoded.success.strict === true,
      quiescent: Effect.promise(() => network.quiescent()),
      recording: Effect.sync(recorded),
      regenerate: (record) => network.regenerate(record),
      close: Effect.sync(() => {
        persisted?.flush()
        network.registry.clear()
        mcp.reset()
        // A provider handed in through the context belongs to its giver, who may hand it on.
        if (Option.isNone(provided)) llm.reset()
      }),
      llm,
      mcp,
      fetch: makeFetch(network, { refusals: decoded.success.refusals }),
      httpClient: makeHttpClient(network),
      createConnection: lazyConnection(network),
      redactor: network.redactor,
      [EngineKey]: network
    }
    return api
  })

/** The connection door of `network`, its Node door made on the first connection. */
const lazyConnection = (network: Network): SimulationNetworkApi["createConnection"] => {
  let connect: SimulationNetworkApi["createConnection"] | undefined
  return (options) => (connect ??= makeConnectionDoor(makeNodeDoor(network)))(options)
}

/** The key of a network instance's engine: no part of its public API (`engineOf` reads it). */
export const EngineKey: unique symbol = Symbol.for("simnet/Engine")

/** The engine of a network made by `make`, for a door in front of it; undefined for any other. */
export const engineOf = (network: SimulationNetworkApi): Network | undefined => network[EngineKey]
