/**
 * The state of a network's simulated MCP servers: `McpServers`, a service each network builds
 * and puts in the services its routes look up (as it does the simulated model). It holds, per MCP
 * route, the current definitions, the open sessions and the calls each tool has had. The route
 * value holds only its compiled initial definitions, so one route registered in two networks
 * shares nothing between them. A snapshot writes each server's state as JSON (`McpServerJson`)
 * and a restore sets it back, so a restored network goes on issuing the same session ids and
 * generating the same tool results.
 */
import { Context, Effect, Result, Schema } from "effect"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { compileServer, type CompiledServer, type McpServerDefinition } from "./definitions.ts"
import { decodeAt, errorMessage, hashString, isPlainJson, KeyCounts, type Answerer, type Route } from "./floor.ts"
import { McpServerSpec } from "./mcpServerSpec.ts"

/** One open session. */
export interface McpSession {
  readonly id: string
  readonly protocolVersion: string
  readonly client: { readonly name: string; readonly version: string } | undefined
}

/**
 * A server as a test sees it: its current definition, its open sessions, and the calls each
 * tool has had.
 */
export interface McpServerView {
  readonly definition: McpServerDefinition
  readonly sessions: ReadonlyArray<McpSession>
  readonly counts: Readonly<Record<string, number>>
}

const hex = (n: number) => n.toString(16).padStart(8, "0")

/** The most sessions a server keeps open; opening one more ends the oldest. */
export const MAX_SESSIONS = 10_000
/** The most distinct tool names counted one by one; calls of any other name count under `OTHER_TOOLS`. */
const MAX_TOOL_NAMES = 1_024
const OTHER_TOOLS = "(other tools)"
/** The longest client name or version a session keeps. */
const CLIENT_TEXT = 256

/** A count in a snapshot: a whole number, never negative (`network/snapshot.ts` reads its counts with it too). */
export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * One MCP route's server state as a snapshot writes it, under the route's id: how many session
 * ids it has issued (the next id follows from that count), the open sessions, the calls per tool,
 * the occurrences per canonical call, by its 64-bit hash in hex (they seed generated tool
 * results), and — only when
 * `network.mcp.update` changed it and it can be written as JSON — the definition it serves. An
 * unchanged definition is left out: the route's RouteSpec brings it back.
 */
export const McpServerJson = Schema.Struct({
  id: Schema.String,
  issued: Count,
  sessions: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      protocolVersion: Schema.String,
      client: Schema.optional(Schema.Struct({ name: Schema.String, version: Schema.String }))
    })
  ),
  calls: Schema.Record(Schema.String, Count),
  occurrences: Schema.Record(Schema.String, Count),
  definition: Schema.optional(McpServerSpec)
})
export type McpServerJson = typeof McpServerJson.Type

/**
 * A server's state as JSON, and why its changed definition was left out when it was
 * (`unserializable`).
 */
export interface McpServerSnapshot {
  readonly json: McpServerJson
  readonly unserializable: string | undefined
}

/**
 * A changed definition as RouteSpec JSON, or why it cannot be: code and bytes have no JSON form,
 * and JSON that a RouteSpec server does not decode would make the snapshot refused on restore.
 */
const definitionJson = (definition: McpServerDefinition): Result.Result<typeof McpServerSpec.Type, string> => {
  const lost = "a restored network serves the route's RouteSpec definition instead"
  if (!isPlainJson(definition)) {
    return Result.fail(
      `the definition set with network.mcp.update holds code (a handler, an Effect Schema) or bytes, which JSON cannot carry; ${lost}`
    )
  }
  return Result.mapError(
    decodeAt(McpServerSpec, definition, "server"),
    (issue) =>
      `the definition set with network.mcp.update is not a RouteSpec server (${issue.path}: ${issue.message}); ${lost}`
  )
}

/**
 * The state behind one MCP route in one network. Internal to the MCP route.
 */
/** What the engine keeps for one session: at least the revision of the definitions it was built from. */
export interface SessionEngine {
  readonly revision: number
}

/**
 * A session's live connection (its SDK server and transport, open streams included): kept until
 * the session ends, across changes of the definitions, which it is told of.
 */
export interface SessionRuntime {
  close(): void
}

/** What a session asked for: the least log level it wants (`logging/setLevel`), the resources it watches. */
export interface SessionWishes {
  level: string | undefined
  readonly subscriptions: Set<string>
}

