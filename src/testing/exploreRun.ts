/**
 * One run of `simnet explore`: a fresh network from the fixture (with the case's scripts queued
 * first and its chaos), served on loopback as `simnet run` serves it, the command in a terminal
 * pointed at it; then each action, the whole app at rest after it (no request in flight, no model
 * call pending, no delay armed, the screen still), and the properties checked. Every step keeps
 * the screen after it and the requests it caused. Everything is released with the run's scope:
 * the child is killed, the server closed.
 */
import { Context, Effect, Layer, Schedule, type Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import type { RequestRecord } from "../core/requestRecord.ts"
import { uiCall } from "../control/ui.ts"
import type { Fixture } from "../network/fixture.ts"
import { make as makeNetwork, type SimulationNetworkApi } from "../network/network.ts"
import type { NetworkState } from "../network/snapshot.ts"
import type { CertificateAuthority } from "../serve/ca.ts"
import { runEnv } from "../serve/child.ts"
import { controlRuntime } from "../serve/run.ts"
import { serveLayer } from "../serve/serve.ts"
import { spawnTerminal, type Terminal, type TerminalExit, type TerminalScreen } from "../terminal/terminal.ts"
import { actionLabel, type ExploreAction, type ExploreCase } from "./exploreActions.ts"

/** What a property sees after each step. */
export interface ExploreObservation {
  /** The step: 0 for the start (before any action), then 1, 2, … */
  readonly step: number
  readonly action: ExploreAction | undefined
  readonly screen: TerminalScreen
  /** How the program ended, if it has. */
  readonly exit: TerminalExit | undefined
  /** The requests this step caused, and every request of the run so far. */
  readonly requests: ReadonlyArray<RequestRecord>
  readonly log: ReadonlyArray<RequestRecord>
}

/** A property of the app after a step: true or nothing when it holds; false or a message when not (a throw is its message). */
export type ExploreProperty = (observation: ExploreObservation) => boolean | string | void | Promise<boolean | string | void>

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

/** What one run came to. */
export interface RunOutcome {
  readonly steps: ReadonlyArray<ExploreStep>
  /** The step at which a property first failed, and why; undefined when every step held. */
  readonly failure: { readonly step: number; readonly reason: string } | undefined
  readonly log: ReadonlyArray<RequestRecord>
  readonly start: NetworkState
  readonly end: NetworkState
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
  /** How long the screen must be still, after the network is, for the app to be at rest. */
  readonly quietMs: number
  /** The longest one step may take to come to rest. */
  readonly timeoutMs: number
  /** Text the app shows when it is ready for input: waited for before the first action (else: anything on screen). */
  readonly ready?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** The proxy's CA, loaded once for every run (each host's certificate made once). */
  readonly authority: CertificateAuthority
  readonly properties: ReadonlyArray<ExploreProperty>
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
  if (exit !== undefined && (exit.code !== 0 || exit.signal !== undefined)) {
    return `the program exited with ${exit.signal === undefined ? `code ${exit.code}` : `signal ${exit.signal}`}`
  }
  const line = screen.lines.find((text) => UNCAUGHT.some((pattern) => pattern.test(text)))
  return line === undefined ? undefined : `uncaught-error output on its terminal: ${line.trim().slice(0, 200)}`
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Runs the user's properties in turn: the first failure's message. */
const checkProperties = (properties: ReadonlyArray<ExploreProperty>, observation: ExploreObservation): Effect.Effect<string | undefined> =>
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
  const done = (effect: Effect.Effect<void, unknown>) => Effect.match(effect, { onFailure: () => false, onSuccess: () => true })
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

/** Runs one case (see the module's comment). */
export const runCase = (setup: RunSetup, input: ExploreCase): Effect.Effect<RunOutcome, Error> =>
  Effect.scoped(
    Effect.gen(function*() {
      const network: SimulationNetworkApi = yield* networkOf(setup, input)
      const start = yield* network.state
      let terminal: Terminal | undefined
      const control = yield* controlRuntime(network, { quiet: true, terminal: () => terminal })
      const served = yield* Layer.build(serveLayer(network, 0, control.routes, { watch: control.watch, ca: setup.authority }))
      const { env } = runEnv(HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address), setup.authority.certFile)
      const shell = yield* spawnTerminal(setup.command, setup.args, { cols: setup.cols, rows: setup.rows, env: { ...env, ...setup.env }, cwd: setup.cwd })
      terminal = shell
      return yield* steps(setup, input, network, shell, start)
    }).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(reasonOf(error)))))
  )

const steps = (setup: RunSetup, input: ExploreCase, network: SimulationNetworkApi, terminal: Terminal, start: NetworkState): Effect.Effect<RunOutcome, never, Scope.Scope> =>
  Effect.gen(function*() {
    const kept: Array<ExploreStep> = []
    const log: Array<RequestRecord> = []
    let failure: RunOutcome["failure"]
    const settle = Effect.match(uiCall(terminal, "ui.wait", { quiescent: true, quietMs: setup.quietMs, timeoutMs: setup.timeoutMs }, network.quiescent), {
      onFailure: () => ({ screen: terminal.screen(), settled: false }),
      onSuccess: (screen) => ({ screen, settled: true })
    })
    // Ready for input: the ready text on screen, or anything at all (a TUI that boots slowly shows
    // a blank, still screen first); a program that exits before it is seen by the first check.
    const blank = () => terminal.screen().lines.every((line) => line === "")
    yield* Effect.ignore(terminal.wait({ text: setup.ready, timeoutMs: setup.timeoutMs }).pipe(
      Effect.repeat({ until: () => setup.ready !== undefined || !blank() || terminal.exit() !== undefined, schedule: Schedule.spaced(20) }),
      Effect.timeout(setup.timeoutMs)
    ))
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
      const reason = crashOf(exit, screen) ?? (yield* checkProperties(setup.properties, { step: index, action, screen, exit, requests, log }))
      if (reason !== undefined) failure = { step: index, reason }
      // A program that ended well ends the run: nothing more can be done to it.
      else if (exit !== undefined) break
    }
    return { steps: kept, failure, log: yield* network.log, start, end: yield* network.state }
  })
