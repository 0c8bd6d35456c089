/**
 * The engine behind `SimulationNetwork`: registration (all or nothing), dispatch of one request
 * to its route, and the request log. Dispatch is synchronous up to the route's answer, so a
 * static route answers a `fetch` without entering the Effect runtime.
 */
import { Cause, Clock, Context, Effect, Exit, Result } from "effect"
import { type Chaos, chaosAnswer, type ChaosHit, cutAfter } from "./chaos.ts"
import { keepAnswer, keepRequest } from "./keptBodies.ts"
import { KeyCounts } from "./keyCounts.ts"
import { bounded, type Redactor } from "./redact.ts"
import { PendingRecord, RequestLog, type RequestCounters, type RequestRecord } from "./requestLog.ts"
import { InvalidRouteSpec, isSimnetError, LoopbackDenied, NotRegenerable, RouteFailed, UnregisteredRequest, type RegenerateError, type RegisterError, type SimnetError } from "../SimnetError.ts"
import { Registry, planIds, type Entry } from "./routeTable.ts"
import { withParams } from "./request.ts"
import { deriveSeed, requestKey } from "./seed.ts"
import type { HeldAnswer, RespondContext, Route, SimRequest } from "./route.ts"
import { errorMessage } from "./util.ts"

/**
 * What one dispatch produced: a response at once, an Effect or a promise (rejecting with a
 * `SimnetError`, or with the abort reason once the request's signal aborts) that will produce
 * it, or a denial.
 */
export type Dispatched =
  | { readonly _tag: "Response"; readonly response: Response }
  | { readonly _tag: "Effect"; readonly effect: Effect.Effect<Response, SimnetError> }
  | { readonly _tag: "Promise"; readonly promise: Promise<Response> }
  | { readonly _tag: "Denied"; readonly error: SimnetError }

/**
 * A route as the listing shows it.
 */
export interface RouteInfo {
  readonly id: string
  readonly kind: string
  readonly match: string
  readonly source: string
  readonly priority: number
  readonly times: number | undefined
  readonly hits: number
  readonly remaining: number | undefined
  readonly [extra: string]: unknown
}

const infoOf = (entry: Entry): RouteInfo => ({
  ...entry.route.describe,
  ...entry.route.describeLater?.(),
  id: entry.id,
  kind: entry.route.kind,
  match: entry.route.matcher.source,
  source: entry.route.source,
  priority: entry.route.priority,
  times: entry.route.times,
  hits: entry.hits,
  remaining: entry.route.times === undefined ? undefined : entry.remaining
})

/**
 * One simulated network: its routes, its log, its seed.
 */
export class Network {
  /** The run seed; a restored snapshot sets it. */
  runSeed: number
  readonly registry = new Registry()
  readonly log: RequestLog
  /** What of a request may be shown: in the log, error messages and candidates. */
  readonly redactor: Redactor
  private readonly clock: Clock.Clock
  private readonly context: Context.Context<never>
  /** What routes find in `RespondContext.services`: the state of stateful route kinds. */
  private readonly services: Context.Context<never>

  /**
   * `context` holds the services the network runs Effects with (its `Clock` among them);
   * `services` the network's own services that routes look up (the simulated model, MCP servers).
   * The log keeps at most `log.limit` records and `log.bytes` bytes of them.
   */
  constructor(
    runSeed: number,
    log: { readonly limit: number; readonly bytes: number },
    redactor: Redactor,
    context: Context.Context<never>,
    services: Context.Context<never>
  ) {
    this.runSeed = runSeed
    this.redactor = redactor
    this.log = new RequestLog(log.limit, log.bytes, redactor)
    this.context = context
    this.services = services
    this.clock = Context.get(context, Clock.Clock)
  }

  /**
   * Runs an Effect with the services the network was built with (its `Clock` among them). While
   * one runs (a handler, a paced stream's pause, an MCP step's wait) the network is not quiescent.
   */
  run<A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> {
    this.running++
    return Effect.runPromiseWith(this.context)(effect, signal === undefined ? undefined : { signal }).finally(() => {
      if (--this.running === 0 && this.log.inFlight === 0) this.wakeIdle()
    })
  }

  /** Effects `run` has started and not finished. */
  private running = 0

  /** `run`, bound, as route contexts carry it. */
  private readonly runner = <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> => this.run(effect, signal)