/** The most resources one session may subscribe to. */
export const MAX_SUBSCRIPTIONS = 1_024

export class McpServerState {
  /** The compiled definitions of the route this state was made for. */
  readonly initial: CompiledServer
  current: CompiledServer
  /** Bumped whenever `current` changes, so per-session engines know to rebuild. */
  revision = 0
  /** Open sessions, oldest first (a `Map` keeps the order they were opened in). */
  private readonly sessions = new Map<string, McpSession>()
  private readonly calls = new Map<string, number>()
  /** By a 64-bit hash of each call's key: a key holds the call's arguments, of any size. */
  private occurrences = new KeyCounts()
  private issued = 0
  /**
   * What the engine keeps per session (its SDK server at one revision of the definitions), by
   * session id ("" for a stateless server): owned here, so it goes when its session ends or this
   * state does. Opaque to this module, which loads without the engine.
   */
  readonly engines = new Map<string, SessionEngine>()
  /** Each session's live connection, by session id (`SessionRuntime`). */
  readonly runtimes = new Map<string, SessionRuntime>()
  /** Each session's log level and subscriptions, by session id ("" for a stateless server). */
  private readonly wishes = new Map<string, SessionWishes>()
  /** Told of every change of the definitions (`update`), with the definitions before and after. */
  readonly watchers = new Set<(previous: CompiledServer, next: CompiledServer) => void>()

  constructor(compiled: CompiledServer) {
    this.initial = compiled
    this.current = compiled
  }

  /**
   * The state a snapshot wrote, on the route whose compiled definitions are `compiled`; `current`
   * is the snapshot's changed definition, compiled. A new state has no per-session servers built
   * at an older revision, so `revision` starts afresh.
   */
  static fromJson(compiled: CompiledServer, json: McpServerJson, current: CompiledServer | undefined): McpServerState {
    const state = new McpServerState(compiled)
    if (current !== undefined) state.current = current
    state.issued = json.issued
    for (const session of json.sessions)
      state.sessions.set(session.id, {
        id: session.id,
        protocolVersion: session.protocolVersion,
        client: session.client
      })
    for (const [tool, n] of Object.entries(json.calls)) state.calls.set(tool, n)
    state.occurrences = KeyCounts.fromRecord(json.occurrences)
    return state
  }

  /** Swaps in a new definition, or fails leaving the current one. */
  update(change: (current: McpServerDefinition) => McpServerDefinition): Result.Result<void, InvalidRouteSpec> {
    let next: McpServerDefinition
    try {
      next = change(this.current.definition)
    } catch (error) {
      return Result.fail(new InvalidRouteSpec({ path: "server", message: `the change failed: ${errorMessage(error)}` }))
    }
    return Result.map(compileServer(next), (compiled) => {
      const previous = this.current
      this.current = compiled
      this.revision++
      for (const watcher of this.watchers) watcher(previous, compiled)
    })
  }

  /**
   * Opens a session. Its id is a pure function of the run seed, the route and how many sessions
   * the route has issued: the same run issues the same ids.
   */
  open(
    runSeed: number,
    identity: string,
    protocolVersion: string,
    client: McpSession["client"]
  ): { readonly session: McpSession; readonly ended: string | undefined } {
    const n = this.issued++
    const part = (k: number) =>
      hex(hashString(`simnet/mcp-session/v1\u0000${runSeed}\u0000${identity}\u0000${n}\u0000${k}`))
    const raw = `${part(0)}${part(1)}${part(2)}${part(3)}`
    const id = `${raw.slice(0, 8)}-${raw.slice(8, 12)}-4${raw.slice(13, 16)}-a${raw.slice(17, 20)}-${raw.slice(20, 32)}`
    const session = {
      id,
      protocolVersion,
      client:
        client === undefined
          ? undefined
          : { name: client.name.slice(0, CLIENT_TEXT), version: client.version.slice(0, CLIENT_TEXT) }
    }
    this.sessions.set(id, session)
    // Clients that never end their sessions do not grow the server without bound: past the limit
    // the oldest session ends, as a real server expires one (its next request gets 404).
    let ended: string | undefined
    if (this.sessions.size > MAX_SESSIONS) {
      ended = this.sessions.keys().next().value
      if (ended !== undefined) this.end(ended)
    }
    return { session, ended }
  }

  session(id: string): McpSession | undefined {
    return this.sessions.get(id)
  }

