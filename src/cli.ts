/**
 * The `simnet` command line. `simnet serve [--fixture FILE] [--port N] [--seed S]` serves a
 * fixture's network on 127.0.0.1 until SIGINT or SIGTERM.
 *
 * Exit codes: 0 after help or a clean stop, 2 for a usage error (one line, or the help once for
 * an unknown command or flag), 1 for anything else (one line naming the problem).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Cause, Console, Context, Effect, Exit, Layer, Option } from "effect"
import * as Runtime from "effect/Runtime"
import { Argument, Command, Flag } from "effect/cli"
import * as CliError from "effect/cli/CliError"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { DEFAULT_BODY_LIMIT, serveLayer } from "./serve/serve.ts"
import { caDirectory } from "./serve/ca.ts"
import { fromHar } from "./families/harImport.ts"
import { simnetVersion } from "./network/har.ts"
import { defaultRedactor } from "./core/redact.ts"
import { printable } from "./core/util.ts"
import { emulatorFailed, RUN_REFUSAL_STATUS, runCommand, runEnv } from "./serve/child.ts"
import { resolveCommand, type RoomHooks, type SealedRun, sealRun } from "./serve/isolate.ts"
import { spawnTerminal, type Terminal } from "./terminal/terminal.ts"
import { type ExploreFileData, readFailureFile } from "./testing/failureFiles.ts"
import { serveMcp } from "./serve/mcp.ts"
import { controlRuntime, endpointsOf } from "./serve/run.ts"
import {
  caChecked,
  caDirFlag,
  caIn,
  chaosFlag,
  fixtureNetwork,
  isolateFlags,
  isolateOptions,
  keepBodiesFlag,
  manifestFlag,
  parseBytes,
  parsePort,
  parseSeed,
  parseRefusalStatus,
  passthroughFlag,
  portError,
  portFlag,
  recordFlag,
  recordModeFlag,
  refusalStatusFlag,
  upstreamFlag,
  UsageError,
  writeManifest
} from "./serve/cliOptions.ts"
import { type FailingCase, INSPECTOR_PATH, inspector } from "./control/inspector.ts"
import { CONTROL_BASE } from "./control/endpoint.ts"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { readFileSync } from "node:fs"
import { SimulationNetwork } from "./SimulationNetwork.ts"

/**
 * The port `simnet serve` listens on when `--port` is not given.
 */
export const DEFAULT_PORT = 4747

/**
 * The fixture `simnet serve` serves when `--fixture` is not given: the package's own
 * `fixtures/default.json`, wherever the command is run from. (Here, in the CLI's own file: the
 * build keeps this entry a file of its own beside `../fixtures/`.)
 */
export const DEFAULT_FIXTURE = fileURLToPath(new URL("../fixtures/default.json", import.meta.url))


