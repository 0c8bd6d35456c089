/**
 * The provider's ordered rules: the first registered rule whose matcher takes a request serves it.
 */
import { Duration, Option, Result, Schema } from "effect"
import { LinearRegExp } from "../../registry/linearRegExp.ts"
import { joinPath } from "../../registry/schemaPath.ts"
import type { InvalidLlmInput } from "../../SimnetError.ts"
import type { LlmRequest } from "./conversation.ts"
import {
  answerPlan,
  compileMatch,
  type CompiledMatch,
  failurePlan,
  LlmBehaviour,
  LlmMatch,
  type Decision
} from "./plan.ts"
import { decodeInput, invalidInput, rebase } from "./validate.ts"

const isLatency = (u: unknown): u is Duration.Input => {
  if (typeof u === "number" && Number.isNaN(u)) return false
  const duration = Duration.fromInput(u as Duration.Input)
  return Option.isSome(duration) && !Duration.isNegative(duration.value)
}

/**
 * The options of a rule, as a Schema (unknown fields are refused).
 */
export const LlmRuleOptions = Schema.Struct({
  id: Schema.optional(Schema.NonEmptyString),
  latency: Schema.optional(
    Schema.declare(isLatency, { expected: 'a non-negative Duration input ("2 seconds", millis, ...)' })
  ),
  times: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})

/**
 * Options of a rule: `id` (default `rule_N`; unique among the rules), `latency` (a non-negative
 * `Duration` input slept on Effect's `Clock` before the answer, so `TestClock` controls it) and
 * `times` (a whole number of at least 1: the rule retires after serving that many).
 */
export type LlmRuleOptions = typeof LlmRuleOptions.Type

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
  /** Failures a `failThenRespond` rule has served so far (it answers once they reach its `times`). */
  readonly failures: number
}

/**
 * A rule with its running counts and its compiled matcher.
 */
export interface MutableRule {
  readonly id: string
  readonly match: LlmMatch
  readonly test: (request: LlmRequest) => boolean
  /** Why a request misses it, a line per field (`compileMatch`). */
  readonly misses: (request: LlmRequest) => ReadonlyArray<string>
  readonly behaviour: LlmBehaviour
  readonly latency: Duration.Duration | undefined
  readonly times: number | undefined
  uses: number
  failures: number
}

const strict = { onExcessProperty: "error" } as const

/**
 * The rules, in the order they are tried.
 */
export class Rules {
  #rules: Array<MutableRule> = []
  #seq = 0

  /** How many rules are registered. */
  get size(): number {
    return this.#rules.length
  }

  /** The registered rules, copied. */
  list(): ReadonlyArray<LlmRule> {
    return this.#rules.map(({ test: _, ...rule }) => rule)
  }

  /**
   * Checks and adds a rule after the existing ones; the rules are unchanged on a refusal.
   */
  add(match: unknown, behaviour: unknown, options: unknown): Result.Result<string, InvalidLlmInput> {
    return Result.map(this.addAll([{ match, behaviour, options }], [""]), (ids) => ids[0])
  }

  /**
   * Checks and adds rules after the existing ones, all or none (`paths[i]` is where rule `i`
   * stands in its JSON, to name fields in a refusal; `optionsAt` where its options stand in it:
   * `options` for `rule`'s argument, the rule itself for an `LlmRuleSpec`); the ids given.
   */
  addAll(
    rules: ReadonlyArray<{ readonly match: unknown; readonly behaviour: unknown; readonly options: unknown }>,
    paths: ReadonlyArray<string>,
    optionsAt = "options"
  ): Result.Result<ReadonlyArray<string>, InvalidLlmInput> {
    const pending: Array<MutableRule> = []
    let seq = this.#seq
    for (let i = 0; i < rules.length; i++) {
      const { match, behaviour, options } = rules[i]
      const checked = this.#check(match, behaviour, options, optionsAt, pending, seq)
      if (Result.isFailure(checked)) {
        const failure = checked.failure
        return Result.fail(rebase(failure, paths[i]))
      }
      if ((options as LlmRuleOptions | undefined)?.id === undefined) seq++
      pending.push(checked.success)
    }
    this.#seq = seq
    this.#rules.push(...pending)
    return Result.succeed(pending.map((rule) => rule.id))
  }

  #check(
    match: unknown,
    behaviour: unknown,
    options: unknown,
    optionsAt: string,
    pending: ReadonlyArray<MutableRule>,
    seq: number
  ): Result.Result<MutableRule, InvalidLlmInput> {
    const taken = (id: string) => this.#rules.some((rule) => rule.id === id) || pending.some((rule) => rule.id === id)
    const nextId = () => {
      let n = seq + 1
      while (taken(`rule_${n}`)) n++
      return `rule_${n}`
    }
    return Result.gen(function* () {
      const decodedMatch = yield* decodeInput(LlmMatch, match, "rule", "match", strict)
      const compiled = compileMatch(decodedMatch)
      if (Array.isArray(compiled)) {
        return yield* Result.fail(
          invalidInput("rule", joinPath("match", compiled[0]), LinearRegExp.refusal(compiled[1]))
        )
      }
      const { test, misses } = compiled as CompiledMatch
      const decodedBehaviour = yield* decodeInput(LlmBehaviour, behaviour, "rule", "behaviour", strict)
      const decodedOptions = yield* decodeInput(LlmRuleOptions, options ?? {}, "rule", optionsAt, strict)
      if (decodedOptions.id !== undefined && taken(decodedOptions.id)) {
        return yield* Result.fail(
          invalidInput("rule", joinPath(optionsAt, "id"), `a rule with id "${decodedOptions.id}" is already registered`)
        )
      }
      return {
        id: decodedOptions.id ?? nextId(),
        match: decodedMatch,
        test,
        misses,
        behaviour: decodedBehaviour,
        latency: decodedOptions.latency === undefined ? undefined : Duration.fromInputUnsafe(decodedOptions.latency),
        times: decodedOptions.times,
        uses: 0,
        failures: 0
      }
    })
  }

  /**
   * Sets a rule's progress, as a restored snapshot does: how many failures a `failThenRespond`
   * rule has served. Whether the rule existed.
   */
  resume(id: string, failures: number): boolean {
    const rule = this.#rules.find((r) => r.id === id)
    if (rule !== undefined) rule.failures = failures
    return rule !== undefined
  }

  /** Removes a rule; whether it existed. */
  remove(id: string): boolean {
    const before = this.#rules.length
    this.#rules = this.#rules.filter((rule) => rule.id !== id)
    return this.#rules.length !== before
  }

  /**
   * The rules nearest to a request none took (at most `limit`): those that missed on the fewest
   * fields first, each with why; a rule used up says so.
   */
  nearest(request: LlmRequest, limit = 3): Array<{ readonly id: string; readonly misses: ReadonlyArray<string> }> {
    return this.#rules
      .map((rule) => ({
        id: rule.id,
        misses:
          rule.times !== undefined && rule.uses >= rule.times ? [`used up (times ${rule.times})`] : rule.misses(request)
      }))
      .filter((near) => near.misses.length > 0)
      .sort((a, b) => a.misses.length - b.misses.length)
      .slice(0, limit)
  }

  /** The first live rule that takes the request, and what it answers; undefined when none does. */
  take(request: LlmRequest, seq: number): Decision | undefined {
    for (const rule of this.#rules) {
      if (rule.times !== undefined && rule.uses >= rule.times) continue
      if (!rule.test(request)) continue
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

  /** Removes every rule and restarts the numbering. */
  clear(): void {
    this.#rules = []
    this.#seq = 0
  }
}