  /**
   * Registers routes, all or none. `paths[i]` is the JSON path of route `i` for error messages
   * ("" for a single route registered from code).
   */
  register(routes: ReadonlyArray<Route>, paths: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, RegisterError> {
    return Effect.suspend(() => {
      const prepares: Array<Effect.Effect<void, RegisterError>> = []
      for (let i = 0; i < routes.length; i++) {
        const prepare = routes[i].prepare
        if (prepare !== Effect.void) prepares.push(Effect.mapError(prepare, (error) => prefixPath(error, paths[i])))
      }
      const add = () => {
        const ids = planIds(this.registry.entries, routes, paths)
        if (ids instanceof InvalidRouteSpec) return Effect.fail(ids)
        this.registry.add(routes, ids)
        return Effect.succeed(ids)
      }
      // Ids are planned after preparing, which may yield, so a registration that landed meanwhile is accounted for.
      return prepares.length === 0 ? add() : Effect.flatMap(Effect.all(prepares, { discard: true }), add)
    })
  }

  /** Every registered route, in registration order. */
  routes(): ReadonlyArray<RouteInfo> {
    return Array.from(this.registry.entries.values(), infoOf)
  }

  /** Routes never used since they were registered. */
  unused(): ReadonlyArray<RouteInfo> {
    const out: Array<RouteInfo> = []
    for (const entry of this.registry.entries.values()) if (entry.hits === 0) out.push(infoOf(entry))
    return out
  }

  /** The log's records with `seq > since`, at most `limit` of them. */
  records(since?: number, limit?: number): ReadonlyArray<RequestRecord> {
    return this.log.records(since, limit)
  }

  /** Exact counters. */
  counters(): RequestCounters {
    return { ...this.log.counters(), byRoute: this.registry.matchCounts() }
  }

  /**
   * Finds the route for a request and starts its answer. Never throws: a matcher predicate or a
   * synchronous answer that throws denies the request with `RouteFailed`.
   */
  dispatch(request: SimRequest): Dispatched {
    return this.dispatchAny(request, false) as Dispatched
  }

  /**
   * `dispatch` for a server in front of the network: a route whose answer is the same for every
   * request (`RouteFields.held`) answers with that answer itself, logged and counted as any other,
   * and no `Response` is built.
   */
  dispatchHeld(request: SimRequest): Dispatched | { readonly _tag: "Held"; readonly answer: HeldAnswer } {
    return this.dispatchAny(request, true)
  }

  private dispatchAny(request: SimRequest, held: boolean): Dispatched | { readonly _tag: "Held"; readonly answer: HeldAnswer } {
    const record = this.log.open(this.clock.currentTimeMillisUnsafe(), request)
    try {
      if (!this.keepBodies) return this.dispatchRecorded(request, record, held)
      keepRequest(this.log, record, request)
      return keepAnswer(this.log, record, this.dispatchRecorded(request, record, held), () => this.clock.currentTimeMillisUnsafe())
    } catch (cause) {
      const error = new RouteFailed({
        route: record.route?.id ?? "(matching)",
        message: `answering ${bounded(request.method)} ${this.redactor.url(request.url)} threw: ${bounded(errorMessage(cause))}`,
        cause
      })
      this.log.deny(record, error._tag)
      return { _tag: "Denied", error }
    }
  }

  private dispatchRecorded(request: SimRequest, record: PendingRecord, held: boolean): Dispatched | { readonly _tag: "Held"; readonly answer: HeldAnswer } {
    const found = this.registry.find(request)
    if (found === undefined) {
      const error = new UnregisteredRequest({
        method: bounded(request.method),
        url: this.redactor.url(request.url),
        candidates: this.registry.candidates(request, this.redactor)
      })
      this.log.deny(record, error._tag)
      return { _tag: "Denied", error }
    }
    const { entry, params } = found
    entry.hits++
    entry.remaining--
    const route = entry.route
    this.log.match(record, entry.info)
    if (route.fault !== undefined) this.log.fault(record, route.fault)
    const chaos = this.chaos
    if (chaos !== undefined && chaos.covers(entry.id)) {
      const drawn = this.chaosFor(chaos, entry, request)
      if (drawn !== undefined) {
        const routed = withParams(request, params)
        return this.withChaos(drawn, entry, routed, this.contextFor(entry, routed, record), record)
      }
    }
    if (held && route.held !== undefined && route.delay === undefined) {
      this.log.answer(record, route.held.status)
      return { _tag: "Held", answer: route.held }
    }
    const routed = withParams(request, params)
    const context = this.contextFor(entry, routed, record)
    if (route.respondDirect !== undefined && route.delay === undefined) {
      const answered = route.respondDirect(routed, context)
      if (answered instanceof Promise) return { _tag: "Promise", promise: settle(answered, record, this.log, routed.signal, route.id ?? route.kind) }
      if (!(answered instanceof Response) && Result.isFailure(answered)) {
        this.log.deny(record, answered.failure._tag)
        return { _tag: "Denied", error: answered.failure }
      }
      const response = answered instanceof Response ? answered : answered.success
      this.log.answer(record, response.status)
      return { _tag: "Response", response }
    }
    let effect = route.respond(routed, context)
    if (route.delay !== undefined) effect = Effect.andThen(Effect.sleep(route.delay), effect)
    return { _tag: "Effect", effect: observe(effect, record, this.log, routed.signal) }
  }

  /** Callers of `quiescent`, told when the last request in flight settles. */
  private idleWaiters: Array<() => void> = []

  /**
   * Resolves when no request is in flight — every one answered or refused: no route still
   * working, no delay armed before an answer, no model call waiting for its script or driver —
   * and nothing the network runs is pending (a paced stream's next pause, an MCP step's wait).
   * At once when so. A stream its reader stopped reading holds nothing armed.
   */
  quiescent(): Promise<void> {
    if (this.log.inFlight === 0 && this.running === 0) return Promise.resolve()
    this.log.onIdle ??= () => {
      if (this.running === 0) this.wakeIdle()
    }
    return new Promise((resolve) => void this.idleWaiters.push(resolve))
  }

  private wakeIdle(): void {
    const waiting = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiting) resolve()
  }