const serve = Command.make(
  "serve",
  {
    fixture: Flag.String("fixture").pipe(
      Flag.optional,
      Flag.withMetavar("file"),
      Flag.withDescription("fixture file, relative to the current directory (default: simnet's own fixtures/default.json)")
    ),
    port: portFlag(DEFAULT_PORT),
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (default: the fixture's, else 0)")),
    trace: Flag.String("trace").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("write a replay trace (JSON lines) to FILE")),
    drive: Flag.Boolean("drive").pipe(
      Flag.withDefault(false),
      Flag.withDescription("hold model requests no script or rule serves for a driver, even before one attaches")
    ),
    bodyLimit: Flag.String("body-limit").pipe(
      Flag.optional,
      Flag.withMetavar("bytes"),
      Flag.withDescription(`largest request body on a network path, in bytes (default: ${DEFAULT_BODY_LIMIT}); 413 past it`)
    ),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("no line per request")),
    refusalStatus: refusalStatusFlag(502, ""),
    caDir: caDirFlag,
    chaos: chaosFlag,
    passthrough: passthroughFlag,
    upstream: upstreamFlag,
    record: recordFlag,
    recordMode: recordModeFlag,
    keepBodies: keepBodiesFlag,
    manifest: manifestFlag
  },
  (config) =>
    Effect.gen(function*() {
      const port = yield* parsePort(config.port)
      const bodyLimit = yield* Option.match(config.bodyLimit, { onNone: () => Effect.succeed(DEFAULT_BODY_LIMIT), onSome: parseBytes("--body-limit") })
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      yield* caChecked(caDirectory(Option.getOrUndefined(config.caDir)))
      const { file, network } = yield* fixtureNetwork(config, DEFAULT_FIXTURE)
      const control = yield* controlRuntime(network, { trace: Option.getOrUndefined(config.trace), quiet: config.quiet })
      const announce = Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        const routes = yield* network.routes
        yield* writeManifest(config.manifest, endpointsOf(base))
        yield* Console.log(printable(`simnet serving ${routes.length} routes from ${file ?? "no fixture (--record-mode all)"} (seed ${network.seed})`))
        for (const route of routes) {
          if (route.simulated === false) yield* Console.log(printable(`  not simulated: ${route.id}: ${String(route.message ?? route.match)}`))
          if (typeof route.refused === "string") yield* Console.log(printable(`  not served:    ${route.id}: ${route.refused}`))
        }
        yield* Console.log(printable(`  network:  ${base}/HOST/PATH  ->  https://HOST/PATH`))
        yield* Console.log(printable(`  example:  ${base}/api.openai.com/v1`))
        yield* control.announce(base)
      })
      yield* Layer.launch(Layer.effectDiscard(announce).pipe(Layer.provideMerge(serveLayer(network, port, control.routes, { watch: control.watch, bodyLimit, refusalStatus, caDir: Option.getOrUndefined(config.caDir) })))).pipe(
        Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause)))
      )
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("serve a fixture's simulated network over loopback HTTP"))

const ca = Command.make(
  "ca",
  {
    pem: Flag.Boolean("pem").pipe(Flag.withDefault(false), Flag.withDescription("print the certificate itself, not its path")),
    caDir: caDirFlag
  },
  (config) =>
    Effect.gen(function*() {
      const authority = yield* caIn(caDirectory(Option.getOrUndefined(config.caDir)))
      yield* Console.log(printable(config.pem ? authority.certPem.trimEnd() : authority.certFile))
    })
).pipe(Command.withDescription("print the path of the proxy's local CA certificate (made on first use), or with --pem the certificate"))

