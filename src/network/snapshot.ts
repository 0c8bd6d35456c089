/**
 * Snapshots of a network's state: what decides the answers to later requests, as JSON, so that
 * a network restored from it — in this process or a fresh one — answers the same requests with
 * byte-identical bodies. A snapshot holds the seed, the routes as RouteSpecs (with their use
 * counts and, for seeded routes, the occurrences per request key), the routes that cannot be
 * written as RouteSpecs (registered in code), the state of each MCP server that has answered
 * (`mcp`: the session ids it has issued and those still open, calls per tool, occurrences per
 * call, and a definition changed with `network.mcp.update`), the model's call count, script queue
 * (waiting, under way, consumed) and rules, the model's log and counts, the request log and the
 * counters, and each scenario's state.
 *
 * Restoring brings back the request log and its counters, the model's log and its counts per
 * request key, each rule's progress (uses left, failures a `failThenRespond` rule has served),
 * and the MCP servers' state: sessions opened before the snapshot are still accepted, the next
 * session id is the one the original would have issued, and a generated tool result goes on with
 * the next occurrence.
 *
 * Gotchas: a route registered in code (a handler, a `Routes.*` family built in code) cannot be
 * serialized; it is listed under `unserializable` and not restored (nor is its MCP state). The
 * same holds for model rules with a RegExp, a predicate or raw bytes, and for an MCP definition
 * changed to one with a handler, an Effect Schema or bytes in it: listed as `mcp-definition`
 * with a `message`, it comes back as the route's RouteSpec definition, with the rest of the
 * server's state. An unchanged MCP definition is not written: its route's RouteSpec brings it
 * back. An `mcp` entry naming no MCP route among the snapshot's routes is ignored, as a `usage`
 * entry is.
 */
