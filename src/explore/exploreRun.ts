/**
 * One run of `simnet explore`: a fresh network from the fixture (with the case's scripts queued
 * first and its chaos), served on loopback as `simnet run` serves it, the command in a terminal
 * pointed at it; then each action, the whole app at rest after it (no request in flight, no model
 * call pending, no delay armed, the screen still), and the properties checked. Every step keeps
 * the screen after it and the requests it caused. A fixture with `files` gives each run a fresh
 * working directory seeded from them. A run that could take no action (the program exited
 * first, or never showed the ready text) says why. Everything is released with the run's scope:
 * the child is killed, the server closed, the working directory removed (unless kept: the
 * directory of a failing run asked to keep it).
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Context, Effect, Layer, Schedule, type Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import type { RequestRecord } from "../registry/requestRecord.ts"
import { removeTree } from "../fileSystem/files.ts"
import { layOut } from "../fileSystem/workspace.ts"
import { uiCall } from "../control/ui.ts"
import type { Fixture } from "../network/fixture.ts"
import { make as makeNetwork, type SimulationNetworkApi } from "../network/network.ts"
import type { NetworkState } from "../network/snapshot.ts"
import type { CertificateAuthority } from "../serve/ca.ts"
import { RUN_REFUSAL_STATUS, runEnv } from "../serve/child.ts"
import { controlRuntime } from "../control/runtime.ts"
import { serveLayer } from "../serve/serve.ts"
import { spawnTerminal, type Terminal, type TerminalExit, type TerminalScreen } from "../terminal/terminal.ts"
import { describeExit, exitReport, screenText, shows as screenShows } from "../terminal/screen.ts"
import { actionLabel, type ExploreAction, type ExploreCase } from "./exploreActions.ts"
import { type ClockCovered, covered, type ExploreClock, onClock, runClock } from "./exploreClock.ts"

/** What a property sees after each step. */
export interface ExploreObservation {
  /** The step: 0 for the start (before any action), then 1, 2, … */
  readonly step: number
  readonly action: ExploreAction | undefined
  readonly screen: TerminalScreen
  /** Whether `text` is on the screen, read as a person reads it (`"> "` matches a prompt at the end of its line), as `ui.wait` and `ready` match. */
  readonly shows: (text: string) => boolean
  /** How the program ended, if it has. */
  readonly exit: TerminalExit | undefined
  /** The requests this step caused, and every request of the run so far. */
  readonly requests: ReadonlyArray<RequestRecord>
  readonly log: ReadonlyArray<RequestRecord>
}

// biome-ignore lint/suspicious/noConfusingVoidType: `void` lets a property be a block of `expect` calls that returns nothing.
type PropertyAnswer = boolean | string | void

/** A property of the app after a step: true or nothing when it holds; false or a message when not (a throw is its message). */
export type ExploreProperty = (observation: ExploreObservation) => PropertyAnswer | Promise<PropertyAnswer>

/** A step as the failure file keeps it. */
export interface ExploreStep {
  readonly step: number
  readonly action: string
  readonly screen: TerminalScreen
  /** The `seq` of each request the step caused. */
  readonly requests: ReadonlyArray<number>
  /** False when the app did not come to rest within the wait (the step went on anyway). */
  readonly settled: boolean
  readonly exit?: TerminalExit | undefined
}

/** Why a run took no action: its program exited before the first one, or never showed the ready text. */
export interface NoAction {
  readonly reason: "exited" | "not-ready"
  /** What is said of it: the exit and the last screen, or the ready text and the screen shown. */
  readonly message: string
}

/** What one run came to. */
export interface RunOutcome {
  readonly steps: ReadonlyArray<ExploreStep>
  /** The step at which a property first failed, and why; undefined when every step held. */
  readonly failure: { readonly step: number; readonly reason: string } | undefined
  /** Why the run took no action, when it took none (its one step is the start). */
  readonly noAction?: NoAction | undefined
  /** The run's working directory, kept because the run failed and asked to keep it. */
  readonly workspace?: string | undefined
  readonly log: ReadonlyArray<RequestRecord>
  readonly start: NetworkState
  readonly end: NetworkState
  /** On a virtual clock: the time the run covered, and whether a process joined it. */
  readonly clock?: ClockCovered | undefined
}

/** What every run of one exploration shares. */
export interface RunSetup {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The fixture, decoded once for every run. */
  readonly fixture: Fixture
  readonly seed: number | string
  readonly cols: number
  readonly rows: number
  /** The floor of rest: how long the screen must be still once the app is at rest (`terminal/rest.ts`). */
  readonly quietMs: number
  /** The longest one step may take to come to rest. */
  readonly timeoutMs: number
  /** Text the app shows when it is ready for input: waited for before the first action (else: anything on screen). */
  readonly ready?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  /** The working directory of a fixture without `files` (default: the current one). */
  readonly cwd?: string | undefined
  /** The proxy's CA, loaded once for every run (each host's certificate made once). */
  readonly authority: CertificateAuthority
  readonly properties: ReadonlyArray<ExploreProperty>
  /** The clock the app and the network run on (`exploreClock.ts`; default real). */
  readonly clock?: ExploreClock | undefined
}