const run = Command.make(
  "run",
  {
    fixture: Flag.String("fixture").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("fixture file (default: simnet's own fixtures/default.json)")),
    port: portFlag(0),
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (default: the fixture's, else 0)")),
    trace: Flag.String("trace").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("write a replay trace (JSON lines) to FILE")),
    drive: Flag.Boolean("drive").pipe(Flag.withDefault(false), Flag.withDescription("hold model requests no script or rule serves for a driver (the driver socket's URL is printed on standard error)")),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("no line per request (they go to standard error)")),
    proxyLoopback: Flag.Boolean("proxy-loopback").pipe(Flag.withDefault(false), Flag.withDescription("send loopback traffic through the proxy too (default: NO_PROXY covers it)")),
    refusalStatus: refusalStatusFlag(RUN_REFUSAL_STATUS, ", which no common client retries: a refused side call costs the command one round trip"),
    strict: Flag.Boolean("strict").pipe(Flag.withDefault(false), Flag.withDescription("exit 1 when the command succeeded but the network refused a request or a route marked required was never used; each is named on standard error")),
    caDir: caDirFlag,
    chaos: chaosFlag,
    passthrough: passthroughFlag,
    upstream: upstreamFlag,
    record: recordFlag,
    recordMode: recordModeFlag,
    keepBodies: keepBodiesFlag,
    manifest: manifestFlag,
    tty: Flag.Boolean("tty").pipe(Flag.withDefault(false), Flag.withDescription("run the command in a pseudo-terminal that the driver socket's ui.* methods see and type into (its URL is printed, and in the command's SIMNET_DRIVER_URL)")),
    cols: Flag.Int("cols").pipe(Flag.withDefault(100), Flag.withDescription("the terminal's width with --tty")),
    rows: Flag.Int("rows").pipe(Flag.withDefault(30), Flag.withDescription("the terminal's height with --tty")),
    ...isolateFlags,
    command: Argument.String("command").pipe(Argument.variadic, Argument.withDescription("the command and its arguments, after --"))
  },
  (config) =>
    Effect.gen(function*() {
      const [command, ...args] = config.command as ReadonlyArray<string>
      if (command === undefined) return yield* new UsageError({ message: "simnet run needs a command: simnet run [options] -- COMMAND ARGS..." })
      const port = yield* parsePort(config.port)
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      const isolate = yield* isolateOptions(config)
      // A path is resolved from the directory simnet was started in: the sealed command starts in its workspace.
      const program = isolate === undefined ? command : resolveCommand(command)
      if (typeof program !== "string") return yield* program
      const { network, files } = yield* fixtureNetwork(config, DEFAULT_FIXTURE)
      const trace = Option.getOrUndefined(config.trace)
      let terminal: Terminal | undefined
      let sealed: SealedRun | undefined
      let room: RoomHooks | undefined
      const control = yield* controlRuntime(network, { trace, quiet: config.quiet, out: (line) => void process.stderr.write(`${line}\n`), terminal: () => terminal, workspace: () => sealed?.workspace })
      const caDir = caDirectory(Option.getOrUndefined(config.caDir))
      const authority = yield* caIn(caDir)
      const served = yield* Layer.build(serveLayer(network, port, control.routes, { watch: control.watch, caDir, refusalStatus, room: isolate === undefined ? undefined : (hooks) => void (room = hooks) })).pipe(
        Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause)))
      )
      const base = HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address)
      yield* writeManifest(config.manifest, endpointsOf(base))
      if (isolate !== undefined) sealed = yield* sealRun(files, Number(new URL(base).port), room!, authority.certPem, isolate, control.traceLine, program)
      // A sealed command reads the CA from its sandbox: the host's copy may be where the room cannot see.
      const { env, driverUrl } = runEnv(base, sealed?.ca ?? authority.certFile, { proxyLoopback: config.proxyLoopback })
      const target = sealed?.target(program, args, env, config.tty) ?? { command, args, env }
      const tty = config.tty ? { cols: config.cols, rows: config.rows, driverUrl, opened: (made: Terminal) => void (terminal = made), told: control.exitsTold, traceLine: control.traceLine } : undefined
      // Under --tty the terminal's line names the driver; a driven run without one names it here.
      if (tty === undefined && config.drive) process.stderr.write(`${printable(`simnet: driver: ${driverUrl} (llm.attach, llm.chunk, llm.finish, ...)`)}\n`)
      // A sealed command is held by its room; any other by a PID namespace of its own.
      const code = yield* runCommand(target.command, target.args, target.env, tty, sealed === undefined).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
      sealed?.finish()
      const counters = yield* network.counters
      const log = yield* network.log
      const refused = log.find((record) => record.denial !== undefined)
      const parts = [
        `${counters.answered} answered`,
        `${counters.denied} refused${refused === undefined ? "" : ` (first: ${refused.method} ${network.redactor.url(refused.url)})`}`,
        ...(counters.faulted > 0 ? [`${counters.faulted} faulted`] : []),
        `${network.llm.callCount} model call${network.llm.callCount === 1 ? "" : "s"}`
      ]
      process.stderr.write(`${printable(`simnet: ${parts.join(", ")}${trace === undefined ? "" : `; trace: ${trace}`}`)}\n`)
      process.exitCode = code
      // As nock's disableNetConnect with done(): a refusal, or a required route never used, fails
      // the run even when the command shrugged it off.
      const checked = config.strict ? yield* Effect.flip(network.verify).pipe(Effect.option) : Option.none()
      if (Option.isSome(checked)) {
        const { denied, refused, unused } = checked.value
        for (const record of refused) process.stderr.write(`${printable(`simnet: refused ${record.method} ${record.url} (${record.tag})`)}\n`)
        if (denied > refused.length) process.stderr.write(`simnet: and ${denied - refused.length} more refused\n`)
        for (const id of unused) process.stderr.write(`${printable(`simnet: required route ${id} was never used`)}\n`)
        process.stderr.write(`simnet: --strict: ${[...(denied === 0 ? [] : [`${denied} request${denied === 1 ? " was" : "s were"} refused`]), ...(unused.length === 0 ? [] : [`${unused.length} required route${unused.length === 1 ? " was" : "s were"} never used`])].join(", ")}\n`)
        if (code === 0) process.exitCode = 1
      }
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("run a command with every HTTP(S) request it makes answered by a fixture's network (a proxy and its CA in its environment)"))

