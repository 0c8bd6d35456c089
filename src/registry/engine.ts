/**
 * The engine behind `SimulationNetwork`: registration (all or nothing), dispatch of one request
 * to its route, and the request log. Dispatch is synchronous up to the route's answer, so a
 * static route answers a `fetch` without entering the Effect runtime.
 */
import { Cause, Clock, Context, Effect, Exit } from "effect"
import { type Answer, asSimnetError, pending, refused, type Settled, statusOf, toEffect } from "./answer.ts"
import { type Chaos, chaosAnswer, type ChaosHit, cutAfter } from "./chaos.ts"
import { keepAnswer, keepRequest } from "./keptBodies.ts"
import { KeyCounts } from "./keyCounts.ts"
import { bounded, type Redactor } from "./redact.ts"
import {
  type PendingRecord,
  RequestLog,
  type RequestCounters,
  type RequestRecord,
  withSocketLog
} from "./requestLog.ts"
import {
  InvalidRouteSpec,
  LoopbackDenied,
  NotRegenerable,
  RouteFailed,
  UnregisteredRequest,
  type RegenerateError,
  type RegisterError,
  type SimnetError
} from "../SimnetError.ts"
import { Registry, planIds, type Entry } from "./routeTable.ts"
import { withParams } from "./request.ts"
import { deriveSeed, requestKey } from "./seed.ts"
import type { RespondContext, Route, SimRequest } from "./route.ts"
import { errorMessage } from "./util.ts"

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
  ...(entry.route.required === true ? { required: true } : {}),
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
    this.log.now = () => this.clock.currentTimeMillisUnsafe()
  }

  /**
   * Runs an Effect with the services the network was built with (its `Clock` among them). While
   * one runs (a handler, a paced stream's pause, an MCP step's wait) the network is not quiescent.
   */
  run<A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> {
    const now = this.runNow(effect, signal)
    if (!Exit.isExit(now)) return now
    return Exit.isSuccess(now) ? Promise.resolve(now.value) : Promise.reject(Cause.squash(now.cause))
  }

  /**
   * `run`, but an Effect that ends without waiting (a model's answer had now) ends here: its
   * `Exit` comes back at once, with no promise or turn of the event loop; one that waits comes
   * back as `run`'s promise.
   */
  runNow<A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Exit.Exit<A, E> | Promise<A> {
    this.running++
    const fiber = Effect.runForkWith(this.context)(effect, signal === undefined ? undefined : { signal })
    const done = () => {
      if (--this.running === 0 && this.log.inFlight === 0) this.wakeIdle()
    }
    const exit = fiber.pollUnsafe()
    if (exit !== undefined) {
      done()
      return exit
    }
    return new Promise<A>((resolve, reject) =>
      fiber.addObserver((exit) => {
        done()
        if (Exit.isSuccess(exit)) resolve(exit.value)
        else reject(Cause.squash(exit.cause))
      })
    )
  }

  /** Effects `run` has started and not finished. */
  private running = 0

  /** The network's clock, as route contexts carry it. */
  private readonly now = (): number => this.clock.currentTimeMillisUnsafe()

  /** `run`, bound, as route contexts carry it. */
  private readonly runner = <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal): Promise<A> =>
    this.run(effect, signal)

  /**
   * Registers routes, all or none. `paths[i]` is the JSON path of route `i` for error messages
   * ("" for a single route registered from code).
   */
  register(
    routes: ReadonlyArray<Route>,
    paths: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<string>, RegisterError> {
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
   * Finds the route for a request and starts its answer (`answer.ts`), logged as it ends. Never
   * throws: a matcher predicate or a route that throws refuses the request with `RouteFailed`.
   */
  dispatch(request: SimRequest): Answer {
    const record = this.log.open(this.clock.currentTimeMillisUnsafe(), request)
    try {
      if (!this.keepBodies) return this.dispatchRecorded(request, record)
      keepRequest(this.log, record, request)
      return keepAnswer(this.log, record, this.dispatchRecorded(request, record), () =>
        this.clock.currentTimeMillisUnsafe()
      )
    } catch (cause) {
      const error = new RouteFailed({
        route: record.route?.id ?? "(matching)",
        reason: "handler",
        message: `answering ${bounded(request.method)} ${this.redactor.url(request.url)} threw: ${bounded(errorMessage(cause))}`,
        cause
      })
      this.log.deny(record, error._tag, error)
      return refused(error)
    }
  }

  private dispatchRecorded(request: SimRequest, record: PendingRecord): Answer {
    const found = this.registry.find(request)
    if (found === undefined) {
      const error = new UnregisteredRequest({
        method: bounded(request.method),
        url: this.redactor.url(request.url),
        candidates: this.registry.candidates(request, this.redactor)
      })
      this.log.deny(record, error._tag, error)
      return refused(error)
    }
    const { entry, params } = found
    entry.hits++
    entry.remaining--
    const route = entry.route
    this.log.match(record, entry.info)
    if (entry.scenario !== undefined) record.scenario = entry.scenario.pass()
    if (route.fault !== undefined) this.log.fault(record, route.fault)
    const routed = withParams(request, params)
    const context = this.contextFor(entry, routed, record)
    const chaos = this.chaos
    if (chaos?.covers(entry.id)) {
      const drawn = this.chaosFor(chaos, entry, request)
      if (drawn !== undefined) return this.withChaos(drawn, entry, routed, context, record)
    }
    return logged(this.own(route, routed, context), record, this.log, routed, route.id ?? route.kind)
  }

  /** The route's own answer, after its `delay` when it has one. */
  private own(route: Route, request: SimRequest, context: RespondContext): Answer {
    if (route.delay === undefined) return route.answer(request, context)
    return pending(
      Effect.andThen(
        Effect.sleep(route.delay),
        Effect.suspend(() => toEffect(route.answer(request, context)))
      )
    )
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
  private chaosFor(
    chaos: Chaos,
    entry: Entry,
    request: SimRequest
  ): { readonly hit: ChaosHit; readonly key: string; readonly occurrence: number } | undefined {
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
  ): Answer {
    record.chaos = drawn.hit
    const route = entry.route
    const drew = chaosAnswer(
      drawn.hit,
      () => toEffect(this.own(route, request, context)),
      () => cutAfter(this.runSeed, entry.identity, drawn.key, drawn.occurrence)
    )
    if (drew.fault !== undefined) this.log.fault(record, drew.fault)
    return logged(drew.answer, record, this.log, request, route.id ?? route.kind)
  }

  private contextFor(entry: Entry, request: SimRequest, record: PendingRecord): RespondContext {
    if (entry.route.seeded !== true) {
      // An annotating route never caches a context, so a route that has one is asked nothing more.
      if (entry.context !== undefined) return entry.context
      if (entry.route.annotated) return this.perRequest(entry.identity, 0, 0, record)
      return (entry.context = {
        identity: entry.identity,
        seed: 0,
        occurrence: 0,
        runSeed: this.runSeed,
        services: this.services,
        run: this.runner,
        now: this.now,
        redactor: this.redactor
      })
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
      now: this.now,
      redactor: this.redactor,
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
 * `answer`, logged as it ends: at once for an answer had now, when it settles for one to come. A
 * request whose client gave up (its signal aborted, or the fiber interrupted) is logged as
 * `Interrupted`, whatever error the route raised on the way out.
 */
const logged = (answer: Answer, record: PendingRecord, log: RequestLog, request: SimRequest, label: string): Answer => {
  switch (answer._tag) {
    case "Whole":
      log.answer(record, statusOf(answer))
      return withSocketLog(answer, record)
    case "Streamed":
      log.answer(record, statusOf(answer))
      return answer
    case "Refused":
      log.deny(record, answer.error._tag, answer.error)
      return answer
    case "Pending": {
      // The signal is asked for here only: an answer had now needs none made for it.
      const signal = request.signal
      if (answer.promise === undefined) return { _tag: "Pending", effect: observe(answer.effect, record, log, signal) }
      const promise = settle(answer.promise, record, log, signal, label)
      return {
        _tag: "Pending",
        promise,
        effect: Effect.tryPromise({ try: () => promise, catch: (error) => asSimnetError(error, label) })
      }
    }
  }
}

/** Logs how an Effect answer ended. */
const observe = (
  effect: Effect.Effect<Settled, SimnetError>,
  record: PendingRecord,
  log: RequestLog,
  signal: AbortSignal | undefined
): Effect.Effect<Settled, SimnetError> =>
  Effect.onExit(
    Effect.map(effect, (answer) => withSocketLog(answer, record)),
    (exit) =>
      Effect.sync(() => {
        if (Exit.isSuccess(exit)) return log.answer(record, statusOf(exit.value))
        const error = Cause.findErrorOption(exit.cause)
        if (signal?.aborted === true) log.deny(record, "Interrupted")
        else if (error._tag === "Some") log.deny(record, error.value._tag, error.value)
        else log.deny(record, Cause.hasInterruptsOnly(exit.cause) ? "Interrupted" : "RouteFailed")
      })
  )

/**
 * Logs how a promised answer ended, once. A client that gives up (its signal aborts) is logged
 * as `Interrupted` at once, and the promise rejects then with the signal's reason (the route's
 * own answer, when it comes, is dropped).
 */
const settle = (
  promise: Promise<Settled>,
  record: PendingRecord,
  log: RequestLog,
  signal: AbortSignal | undefined,
  label: string
): Promise<Settled> => {
  const failed = (error: unknown): SimnetError => asSimnetError(error, label)
  if (signal === undefined) {
    return promise.then(
      (answer) => {
        log.answer(record, statusOf(answer))
        return withSocketLog(answer, record)
      },
      (error: unknown) => {
        const failure = failed(error)
        log.deny(record, failure._tag, failure)
        throw failure
      }
    )
  }
  if (signal.aborted) {
    log.deny(record, "Interrupted")
    promise.catch(() => undefined)
    return Promise.reject(signal.reason)
  }
  return new Promise<Settled>((resolve, reject) => {
    let done = false
    const onAbort = () => {
      done = true
      log.deny(record, "Interrupted")
      reject(signal.reason)
    }
    signal.addEventListener("abort", onAbort, { once: true })
    promise.then(
      (answer) => {
        if (done) return
        done = true
        signal.removeEventListener("abort", onAbort)
        log.answer(record, statusOf(answer))
        resolve(withSocketLog(answer, record))
      },
      (error: unknown) => {
        if (done) return
        done = true
        signal.removeEventListener("abort", onAbort)
        const failure = failed(error)
        log.deny(record, failure._tag, failure)
        reject(failure)
      }
    )
  })
}

const prefixPath = (error: RegisterError, path: string): RegisterError => {
  if (path === "") return error
  if (error instanceof InvalidRouteSpec)
    return new InvalidRouteSpec({ path: `${path}.${error.path}`, message: error.message })
  if (error instanceof LoopbackDenied) return new LoopbackDenied({ host: error.host, at: path })
  return error
}
