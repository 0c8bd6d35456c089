/**
 * `simnet explore [options] -- COMMAND ARGS…`: the command in a terminal under seeded generated
 * actions, checked after each; a failing run shrunk to a file (`--replay FILE` runs one again).
 * Exploration, with fast-check and the terminal, loads with this command only.
 */
import * as path from "node:path"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { printable } from "../registry/util.ts"
import { caDirFlag, DEFAULT_FIXTURE, parseSeed, terminalFlags, UsageError } from "./flags.ts"

/** `simnet explore`. */
export const explore = Command.make(
  "explore",
  {
    fixture: Flag.String("fixture").pipe(
      Flag.optional,
      Flag.withMetavar("file"),
      Flag.withDescription(
        "fixture file (default: simnet's own fixtures/default.json); its prompts are typed among the generated text, and its files are each run's working directory"
      )
    ),
    runs: Flag.Int("runs").pipe(Flag.withDefault(20), Flag.withDescription("how many runs (default: 20)")),
    seed: Flag.String("seed").pipe(
      Flag.optional,
      Flag.withDescription("the seed of the runs (default: the fixture's, else 0); the same seed writes the same file")
    ),
    actions: Flag.Int("actions").pipe(
      Flag.withDefault(10),
      Flag.withDescription("at most this many actions per run (default: 10)")
    ),
    minActions: Flag.Int("min-actions").pipe(
      Flag.withDefault(1),
      Flag.withDescription("at least this many actions per run (default: 1)")
    ),
    out: Flag.String("out").pipe(
      Flag.withDefault(path.join(".simnet", "explore")),
      Flag.withMetavar("dir"),
      Flag.withDescription("where the failing run's file goes (default: .simnet/explore)")
    ),
    replay: Flag.String("replay").pipe(
      Flag.optional,
      Flag.withMetavar("file"),
      Flag.withDescription(
        "run a failing run's file again (its fixture, seed, size and actions); exit 1 when it fails again"
      )
    ),
    ...terminalFlags,
    quietMs: Flag.Int("quiet-ms").pipe(
      Flag.optional,
      Flag.withDescription(
        "a floor: after each action, the screen still at least this long once the app is at rest (default: 0 on Linux, where rest is read from the app's processes; 150 elsewhere)"
      )
    ),
    timeoutMs: Flag.Int("timeout-ms").pipe(
      Flag.withDefault(10_000),
      Flag.withDescription(
        "the longest a step may take to come to rest, and the app to show --ready's text (default: 10000)"
      )
    ),
    ready: Flag.String("ready").pipe(
      Flag.optional,
      Flag.withMetavar("text"),
      Flag.withDescription(
        "text the app shows once it takes input, waited for before the first action (default: anything on screen)"
      )
    ),
    chaosRate: Flag.String("chaos-rate").pipe(
      Flag.withDefault("0"),
      Flag.withMetavar("rate"),
      Flag.withDescription("the highest seeded chaos rate a run draws, 0 to 1 (default 0: none)")
    ),
    clock: Flag.Literals("clock", ["real", "virtual"]).pipe(
      Flag.withDefault("real" as const),
      Flag.withDescription(
        "the clock the app's Node processes and the network run on: virtual jumps to the next timer whenever the app is at rest (default: real)"
      )
    ),
    noScripts: Flag.Boolean("no-scripts").pipe(
      Flag.withDefault(false),
      Flag.withDescription("queue no generated model scripts: the fixture answers every model call")
    ),
    caDir: caDirFlag,
    command: Argument.String("command").pipe(
      Argument.variadic,
      Argument.withDescription("the command and its arguments, after --")
    )
  },
  (config) =>
    Effect.gen(function* () {
      const command = config.command as ReadonlyArray<string>
      const caDir = Option.getOrUndefined(config.caDir)
      // fast-check and the terminal load with this command only.
      const { exploreResult, replayExplore } = yield* Effect.promise(() => import("../explore/explore.ts"))
      const say = (line: string) => Console.log(printable(line))
      if (Option.isSome(config.replay)) {
        const file = config.replay.value
        // A file names a command of its own: said before it runs (stderr; give -- COMMAND to run another).
        const running = (ran: ReadonlyArray<string>, own: boolean) => {
          if (own)
            process.stderr.write(
              `${printable(`simnet explore --replay: runs the command ${file} names: ${ran.map((part) => (/^[\w./:=@%+,-]+$/.test(part) ? part : JSON.stringify(part))).join(" ")}`)}\n`
            )
        }
        // SIGINT or SIGTERM interrupts this fiber, which aborts the replay: its run's scope closes and reaps the program.
        const replayed = yield* Effect.tryPromise({
          try: (signal) => replayExplore(file, { command, caDir, signal, running }),
          catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message : String(cause) })
        })
        const expected = replayed.expected
        if (replayed.failure === undefined)
          return yield* say(
            `simnet explore --replay: every step held (the file's failure was at step ${expected.step}, ${expected.action}: ${expected.reason})`
          )
        yield* say(
          `simnet explore --replay: failed again at step ${replayed.failure.step} (${replayed.steps[replayed.failure.step]?.action ?? "start"}): ${replayed.failure.reason}${replayed.workspace === undefined ? "" : `; its files: ${replayed.workspace}`}`
        )
        process.exitCode = 1
        return
      }
      if (command.length === 0)
        return yield* new UsageError({
          message: "simnet explore needs a command: simnet explore [options] -- COMMAND ARGS..."
        })
      const chaosRate = Number(config.chaosRate)
      if (!(chaosRate >= 0 && chaosRate <= 1))
        return yield* new UsageError({
          message: `--chaos-rate must be a rate from 0 to 1, got ${JSON.stringify(config.chaosRate.slice(0, 40))}`
        })
      if (config.runs < 1 || config.actions < 1 || config.minActions > config.actions)
        return yield* new UsageError({
          message: "--runs and --actions must be at least 1, and --min-actions at most --actions"
        })
      if (!(config.timeoutMs >= 1 && config.timeoutMs <= 600_000))
        return yield* new UsageError({
          message: `--timeout-ms must be from 1 to 600000 milliseconds, got ${config.timeoutMs}`
        })
      const seed = Option.getOrUndefined(Option.map(config.seed, parseSeed))
      const result = yield* Effect.tryPromise({
        try: () =>
          exploreResult(command, {
            fixture: Option.getOrElse(config.fixture, () => DEFAULT_FIXTURE),
            runs: config.runs,
            seed,
            actions: config.actions,
            minActions: config.minActions,
            out: config.out,
            cols: config.cols,
            rows: config.rows,
            quietMs: Option.getOrUndefined(config.quietMs),
            timeoutMs: config.timeoutMs,
            ready: Option.getOrUndefined(config.ready),
            chaosRate,
            scripts: !config.noScripts,
            caDir,
            clock: config.clock
          }),
        catch: (cause) =>
          new UsageError({
            message: cause instanceof Error ? cause.message.replace(/^simnet explore: /, "") : String(cause)
          })
      })
      // On a virtual clock: the time covered, or that the app never joined it (it is not Node).
      const clock = result.clock
      if (clock !== undefined)
        yield* say(
          clock.joined === 0
            ? "simnet explore: --clock virtual: no Node process joined the clock; the app ran on real time (the network on virtual time)"
            : `simnet explore: virtual time covered: ${clock.virtualMs} ms (${clock.joined} of ${result.runs} runs on the clock)`
        )
      if (result.failure === undefined)
        return yield* say(
          `simnet explore: ${result.runs} runs, ${result.actions} actions, no failure (seed ${String(result.seed)})`
        )
      const failure = result.failure
      const again = `simnet explore --replay ${failure.file} -- ${command.join(" ")}`
      yield* say(`simnet explore: a run failed: ${failure.reason}`)
      yield* say(
        `  shrunk (${failure.shrinks} shrinks) to ${failure.actions.length} action${failure.actions.length === 1 ? "" : "s"}; it fails at step ${failure.step}: ${failure.action}`
      )
      yield* say(`  file:          ${failure.file}`)
      if (failure.workspace !== undefined)
        yield* say(`  workspace:     ${failure.workspace}   (the run's files as it left them)`)
      yield* say(`  open it:       simnet show ${failure.file}`)
      yield* say(`  run it again:  ${again}`)
      process.exitCode = 1
    })
).pipe(
  Command.withDescription(
    "run a command in a terminal under seeded generated actions, check after each that it does not crash, and shrink a failing run to a file; exit 1 for a failing run, 2 when a run took no action (the command exited first, or never showed --ready's text)"
  )
)
