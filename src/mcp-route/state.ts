/**
 * The state of one simulated MCP server: its current definitions, its sessions, and how often
 * each tool was called. One state object belongs to one `Route.mcp`; the network reaches it by
 * route id through `McpServers`.
 */
import { Effect, Result } from "effect"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { compileServer, type CompiledServer, type McpServerDefinition } from "./definitions.ts"
import { hashString } from "./registry.ts"

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

/**
 * The MCP servers of a network, by route id.
 * - `get(id)`: the server's definition, sessions and counts (undefined when no MCP route has that id).
 * - `counts(id)`: calls per tool name (unknown tools are counted too, under their name).
 * - `update(id, change)`: replaces the definition with `change(current)` while the app runs;
 *   the next `tools/list` shows it. A definition that does not compile is an `InvalidRouteSpec`
 *   and the server keeps the one it had.
 */
export interface McpServers {
  readonly get: (id: string) => McpServerView | undefined
  readonly counts: (id: string) => Readonly<Record<string, number>>
  readonly update: (
    id: string,
    change: (current: McpServerDefinition) => McpServerDefinition
  ) => Effect.Effect<void, InvalidRouteSpec>
}

const hex = (n: number) => n.toString(16).padStart(8, "0")

/**
 * The state behind one MCP route. `reset()` restores the initial definitions and forgets sessions
 * and counts (the network calls it on `reset`).
 */
export class McpServerState {
  private readonly initial: CompiledServer
  current: CompiledServer
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
      return Result.fail(new InvalidRouteSpec({ path: "server", message: `the change failed: ${error instanceof Error ? error.message : String(error)}` }))
    }
    return Result.map(compileServer(next), (compiled) => {
      this.current = compiled
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

  reset(): void {
    this.current = this.initial
    this.sessions.clear()
    this.calls.clear()
    this.occurrences.clear()
    this.issued = 0
  }
}

/**
 * `McpServers` over a lookup of route state by id.
 */
export const makeMcpServers = (lookup: (id: string) => unknown): McpServers => {
  const find = (id: string) => {
    const state = lookup(id)
    return state instanceof McpServerState ? state : undefined
  }
  return {
    get: (id) => find(id)?.view(),
    counts: (id) => find(id)?.view().counts ?? {},
    update: (id, change) =>
      Effect.suspend(() => {
        const state = find(id)
        if (state === undefined) return Effect.fail(new InvalidRouteSpec({ path: "id", message: `no MCP route with id "${id}"` }))
        return Effect.fromResult(state.update(change))
      })
  }
}
