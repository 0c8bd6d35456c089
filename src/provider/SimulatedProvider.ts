/**
 * The simulated model behind `Routes.openai`, reachable as `network.llm`. The app keeps its real
 * model client and simnet answers its HTTP requests; this module decides the answers. A request
 * is served by the first of three sources that takes it:
 *
 * 1. the script queue (`enqueue`): a new turn starts the next script, and step N of the script
 *    under way answers the call that follows N tool-result rounds;
 * 2. ordered rules (`rule`): the first registered rule whose matcher takes the request serves it;
 * 3. a driver (`attach`, `chunk`, `finish`, `fail`, `disconnect`): the request opens an invocation
 *    that the driver feeds; the in-process API maps one to one onto the `llm.*` JSON-RPC methods.
 *
 * A script that has run out of steps does not take the call: rules, then a driver, still may.
 * Otherwise the request is refused with `NoScriptQueued` (no rules) or `UnmatchedLlmRequest`.
 * Every request is logged and counted the moment it arrives, before any latency or failure; so
 * is a body that is not a chat request (`recordInvalid`).
 *
 * Scripts, rules and driver commands are checked before anything changes: bad input is an
 * `InvalidRouteSpec` naming the offending path (`steps[0][1].status`, `options.times`), thrown by
 * the plain methods (`enqueue`, `rule`) and failed by the effectful ones (`fail`).
 */
import type { Scope } from "effect"
import { Clock, Duration, Effect, Option, Queue, Result, Schema } from "effect"
import type { LlmDriverItem } from "../schemas/llmScript.ts"
import { HttpErrorStatus, LlmScript } from "../schemas/llmScript.ts"
import type { CompletionUsage } from "../schemas/openai.ts"
import type { InvalidRouteSpec } from "../SimnetError.ts"
import { InvocationNotPending, NoScriptQueued, RouteFailed, UnmatchedLlmRequest } from "../SimnetError.ts"
import type { LlmRequest } from "./conversation.ts"
import { requestKeyOf, sha256Hex, summarize } from "./conversation.ts"
import type { DriverFinish } from "./invocation.ts"
import { DrivenInvocation } from "./invocation.ts"
import { untilAborted } from "./body.ts"
import type { LlmReply, Outcome, Plan } from "./plan.ts"
import { answerPlan, failurePlan, LlmBehaviour, LlmMatch, matches, outcomeOf, stepPlan } from "./plan.ts"
import { joinPath } from "../registry/schemaPath.ts"
import { decodeInput, invalidInput } from "./validate.ts"
import type { ChunkHead } from "./wire.ts"

export type { LlmRequest } from "./conversation.ts"
export type { DriverFinish } from "./invocation.ts"
export type { LlmAnswer, LlmBehaviour, LlmFailure, LlmMatch, LlmReply } from "./plan.ts"
export type { StreamFault } from "./wire.ts"

const isLatency = (u: unknown): u is Duration.Input => {
  if (typeof u === "number" && Number.isNaN(u)) return false
  const duration = Duration.fromInput(u as Duration.Input)
  return Option.isSome(duration) && !Duration.isNegative(duration.value)
}

const LlmRuleOptions = Schema.Struct({
  id: Schema.optional(Schema.NonEmptyString),
  latency: Schema.optional(Schema.declare(isLatency, { expected: "a non-negative Duration input (\"2 seconds\", millis, ...)" })),
  times: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})

/**
 * Options of a rule: `id` (default `rule_N`; unique among the rules), `latency` (a non-negative
 * `Duration` input slept on Effect's `Clock` before the answer, so `TestClock` controls it) and
 * `times` (a whole number of at least 1: the rule retires after serving that many).
 */
export type LlmRuleOptions = typeof LlmRuleOptions.Type

const strict = { onExcessProperty: "error" } as const

/**
 * A registered rule, as listed by `rules`.
 */
export interface LlmRule {
  readonly id: string
  readonly match: LlmMatch
  readonly behaviour: LlmBehaviour
  readonly latency: Duration.Duration | undefined
  readonly times: number | undefined
  /** Requests this rule has taken. */
  readonly uses: number
}

/**
 * One logged model request. `at` is the `Clock` time of arrival in milliseconds; `source` says
 * what served it and `outcome` how (`answer`, `http_error`, `fault`, `timeout`, `raw`, `driven`,
 * `refused`, or `invalid-request` for a body that is not a chat request, answered with a 400).
 */