/** A failing run of `simnet explore` as the inspector shows it: its steps as frames, the failing one marked. */
const exploredCase = (file: string, shown: typeof ExploreFileData.Type): FailingCase => {
  const command = shown.command.join(" ")
  const failure = shown.failure
  return {
    name: `simnet explore -- ${command}`,
    error: failure.reason,
    seed: typeof shown.seed === "number" ? shown.seed : 0,
    path: undefined,
    counterexample: shown.case,
    step: `step ${failure.step}: ${failure.action}`,
    replay: `simnet explore --replay ${file} -- ${command}`,
    frames: shown.steps.map((step) => ({ step: step.step, action: step.action, lines: step.screen.lines, cursor: step.screen.cursor, styles: step.screen.styles, requests: step.requests, failed: step.step === failure.step }))
  }
}

/** A failure file decoded (`testing/failureFiles.ts`); a bad one is a usage error naming the bad value (exit 2). */
const readShown = <K extends "explore-failure/v1" | "property-failure/v1">(file: string, kinds?: ReadonlyArray<K>) =>
  Effect.try({
    try: () => readFailureFile(file, kinds),
    catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message : String(cause) })
  })

const show = Command.make(
  "show",
  {
    port: portFlag(0),
    file: Argument.String("file").pipe(Argument.withDescription("a failing case's file, as simnet/testing's property or simnet explore writes it"))
  },
  (config) =>
    Effect.gen(function*() {
      const port = yield* parsePort(config.port)
      const file = path.resolve(process.cwd(), config.file)
      const failure = yield* readShown(file)
      const network = yield* SimulationNetwork.make()
      // The network's end state is decoded as any snapshot is; a bad one names its path under `end`.
      yield* network.restore(failure.end).pipe(Effect.mapError((error) =>
        new UsageError({ message: `${file} at end${"path" in error && typeof error.path === "string" && error.path !== "" ? `.${error.path}` : ""}: ${error.message}` })))
      // Read-only: the inspector alone, the case first; every other control path answers 403.
      const log = yield* network.log
      const failed = [...log].reverse().find((r) => r.denial !== undefined || (r.status ?? 0) >= 500) ?? log.at(-1)
      const step = failed === undefined ? undefined : `#${failed.seq} ${failed.method} ${failed.url} → ${failed.denial ?? failed.fault ?? failed.status ?? "no answer"}`
      const failing = failure.simnet === "explore-failure/v1"
        ? exploredCase(file, failure)
        : { name: failure.name, error: failure.error, seed: failure.seed ?? network.seed, path: failure.path, counterexample: failure.counterexample, step }
      const page = inspector(network, {}, failing)
      const readOnly = HttpRouter.add("*", `${CONTROL_BASE}/*`, () =>
        Effect.succeed(HttpServerResponse.jsonUnsafe({ error: { tag: "ReadOnly", message: "simnet show is read-only: it has no control endpoint" } }, { status: 403 })))
      const announce = Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        yield* Console.log(printable(`simnet: the failing case of ${JSON.stringify(failing.name)} (${(yield* network.log).length} requests), read-only`))
        yield* Console.log(printable(`  error:     ${failing.error.split("\n")[0]}`))
        yield* Console.log(printable(`  inspector: ${base}${INSPECTOR_PATH}`))
      })
      yield* Layer.launch(Layer.effectDiscard(announce).pipe(Layer.provideMerge(serveLayer(network, port, Layer.merge(page.layer, readOnly), { watch: [page.watch] })))).pipe(
        Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause)))
      )
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("open a failing property case (simnet/testing) or explored run (simnet explore: its screens step by step) in the inspector, read-only"))

