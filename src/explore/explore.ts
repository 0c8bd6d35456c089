/**
 * `explore(command, options)` (and `simnet explore`): the whole app under generated actions, as
 * seed 003 plans it. Each run starts the command in a terminal on a fresh simulated network, does
 * a drawn sequence of actions (typed text from a small grammar and the fixture's prompts, lines
 * submitted, keys, resizes), with model scripts and chaos from `simnet/testing`'s arbitraries,
 * waits for the whole app to be at rest after each, and checks that the app does not crash — the
 * process alive or exited 0, no uncaught-error output on its terminal — and the caller's own
 * properties. fast-check draws the runs from the seed and shrinks a failing one (fewer actions,
 * shorter text, fewer scripts, less chaos); the shrunk run is done once more and written to one
 * file: the seed, the fixture, the case, each step's screen and the requests it caused, the
 * trace, the network's end state. `simnet show FILE` opens it; `replayExplore(FILE)` (`simnet
 * explore --replay FILE`) runs it again. The same seed writes the same file. A fixture's `files`
 * are each run's working directory (a fresh one; the failing run's is kept). A run that takes no
 * action — the program exited before the first, or never showed the ready text — ends the
 * exploration with `ExploreNoAction`: nothing was explored.
 */
import fc from "fast-check"
import * as path from "node:path"
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { makeDirectory, removeTree, writeFileAtomic } from "../fileSystem/files.ts"
import { caseArbitrary, type ExploreCase } from "./exploreActions.ts"
import { type ExploreProperty, runCase, type RunOutcome, type RunSetup } from "./exploreRun.ts"
import { decodeFixture, type Fixture } from "../network/fixture.ts"
import { requestTraceLine } from "../testing/traceLines.ts"
import { caDirectory, loadCa } from "../serve/ca.ts"
import { FAILURE_FILE_BOUNDS, readFailureFile } from "../testing/failureFiles.ts"
import {
  ExploreFailed,
  type ExploreFile,
  ExploreNoAction,
  type ExploreResult,
  type ReplayResult
} from "./exploreResult.ts"
import { DEFAULT_QUIET_MS } from "../terminal/rest.ts"
import { addCovered, type ClockCovered, type ExploreClock } from "./exploreClock.ts"

export type { ExploreAction, ExploreCase } from "./exploreActions.ts"
export {
  ExploreFailed,
  type ExploreFile,
  ExploreNoAction,
  type ExploreResult,
  type ReplayResult
} from "./exploreResult.ts"
export type { ExploreObservation, ExploreProperty, ExploreStep, NoAction } from "./exploreRun.ts"

/** Options of `explore`. */
export interface ExploreOptions {
  /** The fixture: a path (relative to the current directory) or its JSON. Its `prompts` are typed among the generated text. */
  readonly fixture?: string | Readonly<Record<string, unknown>> | undefined
  /** How many runs (default 20). */
  readonly runs?: number | undefined
  /** The seed of the runs and of their networks (default: the fixture's, else 0). */
  readonly seed?: number | string | undefined
  /** At most this many actions per run (default 10). */
  readonly actions?: number | undefined
  /** At least this many actions per run (default 1); a shrunk run may have fewer. */
  readonly minActions?: number | undefined
  /** Where the failing run's file goes (default `.simnet/explore` under the current directory). */
  readonly out?: string | undefined
  readonly cols?: number | undefined
  readonly rows?: number | undefined
  /**
   * A floor: how long the screen must be still once the app is at rest (detected: simnet idle,
   * the app's processes asleep; default 0 on Linux, 150 ms elsewhere, where rest is the screen alone).
   */
  readonly quietMs?: number | undefined
  /** The longest one step may take to come to rest (default 10 s); a step that does not goes on. */
  readonly timeoutMs?: number | undefined
  /** Text the app shows once it takes input, waited for before the first action (default: anything on screen). */
  readonly ready?: string | undefined
  /** Queue generated model scripts before the fixture's answers (default true). */
  readonly scripts?: boolean | undefined
  /** The highest seeded chaos rate drawn (default 0: no chaos). */
  readonly chaosRate?: number | undefined
  /** Properties checked after each step, beside "the app does not crash". */
  readonly property?: ExploreProperty | ReadonlyArray<ExploreProperty> | undefined
  /** Variables added to the command's environment (never written to the file). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** The working directory when the fixture has no `files` (default: the current one); with `files`, each run gets a fresh one seeded from them. */
  readonly cwd?: string | undefined
  /** Where the proxy's CA lives (default as `simnet run`). */
  readonly caDir?: string | undefined
  /**
   * The clock the app's Node processes and the network run on: `"real"` (default) or `"virtual"`,
   * simnet's time, which jumps to the next timer when the app is at rest (`exploreClock.ts`).
   */
  readonly clock?: ExploreClock | undefined
}

