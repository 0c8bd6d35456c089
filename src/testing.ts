/**
 * `simnet/testing`: fast-check arbitraries that make only values simnet accepts (model scripts and
 * rules, chaos options, routes; `testing/arbitraries.ts`), hostile values at a weight
 * (`testing/hostile.ts`), and `property(name, arbitraries, body)`: a fast-check property with a
 * fresh simulated network per case, whose failing case is written to a file `simnet show` opens
 * (`testing/property.ts`). `explore`, `exploreResult` and `replayExplore` drive a whole program in
 * a terminal (`explore/explore.ts`); they load it, with its terminal and server, on first use, so
 * importing `simnet/testing` loads neither.
 */
import "./registry/version.ts"
import type * as Explore from "./explore/explore.ts"

export {
  chaos,
  InvalidArbitraryOption,
  llmRule,
  llmScript,
  type OfferedTool,
  routeSpec
} from "./testing/arbitraries.ts"
export type {
  ExploreAction,
  ExploreCase,
  ExploreObservation,
  ExploreOptions,
  ExploreProperty,
  ExploreStep,
  ReplayOptions
} from "./explore/explore.ts"
export {
  ExploreFailed,
  type ExploreFile,
  ExploreNoAction,
  type ExploreResult,
  type ReplayResult
} from "./explore/exploreResult.ts"
export { BadFailureFile, FAILURE_FILE_BOUNDS } from "./testing/failureFiles.ts"
export { DEFAULT_HOSTILE, HOSTILE_STRINGS, hostileString } from "./testing/hostile.ts"
export {
  CaseTimedOut,
  DEFAULT_CASE_TIMEOUT_MS,
  type FailureFile,
  onNetwork,
  property,
  type PropertyOptions,
  type ValuesOf
} from "./testing/property.ts"

let loading: Promise<typeof Explore> | undefined
const loadExplore = (): Promise<typeof Explore> => (loading ??= import("./explore/explore.ts"))

/**
 * Explores `command` under generated actions on fresh simulated networks and rejects with
 * `ExploreFailed` (the shrunk failing run's file in `file`) when a run fails; see `explore.ts`.
 */
export const explore: typeof Explore.explore = async (command, options) =>
  (await loadExplore()).explore(command, options)

/** As `explore`, resolving with what the exploration came to (`failure` set when a run failed) instead of rejecting. */
export const exploreResult: typeof Explore.exploreResult = async (command, options) =>
  (await loadExplore()).exploreResult(command, options)

/** Runs a failing run's file again (`simnet explore --replay`), resolving with whether it failed again. */
export const replayExplore: typeof Explore.replayExplore = async (file, options) =>
  (await loadExplore()).replayExplore(file, options)
