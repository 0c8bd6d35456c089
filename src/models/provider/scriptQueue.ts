/**
 * The provider's script queue: a new turn starts the next script, and step N of the script under
 * way answers the call that follows N tool-result rounds. A script whose last step calls a tool
 * hands the conversation on: the tool-result round that follows, when no rule takes it, starts
 * the next queued script (an agent handing off to another, each scripted), whose step N then
 * answers N rounds later.
 */
import type { LlmScript } from "../../schemas/llmScript.ts"
import { NoScriptQueued } from "../../SimnetError.ts"
import type { LlmRequest } from "./conversation.ts"
import { summarize } from "./conversation.ts"
import { stepPlan, type Decision } from "./plan.ts"

/**
 * The queue as a snapshot records it: the scripts waiting, the one part-way through, and how many
 * scripts were started so far.
 */
export interface ScriptQueueState {
  readonly queued: ReadonlyArray<LlmScript>
  readonly current: LlmScript | undefined
  readonly consumed: number
  /** The tool-result round the script under way started at (0 for a new turn). */
  readonly startRound?: number | undefined
  /** Whether the last script ended with a tool call, so the next round starts the next script. */
  readonly handoff?: boolean | undefined
}

/**
 * Scripts waiting, and the one part-way through.
 */
export class ScriptQueue {
  #queue: Array<LlmScript> = []
  #current: LlmScript | undefined
  #consumed = 0
  #startRound = 0
  #handoff = false

  /** The queue's state, for snapshots. */
  get state(): ScriptQueueState {
    return {
      queued: [...this.#queue],
      current: this.#current,
      consumed: this.#consumed,
      ...(this.#startRound === 0 ? {} : { startRound: this.#startRound }),
      ...(this.#handoff ? { handoff: true } : {})
    }
  }

  /** Replaces the queue's state with decoded scripts. */
  restore(state: ScriptQueueState): void {
    this.#queue = [...state.queued]
    this.#current = state.current
    this.#consumed = state.consumed
    this.#startRound = state.startRound ?? 0
    this.#handoff = state.handoff === true
  }

  /** Adds a decoded script to the end of the queue. */
  push(script: LlmScript): void {
    this.#queue.push(script)
  }

  /** Scripts waiting (not counting one that is part-way through). */
  get size(): number {
    return this.#queue.length
  }

  /**
   * The queue's answer. A call with no tool results starts the next script (a new turn). A call
   * after tool results takes the step of the script under way, counted from the round it started
   * at. A call the script has no step for ends that script and is a refusal here (rules and
   * drivers are asked before it is served). Undefined when no script is under way: such a call
   * goes to the rules, and then to `handOn`.
   */
  take(request: LlmRequest, seq: number): Decision | undefined {
    if (request.toolResultRounds === 0) this.#start(0)
    return this.#step(request, seq)
  }

  /**
   * For a call after tool results that no script under way and no rule took: when the last script
   * ended with a tool call, the next queued script takes it (a handoff), its step 0 answering this
   * round. Undefined otherwise.
   */
  handOn(request: LlmRequest, seq: number): Decision | undefined {
    if (this.#current !== undefined || !this.#handoff || this.#queue.length === 0 || request.toolResultRounds === 0)
      return undefined
    this.#start(request.toolResultRounds)
    return this.#step(request, seq)
  }

  #start(round: number): void {
    this.#current = this.#queue.shift()
    this.#startRound = round
    this.#handoff = false
    if (this.#current !== undefined) this.#consumed++
  }

  #step(request: LlmRequest, seq: number): Decision | undefined {
    const script = this.#current
    if (script === undefined) return undefined
    const rounds = request.toolResultRounds
    const step = rounds - this.#startRound
    if (step < 0 || step >= script.steps.length) {
      this.#current = undefined
      this.#handoff = false
      const error = new NoScriptQueued({
        model: request.model,
        reason: "exhausted",
        material: summarize(request),
        steps: script.steps.length,
        rounds,
        startRound: this.#startRound
      })
      return { source: "script", rule: undefined, step, plan: { _tag: "Refuse", error } }
    }
    if (step === script.steps.length - 1) {
      this.#current = undefined
      this.#handoff = script.steps[step].some((action) => action.type === "tool_call")
    }
    return { source: "script", rule: undefined, step, plan: stepPlan(script, step, seq, request) }
  }

  /** Empties the queue and ends the script under way. */
  clear(): void {
    this.#queue = []
    this.#current = undefined
    this.#consumed = 0
    this.#startRound = 0
    this.#handoff = false
  }
}