  /** Whether each exchange's bodies and answer headers are kept in its record (`keptBodies.ts`). */
  keepBodies = false

  /** The network's seeded chaos (`chaos.ts`), when it has any. */
  chaos: Chaos | undefined = undefined

  /** The chaos hit of one request at a route, its occurrence counted per canonical key. */
  private chaosFor(chaos: Chaos, entry: Entry, request: SimRequest): { readonly hit: ChaosHit; readonly key: string; readonly occurrence: number } | undefined {
    const key = requestKey(request)
    const occurrence = (entry.chaosCounts ??= new KeyCounts()).increment(key)
    const hit = chaos.decide(this.runSeed, entry.identity, key, occurrence)
    return hit === undefined ? undefined : { hit, key, occurrence }
  }

  /** A request chaos hit: the fault, status or pause it drew instead of (or before) the route's answer. */
  private withChaos(
    drawn: { readonly hit: ChaosHit; readonly key: string; readonly occurrence: number },
    entry: Entry,
    request: SimRequest,
    context: RespondContext,
    record: PendingRecord
  ): Dispatched {
    record.chaos = drawn.hit
    const route = entry.route
    const own = () => (route.delay === undefined ? route.respond(request, context) : Effect.andThen(Effect.sleep(route.delay), route.respond(request, context)))
    const answer = chaosAnswer(drawn.hit, own, () => cutAfter(this.runSeed, entry.identity, drawn.key, drawn.occurrence))
    if (answer.fault !== undefined) this.log.fault(record, answer.fault)
    if (answer._tag === "Response") {
      this.log.answer(record, answer.response.status)
      return answer
    }
    return { _tag: "Effect", effect: observe(answer.effect, record, this.log, request.signal) }
  }

  private contextFor(entry: Entry, request: SimRequest, record: PendingRecord): RespondContext {
    if (entry.route.seeded !== true) {
      // An annotating route never caches a context, so a route that has one is asked nothing more.
      if (entry.context !== undefined) return entry.context
      if (entry.route.annotated) return this.perRequest(entry.identity, 0, 0, record)
      return (entry.context = { identity: entry.identity, seed: 0, occurrence: 0, runSeed: this.runSeed, services: this.services, run: this.runner })
    }
    const key = requestKey(request)
    const occurrence = (entry.occurrences ??= new KeyCounts()).increment(key)
    const seed = deriveSeed(this.runSeed, entry.identity, key, occurrence)
    record.seed = seed
    record.occurrence = occurrence
    return this.perRequest(entry.identity, seed, occurrence, record)
  }

