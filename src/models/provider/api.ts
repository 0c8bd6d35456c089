/**
 * The simulated model behind every model route (`Routes.openai`, `Routes.anthropic`,
 * `Routes.gemini`), reachable as `network.llm`. The app keeps its real model client and simnet
 * answers its HTTP requests; this module decides the answers, whatever the API: routes read their
 * own format into an `LlmRequest` and write the answer's parts back in it. A request is served by
 * the first of three sources that takes it:
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
 * is a body that is not a request of its API (`recordInvalid`).
 *
 * Scripts, rules and driver commands are checked before anything changes: bad input is an
 * `InvalidLlmInput` naming the input and the offending path (`steps[0][1].status`,
 * `options.times`). Effects fail with it: the driver commands (`chunk`, `fail`, …), `restore`,
 * and the Effect forms of the queue and the rules (`SimulatedProviderApi.enqueue(llm, script)`,
 * `.rule`, `.addRules`, `.make`; `SimulatedProvider.enqueue(script)` and the others read the
 * provider from the context). Only the plain face throws it: the instance methods `enqueue`, `rule`
 * and `addRules` and the constructor, which code that is not written in Effect calls (the contract's
 * `network.llm.enqueue(script)`), each a `Result.getOrThrow` over the same check.
 *
 * `SimulatedProvider` is a service: `SimulationNetwork.make` builds one per network and provides
 * it to the network's routes, which look it up from their respond context; `network.llm` is the
 * same instance.
 */
import type { Scope, Types } from "effect"
import { Clock, Effect, Result } from "effect"
import { untilAborted } from "../../registry/transport.ts"
import type { ChunkCommand, DisconnectCommand, FailCommand, FinishCommand } from "../../schemas/driver.ts"
import { LlmRuleSpec, LlmScript } from "../../schemas/llmScript.ts"
import type { InvalidLlmInput, RouteFailed } from "../../SimnetError.ts"
import { type InvocationNotPending, NoScriptQueued, UnmatchedLlmRequest } from "../../SimnetError.ts"
import type { LlmApi, LlmRequest } from "./conversation.ts"
import { deepFreeze, requestKeyOf, summarize } from "./conversation.ts"
import { sha256Hex } from "../../registry/util.ts"
import { Drivers, type DriverNotices, type PendingInvocation } from "./drivers.ts"
import { DEFAULT_MODEL_LOG_BYTES, ModelLog, type LlmLogEntry } from "./modelLog.ts"
import type { Decision, LlmBehaviour, LlmMatch } from "./plan.ts"
import { outcomeOf } from "./plan.ts"
import { structuredMismatch } from "./structuredValue.ts"
import { Rules, type LlmRule, type LlmRuleOptions } from "./rules.ts"
import { ScriptQueue } from "./scriptQueue.ts"
import { type Batch, batchOf, decodeInput } from "./validate.ts"
import { ProviderOptionsData } from "../../schemas/options.ts"
import {
  DEFAULT_EPOCH,
  type DriverMethod,
  type LlmInvocation,
  type ProviderOptions,
  type ProviderState
} from "./options.ts"

/** The provider's options, checked: `InvalidLlmInput` naming the bad one. */
const decodeOptions = (options: ProviderOptions) =>
  decodeInput(
    ProviderOptionsData,
    { logLimit: options.logLimit, logBytes: options.logBytes, epoch: options.epoch, drive: options.drive },
    "provider option",
    ""
  )

/**
 * The simulated model: the script queue, the rules, the request log and counts, and the driven
 * invocations. Same rules and the same request sequence give the same answers, log and counts on
 * every run: ids are numbered per provider (`inv_N`, `call_N_I`, `chatcmpl-sim-N`) and `created`
 * is the fixed `epoch` unless asked to follow the `Clock`.
 */
export class SimulatedProviderApi {
  readonly #scripts = new ScriptQueue()
  #rules = new Rules()
  readonly #log: ModelLog
  readonly #drivers: Drivers
  readonly #epoch: number | "clock"
  #seq = 0

