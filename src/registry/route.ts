/**
 * The shapes shared by the registry and every route kind: the request a route sees, the context
 * it answers in, and the route value itself. Public modules re-export what users need.
 */
import { Context, Effect, Option, Result } from "effect"
import type { Duration } from "effect"
import { RouteFailed, type RegenerateError, type RegisterError, type SimnetError } from "../SimnetError.ts"
import type { CompiledMatcher } from "./matcher.ts"
import type { SimRequest } from "./request.ts"
import type { RequestFault, RequestViolation } from "./requestLog.ts"

export type { SimRequest } from "./request.ts"

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
  /**
   * The services of the network: the state of stateful route kinds (the simulated model, MCP
   * servers), looked up with `routeService`.
   */
  readonly services: Context.Context<never>
  /**
   * Sets the `detail` of this request's log record (an MCP call's method and tool). Present for
   * annotated and seeded routes, whose context is made per request; other routes share one
   * context for every request.
   */
  readonly annotate?: ((detail: Readonly<Record<string, unknown>>) => void) | undefined
  /**
   * Writes what was wrong with the request into its log record (a route that validates requests,
   * such as an OpenAPI operation). Present for seeded and annotated routes, whose context is made
   * per request.
   */
  readonly recordViolations?: ((violations: ReadonlyArray<RequestViolation>) => void) | undefined
  /**
   * Runs an Effect with the services the network was built with (its `Clock` among them), until
   * `signal` aborts: for routes answering through `respondDirect` that call Effect code.
   */
  readonly run: <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal) => Promise<A>
}

/**
 * Looks up a service of the network a route answers in. A network that lacks it (a route kind
 * used outside `SimulationNetwork`) fails the request with `RouteFailed` naming the service.
 */
export const routeService = <I, S>(context: RespondContext, key: Context.Key<I, S>): Effect.Effect<S, RouteFailed> => {
  const found = Context.getOption(context.services as Context.Context<I>, key)
  return Option.isSome(found)
    ? Effect.succeed(found.value)
    : Effect.fail(new RouteFailed({ route: context.identity, message: `simnet: this network has no ${key.key}` }))
}

/**
 * How a route produces its answer. It returns a WHATWG `Response`; the registry hands it to
 * `fetch` callers as is and wraps it for `HttpClient` callers.
 */
export type Responder = (request: SimRequest, context: RespondContext) => Effect.Effect<Response, SimnetError>

/**
 * How a route answers outside Effect, its fast path: the response at once (a `Response`, or a
 * `Result` that carries the typed error of a refusal), else a promise of it that rejects with a
 * `SimnetError`. A static or generated body answers at once and costs no fiber; a kind whose
 * engine is promise-based (the MCP route, handlers) costs no fiber either, nor a promise when its
 * answer is ready.
 *
 * The answer modes, by design, are three: `held` (the answer as data, which a server in front of
 * the network writes without a `Response`), `respondDirect` (this), and `respond` (an Effect: the
 * general path, and the only one for a route with a `delay`).
 */
export type DirectResponder = (
  request: SimRequest,
  context: RespondContext
) => Response | Result.Result<Response, SimnetError> | Promise<Response>

/**
 * A route's answer when it is the same for every request (the static kinds): what a server in
 * front of the network writes as it is, without building a `Response`. The body is shared by
 * every request and must not be changed.
 */
export interface HeldAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

const TypeId = "~simnet/Route" as const

/**
 * The fields of a route.
 */
export interface RouteFields {
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
   * The fast path (`DirectResponder`): when present and the route has no `delay`, the registry
   * calls it instead of `respond`. It must answer exactly as `respond` would, failing (or
   * rejecting) with the `SimnetError` that `respond` fails with.
   */
  readonly respondDirect: DirectResponder | undefined
  /**
   * The answer itself, when it is the same for every request (the static kinds): with
   * `respondDirect`, and exactly what it answers. A server may write it instead (see
   * `Network.dispatchHeld`).
   */
  readonly held: HeldAnswer | undefined
  /**
   * Everything checked when the route is registered: the matcher, the options, and the kind's own
   * work (compile a generator, check a host). Route constructors never throw; a failure here
   * rejects the registration and leaves the network unchanged.
   */
  readonly prepare: Effect.Effect<void, RegisterError>
  /** Whether the route needs a derived seed (generated responses): the registry then counts occurrences per request key. */
  readonly seeded: boolean
  /**
   * For generated responses: the body the route serves under a logged seed (`RequestRecord.seed`),
   * so any response can be reproduced from the log.
   */
  readonly regenerate: ((seed: number) => Effect.Effect<string, RegenerateError>) | undefined
  /** Where the route stands in RouteSpec JSON (such as `routes[2]`), to name fields in errors. */
  readonly specPath: string | undefined
  /** Extra fields for the route listing (`routes`, `GET network/routes`). */
  readonly describe: Readonly<Record<string, unknown>> | undefined
  /**
   * Extra listing fields known only once the route is prepared (an OpenAPI operation that turned
   * out not to be servable: `refused`), read each time the route is listed.
   */
  readonly describeLater?: (() => Readonly<Record<string, unknown>> | undefined) | undefined
  /** Whether the route writes a `detail` into its requests' log records (`RespondContext.annotate`). */
  readonly annotated: boolean
  /**
   * What its seeds derive from, when not its `id`: an OpenAPI operation keeps its bare
   * `operationId` here, so giving the route an id prefix changes no generated byte.
   */
  readonly seedIdentity?: string | undefined
  /** What its client sees, for a route that breaks as networks break (the `fault` kind): logged as such, not as an answer. */
  readonly fault?: RequestFault | undefined
}

/**
 * A route: a matcher, an answer and the options that govern its use. A plain value: tagged
 * (`_tag: "Route"`), recognised by `isRoute`.
 */
export interface Route extends RouteFields {
  readonly _tag: "Route"
  readonly [TypeId]: typeof TypeId
}

// The fields are declared once, in `RouteFields`; the class only sets them.
interface RouteValue extends RouteFields {}

class RouteValue implements Route {
  readonly _tag = "Route" as const

  constructor(fields: RouteFields) {
    Object.assign(this, fields)
  }

  /** On the prototype, so a spread copy of a route is not taken for a route. */
  get [TypeId](): typeof TypeId {
    return TypeId
  }
}

/**
 * Makes a route value from its fields.
 */
export const makeRoute = (fields: RouteFields): Route => new RouteValue(fields)

/**
 * The same route with some fields changed.
 */
export const withFields = (route: Route, patch: Partial<RouteFields>): Route => makeRoute({ ...route, ...patch })

/**
 * Whether a value is a route made by a `Route` constructor or a family.
 */
export const isRoute = (u: unknown): u is Route => typeof u === "object" && u !== null && TypeId in u
