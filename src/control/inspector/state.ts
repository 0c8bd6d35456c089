/**
 * What the inspector's Routes, Model and MCP panels show, read from the network in one go: the
 * routes with their use counts; the simulated model's queue, rules, counts per request key, log
 * and pending invocations; and each MCP route's server with its tools and calls per tool. Every
 * value is plain JSON (a rule's RegExp or predicate is shown as text), and large parts are
 * bounded so a page stays light.
 */
import { Effect } from "effect"
import type { SimulatedProviderApi } from "../../models/provider/SimulatedProvider.ts"
import type { RouteInfo } from "../../network/network.ts"

/**
 * What the panels need of a network.
 */
export interface ViewedNetwork {
  readonly seed: number
  readonly routes: Effect.Effect<ReadonlyArray<RouteView & Record<string, unknown>>>
  readonly counters: Effect.Effect<{
    readonly requests: number
    readonly answered: number
    readonly denied: number
    readonly faulted: number
  }>
  readonly llm: SimulatedProviderApi
  /** The MCP servers by route id (`SimulationNetworkApi.mcp`). */
  readonly mcp: { readonly get: (id: string) => McpServerSeen | undefined }
}

/**
 * What the MCP panel reads of one server (an `McpServerView`): its current definition, its open
 * sessions and the calls each tool has had.
 */
export interface McpServerSeen {
  readonly definition: {
    readonly name: string
    readonly version: string
    readonly title?: string | undefined
    readonly stateless?: boolean | undefined
    readonly tools?:
      | ReadonlyArray<{
          readonly name: string
          readonly title?: string | undefined
          readonly description?: string | undefined
        }>
      | undefined
  }
  readonly sessions: ReadonlyArray<unknown>
  readonly counts: Readonly<Record<string, number>>
}

/**
 * One route as the Routes panel lists it.
 */
export type RouteView = RouteInfo

/** How many routes, model log entries and request keys the panels are sent. */
const ROUTES_LIMIT = 2_000
const MODEL_LOG_LIMIT = 200
const KEYS_LIMIT = 200
/** How many MCP servers, and tools per server, the MCP panel is sent. */
const MCP_SERVERS_LIMIT = 100
const MCP_TOOLS_LIMIT = 500
/** The largest pending request body sent whole, in characters of JSON. */
const BODY_LIMIT = 256 * 1024

/**
 * A value as JSON can carry it: RegExps, functions, bytes and other non-plain values become text.
 */
