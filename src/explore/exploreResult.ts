/**
 * What an exploration comes to, without the exploration: its result, the file of a failing run,
 * what a replay comes to, and the errors `explore` rejects with. `simnet/testing` exports these
 * from here, so importing it loads no terminal and no server; `explore.ts` loads them on first use.
 */
import type { ExploreAction, ExploreCase } from "./exploreActions.ts"
import type { ClockCovered } from "./exploreClock.ts"
import type { ExploreStep, NoAction, RunOutcome } from "./exploreRun.ts"

/** The file of a failing run (`simnet show` opens it, `replayExplore` runs it again). */
export interface ExploreFile {
  readonly simnet: "explore-failure/v1"
  readonly command: ReadonlyArray<string>
  readonly seed: number | string
  readonly cols: number
  readonly rows: number
  readonly quietMs: number
  readonly timeoutMs: number
  readonly ready?: string | undefined
  /** The clock the run ran on, when virtual. */
  readonly clock?: "virtual" | undefined
  readonly fixture: unknown
  /** The shrunk case: its actions, the model scripts queued first, its chaos. */
  readonly case: ExploreCase
  readonly failure: { readonly step: number; readonly action: string; readonly reason: string }
  /** Each step's screen and the requests it caused; step 0 is the start. */
  readonly steps: ReadonlyArray<ExploreStep>
  /** The run's trace as JSON-lines objects (the start, each request), as `replayTrace` reads it. */
  readonly trace: ReadonlyArray<Record<string, unknown>>
  /** The network's state when the run ended, times zeroed (`simnet show` restores it). */
  readonly end: unknown
}

/** What an exploration came to. */
export interface ExploreResult {
  readonly runs: number
  /** The actions done over every run (not counting shrinking's). */
  readonly actions: number
  readonly seed: number | string
  /** On a virtual clock: the virtual time the runs covered, and how many had a Node process join it (0: the app ran on real time). */
  readonly clock?: ClockCovered | undefined
  /** The shrunk failing run, when one failed. */
  readonly failure?:
    | {
        readonly file: string
        readonly step: number
        readonly action: string
        readonly reason: string
        readonly actions: ReadonlyArray<ExploreAction>
        readonly shrinks: number
        /** The failing run's working directory, kept as it was left (a fixture with `files`). */
        readonly workspace?: string | undefined
      }
    | undefined
}

/** An exploration that found a failing run: the error `explore` rejects with (the run's file in `file`). */
export class ExploreFailed extends Error {
  readonly result: ExploreResult & { readonly failure: NonNullable<ExploreResult["failure"]> }
  constructor(result: ExploreResult & { readonly failure: NonNullable<ExploreResult["failure"]> }) {
    super(
      `simnet explore: ${result.failure.reason}, at step ${result.failure.step} (${result.failure.action}), after shrinking ${result.failure.shrinks} times to ${result.failure.actions.length} action${result.failure.actions.length === 1 ? "" : "s"}\nsimnet: the failing run is in ${result.failure.file} (open it: simnet show ${result.failure.file}; run it again: simnet explore --replay ${result.failure.file} -- COMMAND)`
    )
    this.name = "ExploreFailed"
    this.result = result
  }
  get file(): string {
    return this.result.failure.file
  }
}

/**
 * A run that took no action: its program exited before the first one (`reason: "exited"`), or
 * never showed the ready text (`"not-ready"`) — the exploration explored nothing, and says why.
 * `simnet explore` exits 2 with its message.
 */
export class ExploreNoAction extends Error {
  readonly reason: NoAction["reason"]
  constructor(noAction: NoAction) {
    super(`simnet explore: a run took no action: ${noAction.message}`)
    this.name = "ExploreNoAction"
    this.reason = noAction.reason
  }
}

/** What a replay came to: whether the file's failure happened again, the run's steps, and its working directory when it failed again (a fixture with `files`). */
export interface ReplayResult {
  readonly reproduced: boolean
  readonly failure: RunOutcome["failure"]
  readonly expected: ExploreFile["failure"]
  readonly steps: ReadonlyArray<ExploreStep>
  readonly workspace?: string | undefined
}
