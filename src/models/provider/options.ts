/**
 * What the simulated model takes and gives as plain shapes: its options, one answer
 * (`LlmInvocation`), the driver's methods, and its state for snapshots.
 */
import type { LlmRequest } from "./conversation.ts"
import type { LlmLogEntry } from "./modelLog.ts"
import type { LlmReply } from "./plan.ts"
import type { ScriptQueueState } from "./scriptQueue.ts"

/**
 * An answer for one request: the reply, the request's number and the `created` time (Unix
 * seconds) its wire format reports.
 */
export interface LlmInvocation {
  readonly seq: number
  readonly id: string
  readonly created: number
  readonly request: LlmRequest
  readonly reply: LlmReply
}

/**
 * The `created` time (Unix seconds) answers report by default: 2026-01-01T00:00:00Z.
 */
export const DEFAULT_EPOCH = 1_767_225_600

/**
 * Options of a provider: `logLimit` bounds its request log (a whole number, default 10 000, at
 * least 1 entry kept, oldest dropped first); counts stay exact. `epoch` is the `created` time
 * (Unix seconds) every answer reports, default `DEFAULT_EPOCH`, so two runs with the same seed
 * and scripts serve the same bytes; `"clock"` reads Effect's `Clock` instead (a `TestClock` in
 * tests). `drive`: requests that no script or rule takes wait for a driver even while none is
 * attached (`simnet serve --drive`), so a driver that attaches later is handed them and misses
 * nothing.
 */
export interface ProviderOptions {
  readonly logLimit?: number | undefined
  /** What the log's entries may hold in all, in bytes (default 16 MiB; each counted as its body plus a fixed overhead). */
  readonly logBytes?: number | undefined
  readonly epoch?: number | "clock" | undefined
  readonly drive?: boolean | undefined
}

/**
 * The `llm.*` driver methods that act on one invocation, as `command` takes them.
 */
export type DriverMethod = "llm.chunk" | "llm.finish" | "llm.fail" | "llm.disconnect"

/**
 * A rule as a snapshot records it: its matcher, behaviour and options, the uses left (`times`)
 * and the failures a `failThenRespond` rule has served so far.
 */
export interface RuleState {
  readonly id: string
  readonly match: unknown
  readonly behaviour: unknown
  readonly latencyMs?: number | undefined
  readonly times?: number | undefined
  readonly failures?: number | undefined
}

/**
 * The state of the provider, as a snapshot records it: how many calls arrived (ids are numbered
 * from it), the script queue, and the request log with its counts per request key. `restore`
 * also takes `rules` (with their progress); `state` lists none, as `rules` does that.
 */
export interface ProviderState {
  readonly callCount: number
  readonly scripts: ScriptQueueState
  readonly log?: ReadonlyArray<LlmLogEntry> | undefined
  readonly counts?: Readonly<Record<string, number>> | undefined
  /** How many calls came for each API, exact past the log's bound (not restored: a restored log recounts its entries). */
  readonly calls?: Readonly<Record<string, number>> | undefined
  readonly rules?: ReadonlyArray<RuleState> | undefined
}