export const plain = (value: unknown, depth = 0): unknown => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (value === undefined) return undefined
  if (typeof value === "function") return `[function ${value.name || "predicate"}]`
  if (value instanceof RegExp) return String(value)
  if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`
  if (typeof value !== "object") return String(value)
  if (depth > 20) return "[…]"
  if (Array.isArray(value)) return value.map((v) => plain(v, depth + 1))
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
    const json = (value as { toJSON?: () => unknown }).toJSON
    return typeof json === "function" ? plain(json.call(value), depth + 1) : String(value)
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v, depth + 1)
  return out
}

const bounded = (body: unknown): unknown => {
  const text = JSON.stringify(plain(body)) ?? "null"
  return text.length <= BODY_LIMIT ? JSON.parse(text) : { truncated: true, preview: text.slice(0, BODY_LIMIT) }
}

/**
 * The MCP panel's servers: one per simulated `mcp` route (a route `mcpFromConfig` lists as not
 * simulated has no server), with its tools and calls per tool. Calls of a tool the server does
 * not define (the client asked for an unknown name) are listed after its tools.
 */
const mcpServers = (network: ViewedNetwork, routes: ReadonlyArray<RouteView & Record<string, unknown>>) =>
  routes
    .filter((route) => route.kind === "mcp" && route.simulated !== false)
    .slice(0, MCP_SERVERS_LIMIT)
    .flatMap((route) => {
      const server = network.mcp.get(route.id)
      if (server === undefined) return []
      const definition = server.definition
      const tools = (definition.tools ?? []).map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        calls: server.counts[tool.name] ?? 0,
        defined: true
      }))
      const defined = new Set(tools.map((tool) => tool.name))
      for (const [name, calls] of Object.entries(server.counts)) {
        if (!defined.has(name)) tools.push({ name, title: undefined, description: undefined, calls, defined: false })
      }
      return [
        {
          route: route.id,
          match: route.match,
          name: definition.name,
          title: definition.title,
          version: definition.version,
          mode: definition.stateless === true ? "stateless" : "stateful",
          sessions: server.sessions.length,
          calls: Object.values(server.counts).reduce((sum, n) => sum + n, 0),
          tools: tools.slice(0, MCP_TOOLS_LIMIT),
          toolCount: tools.length
        }
      ]
    })

/**
 * The panels' view of a network now (the page reads it as JSON: `ui/state` and the feed's
 * `state` event; `ui/types.d.ts` names it for the page's script).
 */
/** A route's scenario as the Routes panel shows it: `cart: "Started" → "Has item"`. */
const scenarioLine = (route: Readonly<Record<string, unknown>>): string =>
  `${String(route.scenario)}: ${route.requiredState === undefined ? "any state" : JSON.stringify(route.requiredState)}${route.newState === undefined ? "" : ` → ${JSON.stringify(route.newState)}`}`

export const viewOf = (network: ViewedNetwork) =>
  Effect.gen(function* () {
    const routes = yield* network.routes
    const counters = yield* network.counters
    const llm = network.llm
    const log = llm.log
    const lastMessage = new Map<string, string | undefined>()
    for (const entry of log) lastMessage.set(entry.key, entry.lastUserMessage)
    const counts = Array.from(llm.counts, ([key, count]) => ({
      key,
      count,
      lastUserMessage: lastMessage.get(key)
    })).sort((a, b) => b.count - a.count)
    const scripts = llm.state.scripts
    return {
      seed: network.seed,
      counters: {
        requests: counters.requests,
        answered: counters.answered,
        denied: counters.denied,
        faulted: counters.faulted
      },
      routes: routes.slice(0, ROUTES_LIMIT).map((route) => ({
        id: route.id,
        kind: route.kind,
        match: route.match,
        source: route.source,
        priority: route.priority,
        times: route.times,
        hits: route.hits,
        remaining: route.remaining,
        // An OpenAPI operation whose schemas cannot be served, and why.
        refused: typeof route.refused === "string" ? route.refused : undefined,
        // The route's scenario: what it needs and what it moves it to (`scenario: needs → moves`).
        scenario: typeof route.scenario === "string" ? scenarioLine(route) : undefined
      })),
      routeCount: routes.length,
      mcp: mcpServers(network, routes),
      llm: {
        attached: llm.attached,
        callCount: llm.callCount,
        queued: scripts.queued.map((script) => plain(script)),
        current: plain(scripts.current),
        consumed: scripts.consumed,
        rules: llm.rules.map((rule) => ({
          id: rule.id,
          match: plain(rule.match),
          behaviour: plain(rule.behaviour),
          times: rule.times,
          uses: rule.uses
        })),
        counts: counts.slice(0, KEYS_LIMIT),
        keyCount: counts.length,
        log: log.slice(-MODEL_LOG_LIMIT).map((entry) => ({
          seq: entry.seq,
          id: entry.id,
          at: entry.at,
          api: entry.api,
          model: entry.model,
          stream: entry.stream,
          key: entry.key,
          lastUserMessage: entry.lastUserMessage,
          toolResultRounds: entry.toolResultRounds,
          source: entry.source,
          rule: entry.rule,
          step: entry.step,
          outcome: entry.outcome,
          status: entry.status,
          structuredMismatch: entry.structuredMismatch
        })),
        pending: llm.pending.map((invocation) => ({ ...invocation, body: bounded(invocation.body) }))
      }
    }
  })

/** The panels' view, as `viewOf` builds it. */
export type PanelsView = Effect.Success<ReturnType<typeof viewOf>>
