/**
 * The provider's script queue: a new turn starts the next script, and step N of the script under
 * way answers the call that follows N tool-result rounds.
 */
import type { LlmScript } from "../schemas/llmScript.ts"
import { NoScriptQueued } from "../SimnetError.ts"
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
}

/**
 * Scripts waiting, and the one part-way through.
 */
export class ScriptQueue {
  #queue: Array<LlmScript> = []
  #current: LlmScript | undefined
  #consumed = 0

  /** The queue's state, for snapshots. */
  get state(): ScriptQueueState {
    return { queued: [...this.#queue], current: this.#current, consumed: this.#consumed }
  }

  /** Replaces the queue's state with decoded scripts. */
  restore(state: ScriptQueueState): void {
    this.#queue = [...state.queued]
    this.#current = state.current
    this.#consumed = state.consumed
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
   * The queue's answer: a call with no tool results starts the next script; a later call takes
   * the step of the script under way. A call the script has no step for ends that script and is
   * a refusal here (rules and drivers are asked before it is served). Undefined when no script
   * is under way.
   */
  take(request: LlmRequest, seq: number): Decision | undefined {
    const step = request.toolResultRounds
    if (step === 0) {
      this.#current = this.#queue.shift()
      if (this.#current !== undefined) this.#consumed++
    }
    const script = this.#current
    if (script === undefined) return undefined
    if (step >= script.steps.length) {
      this.#current = undefined
      const message =
        `simnet: the current LLM script has ${script.steps.length} step(s) but this call follows ${step} tool-result round(s) (${summarize(request)})`
      return { source: "script", rule: undefined, step, plan: { _tag: "Refuse", error: new NoScriptQueued({ model: request.model, message }) } }
    }
    if (step === script.steps.length - 1) this.#current = undefined
    return { source: "script", rule: undefined, step, plan: stepPlan(script, step, seq, request) }
  }

  /** Empties the queue and ends the script under way. */
  clear(): void {
    this.#queue = []
    this.#current = undefined
    this.#consumed = 0
  }
}