  /**
   * A context of its own for one request (a seeded or annotating route), whose `annotate` and
   * `recordViolations` write into that request's record.
   */
  private perRequest(identity: string, seed: number, occurrence: number, record: PendingRecord): RespondContext {
    return {
      identity,
      seed,
      occurrence,
      runSeed: this.runSeed,
      services: this.services,
      run: this.runner,
      annotate: (detail) => {
        record.detail = detail
      },
      recordViolations: (violations) => {
        record.violations = violations
      }
    }
  }

  /** Clears the log and the per-route counts of removed routes. */
  clearState(): void {
    this.log.clear()
    this.registry.retired.clear()
  }

  /**
   * The body a seeded route served for a logged request, regenerated from the record's seed.
   */
  regenerate(record: RequestRecord): Effect.Effect<string, RegenerateError> {
    return Effect.suspend(() => {
      const entry = record.route === undefined ? undefined : this.registry.entries.get(record.route.id)
      if (entry === undefined || entry.route.regenerate === undefined || record.seed === undefined) {
        return Effect.fail(new NotRegenerable({ seq: record.seq }))
      }
      return entry.route.regenerate(record.seed)
    })
  }
}

/**
 * Logs how an answer ended. A request whose client gave up (its signal aborted, or the fiber
 * interrupted) is logged as `Interrupted`, whatever error the route raised on the way out.
 */
const observe = (
  effect: Effect.Effect<Response, SimnetError>,
  record: PendingRecord,
  log: RequestLog,
  signal: AbortSignal | undefined
): Effect.Effect<Response, SimnetError> =>
  Effect.onExit(effect, (exit) =>
    Effect.sync(() => {
      if (Exit.isSuccess(exit)) return log.answer(record, exit.value.status)
      const error = Cause.findErrorOption(exit.cause)
      if (signal?.aborted === true) log.deny(record, "Interrupted")
      else if (error._tag === "Some") log.deny(record, error.value._tag)
      else log.deny(record, Cause.hasInterruptsOnly(exit.cause) ? "Interrupted" : "RouteFailed")
    })
  )

/**
 * `observe` for a route answering with a promise: logs how it ended, once. A client that gives
 * up (its signal aborts) is logged as `Interrupted` at once, and the promise rejects then with
 * the signal's reason (the route's own answer, when it comes, is dropped); a rejection that is
 * not a `SimnetError` becomes a `RouteFailed` naming the route.
 */
const settle = (
  promise: Promise<Response>,
  record: PendingRecord,
  log: RequestLog,
  signal: AbortSignal | undefined,
  label: string
): Promise<Response> => {
  const failed = (error: unknown): SimnetError =>
    isSimnetError(error) ? error : new RouteFailed({ route: label, message: `the route failed: ${errorMessage(error)}`, cause: error })
  if (signal === undefined) {
    return promise.then(
      (response) => {
        log.answer(record, response.status)
        return response
      },
      (error: unknown) => {
        const failure = failed(error)
        log.deny(record, failure._tag)
        throw failure
      }
    )
  }
  if (signal.aborted) {
    log.deny(record, "Interrupted")
    promise.catch(() => undefined)
    return Promise.reject(signal.reason)
  }
  return new Promise<Response>((resolve, reject) => {
    let done = false
    const onAbort = () => {
      done = true
      log.deny(record, "Interrupted")
      reject(signal.reason)
    }
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(
      (response) => {
        if (done) return
        done = true
        signal.removeEventListener("abort", onAbort)
        log.answer(record, response.status)
        resolve(response)
      },
      (error: unknown) => {
        if (done) return
        done = true
        signal.removeEventListener("abort", onAbort)
        const failure = failed(error)
        log.deny(record, failure._tag)
        reject(failure)
      }
    )
  })
}

const prefixPath = (error: RegisterError, path: string): RegisterError => {
  if (path === "") return error
  if (error instanceof InvalidRouteSpec) return new InvalidRouteSpec({ path: `${path}.${error.path}`, message: error.message })
  if (error instanceof LoopbackDenied) return new LoopbackDenied({ host: error.host, at: path })
  return error
}