const DEFAULTS = { runs: 20, actions: 10, cols: 100, rows: 30, quietMs: DEFAULT_QUIET_MS, timeoutMs: 10_000 }

/** A seed as fast-check takes it: a number as is (to 32 bits), a string by its FNV-1a hash. */
const fcSeed = (seed: number | string): number => {
  if (typeof seed === "number") return seed | 0
  let hash = 0x811c9dc5
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193)
  return hash | 0
}

/** The fixture's JSON: read from a path, or as given. */
const fixtureJson = (fixture: ExploreOptions["fixture"]): unknown => {
  if (fixture === undefined) return {}
  if (typeof fixture !== "string") return fixture
  const file = path.resolve(process.cwd(), fixture)
  try {
    return JSON.parse(readFileSync(file, "utf8")) as unknown
  } catch (error) {
    throw new Error(
      `simnet explore: cannot read the fixture ${file}: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}

/** The Clock times a network's state holds (a request's, its answer's, a model call's), zeroed so that the same seed writes the same file. */
const TIMES = new Set(["time", "answeredMs", "at"])
const stable = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v: unknown) => (TIMES.has(key) && typeof v === "number" ? 0 : v)) ?? "null")

/** A fixture's JSON decoded, once for every run; an `Error` naming the bad field. */
const decoded = (json: unknown): Promise<Fixture> =>
  Effect.runPromise(
    Effect.mapError(
      decodeFixture(json),
      (error) =>
        new Error(
          `simnet explore: the fixture: ${"path" in error && typeof error.path === "string" ? `${error.path}: ` : ""}${error.message}`
        )
    )
  )

/** `value` when it is a whole number from `min` to `max` (a failure file's bounds: what explore writes, replay reads back); else an Error naming the option. */
const within = (name: string, value: number, min: number, max: number): number => {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`simnet explore: ${name} must be a whole number from ${min} to ${max}, got ${String(value)}`)
  return value
}

/** The setup of every run, from the command and the options. */
const setupOf = (
  command: ReadonlyArray<string>,
  options: ExploreOptions,
  fixture: Fixture,
  seed: number | string
): RunSetup => {
  const [program, ...args] = command
  if (program === undefined || program === "")
    throw new Error("simnet explore: no command to explore (give it after --)")
  const bounds = FAILURE_FILE_BOUNDS
  const properties =
    options.property === undefined
      ? []
      : Array.isArray(options.property)
        ? (options.property as ReadonlyArray<ExploreProperty>)
        : [options.property as ExploreProperty]
  return {
    command: program,
    args,
    fixture,
    seed,
    cols: within("cols", options.cols ?? DEFAULTS.cols, 1, bounds.side),
    rows: within("rows", options.rows ?? DEFAULTS.rows, 1, bounds.side),
    quietMs: within("quietMs", options.quietMs ?? DEFAULTS.quietMs, 0, bounds.quietMs),
    timeoutMs: within("timeoutMs", options.timeoutMs ?? DEFAULTS.timeoutMs, 1, bounds.timeoutMs),
    ready: options.ready,
    env: options.env,
    cwd: options.cwd,
    authority: loadCa(caDirectory(options.caDir)),
    properties,
    clock: options.clock
  }
}

/** Writes the file of a failing run (atomically); returns its path. */
const writeFile = (
  setup: RunSetup,
  fixture: unknown,
  command: ReadonlyArray<string>,
  input: ExploreCase,
  outcome: RunOutcome,
  out: string | undefined
): string => {
  const failure = outcome.failure!
  const file: ExploreFile = {
    simnet: "explore-failure/v1",
    command,
    seed: setup.seed,
    cols: setup.cols,
    rows: setup.rows,
    quietMs: setup.quietMs,
    timeoutMs: setup.timeoutMs,
    ...(setup.ready === undefined ? {} : { ready: setup.ready }),
    ...(setup.clock === "virtual" ? { clock: "virtual" as const } : {}),
    fixture,
    case: input,
    failure: { step: failure.step, action: outcome.steps[failure.step]?.action ?? "start", reason: failure.reason },
    steps: outcome.steps,
    trace: [{ type: "start", seed: setup.seed, state: stable(outcome.start) }, ...outcome.log.map(requestTraceLine)],
    end: stable(outcome.end)
  }
  const dir = path.resolve(process.cwd(), out ?? path.join(".simnet", "explore"))
  makeDirectory(dir)
  const target = path.join(
    dir,
    `explore-${String(setup.seed)
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .slice(0, 60)}.json`
  )
  writeFileAtomic(target, `${JSON.stringify(file, null, 2)}\n`)
  return target
}

/**
 * The shrinking fast-check cannot do, after it: its array shrinking keeps an array's tail, but a
 * run stops at its failing step, so the actions after it are dropped; text typed and then Enter
 * pressed become one line submitted; and each action left is dropped in turn when the run still
 * fails without it. Every candidate is run; it is kept only when it fails too. So a failure that
 * needs one line entered shrinks to the one action that enters it. The working directory of the
 * candidate kept last is kept; the ones it replaced are removed.
 */
const minimise = async (
  setup: RunSetup,
  input: ExploreCase
): Promise<{ readonly input: ExploreCase; readonly outcome: RunOutcome | undefined }> => {
  let outcome = await run(setup, input, true)
  if (outcome.failure === undefined) return { input, outcome: undefined }
  const upTo = (c: ExploreCase, o: RunOutcome) => ({ ...c, actions: c.actions.slice(0, Math.max(o.failure!.step, 0)) })
  let current = upTo(input, outcome)
  const attempt = async (candidate: ExploreCase) => {
    const tried = await run(setup, candidate, true)
    if (tried.failure === undefined) return false
    if (outcome.workspace !== undefined) removeTree(outcome.workspace)
    current = upTo(candidate, tried)
    outcome = tried
    return true
  }
  for (let i = 0; i < current.actions.length - 1; i++) {
    const [first, second] = [current.actions[i]!, current.actions[i + 1]!]
    if (first.type !== "type" || second.type !== "press" || second.key !== "enter") continue
    await attempt({
      ...current,
      actions: [...current.actions.slice(0, i), { type: "submit", text: first.text }, ...current.actions.slice(i + 2)]
    })
  }
  for (let i = current.actions.length - 1; i >= 0 && current.actions.length > 1; i--) {
    if (i < current.actions.length) await attempt({ ...current, actions: current.actions.filter((_, j) => j !== i) })
  }
  return { input: current, outcome }
}

/** Runs one case as a Promise; with `keep`, a failing run's working directory is kept. */
const run = (setup: RunSetup, input: ExploreCase, keep = false): Promise<RunOutcome> =>
  Effect.runPromise(runCase(setup, input, keep))

/**
 * Explores `command` (see the module's comment). Resolves with the runs done when every run held;
 * when one failed, writes its file and rejects with `ExploreFailed` (its `file`, and the shrunk
 * run in `result.failure`). `exploreResult` is the same without the rejection.
 */
export const explore = async (
  command: string | ReadonlyArray<string>,
  options: ExploreOptions = {}
): Promise<ExploreResult> => {
  const result = await exploreResult(command, options)
  if (result.failure !== undefined) throw new ExploreFailed({ ...result, failure: result.failure })
  return result
}

/** As `explore`, resolving with the failure (and its file) rather than rejecting. */
export const exploreResult = async (
  command: string | ReadonlyArray<string>,
  options: ExploreOptions = {}
): Promise<ExploreResult> => {
  const argv = typeof command === "string" ? [command] : [...command]
  const json = fixtureJson(options.fixture)
  const fixture = await decoded(json)
  const seed = options.seed ?? fixture.seed ?? 0
  const setup = setupOf(argv, options, fixture, seed)
  const runs = options.runs ?? DEFAULTS.runs
  const arbitrary = caseArbitrary({
    actions: within("actions", options.actions ?? DEFAULTS.actions, 1, FAILURE_FILE_BOUNDS.actions),
    minActions: options.minActions,
    prompts: fixture.prompts,
    scripts: options.scripts,
    chaosRate: options.chaosRate
  })
  let started: Error | undefined
  let done = 0
  let clock: ClockCovered | undefined
  let shrinking = false
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (input) => {
      // Once the exploration is over (below), fast-check's shrinking of it runs nothing more.
      if (started !== undefined) throw started
      const outcome = await run(setup, input).catch((error: unknown) => {
        // A run that cannot start (the command is not found) ends the exploration: no case could pass.
        started ??= error instanceof Error ? error : new Error(String(error))
        throw started
      })
      // A run that took no action explored nothing: the exploration ends, saying why. While a
      // failure is shrunk, such a candidate merely does not fail.
      if (outcome.noAction !== undefined) {
        if (shrinking) return
        started = new ExploreNoAction(outcome.noAction)
        throw started
      }
      if (!shrinking) {
        done += outcome.steps.length - 1
        clock = addCovered(clock, outcome.clock)
      }
      if (outcome.failure !== undefined) {
        shrinking = true
        throw new Error(outcome.failure.reason)
      }
    }),
    { numRuns: runs, seed: fcSeed(seed) }
  )
  if (started !== undefined) throw started
  if (!details.failed) return { runs: details.numRuns, actions: done, seed, ...(clock === undefined ? {} : { clock }) }
  const shrunk = await minimise(setup, details.counterexample![0])
  const input = shrunk.input
  const again = shrunk.outcome ?? (await run(setup, input, true))
  if (again.failure === undefined) {
    throw new Error(
      `simnet explore: a run failed (${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}) but passed when run again: the app is not deterministic under the same actions (seed ${String(seed)})`
    )
  }
  const file = writeFile(setup, json, argv, input, again, options.out)
  return {
    runs: details.numRuns,
    actions: done,
    seed,
    ...(clock === undefined ? {} : { clock }),
    failure: {
      file,
      step: again.failure.step,
      action: again.steps[again.failure.step]?.action ?? "start",
      reason: again.failure.reason,
      actions: input.actions,
      shrinks: details.numShrinks,
      ...(again.workspace === undefined ? {} : { workspace: again.workspace })
    }
  }
}

/** Options of `replayExplore`. */
export interface ReplayOptions extends Pick<ExploreOptions, "env" | "cwd" | "caDir" | "property"> {
  /** The command to run (default: the file's own). */
  readonly command?: ReadonlyArray<string> | undefined
  /** Ends the replay: its run is interrupted, its terminal's program and everything it started reaped. */
  readonly signal?: AbortSignal | undefined
  /**
   * Told the command before it runs, and whether it is the file's own: a file names a command of
   * its own, and whoever replays it should see what it runs (`simnet explore --replay` prints it).
   */
  readonly running?: ((command: ReadonlyArray<string>, fromFile: boolean) => void) | undefined
}

/**
 * Runs a failing run's file again: its fixture, seed, terminal size and case, with `command` (by
 * default the file's). The file is decoded and bounded first (`failureFiles.ts`): one that is not
 * what `explore` wrote fails with `BadFailureFile`, naming the bad value. Resolves with whether it
 * failed again; rejects with `ExploreNoAction` when the run took no action.
 */
export const replayExplore = async (file: string, options: ReplayOptions = {}): Promise<ReplayResult> => {
  const saved = readFailureFile(path.resolve(process.cwd(), file), ["explore-failure/v1"]) as ExploreFile
  const own = options.command === undefined || options.command.length === 0
  const command = own ? saved.command : options.command!
  const setup = setupOf(
    command,
    {
      ...options,
      cols: saved.cols,
      rows: saved.rows,
      quietMs: saved.quietMs,
      timeoutMs: saved.timeoutMs,
      ready: saved.ready,
      clock: saved.clock
    },
    await decoded(saved.fixture),
    saved.seed
  )
  options.running?.(command, own)
  const outcome = await Effect.runPromise(runCase(setup, saved.case, true), { signal: options.signal })
  if (outcome.noAction !== undefined) throw new ExploreNoAction(outcome.noAction)
  return {
    reproduced: outcome.failure !== undefined,
    failure: outcome.failure,
    expected: saved.failure,
    steps: outcome.steps,
    ...(outcome.workspace === undefined ? {} : { workspace: outcome.workspace })
  }
}
