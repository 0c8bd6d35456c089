/**
 * The shapes shared by the registry and every route kind: the request a route sees, the context
 * it answers in, and the route value itself. Public modules re-export what users need.
 */
import { Context, Effect, Option } from "effect"
import { type Answer, pending, type Settled, type Whole } from "./answer.ts"
import type { Duration } from "effect"
import { RouteFailed, type RegenerateError, type RegisterError, type SimnetError } from "../SimnetError.ts"
import type { CompiledMatcher } from "./matcher.ts"
import type { Redactor } from "./redact.ts"
import type { ScenarioOptions } from "./scenarios.ts"
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
   * `signal` aborts: for routes answering outside Effect that call Effect code.
   */
  readonly run: <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal) => Promise<A>
  /** The network's `Clock` now, in milliseconds: for a route that answers at once, outside Effect. */
  readonly now?: (() => number) | undefined
  /**
   * How the network shows a request (credentials redacted): a route that keeps or shows a URL
   * (the simulated model's log) keeps it as this shows it. Absent outside `SimulationNetwork`.
   */
  readonly redactor?: Redactor | undefined
}

/**
 * Looks up a service of the network a route answers in. A network that lacks it (a route kind
 * used outside `SimulationNetwork`) fails the request with `RouteFailed` naming the service.
 */
export const routeService = <I, S>(context: RespondContext, key: Context.Key<I, S>): Effect.Effect<S, RouteFailed> => {
  const found = Context.getOption(context.services as Context.Context<I>, key)
  return Option.isSome(found)
    ? Effect.succeed(found.value)
    : Effect.fail(
        new RouteFailed({
          route: context.identity,
          reason: "service",
          message: `simnet: this network has no ${key.key}`
        })
      )
}

/**
 * How a route kind authors an answer as an Effect of a WHATWG `Response`, or of an answer had
 * now (`Settled`: a body it holds whole goes to the doors as it is) (`answerWith` makes it a
 * route's `answer`).
 */
export type Responder = (request: SimRequest, context: RespondContext) => Effect.Effect<Response | Settled, SimnetError>

/**
 * How a route answers one request: one value (`answer.ts`) that every door renders. Never
 * throws by contract; a throw is taken as the route failing (`RouteFailed`).
 */
export type Answerer = (request: SimRequest, context: RespondContext) => Answer

/** A route's answer from an Effect responder. */
export const answerWith =
  (responder: Responder): Answerer =>
  (request, context) =>
    pending(responder(request, context))

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
  /** How it answers a request (with no `delay`: the registry waits that out first). */
  readonly answer: Answerer
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
  /**
   * For a route whose whole answer is a pure function of its seed (the static kinds, generated
   * JSON): that answer again, under the seed a logged request was answered with (any seed for a
   * route that is not seeded). A HAR exported without kept bodies carries it.
   */
  readonly reproduce?: ((seed: number) => Effect.Effect<Whole, RegenerateError>) | undefined
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
  /** Whether a strict network fails when the route was never used (`RouteOptions.required`). */
  readonly required?: boolean | undefined
  /** The scenario the route consults and moves (`scenarios.ts`). */
  readonly scenario?: ScenarioOptions | undefined
}

/**
 * A route: a matcher, an answer and the options that govern its use. A plain value: tagged
 * (`_tag: "Route"`), recognised by `isRoute`.
 */
export interface Route extends RouteFields {
  readonly _tag: "Route"
  readonly [TypeId]: typeof TypeId
}

// The fields are declared once, in `RouteFields`; the class only sets them (`makeRoute` types them).
class RouteValue {
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
export const makeRoute = (fields: RouteFields): Route => new RouteValue(fields) as RouteValue & RouteFields

/**
 * The same route with some fields changed.
 */
export const withFields = (route: Route, patch: Partial<RouteFields>): Route => makeRoute({ ...route, ...patch })

/**
 * Whether a value is a route made by a `Route` constructor or a family.
 */
export const isRoute = (u: unknown): u is Route => typeof u === "object" && u !== null && TypeId in u