  /** Ends a session; false when it was not open. */
  end(id: string): boolean {
    this.engines.delete(id)
    this.wishes.delete(id)
    const runtime = this.runtimes.get(id)
    this.runtimes.delete(id)
    runtime?.close()
    return this.sessions.delete(id)
  }

  /** Closes every session's live connection (the state is being dropped: reset or restore). */
  closeAll(): void {
    for (const runtime of this.runtimes.values()) runtime.close()
    this.runtimes.clear()
  }

  /** What a session asked for (`""` for a stateless server, whose wishes last one request). */
  wishesOf(id: string): SessionWishes {
    let found = this.wishes.get(id)
    if (found === undefined) {
      found = { level: undefined, subscriptions: new Set() }
      if (id !== "" && this.sessions.has(id)) this.wishes.set(id, found)
    }
    return found
  }

  /** Counts a call of `tool` with canonical arguments `key`; returns the occurrence of that call. */
  count(tool: string, key: string): number {
    this.countName(tool)
    return this.occurrences.increment(key)
  }

  /**
   * Counts a call of `tool` by name only (all a call of a tool the server does not have gets).
   * Names past the limit (a client calling made-up tools) or longer than `CLIENT_TEXT` are
   * counted together.
   */
  countName(tool: string): void {
    const name =
      tool.length <= CLIENT_TEXT && (this.calls.has(tool) || this.calls.size < MAX_TOOL_NAMES) ? tool : OTHER_TOOLS
    this.calls.set(name, (this.calls.get(name) ?? 0) + 1)
  }

  view(): McpServerView {
    return {
      definition: this.current.definition,
      sessions: Array.from(this.sessions.values()),
      counts: Object.fromEntries(this.calls)
    }
  }

  /** This state as JSON under route `id`, for a snapshot. */
  toJson(id: string): McpServerSnapshot {
    let definition: typeof McpServerSpec.Type | undefined
    let unserializable: string | undefined
    if (this.current !== this.initial) {
      const written = definitionJson(this.current.definition)
      if (Result.isSuccess(written)) definition = written.success
      else unserializable = written.failure
    }
    const json: McpServerJson = {
      id,
      issued: this.issued,
      sessions: Array.from(this.sessions.values(), (session) =>
        session.client === undefined
          ? { id: session.id, protocolVersion: session.protocolVersion }
          : {
              id: session.id,
              protocolVersion: session.protocolVersion,
              client: { name: session.client.name, version: session.client.version }
            }
      ),
      calls: Object.fromEntries(this.calls),
      occurrences: this.occurrences.toRecord(),
      ...(definition === undefined ? {} : { definition })
    }
    return { json, unserializable }
  }
}

/** A snapshot's server state, checked and with its changed definition compiled, for `McpServersApi.restore`. */
export interface PreparedServer {
  readonly json: McpServerJson
  readonly current: CompiledServer | undefined
}

/**
 * Checks a snapshot's server states before anything changes, so that a restore refused here
 * leaves the network as it was: each changed definition must compile, and a route has one state.
 * A problem is an `InvalidRouteSpec` whose path starts at `base` (`mcp[0].definition.tools[1].name`).
 */
export const prepareServers = (
  servers: ReadonlyArray<McpServerJson>,
  base: string
): Result.Result<ReadonlyArray<PreparedServer>, InvalidRouteSpec> =>
  Result.gen(function* () {
    const prepared: Array<PreparedServer> = []
    const seen = new Set<string>()
    for (const [i, json] of servers.entries()) {
      const at = `${base}[${i}]`
      if (seen.has(json.id))
        return yield* Result.fail(
          new InvalidRouteSpec({ path: `${at}.id`, message: `a second state for the MCP route "${json.id}"` })
        )
      seen.add(json.id)
      const current =
        json.definition === undefined ? undefined : yield* compileServer(json.definition, `${at}.definition`)
      prepared.push({ json, current })
    }
    return prepared
  })

/**
 * An MCP route's answerer, carrying the compiled definitions it serves (every copy of the route
 * shares the answerer, and so them): how `McpServers` finds a route's server by id before it has
 * answered anything, without a table kept beside the routes.
 */
export type McpAnswerer = Answerer & { readonly compiled: CompiledServer }

/** The compiled definitions a route's responder serves, when it is an MCP route's. */
const compiledOf = (answer: Answerer): CompiledServer | undefined => (answer as Partial<McpAnswerer>).compiled

