/**
 * The state of a network's simulated MCP servers: `McpServers`, a service each network builds
 * and puts in the services its routes look up (as it does the simulated model). It holds, per MCP
 * route, the current definitions, the open sessions and the calls each tool has had. The route
 * value holds only its compiled initial definitions, so one route registered in two networks
 * shares nothing between them.
 */
import { Context, Effect, Result } from "effect"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { compileServer, type CompiledServer, type McpServerDefinition } from "./definitions.ts"
import { errorMessage, hashString, type Responder, type Route } from "./registry.ts"

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

/**
 * The state behind one MCP route in one network. Internal to the MCP route.
 */
export class McpServerState {
  /** The compiled definitions of the route this state was made for. */
  readonly initial: CompiledServer
  current: CompiledServer
  /** Bumped whenever `current` changes, so per-session engines know to rebuild. */
  revision = 0
  private readonly sessions = new Map<string, McpSession>()
  private readonly calls = new Map<string, number>()
  private readonly occurrences = new Map<string, number>()
  private issued = 0

  constructor(compiled: CompiledServer) {
    this.initial = compiled
    this.current = compiled
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
      this.current = compiled
      this.revision++
    })
  }

  /**
   * Opens a session. Its id is a pure function of the run seed, the route and how many sessions
   * the route has issued: the same run issues the same ids.
   */
  open(runSeed: number, identity: string, protocolVersion: string, client: McpSession["client"]): McpSession {
    const n = this.issued++
    const part = (k: number) => hex(hashString(`simnet/mcp-session/v1\u0000${runSeed}\u0000${identity}\u0000${n}\u0000${k}`))
    const raw = `${part(0)}${part(1)}${part(2)}${part(3)}`
    const id = `${raw.slice(0, 8)}-${raw.slice(8, 12)}-4${raw.slice(13, 16)}-a${raw.slice(17, 20)}-${raw.slice(20, 32)}`
    const session = { id, protocolVersion, client }
    this.sessions.set(id, session)
    return session
  }

  session(id: string): McpSession | undefined {
    return this.sessions.get(id)
  }

  /** Ends a session; false when it was not open. */
  end(id: string): boolean {
    return this.sessions.delete(id)
  }

  /** Counts a call of `tool` with canonical arguments `key`; returns the occurrence of that call. */
  count(tool: string, key: string): number {
    this.calls.set(tool, (this.calls.get(tool) ?? 0) + 1)
    const occurrence = this.occurrences.get(key) ?? 0
    this.occurrences.set(key, occurrence + 1)
    return occurrence
  }

  view(): McpServerView {
    return { definition: this.current.definition, sessions: Array.from(this.sessions.values()), counts: Object.fromEntries(this.calls) }
  }
}

/**
 * The compiled initial definitions of every MCP route value, by its responder (which every copy
 * of the route shares). Immutable data, so sharing it between networks shares no state.
 */
const compiledByResponder = new WeakMap<Responder, CompiledServer>()

/** Records the compiled definitions an MCP route's responder serves. */
export const defineServer = (respond: Responder, compiled: CompiledServer): void => {
  compiledByResponder.set(respond, compiled)
}

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
    const fresh = new McpServerState(compiled)
    this.states.set(identity, fresh)
    return fresh
  }

  private find(id: string): McpServerState | undefined {
    const found = this.lookup(id)
    if (found === undefined) return undefined
    const compiled = compiledByResponder.get(found.route.respond)
    return compiled === undefined ? undefined : this.server(found.identity, compiled)
  }

  get(id: string): McpServerView | undefined {
    return this.find(id)?.view()
  }

  counts(id: string): Readonly<Record<string, number>> {
    return this.find(id)?.view().counts ?? {}
  }

  update(id: string, change: (current: McpServerDefinition) => McpServerDefinition): Effect.Effect<void, InvalidRouteSpec> {
    return Effect.suspend(() => {
      const state = this.find(id)
      if (state === undefined) return Effect.fail(new InvalidRouteSpec({ path: "id", message: `no MCP route with id "${id}"` }))
      return Effect.fromResult(state.update(change))
    })
  }

  reset(): void {
    this.states.clear()
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