export interface LlmLogEntry {
  readonly seq: number
  readonly id: string
  readonly at: number
  readonly url: string
  readonly model: string
  readonly stream: boolean
  readonly key: string
  readonly toolResultRounds: number
  readonly lastUserMessage: string | undefined
  readonly body: unknown
  readonly source: "script" | "rule" | "driver" | "none"
  readonly rule: string | undefined
  readonly step: number | undefined
  readonly outcome: Outcome
  readonly status: number | undefined
  readonly rawSha256: string | undefined
}

/**
 * A pending invocation as `pending` lists it (and `llm.pending` sends it).
 */
export interface PendingInvocation {
  readonly id: string
  readonly url: string
  readonly model: string
  readonly stream: boolean
  /** Whether the response has started. */
  readonly started: boolean
  readonly body: unknown
}

/**
 * What an attached driver is told when a request opens an invocation for it (`llm.request`).
 */
export interface LlmInvocationNotice {
  readonly id: string
  readonly url: string
  readonly body: unknown
}

/**
 * An answer for one request: the reply and the fields its chunks repeat.
 */
export interface LlmInvocation {
  readonly seq: number
  readonly id: string
  readonly head: ChunkHead
  readonly request: LlmRequest
  readonly reply: LlmReply
}

interface Decision {
  readonly source: LlmLogEntry["source"]
  readonly rule: MutableRule | undefined
  readonly step: number | undefined
  readonly plan: Plan
}

interface MutableRule {
  readonly id: string
  readonly match: LlmMatch
  readonly behaviour: LlmBehaviour
  readonly latency: Duration.Duration | undefined
  readonly times: number | undefined
  uses: number
  failures: number
}

/**
 * The simulated model. Create one per network (`new SimulatedProvider()`); it holds the script
 * queue, the rules, the request log and counters, and the driven invocations.
 *
 * Gotchas: importing the module does nothing; all state lives in the instance. Same rules and the
 * same request sequence give the same answers, log and counts on every run: ids are numbered per
 * provider (`inv_N`, `call_N_I`, `chatcmpl-sim-N`) and `created` comes from the `Clock`.
 */
export class SimulatedProvider {
  readonly #logLimit: number
  #seq = 0
  #ruleSeq = 0
  #queue: Array<LlmScript> = []
  #current: LlmScript | undefined
  #rules: Array<MutableRule> = []
  /** The log as a ring: request `seq` sits in slot `(seq - 1) % logLimit`. */
  #ring: Array<LlmLogEntry> = []
  /** `log` in call order, built on first read after a change. */
  #logView: ReadonlyArray<LlmLogEntry> | undefined
  #counts = new Map<string, number>()
  #pending = new Map<string, DrivenInvocation>()
  #drivers = new Set<Queue.Queue<LlmInvocationNotice>>()

  /**
   * `logLimit` bounds the request log (a whole number, default 10 000, at least 1 entry kept,
   * oldest dropped first); counts stay exact. Any other `logLimit` throws `InvalidRouteSpec`.
   *
   * @throws {InvalidRouteSpec}
   */
  constructor(options: { readonly logLimit?: number } = {}) {
    const limit = options.logLimit ?? 10_000
    if (!Number.isInteger(limit) || limit < 0) {
      throw invalidInput("provider option", "logLimit", `logLimit must be a whole number of at least 0, got ${limit}`)
    }
    this.#logLimit = Math.max(1, limit)
  }

  /**
   * Adds a script to the end of the queue. A call with no tool results after its last user
   * message starts the next script (so a retried first call takes the next script, and a new
   * turn never continues an old one); a call after N tool-result rounds is answered by step N of
   * the current script, and the script is done after its last step. A call after tool results
   * with no script under way, or past the script's last step, is left to the rules and drivers
   * (and refused when none takes it); it never starts the next script.
   *
   * The script is decoded with the `LlmScript` schema first. Bad input throws `InvalidRouteSpec`
   * (synchronously; `path` names the field, such as `steps[0][1].status`) and leaves the queue
   * as it was.
   *
   * @throws {InvalidRouteSpec}
   */
  enqueue(script: LlmScript): void {
    this.#queue.push(Result.getOrThrow(decodeInput(LlmScript, script, "LLM script", "")))
  }

  /** Scripts waiting in the queue (not counting one that is part-way through). */
  get queued(): number {
    return this.#queue.length
  }