/**
 * A registered route as `McpServers` finds it by id: its identity (what its state is kept under)
 * and the route itself.
 */
export interface RegisteredRoute {
  readonly identity: string
  readonly route: Route
}

/**
 * The MCP servers of one network, by route id.
 * - `get(id)`: the server's definition, sessions and counts (undefined when no MCP route has that id).
 * - `counts(id)`: calls per tool name (unknown tools are counted too, under their name).
 * - `update(id, change)`: replaces the definition with `change(current)` while the app runs;
 *   the next `tools/list` shows it. A definition that does not compile is an `InvalidRouteSpec`
 *   and the server keeps the one it had.
 * - `reset()`: every server back to its route's definitions, with no sessions and no counts
 *   (`network.reset` calls it).
 * - `toJson(id)` and `restore(servers)`: what `network.state` and `network.restore` write and set
 *   back (see `network/snapshot.ts`).
 */
export class McpServersApi {
  private readonly states = new Map<string, McpServerState>()
  private readonly lookup: (id: string) => RegisteredRoute | undefined

  constructor(lookup: (id: string) => RegisteredRoute | undefined) {
    this.lookup = lookup
  }

  /**
   * The state of the route with this identity, made from its compiled definitions at first use.
   * A different route registered later under the same identity starts afresh.
   */
  server(identity: string, compiled: CompiledServer): McpServerState {
    const state = this.states.get(identity)
    if (state !== undefined && state.initial === compiled) return state
    state?.closeAll()
    const fresh = new McpServerState(compiled)
    this.states.set(identity, fresh)
    return fresh
  }

  /** The identity and compiled definitions of the MCP route with this id. */
  private locate(id: string): { readonly identity: string; readonly compiled: CompiledServer } | undefined {
    const found = this.lookup(id)
    if (found === undefined) return undefined
    const compiled = compiledOf(found.route.answer)
    return compiled === undefined ? undefined : { identity: found.identity, compiled }
  }

  private find(id: string): McpServerState | undefined {
    const found = this.locate(id)
    return found === undefined ? undefined : this.server(found.identity, found.compiled)
  }

  get(id: string): McpServerView | undefined {
    return this.find(id)?.view()
  }

  counts(id: string): Readonly<Record<string, number>> {
    return this.find(id)?.view().counts ?? {}
  }

  update(
    id: string,
    change: (current: McpServerDefinition) => McpServerDefinition
  ): Effect.Effect<void, InvalidRouteSpec> {
    return Effect.suspend(() => {
      const state = this.find(id)
      if (state === undefined)
        return Effect.fail(new InvalidRouteSpec({ path: "id", message: `no MCP route with id "${id}"` }))
      return Effect.fromResult(state.update(change))
    })
  }

  reset(): void {
    for (const state of this.states.values()) state.closeAll()
    this.states.clear()
  }

  /**
   * For a snapshot (`network.state`): the state of the MCP route with this id as JSON, or
   * undefined when it has none yet (no request reached it) or is not an MCP route. Reading makes
   * no state.
   */
  toJson(id: string): McpServerSnapshot | undefined {
    const found = this.locate(id)
    if (found === undefined) return undefined
    const state = this.states.get(found.identity)
    return state === undefined || state.initial !== found.compiled ? undefined : state.toJson(id)
  }

  /**
   * For a restore (`network.restore`), once the snapshot's routes are registered: every server
   * gets the state `servers` has for its route id, or none. A state whose id names no MCP route is
   * ignored, as a snapshot's use counts for an unknown route are.
   */
  restore(servers: ReadonlyArray<PreparedServer>): void {
    for (const state of this.states.values()) state.closeAll()
    this.states.clear()
    for (const { json, current } of servers) {
      const found = this.locate(json.id)
      if (found !== undefined) this.states.set(found.identity, McpServerState.fromJson(found.compiled, json, current))
    }
  }
}

/**
 * The MCP servers of a network as a service: `SimulationNetwork.make` builds one per network and
 * MCP routes look it up from their respond context. Reach it as `network.mcp`.
 */
export class McpServers extends Context.Service<McpServers, McpServersApi>()("simnet/McpServers") {
  /**
   * MCP server state for one network; `lookup` finds a registered route by id.
   */
  static make(lookup: (id: string) => RegisteredRoute | undefined): McpServersApi {
    return new McpServersApi(lookup)
  }
}