  /**
   * The plain face of `SimulatedProviderApi.make`.
   *
   * @throws {InvalidLlmInput} when `logLimit` is not a whole number of at least 0, or `epoch` is
   * neither one nor `"clock"`.
   */
  constructor(options: ProviderOptions = {}) {
    const decoded = Result.getOrThrow(decodeOptions(options))
    this.#log = new ModelLog(decoded.logLimit ?? 10_000, decoded.logBytes ?? DEFAULT_MODEL_LOG_BYTES)
    this.#epoch = decoded.epoch ?? DEFAULT_EPOCH
    this.#drivers = new Drivers(decoded.drive === true)
  }

  /** A provider, or `InvalidLlmInput` naming the option (`logLimit`, `epoch`) when one is bad. */
  static make(options: ProviderOptions = {}): Effect.Effect<SimulatedProviderApi, InvalidLlmInput> {
    return Effect.suspend(() =>
      Effect.map(Effect.fromResult(decodeOptions(options)), () => new SimulatedProviderApi(options))
    )
  }

  /**
   * Adds a script to the end of the queue, as the plain `enqueue` does, as an Effect: bad input
   * fails with `InvalidLlmInput` and leaves the queue as it was. Nothing happens until it runs.
   */
  static enqueue(llm: SimulatedProviderApi, script: LlmScript): Effect.Effect<void, InvalidLlmInput> {
    return Effect.suspend(() => Effect.fromResult(llm.#enqueue({ list: [script], paths: [""] })))
  }

  /**
   * Adds a script, or an array of them, to the end of the queue, all or none: the first bad one
   * fails with `InvalidLlmInput` (at `[N]…` in an array) and nothing is queued (`POST llm/enqueue`,
   * a network's `llm` option).
   */
  static enqueueAll(llm: SimulatedProviderApi, scripts: unknown): Effect.Effect<void, InvalidLlmInput> {
    return Effect.suspend(() => Effect.fromResult(llm.#enqueue(batchOf(scripts))))
  }

  /** Registers a rule, as the plain `rule` does, as an Effect that succeeds with its id or fails with `InvalidLlmInput`. */
  static rule(
    llm: SimulatedProviderApi,
    match: LlmMatch,
    behaviour: LlmBehaviour,
    options: LlmRuleOptions = {}
  ): Effect.Effect<string, InvalidLlmInput> {
    return Effect.suspend(() => Effect.fromResult(llm.#rules.add(match, behaviour, options)))
  }

  /** Adds rules given as JSON, all or none, as the plain `addRules` does, as an Effect that succeeds with their ids. */
  static addRules(llm: SimulatedProviderApi, specs: unknown): Effect.Effect<ReadonlyArray<string>, InvalidLlmInput> {
    return Effect.suspend(() => Effect.fromResult(llm.#addRules(specs)))
  }

  /**
   * Adds a script to the end of the queue. A call with no tool results after its last user
   * message starts the next script (so a retried first call takes the next script, and a new
   * turn never continues an old one); a call after N tool-result rounds is answered by step N of
   * the current script, and the script is done after its last step. A script whose last step
   * calls a tool hands the conversation on: the tool-result round that follows, when no rule takes
   * it, starts the next script (an agent handing off to another), whose step N answers N rounds
   * after that. Any
   * other call after tool results with no script under way, or past the script's last step, is
   * left to the rules and drivers (and refused, saying how many scripts wait, when none takes it).
   *
   * The script is decoded with the `LlmScript` schema first. Bad input throws `InvalidLlmInput`
   * (synchronously; `path` names the field, such as `steps[0][1].status`) and leaves the queue
   * as it was. This is the plain face; Effect code writes `yield* SimulatedProvider.enqueue(script)`
   * (or `SimulatedProviderApi.enqueue(llm, script)`), which fails with it instead.
   *
   * @throws {InvalidLlmInput}
   */
  enqueue(script: LlmScript): void {
    Result.getOrThrow(this.#enqueue({ list: [script], paths: [""] }))
  }

  /** Decodes every script, then queues them all; the first bad one is refused (at `paths[i]`) and nothing is queued. */
  #enqueue({ list, paths }: Batch): Result.Result<void, InvalidLlmInput> {
    return Result.map(
      Result.all(list.map((script, i) => decodeInput(LlmScript, script, "script", paths[i]))),
      (decoded) =>
        decoded.forEach((script) => {
          this.#scripts.push(script)
        })
    )
  }

  /** Scripts waiting in the queue (not counting one that is part-way through). */
  get queued(): number {
    return this.#scripts.size
  }

  /**
   * Registers a rule after the existing ones and returns its id. Rules are tried in registration
   * order; the first whose matcher takes the request serves it.
   *
   * Matcher, behaviour and options are checked first (unknown fields are refused too). Bad input
   * throws `InvalidLlmInput` (synchronously; `path` names the field, such as
   * `behaviour.status` or `options.times`), as does an `id` already taken, and the rules are
   * left as they were. The plain face of `SimulatedProvider.rule`.
   *
   * @throws {InvalidLlmInput}
   */
  rule(match: LlmMatch, behaviour: LlmBehaviour, options: LlmRuleOptions = {}): string {
    return Result.getOrThrow(this.#rules.add(match, behaviour, options))
  }

  /**
   * Adds rules given as JSON (`LlmRuleSpec`: one, or an array), all or none, after the existing
   * ones: the form fixtures (`llm.rules`) and the control endpoint (`POST llm/rules`) use, with the
   * semantics of `rule`. Returns the ids. Bad input throws `InvalidLlmInput` naming the field
   * (`[1].match.system.regex`) and adds nothing. The plain face of `SimulatedProvider.addRules`.
   *
   * @throws {InvalidLlmInput}
   */
  addRules(specs: unknown): ReadonlyArray<string> {
    return Result.getOrThrow(this.#addRules(specs))
  }

  #addRules(specs: unknown): Result.Result<ReadonlyArray<string>, InvalidLlmInput> {
    const { list, paths } = batchOf(specs)
    return Result.flatMap(
      Result.all(
        list.map((spec, i) => decodeInput(LlmRuleSpec, spec, "rule", paths[i], { onExcessProperty: "error" }))
      ),
      // A spec's options are its own fields (decoded above, `latencyMs` included), so a clash of ids names `id`.
      (decoded) =>
        this.#rules.addAll(
          decoded.map((spec) => ({
            match: spec.match,
            behaviour: spec.behaviour,
            options: { id: spec.id, times: spec.times, latency: spec.latencyMs }
          })),
          paths,
          ""
        )
    )
  }

  /** Removes a rule; returns whether it existed. */
  removeRule(id: string): boolean {
    return this.#rules.remove(id)
  }

  /** The registered rules, in the order they are tried. */
  get rules(): ReadonlyArray<LlmRule> {
    return this.#rules.list()
  }

  /**
   * The requests so far (the latest `logLimit`), oldest first, as recorded when they arrived. The
   * array, its entries and their bodies are deeply frozen: neither later requests nor a caller
   * can change what a read returned.
   */
  get log(): ReadonlyArray<LlmLogEntry> {
    return this.#log.entries
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
    return this.#log.countFor(typeof keyOrBody === "string" ? keyOrBody : requestKeyOf(keyOrBody))
  }

  /** Every request key seen, with how many requests had it: a copy (keys in no particular order), enumerable. */
  get counts(): ReadonlyMap<string, number> {
    return this.#log.counts()
  }

  /** The invocations waiting for a driver or being fed by one. */
  get pending(): ReadonlyArray<PendingInvocation> {
    return this.#drivers.pending()
  }

  /**
   * Clears the queue, the rules, the log, the counters and the numbering, and disconnects every
   * pending invocation.
   */
  reset(): void {
    this.#drivers.disconnectAll()
    this.#seq = 0
    this.#scripts.clear()
    this.#rules.clear()
    this.#log.clear()
  }

  /**
   * Attaches a driver for the life of the scope (`llm.attach`): requests that no script or rule
   * takes open invocations instead of being refused, and each is announced on the returned queue
   * (`llm.request`). The queue starts with the invocations already pending. The last attach wins:
   * a replaced driver's queue ends (`Cause.Done`). When the attached driver leaves, the
   * invocations opened for drivers are disconnected.
   */
  get attach(): Effect.Effect<DriverNotices, never, Scope.Scope> {
    return this.#drivers.attach
  }

  /** Whether a driver is attached. */
  get attached(): boolean {
    return this.#drivers.attached
  }

  /**
   * Whether `notices` (the queue an `attach` returned) belong to the driver attached now, and not
   * to one a later attach replaced: a socket may command invocations only while this holds.
   */
  isAttachedDriver(notices: DriverNotices): boolean {
    return this.#drivers.isCurrent(notices)
  }

  /**
   * Sends items into a pending invocation (`llm.chunk`). The command is decoded first: an unknown
   * item type is an `InvalidLlmInput` at `items[N]` and nothing is sent.
   */
  chunk(params: ChunkCommand): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    return this.command("llm.chunk", params)
  }

  /** Ends a pending invocation's answer (`llm.finish`); the reason defaults to `tool_calls` or `stop`. */
  finish(params: FinishCommand): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    return this.command("llm.finish", params)
  }

  /**
   * Fails a pending invocation (`llm.fail`): an HTTP status before any chunk, else an error event.
   * A `status` outside 400–599 fails with `InvalidLlmInput` at `status`, and the invocation
   * stays pending.
   */
  fail(params: FailCommand): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    return this.command("llm.fail", params)
  }

  /** Drops a pending invocation's connection (`llm.disconnect`). */
  disconnect(params: DisconnectCommand): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    return this.command("llm.disconnect", params)
  }

  /** One driver command on an invocation, as the driver socket receives it; a refused one changes nothing. */
  command(method: DriverMethod, params: unknown): Effect.Effect<void, InvocationNotPending | InvalidLlmInput> {
    return this.#drivers.command(method, params)
  }

  /**
   * The provider's state, for snapshots: call count, script queue, log and counts (and calls by
   * API, for metrics). Rules are listed by `rules`.
   */
  get state(): ProviderState {
    return {
      callCount: this.#seq,
      scripts: this.#scripts.state,
      log: this.#log.entries,
      counts: Object.fromEntries(this.#log.counts()),
      calls: Object.fromEntries(this.#log.byApi)
    }
  }

  /**
   * Restores a state taken with `state` (in this process or another), all or nothing: the call
   * count, the script queue (each script decoded again), the log and counts when given, and the
   * rules when given (each checked as `rule` checks it, then given its progress). Bad input is
   * an `InvalidLlmInput` and changes nothing.
   */
  restore(state: ProviderState): Effect.Effect<void, InvalidLlmInput> {
    return Effect.suspend(() => Effect.fromResult(this.#restore(state)))
  }

  #restore(state: ProviderState): Result.Result<void, InvalidLlmInput> {
    const checked = Result.gen(function* () {
      const queued = yield* Result.all(
        state.scripts.queued.map((script, i) => decodeInput(LlmScript, script, "script", `scripts.queued[${i}]`))
      )
      const current =
        state.scripts.current === undefined
          ? undefined
          : yield* decodeInput(LlmScript, state.scripts.current, "script", "scripts.current")
      const rules = new Rules()
      for (const rule of state.rules ?? []) {
        const id = yield* rules.add(rule.match, rule.behaviour, {
          id: rule.id,
          latency: rule.latencyMs,
          times: rule.times
        })
        rules.resume(id, rule.failures ?? 0)
      }
      return { queued, current, rules }
    })
    return Result.map(checked, ({ queued, current, rules }) => {
      this.#scripts.restore({
        queued,
        current,
        consumed: state.scripts.consumed,
        startRound: state.scripts.startRound,
        handoff: state.scripts.handoff
      })
      if (state.rules !== undefined) this.#rules = rules
      if (state.log !== undefined || state.counts !== undefined) {
        this.#log.restore(state.log ?? [], new Map(Object.entries(state.counts ?? {})), state.callCount)
      }
      this.#seq = state.callCount
    })
  }

  #decide(request: LlmRequest, seq: number): Decision {
    const scripted = this.#scripts.take(request, seq)
    if (scripted !== undefined && scripted.plan._tag !== "Refuse") return scripted
    const decision = this.#rules.take(request, seq)
    if (decision !== undefined) return decision
    const handed = this.#scripts.handOn(request, seq)
    if (handed !== undefined) return handed
    if (this.#drivers.waiting)
      return { source: "driver", rule: undefined, step: undefined, plan: { _tag: "Drive", viaAttach: true } }
    if (scripted !== undefined && this.#rules.size === 0) return scripted
    const material = summarize(request)
    const error =
      this.#rules.size === 0
        ? new NoScriptQueued(
            this.#scripts.size === 0
              ? { model: request.model, reason: "empty", material }
              : { model: request.model, reason: "handoff", material, queued: this.#scripts.size }
          )
        : new UnmatchedLlmRequest({ model: request.model, material, nearest: this.#rules.nearest(request) })
    return { source: "none", rule: undefined, step: undefined, plan: { _tag: "Refuse", error } }
  }

  /**
   * Records a request whose body is not a request of its API (`raw`: the body parsed as JSON,
   * `undefined` when it is not JSON). It is logged with outcome `invalid-request` and status 400
   * and counted like any other request; returns its sequence number.
   */
  recordInvalid(url: string, raw: unknown, api: LlmApi = "openai.chat", bodySize = 0): Effect.Effect<number> {
    return Effect.map(Clock.currentTimeMillis, (now) => this.recordInvalidAt(url, raw, api, bodySize, now))
  }

  /** `recordInvalid` at the time `now` (the network's clock), done at once. */
  recordInvalidAt(url: string, raw: unknown, api: LlmApi, bodySize: number, now: number): number {
    const seq = ++this.#seq
    const body: { readonly model?: unknown; readonly stream?: unknown } =
      typeof raw === "object" && raw !== null ? raw : {}
    this.#log.record(
      {
        seq,
        id: `inv_${seq}`,
        at: now,
        api,
        url,
        model: typeof body.model === "string" ? body.model : "",
        stream: body.stream === true,
        key: requestKeyOf(raw),
        toolResultRounds: 0,
        lastUserMessage: undefined,
        body: deepFreeze(raw),
        source: "none",
        rule: undefined,
        step: undefined,
        outcome: "invalid-request",
        status: 400,
        rawSha256: undefined
      },
      bodySize
    )
    return seq
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
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const served = this.invokeAt(request, now, () => signal)
      return Effect.isEffect(served) ? served : "_tag" in served ? Effect.fail(served) : Effect.succeed(served)
    })
  }

  /**
   * `invoke` at the time `now` (the network's clock), done at once where nothing waits: the
   * invocation, or the refusal; an Effect for what must wait (a rule's latency, a driver). The
   * request's signal is asked for only when a latency is waited out.
   */
  invokeAt(
    request: LlmRequest,
    now: number,
    signalOf: () => AbortSignal | undefined
  ):
    | LlmInvocation
    | NoScriptQueued
    | UnmatchedLlmRequest
    | Effect.Effect<LlmInvocation, NoScriptQueued | UnmatchedLlmRequest | RouteFailed> {
    const seq = ++this.#seq
    const id = `inv_${seq}`
    const created = this.#epoch === "clock" ? Math.floor(now / 1000) : this.#epoch
    const decision = this.#decide(request, seq)
    const plan = decision.plan
    const entry: Types.Mutable<LlmLogEntry> = {
      // structuredMismatch is set after: a spread made every entry slowly
      seq,
      id,
      at: now,
      api: request.api,
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
      status: plan._tag === "HttpError" || plan._tag === "Raw" ? plan.status : undefined,
      rawSha256: plan._tag === "Raw" ? sha256Hex(plan.bytes) : undefined
    }
    if (plan._tag === "Reply" && request.structured !== undefined)
      entry.structuredMismatch = structuredMismatch(request, plan.parts)
    this.#log.record(entry, request.bodySize)
    if (plan._tag === "Refuse") return plan.error
    const reply = (): LlmInvocation => {
      if (plan._tag === "Drive") {
        const invocation = this.#drivers.open(seq, request, plan.viaAttach)
        return { seq, id, created, request, reply: { _tag: "Driven", invocation } }
      }
      return { seq, id, created, request, reply: plan }
    }
    const latency = decision.rule?.latency
    if (latency === undefined) return reply()
    const served = Effect.andThen(Effect.sleep(latency), Effect.sync(reply))
    const signal = signalOf()
    return signal === undefined ? served : Effect.raceFirst(served, untilAborted(signal, request.api, id))
  }
}