import { Duration, Effect, Result, Schema } from "effect"
import { Count, McpServerJson, prepareServers, type McpServersApi } from "../mcp-route/state.ts"
import type { LlmLogEntry, SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import { Chaos } from "../registry/chaos.ts"
import { KeyCounts } from "../registry/keyCounts.ts"
import type { Network } from "../registry/engine.ts"
import { REQUEST_FAULTS, type RequestCounters, type RequestRecord } from "../registry/requestLog.ts"
import type { Route } from "../registry/route.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import { depthExceeds, isPlainJson, MAX_JSON_DEPTH } from "../registry/util.ts"
import { defaultDecodeContext } from "../families/index.ts"
import { decodeRouteSpecs, type DecodeContext } from "../schemas/decode.ts"
import { LlmScript } from "../schemas/llmScript.ts"
import { ChaosData } from "../schemas/options.ts"
import { Candidate, InvalidRouteSpec, type RegisterError, type RestoreError } from "../SimnetError.ts"

/** A record's number in its log: a whole number from 1. */
const Seq = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

const Usage = Schema.Struct({
  hits: Count,
  remaining: Schema.optional(Count),
  occurrences: Schema.optional(Schema.Record(Schema.String, Count)),
  /** Occurrences per request key as seeded chaos counts them, so a restored network goes on drawing the same hits. */
  chaosOccurrences: Schema.optional(Schema.Record(Schema.String, Count))
})

const RuleJson = Schema.Struct({
  id: Schema.String,
  match: Schema.Unknown,
  behaviour: Schema.Unknown,
  latencyMs: Schema.optional(Schema.Finite),
  times: Schema.optional(Count),
  failures: Schema.optional(Count)
})

const RequestRecordJson = Schema.Struct({
  seq: Seq,
  time: Schema.Finite,
  method: Schema.String,
  url: Schema.String,
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.optional(Schema.Struct({ size: Count, preview: Schema.String })),
  route: Schema.optional(Schema.Struct({ id: Schema.String, kind: Schema.String, source: Schema.String })),
  denial: Schema.optional(Schema.String),
  fault: Schema.optional(Schema.Literals(REQUEST_FAULTS)),
  status: Schema.optional(Count),
  seed: Schema.optional(Schema.Finite),
  occurrence: Schema.optional(Count),
  detail: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  violations: Schema.optional(
    Schema.Array(
      Schema.Struct({
        location: Schema.Array(Schema.String),
        severity: Schema.Literal("Error"),
        code: Schema.String,
        message: Schema.String
      })
    )
  ),
  chaos: Schema.optional(
    Schema.Union([
      Schema.Struct({ effect: Schema.Literals(["reset", "timeout", "malformed", "streamCut"]) }),
      Schema.Struct({ effect: Schema.Literal("status"), status: Count }),
      Schema.Struct({ effect: Schema.Literal("latency"), ms: Count })
    ])
  ),
  refusal: Schema.optional(
    Schema.Struct({
      message: Schema.String.check(Schema.isMaxLength(4_000)),
      candidates: Schema.optional(Schema.Array(Candidate).check(Schema.isMaxLength(16)))
    })
  ),
  answeredMs: Schema.optional(Schema.Finite),
  scenario: Schema.optional(
    Schema.Struct({ name: Schema.String, state: Schema.String, newState: Schema.optional(Schema.String) })
  )
})

const CountersJson = Schema.Struct({ requests: Count, answered: Count, denied: Count, faulted: Schema.optional(Count) })

/** A model log entry: the fields its restore needs are checked, the rest kept as written. */
const LlmLogEntryJson = Schema.Struct({
  seq: Seq,
  id: Schema.String,
  at: Schema.Finite,
  api: Schema.optional(Schema.String),
  url: Schema.String,
  model: Schema.String,
  stream: Schema.Boolean,
  key: Schema.String,
  toolResultRounds: Count,
  lastUserMessage: Schema.optional(Schema.String),
  body: Schema.optional(Schema.Unknown),
  source: Schema.Literals(["script", "rule", "driver", "none"]),
  rule: Schema.optional(Schema.String),
  step: Schema.optional(Count),
  outcome: Schema.String,
  status: Schema.optional(Count),
  rawSha256: Schema.optional(Schema.String)
})

/**
 * The restorable part of a snapshot, as `POST snapshot` and `restore` decode it.
 */
export const SnapshotState = Schema.Struct({
  seed: Schema.Finite,
  routes: Schema.Array(Schema.Struct({ source: Schema.String, spec: Schema.Unknown })),
  usage: Schema.optional(Schema.Record(Schema.String, Usage)),
  llm: Schema.optional(
    Schema.Struct({
      callCount: Count,
      scripts: Schema.Struct({
        queued: Schema.Array(LlmScript),
        current: Schema.optional(LlmScript),
        consumed: Count,
        startRound: Schema.optional(Count),
        handoff: Schema.optional(Schema.Boolean)
      }),
      rules: Schema.Array(RuleJson),
      log: Schema.optional(Schema.Array(LlmLogEntryJson))
    })
  ),
  llmCounts: Schema.optional(Schema.Record(Schema.String, Count)),
  log: Schema.optional(Schema.Array(RequestRecordJson)),
  counters: Schema.optional(CountersJson),
  mcp: Schema.optional(Schema.Array(McpServerJson)),
  chaos: Schema.optional(ChaosData),
  /** Each scenario's state, by name (`registry/scenarios.ts`). */
  scenarios: Schema.optional(Schema.Record(Schema.String, Schema.String))
})
export type SnapshotState = typeof SnapshotState.Type

/**
 * A snapshot: the restorable state (with the request log, its counters and the model's counts
 * per request key) and what could not be serialized.
 */
export interface NetworkState extends SnapshotState {
  /**
   * What the snapshot leaves out, by route: a route registered in code (its `kind`), or an MCP
   * route's definition changed to one with code in it (`kind: "mcp-definition"`, with `message`).
   */
  readonly unserializable: ReadonlyArray<{
    readonly id: string
    readonly kind: string
    readonly source: string
    readonly match: string
    readonly message?: string
  }>
  readonly llmUnserializableRules: ReadonlyArray<string>
  readonly llmCounts: Readonly<Record<string, number>>
  readonly log: ReadonlyArray<RequestRecord>
  readonly counters: RequestCounters
  readonly mcp: ReadonlyArray<McpServerJson>
}

/**
 * The network's state now.
 */
export const capture = (
  network: Network,
  llm: SimulatedProviderApi,
  mcp: McpServersApi,
  counters: RequestCounters
): NetworkState => {
  const routes: Array<{ source: string; spec: unknown }> = []
  const unserializable: Array<NetworkState["unserializable"][number]> = []
  const usage: Record<string, typeof Usage.Type> = {}
  const servers: Array<McpServerJson> = []
  let lastSpec: unknown
  for (const entry of network.registry.entries.values()) {
    const spec = entry.route.describe?.spec
    if (spec === undefined) {
      unserializable.push({
        id: entry.id,
        kind: entry.route.kind,
        source: entry.route.source,
        match: entry.route.matcher.source
      })
      continue
    }
    // The routes of one family reference carry the one spec object: it is written once.
    if (spec !== lastSpec) routes.push({ source: entry.route.source, spec })
    lastSpec = spec
    usage[entry.id] = {
      hits: entry.hits,
      remaining: entry.route.times === undefined ? undefined : entry.remaining,
      occurrences: entry.occurrences === undefined ? undefined : entry.occurrences.toRecord(),
      ...(entry.chaosCounts === undefined ? {} : { chaosOccurrences: entry.chaosCounts.toRecord() })
    }
    const server = mcp.toJson(entry.id)
    if (server === undefined) continue
    servers.push(server.json)
    if (server.unserializable !== undefined) {
      unserializable.push({
        id: entry.id,
        kind: "mcp-definition",
        source: entry.route.source,
        match: entry.route.matcher.source,
        message: server.unserializable
      })
    }
  }
  const rules: Array<typeof RuleJson.Type> = []
  const llmUnserializableRules: Array<string> = []
  for (const rule of llm.rules) {
    if (!isPlainJson(rule.match) || !isPlainJson(rule.behaviour)) {
      llmUnserializableRules.push(rule.id)
      continue
    }
    if (rule.times !== undefined && rule.times - rule.uses <= 0) continue
    rules.push({
      id: rule.id,
      match: rule.match,
      behaviour: rule.behaviour,
      latencyMs: rule.latency === undefined ? undefined : Duration.toMillis(rule.latency),
      times: rule.times === undefined ? undefined : rule.times - rule.uses,
      failures: rule.failures === 0 ? undefined : rule.failures
    })
  }
  const state = llm.state
  return {
    seed: network.runSeed,
    routes,
    usage,
    llm: { callCount: state.callCount, scripts: state.scripts, rules, log: state.log },
    unserializable,
    llmUnserializableRules,
    llmCounts: state.counts ?? {},
    log: network.records(),
    counters,
    mcp: servers,
    ...(network.chaos === undefined ? {} : { chaos: network.chaos.options }),
    scenarios: network.registry.scenarios.states()
  }
}

/**
 * Refuses a log whose `seq`s do not increase (a repeated or earlier one): every record is found
 * by its number, and a log restored out of order would read as empty.
 */
const increasing = (records: ReadonlyArray<{ readonly seq: number }>, at: string): InvalidRouteSpec | undefined => {
  for (let i = 1; i < records.length; i++) {
    if (records[i].seq <= records[i - 1].seq) {
      return new InvalidRouteSpec({
        path: `${at}[${i}].seq`,
        message: `not a snapshot simnet wrote: seq ${records[i].seq} follows ${records[i - 1].seq}; a log's seqs increase`
      })
    }
  }
  return undefined
}

const atPath = <E extends RestoreError>(error: E, prefix: string): E | InvalidRouteSpec =>
  error instanceof InvalidRouteSpec
    ? new InvalidRouteSpec({
        path: `${prefix}${error.path === "$" || error.path === "" ? "" : error.path.startsWith("[") ? error.path : `.${error.path}`}`,
        message: error.message
      })
    : error

/**
 * Restores a snapshot, all or nothing: every route spec is decoded, every changed MCP definition
 * compiled and every model rule and script checked on a scratch model before the network changes.
 * The routes then replace the network's routes, with their use counts and occurrences, and the
 * MCP servers get their sessions, counts and definitions; the seed becomes the snapshot's; the
 * model is reset to the snapshot's call count, queue and rules.
 */
export const restore = (
  network: Network,
  llm: SimulatedProviderApi,
  mcp: McpServersApi,
  scratch: SimulatedProviderApi,
  json: unknown,
  context: DecodeContext,
  register: (routes: ReadonlyArray<Route>) => Effect.Effect<ReadonlyArray<string>, RegisterError>
): Effect.Effect<void, RestoreError> =>
  Effect.gen(function* () {
    if (depthExceeds(json, MAX_JSON_DEPTH)) {
      return yield* new InvalidRouteSpec({
        path: "$",
        message: `not a snapshot simnet wrote: it nests more than ${MAX_JSON_DEPTH} deep`
      })
    }
    const decoded = decodeAt(SnapshotState, json, "")
    if (Result.isFailure(decoded))
      return yield* new InvalidRouteSpec({
        path: decoded.failure.path || "$",
        message: `not a snapshot: ${decoded.failure.message}`
      })
    const state = decoded.success
    const unordered = increasing(state.log ?? [], "log") ?? increasing(state.llm?.log ?? [], "llm.log")
    if (unordered !== undefined) return yield* unordered
    const routes = yield* Effect.forEach(state.routes, (item, i) =>
      Effect.mapError(
        Effect.map(
          decodeRouteSpecs(item.spec, { ...defaultDecodeContext, ...context, source: item.source }),
          (d) => d.routes
        ),
        (error) => atPath(error, `routes[${i}].spec`)
      )
    )
    const servers = prepareServers(state.mcp ?? [], "mcp")
    if (Result.isFailure(servers)) return yield* servers.failure
    const rules = state.llm?.rules ?? []
    const applyModel = (target: SimulatedProviderApi) =>
      Effect.gen(function* () {
        target.reset()
        if (state.llm === undefined) return
        yield* target.restore({
          callCount: state.llm.callCount,
          scripts: { ...state.llm.scripts, current: state.llm.scripts.current },
          rules,
          log: state.llm.log as ReadonlyArray<LlmLogEntry> | undefined,
          counts: state.llmCounts
        })
      })
    yield* applyModel(scratch)
    // What a refused registration puts back: the routes with their use, the log, the seed.
    const previousEntries = Array.from(network.registry.entries.values())
    const previousSeed = network.runSeed
    const previousRetired = new Map(network.registry.retired)
    const previousScenarios = network.registry.scenarios.states()
    network.registry.clear()
    const putBackLog = network.log.setAside()
    network.registry.retired.clear()
    network.runSeed = Math.trunc(state.seed)
    const previousChaos = network.chaos
    network.chaos = state.chaos === undefined ? undefined : new Chaos(state.chaos)
    const registered = yield* Effect.exit(register(routes.flat()))
    if (registered._tag === "Failure") {
      network.registry.clear()
      network.runSeed = previousSeed
      network.chaos = previousChaos
      yield* Effect.ignore(register(previousEntries.map((entry) => entry.route)))
      for (const before of previousEntries) {
        const entry = network.registry.entries.get(before.id)
        if (entry === undefined) continue
        entry.hits = before.hits
        entry.remaining = before.remaining
        entry.occurrences = before.occurrences
      }
      network.registry.retired.clear()
      for (const [id, hits] of previousRetired) network.registry.retired.set(id, hits)
      network.registry.scenarios.restore(previousScenarios)
      putBackLog()
      return yield* registered
    }
    if (state.log !== undefined || state.counters !== undefined) {
      const records = (state.log ?? []).map(
        (r): RequestRecord => ({
          body: undefined,
          route: undefined,
          denial: undefined,
          status: undefined,
          seed: undefined,
          occurrence: undefined,
          detail: undefined,
          ...r
        })
      )
      network.log.restore(
        records,
        state.counters === undefined
          ? { requests: state.log?.at(-1)?.seq ?? 0, answered: 0, denied: 0, faulted: 0 }
          : { ...state.counters, faulted: state.counters.faulted ?? 0 }
      )
    }
    for (const [id, usage] of Object.entries(state.usage ?? {})) {
      const entry = network.registry.entries.get(id)
      if (entry === undefined) continue
      entry.hits = usage.hits
      if (usage.remaining !== undefined) entry.remaining = usage.remaining
      if (usage.occurrences !== undefined) entry.occurrences = KeyCounts.fromRecord(usage.occurrences)
      if (usage.chaosOccurrences !== undefined) entry.chaosCounts = KeyCounts.fromRecord(usage.chaosOccurrences)
    }
    network.registry.scenarios.restore(state.scenarios ?? {})
    mcp.restore(servers.success)
    yield* applyModel(llm)
  })