/**
 * Output that says a program died of an error it did not catch: Node's and the browser's
 * `Uncaught`, an unhandled rejection, a JavaScript stack frame, Python's traceback, Go's and
 * Rust's panics, a fatal signal.
 */
export const UNCAUGHT: ReadonlyArray<RegExp> = [
  /\bUncaught\b/,
  /\bUnhandled ?(promise ?)?rejection/i,
  /^\s*at (?:async )?(?:\S+ \()?(?:file:\/\/|node:|\/)\S*:\d+:\d+\)?$/,
  /^Traceback \(most recent call last\):/,
  /^panic: /,
  /\bpanicked at\b/,
  /^(Segmentation fault|Aborted|Bus error)\b/
]

/** The first property of "the app does not crash" that fails: a bad exit, or uncaught-error output on screen. */
export const crashOf = (exit: TerminalExit | undefined, screen: TerminalScreen): string | undefined => {
  if (exit !== undefined && (exit.code !== 0 || exit.signal !== undefined))
    return `the program exited with ${describeExit(exit)}`
  const line = screen.lines.find((text) => UNCAUGHT.some((pattern) => pattern.test(text)))
  return line === undefined ? undefined : `uncaught-error output on its terminal: ${line.trim().slice(0, 200)}`
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Runs the user's properties in turn: the first failure's message. */
const checkProperties = (
  properties: ReadonlyArray<ExploreProperty>,
  observation: ExploreObservation
): Effect.Effect<string | undefined> =>
  Effect.promise(async () => {
    for (const property of properties) {
      try {
        const held = await property(observation)
        if (held === false) return "a property does not hold"
        if (typeof held === "string") return held
      } catch (error) {
        return reasonOf(error)
      }
    }
    return undefined
  })

/** Does `action` at `terminal`; false when the program has already exited. */
const perform = (terminal: Terminal, action: ExploreAction): Effect.Effect<boolean> => {
  const done = (effect: Effect.Effect<void, unknown>) =>
    Effect.match(effect, { onFailure: () => false, onSuccess: () => true })
  switch (action.type) {
    case "type":
      return done(terminal.type(action.text))
    case "submit":
      return done(Effect.andThen(terminal.type(action.text), terminal.press("enter")))
    case "press":
      return done(terminal.press(action.key))
    case "resize":
      return done(terminal.resize(action.cols, action.rows))
  }
}

/** The network of a run: the fixture's, its scripts after the case's, the case's chaos over the fixture's. */
const networkOf = (setup: RunSetup, input: ExploreCase) =>
  makeNetwork({
    seed: setup.seed,
    routes: setup.fixture.routes,
    llm: [...input.scripts, ...setup.fixture.llm],
    llmRules: setup.fixture.llmRules,
    chaos: input.chaos ?? setup.fixture.chaos
  })

/**
 * A run's working directory when the fixture has `files`: a fresh one under the system's
 * temporary directory, the files laid out there (never through a link), removed when the scope
 * closes unless `kept()` says by then to keep it.
 */
const workspaceOf = (
  files: RunSetup["fixture"]["files"],
  kept: () => boolean
): Effect.Effect<string | undefined, Error, Scope.Scope> =>
  Object.keys(files).length === 0
    ? Effect.succeed(undefined)
    : Effect.acquireRelease(
        Effect.try({
          try: () => {
            const dir = mkdtempSync(path.join(tmpdir(), "simnet-explore-run-"))
            try {
              layOut(dir, files)
            } catch (error) {
              removeTree(dir)
              throw error
            }
            return dir
          },
          catch: (error) => new Error(`simnet explore: cannot lay out the fixture's files: ${reasonOf(error)}`)
        }),
        (dir) => Effect.sync(() => void (kept() || removeTree(dir)))
      )

/**
 * Runs one case (see the module's comment). With `keep`, a failing run's working directory (a
 * fixture with `files`) is kept and named in `workspace`.
 */
export const runCase = (setup: RunSetup, input: ExploreCase, keep = false): Effect.Effect<RunOutcome, Error> =>
  Effect.scoped(
    Effect.gen(function* () {
      let failed = false
      const dir = yield* workspaceOf(setup.fixture.files, () => keep && failed)
      const clock = yield* runClock(setup.clock)
      const network: SimulationNetworkApi = yield* onClock(networkOf(setup, input), clock)
      const start = yield* network.state
      let terminal: Terminal | undefined
      const control = yield* controlRuntime(network, { quiet: true, terminal: () => terminal })
      // Refused as under simnet run: the same status, the same body.
      const served = yield* Layer.build(
        serveLayer(network, 0, control.routes, {
          watch: control.watch,
          ca: setup.authority,
          refusalStatus: RUN_REFUSAL_STATUS
        })
      )
      const { env } = runEnv(
        HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address),
        setup.authority.certFile,
        { nodeOptions: setup.env?.["NODE_OPTIONS"] }
      )
      // A command named by a path is found from the caller's directory, wherever the run starts.
      const command = dir !== undefined && setup.command.includes("/") ? path.resolve(setup.command) : setup.command
      const shell = yield* spawnTerminal(command, setup.args, {
        cols: setup.cols,
        rows: setup.rows,
        env: { ...env, ...setup.env, NODE_OPTIONS: env["NODE_OPTIONS"]!, ...clock?.env(env["NODE_OPTIONS"]) },
        cwd: dir ?? setup.cwd,
        clock
      })
      terminal = shell
      const outcome = { ...(yield* steps(setup, input, network, shell, start)), clock: covered(clock) }
      failed = outcome.failure !== undefined
      return keep && failed && dir !== undefined ? { ...outcome, workspace: dir } : outcome
    }).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(reasonOf(error)))))
  )

