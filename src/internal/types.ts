/**
 * The shapes shared by the registry and every route kind: the request a route sees, the context
 * it answers in, and the route record itself. Public modules re-export what users need.
 */
import type { Duration, Effect, Result } from "effect"
import type { SimnetError } from "../SimnetError.ts"
import type { CompiledMatcher } from "./matcher.ts"
import type { SimulatedProvider } from "../provider/SimulatedProvider.ts"

/**
 * A request as a route sees it: method upper-cased, URL parsed, headers as WHATWG `Headers`,
 * the body buffered, and the path parameters of the route's pattern.
 */
export interface SimRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Headers
  readonly body: Uint8Array | undefined
  readonly params: Readonly<Record<string, string>>
  /** Aborts when the client gives up on the request. */
  readonly signal: AbortSignal | undefined
  /** The body decoded as UTF-8 ("" when there is none). */
  text(): string
  /** The body parsed as JSON (`undefined` when absent or not JSON). */
  json(): unknown
}

/**
 * What the registry tells a route while it answers one request.
 */
export interface RespondContext {
  /** The route's stable identity: its `id` when given, else kind and matcher. */
  readonly identity: string
  /** The seed derived for this request: a pure function of run seed, identity, request key and occurrence. */
  readonly seed: number
  /** How many earlier requests with the same canonical key this route has answered. */
  readonly occurrence: number
  /** The run seed of the network. */
  readonly runSeed: number
  /** The network's simulated model, for routes that answer model calls. */
  readonly llm: SimulatedProvider
  /**
   * Adds a `detail` to this request's log record (such as an MCP call's method and tool). Present
   * for routes that say `annotated`.
   */
  readonly annotate?: ((detail: Readonly<Record<string, unknown>>) => void) | undefined
}

/**
 * State a route kind keeps per route (an MCP server's sessions and counts). The network resets it
 * with its own `reset`.
 */
export interface RouteState {
  readonly reset: () => void
}

/**
 * How a route produces its answer. It returns a WHATWG `Response`; the registry hands it to
 * `fetch` callers as is and wraps it for `HttpClient` callers.
 */
export type Responder = (request: SimRequest, context: RespondContext) => Effect.Effect<Response, SimnetError>

/**
 * A registered (or registrable) route.
 */
export interface Route {
  readonly id: string | undefined
  readonly kind: string
  readonly matcher: CompiledMatcher
  readonly times: number | undefined
  readonly priority: number
  readonly delay: Duration.Duration | undefined
  /** Who registered it: "code", "fixture", "control", or a family name. */
  readonly source: string
  readonly respond: Responder
  /**
   * Fast path for answers that need no Effect (static bodies, generated JSON): when present and
   * the route has no `delay`, the registry calls it instead of `respond`. It must answer exactly
   * as `respond` would.
   */
  readonly respondSync?: ((request: SimRequest, context: RespondContext) => Result.Result<Response, SimnetError>) | undefined
  /**
   * Work to do once, at registration (compile a generator, check a host). A failure rejects
   * the registration and leaves the registry unchanged.
   */
  readonly prepare?: (() => Effect.Effect<void, SimnetError>) | undefined
  /** Whether the route needs a derived seed (generated responses): the registry then counts occurrences per request key. */
  readonly seeded?: boolean | undefined
  /**
   * For generated responses: the body the route serves under a logged seed (`RequestRecord.seed`),
   * so any response can be reproduced from the log.
   */
  readonly regenerate?: ((seed: number) => Effect.Effect<string, SimnetError>) | undefined
  /** Where the route stands in RouteSpec JSON (such as `routes[2]`), to name fields in errors. */
  readonly specPath?: string | undefined
  /** Extra fields for the route listing (`routes`, `GET network/routes`). */
  readonly describe?: Readonly<Record<string, unknown>> | undefined
  /** Whether the route sets a `detail` on its requests' log records (`RespondContext.annotate`). */
  readonly annotated?: boolean | undefined
  /** The route's own state, when its kind keeps one (see `RouteState`). */
  readonly state?: RouteState | undefined
}