  /**
   * Registers a rule after the existing ones and returns its id. Rules are tried in registration
   * order; the first whose matcher takes the request serves it.
   *
   * Matcher, behaviour and options are checked first (unknown fields are refused too). Bad input
   * throws `InvalidRouteSpec` (synchronously; `path` names the field, such as
   * `behaviour.status` or `options.times`), as does an `id` already taken, and the rules are
   * left as they were.
   *
   * @throws {InvalidRouteSpec}
   */
  rule(match: LlmMatch, behaviour: LlmBehaviour, options: LlmRuleOptions = {}): string {
    const rule = Result.getOrThrow(this.#checkRule(match, behaviour, options))
    if (options.id === undefined) this.#ruleSeq++
    this.#rules.push(rule)
    return rule.id
  }

  #checkRule(match: unknown, behaviour: unknown, options: unknown): Result.Result<MutableRule, InvalidRouteSpec> {
    const what = "LLM rule"
    const taken = (id: string) => this.#rules.some((rule) => rule.id === id)
    const nextId = () => {
      let n = this.#ruleSeq + 1
      while (taken(`rule_${n}`)) n++
      return `rule_${n}`
    }
    return Result.gen(function*() {
      const decodedMatch = yield* decodeInput(LlmMatch, match, what, "match", strict)
      const decodedBehaviour = yield* decodeInput(LlmBehaviour, behaviour, what, "behaviour", strict)
      const decodedOptions = yield* decodeInput(LlmRuleOptions, options, what, "options", strict)
      if (decodedOptions.id !== undefined && taken(decodedOptions.id)) {
        return yield* Result.fail(invalidInput(what, joinPath("options", "id"), `a rule with id "${decodedOptions.id}" is already registered`))
      }
      return {
        id: decodedOptions.id ?? nextId(),
        match: decodedMatch,
        behaviour: decodedBehaviour,
        latency: decodedOptions.latency === undefined ? undefined : Duration.fromInputUnsafe(decodedOptions.latency),
        times: decodedOptions.times,
        uses: 0,
        failures: 0
      }
    })
  }

  /** Removes a rule; returns whether it existed. */
  removeRule(id: string): boolean {
    const before = this.#rules.length
    this.#rules = this.#rules.filter((rule) => rule.id !== id)
    return this.#rules.length !== before
  }

  /** The registered rules, in the order they are tried. */
  get rules(): ReadonlyArray<LlmRule> {
    return this.#rules.map((rule) => ({ ...rule }))
  }

  /**
   * The requests so far (the latest `logLimit`), oldest first, as recorded when they arrived. The
   * array is a snapshot: later requests do not change it.
   */
  get log(): ReadonlyArray<LlmLogEntry> {
    if (this.#logView === undefined) {
      const ring = this.#ring
      const oldest = ring.length < this.#logLimit ? 0 : this.#seq % this.#logLimit
      this.#logView = oldest === 0 ? ring.slice() : ring.slice(oldest).concat(ring.slice(0, oldest))
    }
    return this.#logView
  }

  /** Records the entry of request `seq` (the latest) in the ring, and counts its key. */
  #record(entry: LlmLogEntry): void {
    const slot = (entry.seq - 1) % this.#logLimit
    if (slot === this.#ring.length) this.#ring.push(entry)
    else this.#ring[slot] = entry
    this.#logView = undefined
    this.#counts.set(entry.key, (this.#counts.get(entry.key) ?? 0) + 1)
  }

  /** How many requests arrived, whatever became of them. */
  get callCount(): number {
    return this.#seq
  }

  /**
   * How many requests had the logical key of `keyOrBody`: a key from the log, or a request body
   * (model, messages, tools and sampling parameters count; key order and `stream` do not).
   */
  countFor(keyOrBody: string | object): number {
    const key = typeof keyOrBody === "string" ? keyOrBody : requestKeyOf(keyOrBody)
    return this.#counts.get(key) ?? 0
  }