/** Why a run can take no action, once it has waited for the app to be ready: its program exited, or the ready text never came. */
const noActionOf = (setup: RunSetup, terminal: Terminal): NoAction | undefined => {
  const ended = terminal.exit()
  const lines = terminal.screen().lines
  if (ended !== undefined) return { reason: "exited", message: `before its first action, ${exitReport(ended, lines)}` }
  if (setup.ready === undefined || screenShows(lines, setup.ready)) return undefined
  return {
    reason: "not-ready",
    message: `the ready text (--ready) ${JSON.stringify(setup.ready)} did not appear within ${setup.timeoutMs} ms; the screen shows:\n${screenText(lines)}`
  }
}

const steps = (
  setup: RunSetup,
  input: ExploreCase,
  network: SimulationNetworkApi,
  terminal: Terminal,
  start: NetworkState
): Effect.Effect<RunOutcome, never, Scope.Scope> =>
  Effect.gen(function* () {
    const kept: Array<ExploreStep> = []
    const log: Array<RequestRecord> = []
    let failure: RunOutcome["failure"]
    // A program that has exited is at rest: nothing more will come.
    const settle = Effect.match(
      uiCall(
        terminal,
        "ui.wait",
        { quiescent: true, quietMs: setup.quietMs, timeoutMs: setup.timeoutMs },
        network.quiescent
      ),
      {
        onFailure: () => ({ screen: terminal.screen(), settled: terminal.exit() !== undefined }),
        onSuccess: (screen) => ({ screen, settled: true })
      }
    )
    // Ready for input: the ready text on screen, or anything at all (a TUI that boots slowly shows
    // a blank, still screen first); a program that exits before it is seen by the first check.
    // Without a ready text: the first output, then rest (a program that prints and exits is seen exited).
    const blank = () => terminal.screen().lines.every((line) => line === "")
    const shown =
      setup.ready === undefined
        ? Effect.andThen(
            Effect.repeat(Effect.void, {
              until: () => !blank() || terminal.exit() !== undefined,
              schedule: Schedule.spaced(5)
            }),
            terminal.rest({ quietMs: setup.quietMs, timeoutMs: setup.timeoutMs, quiescent: network.quiescent })
          )
        : terminal.wait({ text: setup.ready, timeoutMs: setup.timeoutMs })
    yield* Effect.ignore(Effect.timeout(shown, setup.timeoutMs))
    const noAction = noActionOf(setup, terminal)
    if (noAction !== undefined) {
      const exit = terminal.exit()
      const step: ExploreStep = {
        step: 0,
        action: "start",
        screen: terminal.screen(),
        requests: (yield* network.log).map((record) => record.seq),
        settled: exit !== undefined,
        ...(exit === undefined ? {} : { exit })
      }
      return { steps: [step], failure: undefined, noAction, log: yield* network.log, start, end: yield* network.state }
    }
    for (let index = 0; index <= input.actions.length && failure === undefined; index++) {
      const action = index === 0 ? undefined : input.actions[index - 1]!
      if (action !== undefined && !(yield* perform(terminal, action))) break
      const { screen, settled } = yield* settle
      const requests = yield* network.logSince(log.at(-1)?.seq ?? 0)
      log.push(...requests)
      const exit = terminal.exit()
      kept.push({
        step: index,
        action: action === undefined ? "start" : actionLabel(action),
        screen,
        requests: requests.map((record) => record.seq),
        settled,
        ...(exit === undefined ? {} : { exit })
      })
      const reason =
        crashOf(exit, screen) ??
        (yield* checkProperties(setup.properties, {
          step: index,
          action,
          screen,
          shows: (text) => screenShows(screen.lines, text),
          exit,
          requests,
          log
        }))
      if (reason !== undefined) failure = { step: index, reason }
      // A program that ended well ends the run: nothing more can be done to it.
      else if (exit !== undefined) break
    }
    return { steps: kept, failure, log: yield* network.log, start, end: yield* network.state }
  })