const harImport = Command.make(
  "import",
  { file: Argument.String("file").pipe(Argument.withDescription("a HAR 1.2 file")) },
  (config) =>
    Effect.gen(function*() {
      const file = path.resolve(process.cwd(), config.file)
      const imported = yield* Effect.try({
        try: () => fromHar(JSON.parse(readFileSync(file, "utf8")), defaultRedactor),
        catch: (cause) => new UsageError({ message: `cannot import ${file}: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      yield* Console.log(printable(JSON.stringify({ routes: imported.routes }, null, 2)))
      for (const { reason } of imported.skipped) yield* Console.error(printable(`simnet: skipped ${reason}`))
      yield* Console.error(printable(`simnet: imported ${imported.imported} of ${imported.imported + imported.skipped.length} entries as ${imported.routes.length} route${imported.routes.length === 1 ? "" : "s"}; ${imported.skipped.length} skipped`))
    })
).pipe(Command.withDescription("print a HAR 1.2 file as a fixture (routes for each request, credentials left out); entries skipped, and why, on standard error"))

const mcp = Command.make(
  "mcp",
  {
    fixture: Flag.String("fixture").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("fixture file (default: simnet's own fixtures/default.json)")),
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (default: the fixture's, else 0)")),
    drive: Flag.Boolean("drive").pipe(Flag.withDefault(false), Flag.withDescription("hold model requests no script or rule serves, for llm_respond")),
    cols: Flag.Int("cols").pipe(Flag.withDefault(100), Flag.withDescription("the command's terminal width")),
    rows: Flag.Int("rows").pipe(Flag.withDefault(30), Flag.withDescription("the command's terminal height")),
    caDir: caDirFlag,
    chaos: chaosFlag,
    passthrough: passthroughFlag,
    upstream: upstreamFlag,
    record: recordFlag,
    recordMode: recordModeFlag,
    keepBodies: keepBodiesFlag,
    manifest: manifestFlag,
    trace: Flag.String("trace").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("write a replay trace (JSON lines) to FILE")),
    command: Argument.String("command").pipe(Argument.variadic, Argument.withDescription("a command to run in a terminal the tools see and type into, after --"))
  },
  (config) =>
    Effect.scoped(Effect.gen(function*() {
      const { network } = yield* fixtureNetwork(config, DEFAULT_FIXTURE)
      let terminal: Terminal | undefined
      const control = yield* controlRuntime(network, { trace: Option.getOrUndefined(config.trace), quiet: true, terminal: () => terminal })
      const caDir = caDirectory(Option.getOrUndefined(config.caDir))
      const authority = yield* caIn(caDir)
      const served = yield* Layer.build(serveLayer(network, 0, control.routes, { watch: control.watch, caDir }))
      const base = HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address)
      yield* writeManifest(config.manifest, endpointsOf(base))
      const { env, driverUrl } = runEnv(base, authority.certFile)
      const [command, ...args] = config.command as ReadonlyArray<string>
      if (command !== undefined) terminal = yield* spawnTerminal(command, args, { cols: config.cols, rows: config.rows, env, onFailure: emulatorFailed(command, control.traceLine) }).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
      process.stderr.write(`${printable(`simnet mcp: tools over stdio${command === undefined ? "" : `; ${command} runs in a ${config.cols}x${config.rows} terminal`}; driver: ${driverUrl}`)}\n`)
      yield* serveMcp(network, () => terminal, simnetVersion(), control.traceChange)
    }))
).pipe(Command.withDescription("an MCP server over stdio that lets an agent observe and drive the simulation: the command's terminal, the network and the model"))

const explore = Command.make(
  "explore",
  {
    fixture: Flag.String("fixture").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("fixture file (default: simnet's own fixtures/default.json); its prompts are typed among the generated text, and its files are each run's working directory")),
    runs: Flag.Int("runs").pipe(Flag.withDefault(20), Flag.withDescription("how many runs (default: 20)")),
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("the seed of the runs (default: the fixture's, else 0); the same seed writes the same file")),
    actions: Flag.Int("actions").pipe(Flag.withDefault(10), Flag.withDescription("at most this many actions per run (default: 10)")),
    minActions: Flag.Int("min-actions").pipe(Flag.withDefault(1), Flag.withDescription("at least this many actions per run (default: 1)")),
    out: Flag.String("out").pipe(Flag.withDefault(path.join(".simnet", "explore")), Flag.withMetavar("dir"), Flag.withDescription("where the failing run's file goes (default: .simnet/explore)")),
    replay: Flag.String("replay").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("run a failing run's file again (its fixture, seed, size and actions); exit 1 when it fails again")),
    cols: Flag.Int("cols").pipe(Flag.withDefault(100), Flag.withDescription("the terminal's width (default: 100)")),
    rows: Flag.Int("rows").pipe(Flag.withDefault(30), Flag.withDescription("the terminal's height (default: 30)")),
    quietMs: Flag.Int("quiet-ms").pipe(Flag.optional, Flag.withDescription("a floor: after each action, the screen still at least this long once the app is at rest (default: 0 on Linux, where rest is read from the app's processes; 150 elsewhere)")),
    timeoutMs: Flag.Int("timeout-ms").pipe(Flag.withDefault(10_000), Flag.withDescription("the longest a step may take to come to rest, and the app to show --ready's text (default: 10000)")),
    ready: Flag.String("ready").pipe(Flag.optional, Flag.withMetavar("text"), Flag.withDescription("text the app shows once it takes input, waited for before the first action (default: anything on screen)")),
    chaosRate: Flag.String("chaos-rate").pipe(Flag.withDefault("0"), Flag.withMetavar("rate"), Flag.withDescription("the highest seeded chaos rate a run draws, 0 to 1 (default 0: none)")),
    clock: Flag.Literals("clock", ["real", "virtual"]).pipe(Flag.withDefault("real" as const), Flag.withDescription("the clock the app's Node processes and the network run on: virtual jumps to the next timer whenever the app is at rest (default: real)")),
    noScripts: Flag.Boolean("no-scripts").pipe(Flag.withDefault(false), Flag.withDescription("queue no generated model scripts: the fixture answers every model call")),
    caDir: caDirFlag,
    command: Argument.String("command").pipe(Argument.variadic, Argument.withDescription("the command and its arguments, after --"))
  },
  (config) =>
    Effect.gen(function*() {
      const command = config.command as ReadonlyArray<string>
      const caDir = Option.getOrUndefined(config.caDir)
      // fast-check and the terminal load with this command only.
      const { exploreResult, replayExplore } = yield* Effect.promise(() => import("./testing/explore.ts"))
      const say = (line: string) => Console.log(printable(line))
      if (Option.isSome(config.replay)) {
        const file = config.replay.value
        // A file names a command of its own: said before it runs (stderr; give -- COMMAND to run another).
        const running = (ran: ReadonlyArray<string>, own: boolean) => {
          if (own) process.stderr.write(`${printable(`simnet explore --replay: runs the command ${file} names: ${ran.map((part) => (/^[\w./:=@%+,-]+$/.test(part) ? part : JSON.stringify(part))).join(" ")}`)}\n`)
        }
        // SIGINT or SIGTERM interrupts this fiber, which aborts the replay: its run's scope closes and reaps the program.
        const replayed = yield* Effect.tryPromise({ try: (signal) => replayExplore(file, { command, caDir, signal, running }), catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message : String(cause) }) })
        const expected = replayed.expected
        if (replayed.failure === undefined) return yield* say(`simnet explore --replay: every step held (the file's failure was at step ${expected.step}, ${expected.action}: ${expected.reason})`)
        yield* say(`simnet explore --replay: failed again at step ${replayed.failure.step} (${replayed.steps[replayed.failure.step]?.action ?? "start"}): ${replayed.failure.reason}${replayed.workspace === undefined ? "" : `; its files: ${replayed.workspace}`}`)
        process.exitCode = 1
        return
      }
      if (command.length === 0) return yield* new UsageError({ message: "simnet explore needs a command: simnet explore [options] -- COMMAND ARGS..." })
      const chaosRate = Number(config.chaosRate)
      if (!(chaosRate >= 0 && chaosRate <= 1)) return yield* new UsageError({ message: `--chaos-rate must be a rate from 0 to 1, got ${JSON.stringify(config.chaosRate.slice(0, 40))}` })
      if (config.runs < 1 || config.actions < 1 || config.minActions > config.actions) return yield* new UsageError({ message: "--runs and --actions must be at least 1, and --min-actions at most --actions" })
      if (!(config.timeoutMs >= 1 && config.timeoutMs <= 600_000)) return yield* new UsageError({ message: `--timeout-ms must be from 1 to 600000 milliseconds, got ${config.timeoutMs}` })
      const seed = Option.getOrUndefined(Option.map(config.seed, parseSeed))
      const result = yield* Effect.tryPromise({
        try: () => exploreResult(command, { fixture: Option.getOrElse(config.fixture, () => DEFAULT_FIXTURE), runs: config.runs, seed, actions: config.actions, minActions: config.minActions, out: config.out, cols: config.cols, rows: config.rows, quietMs: Option.getOrUndefined(config.quietMs), timeoutMs: config.timeoutMs, ready: Option.getOrUndefined(config.ready), chaosRate, scripts: !config.noScripts, caDir, clock: config.clock }),
        catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message.replace(/^simnet explore: /, "") : String(cause) })
      })
      // On a virtual clock: the time covered, or that the app never joined it (it is not Node).
      const clock = result.clock
      if (clock !== undefined) yield* say(clock.joined === 0 ? "simnet explore: --clock virtual: no Node process joined the clock; the app ran on real time (the network on virtual time)" : `simnet explore: virtual time covered: ${clock.virtualMs} ms (${clock.joined} of ${result.runs} runs on the clock)`)
      if (result.failure === undefined) return yield* say(`simnet explore: ${result.runs} runs, ${result.actions} actions, no failure (seed ${String(result.seed)})`)
      const failure = result.failure
      const again = `simnet explore --replay ${failure.file} -- ${command.join(" ")}`
      yield* say(`simnet explore: a run failed: ${failure.reason}`)
      yield* say(`  shrunk (${failure.shrinks} shrinks) to ${failure.actions.length} action${failure.actions.length === 1 ? "" : "s"}; it fails at step ${failure.step}: ${failure.action}`)
      yield* say(`  file:          ${failure.file}`)
      if (failure.workspace !== undefined) yield* say(`  workspace:     ${failure.workspace}   (the run's files as it left them)`)
      yield* say(`  open it:       simnet show ${failure.file}`)
      yield* say(`  run it again:  ${again}`)
      process.exitCode = 1
    })
).pipe(Command.withDescription("run a command in a terminal under seeded generated actions, check after each that it does not crash, and shrink a failing run to a file; exit 1 for a failing run, 2 when a run took no action (the command exited first, or never showed --ready's text)"))

const har = Command.make("har").pipe(Command.withDescription("HAR files"), Command.withSubcommands([harImport]))

const simnet = Command.make("simnet").pipe(
  Command.withDescription("a simulated network for Effect apps and their tests"),
  Command.withSubcommands([serve, run, explore, mcp, ca, show, har])
)

/** One line for the user and the exit code that goes with it. */
const outcome = (error: unknown): { readonly line: string | undefined; readonly code: number } => {
  if (CliError.isCliError(error)) {
    // The help (and any parse error under it) has been printed already.
    return { line: undefined, code: error._tag === "ShowHelp" && error.errors.length === 0 ? 0 : 2 }
  }
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const e = error as { _tag: string; message?: string; path?: string }
    const line = e.message?.startsWith("simnet: ") === true
      ? e.message
      : e._tag === "UsageError" || e._tag === "PortUnavailable"
      ? `simnet: ${e.message}`
      : `simnet: ${e._tag}${e.path === undefined ? "" : ` at ${e.path}`}: ${e.message ?? ""}`
    return { line, code: e._tag === "UsageError" ? 2 : 1 }
  }
  return { line: `simnet: ${String(error)}`, code: 1 }
}

/** SIGINT and SIGTERM end the server cleanly (exit 0); a failure exits with its own code. */
const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isSuccess(exit)) return onExit(Number(process.exitCode ?? 0))
  return Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
}

Command.run(simnet, { version: simnetVersion() }).pipe(
  Effect.catch((error: unknown) => {
    const { line, code } = outcome(error)
    return Effect.andThen(line === undefined ? Effect.void : Console.error(printable(line)), Effect.sync(() => void (process.exitCode = code)))
  }),
  Effect.provide(NodeServices.layer),
  (program) => NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
)