  /** The invocations waiting for a driver or being fed by one. */
  get pending(): ReadonlyArray<PendingInvocation> {
    return Array.from(this.#pending.values(), (invocation) => ({
      id: invocation.id,
      url: invocation.request.url,
      model: invocation.request.model,
      stream: invocation.request.stream,
      started: invocation.started,
      body: invocation.request.raw
    }))
  }

  /**
   * Clears the queue, the rules, the log, the counters and the numbering, and disconnects every
   * pending invocation.
   */
  reset(): void {
    for (const invocation of Array.from(this.#pending.values())) invocation.disconnect()
    this.#seq = 0
    this.#ruleSeq = 0
    this.#queue = []
    this.#current = undefined
    this.#rules = []
    this.#ring = []
    this.#logView = undefined
    this.#counts = new Map()
  }

  /**
   * Attaches a driver for the life of the scope (`llm.attach`): requests that no script or rule
   * takes open invocations instead of being refused, and each is announced on the returned queue
   * (`llm.request`). When the last driver leaves, the invocations opened for drivers are
   * disconnected.
   */
  get attach(): Effect.Effect<Queue.Dequeue<LlmInvocationNotice>, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.tap(Queue.unbounded<LlmInvocationNotice>(), (queue) => Effect.sync(() => this.#drivers.add(queue))),
      (queue) =>
        Effect.flatMap(Queue.shutdown(queue), () =>
          Effect.sync(() => {
            this.#drivers.delete(queue)
            if (this.#drivers.size > 0) return
            for (const invocation of Array.from(this.#pending.values())) {
              if (invocation.viaAttach) invocation.disconnect()
            }
          })
        )
    )
  }

  #invocation(id: string): Effect.Effect<DrivenInvocation, InvocationNotPending> {
    return Effect.suspend(() => {
      const invocation = this.#pending.get(id)
      return invocation === undefined || invocation.closed
        ? Effect.fail(new InvocationNotPending({ id, message: `simnet: no pending model invocation ${id}` }))
        : Effect.succeed(invocation)
    })
  }

  /** Sends items into a pending invocation (`llm.chunk`). */
  chunk(params: { readonly id: string; readonly items: ReadonlyArray<LlmDriverItem> }): Effect.Effect<void, InvocationNotPending> {
    return Effect.map(this.#invocation(params.id), (invocation) => invocation.chunk(params.items))
  }

  /** Ends a pending invocation's answer (`llm.finish`); the reason defaults to `tool_calls` or `stop`. */
  finish(params: {
    readonly id: string
    readonly reason?: DriverFinish
    readonly usage?: CompletionUsage
  }): Effect.Effect<void, InvocationNotPending> {
    return Effect.map(this.#invocation(params.id), (invocation) => invocation.finish(params.reason, params.usage))
  }

  /**
   * Fails a pending invocation (`llm.fail`): an HTTP status before any chunk, else an error event.
   * A `status` outside 400–599 fails with `InvalidRouteSpec` at `status`, and the invocation
   * stays pending.
   */
  fail(params: {
    readonly id: string
    readonly status: number
    readonly message?: string
  }): Effect.Effect<void, InvocationNotPending | InvalidRouteSpec> {
    return Effect.flatMap(Effect.fromResult(decodeInput(HttpErrorStatus, params.status, "llm.fail", "status")), (status) =>
      Effect.map(this.#invocation(params.id), (invocation) =>
        invocation.fail(status, params.message ?? `The model failed with status ${status} (simulated).`)))
  }

  /** Drops a pending invocation's connection (`llm.disconnect`). */
  disconnect(params: { readonly id: string }): Effect.Effect<void, InvocationNotPending> {
    return Effect.map(this.#invocation(params.id), (invocation) => invocation.disconnect())
  }

  /**
   * The queue's answer: a new turn (no tool results) starts the next script; a later call takes
   * the step of the script under way. A call the script has no step for ends that script and is
   * refused here, but rules and drivers are asked first (see `#decide`).
   */
  #fromQueue(request: LlmRequest, seq: number): Decision | undefined {
    const step = request.toolResultRounds
    if (step === 0) this.#current = this.#queue.shift()
    const script = this.#current
    if (script === undefined) return undefined
    if (step >= script.steps.length) {
      this.#current = undefined
      const message =
        `simnet: the current LLM script has ${script.steps.length} step(s) but this call follows ${step} tool-result round(s) (${summarize(request)})`
      return { source: "script", rule: undefined, step, plan: { _tag: "Refuse", error: new NoScriptQueued({ model: request.model, message }) } }
    }
    if (step === script.steps.length - 1) this.#current = undefined
    return { source: "script", rule: undefined, step, plan: stepPlan(script, step, seq) }
  }

  #fromRules(request: LlmRequest, seq: number): Decision | undefined {
    for (const rule of this.#rules) {
      if (rule.times !== undefined && rule.uses >= rule.times) continue
      if (!matches(rule.match, request)) continue
      rule.uses++
      const behaviour = rule.behaviour
      if (behaviour.type === "failThenRespond") {
        if (rule.failures < behaviour.times) {
          rule.failures++
          return { source: "rule", rule, step: undefined, plan: failurePlan(behaviour.failure) }
        }
        const { plan, step } = answerPlan(behaviour.then, request, seq)
        return { source: "rule", rule, step, plan }
      }
      if (behaviour.type === "rateLimit" || behaviour.type === "serverError" || behaviour.type === "timeout") {
        return { source: "rule", rule, step: undefined, plan: failurePlan(behaviour) }
      }
      const { plan, step } = answerPlan(behaviour, request, seq)
      return { source: "rule", rule, step, plan }
    }
    return undefined
  }

  #decide(request: LlmRequest, seq: number): Decision {
    const scripted = this.#fromQueue(request, seq)
    if (scripted !== undefined && scripted.plan._tag !== "Refuse") return scripted
    const decision = this.#fromRules(request, seq)
    if (decision !== undefined) return decision
    if (this.#drivers.size > 0) return { source: "driver", rule: undefined, step: undefined, plan: { _tag: "Drive", viaAttach: true } }
    if (scripted !== undefined && this.#rules.length === 0) return scripted
    const material = summarize(request)
    const error = this.#rules.length === 0
      ? new NoScriptQueued({ model: request.model, message: `simnet: no LLM script queued for this call (${material})` })
      : new UnmatchedLlmRequest({
        model: request.model,
        material,
        message: `simnet: no LLM rule matches this call (${material})`
      })
    return { source: "none", rule: undefined, step: undefined, plan: { _tag: "Refuse", error } }
  }

  #open(seq: number, request: LlmRequest, head: ChunkHead, viaAttach: boolean): DrivenInvocation {
    const invocation = new DrivenInvocation(seq, request, head, viaAttach, () => {
      this.#pending.delete(`inv_${seq}`)
    })
    this.#pending.set(invocation.id, invocation)
    const notice: LlmInvocationNotice = { id: invocation.id, url: request.url, body: request.raw }
    for (const driver of this.#drivers) Queue.offerUnsafe(driver, notice)
    return invocation
  }

  /**
   * Records a request whose body is not a chat completion request (`raw`: the body parsed as
   * JSON, `undefined` when it is not JSON). It is logged with outcome `invalid-request` and status
   * 400 and counted like any other request; returns its sequence number.
   */
  recordInvalid(url: string, raw: unknown): Effect.Effect<number> {
    return Effect.map(Clock.currentTimeMillis, (now) => {
      const seq = ++this.#seq
      const body: { readonly model?: unknown; readonly stream?: unknown } = typeof raw === "object" && raw !== null ? raw : {}
      this.#record({
        seq,
        id: `inv_${seq}`,
        at: now,
        url,
        model: typeof body.model === "string" ? body.model : "",
        stream: body.stream === true,
        key: requestKeyOf(raw),
        toolResultRounds: 0,
        lastUserMessage: undefined,
        body: raw,
        source: "none",
        rule: undefined,
        step: undefined,
        outcome: "invalid-request",
        status: 400,
        rawSha256: undefined
      })
      return seq
    })
  }

  /**
   * Serves one model request: records and counts it, decides its answer, sleeps the rule's
   * latency on the `Clock`, and returns the reply to render. Refusals fail with
   * `NoScriptQueued` / `UnmatchedLlmRequest`; a client that gives up (`signal`) fails it with
   * `RouteFailed`. A driven reply's invocation is removed if this effect is interrupted.
   */
  invoke(
    request: LlmRequest,
    signal?: AbortSignal
  ): Effect.Effect<LlmInvocation, NoScriptQueued | UnmatchedLlmRequest | RouteFailed> {
    return Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<
      LlmInvocation,
      NoScriptQueued | UnmatchedLlmRequest | RouteFailed
    > => {
      const seq = ++this.#seq
      const id = `inv_${seq}`
      const head: ChunkHead = { id: `chatcmpl-sim-${seq}`, created: Math.floor(now / 1000), model: request.model }
      const decision = this.#decide(request, seq)
      const plan = decision.plan
      this.#record({
        seq,
        id,
        at: now,
        url: request.url,
        model: request.model,
        stream: request.stream,
        key: request.key,
        toolResultRounds: request.toolResultRounds,
        lastUserMessage: request.lastUserMessage,
        body: request.raw,
        source: decision.source,
        rule: decision.rule?.id,
        step: decision.step,
        outcome: outcomeOf(plan),
        status: plan._tag === "HttpError" ? plan.status : plan._tag === "Raw" ? plan.status : undefined,
        rawSha256: plan._tag === "Raw" ? sha256Hex(plan.bytes) : undefined
      })
      if (plan._tag === "Refuse") return Effect.fail(plan.error)
      const reply = Effect.sync((): LlmInvocation => {
        if (plan._tag === "Drive") {
          const invocation = this.#open(seq, request, head, plan.viaAttach)
          return { seq, id, head, request, reply: { _tag: "Driven", invocation } }
        }
        return { seq, id, head, request, reply: plan }
      })
      const latency = decision.rule?.latency
      if (latency === undefined) return reply
      const served = Effect.andThen(Effect.sleep(latency), reply)
      return signal === undefined ? served : Effect.raceFirst(served, untilAborted(signal, id))
    })
  }
}
