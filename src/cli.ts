/**
 * The `simnet` command line. `simnet serve [--fixture FILE] [--port N] [--seed S]` serves a
 * fixture's network on 127.0.0.1 until SIGINT or SIGTERM.
 *
 * Exit codes: 0 after help or a clean stop, 2 for a usage error (one line, or the help once for
 * an unknown command or flag), 1 for anything else (one line naming the problem).
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Cause, Console, Context, Data, Effect, Exit, Layer, Option } from "effect"
import * as Runtime from "effect/Runtime"
import { Argument, Command, Flag } from "effect/cli"
import * as CliError from "effect/cli/CliError"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { DEFAULT_BODY_LIMIT, serveLayer } from "./serve/serve.ts"
import { caDirectory, checkCa, loadCa } from "./serve/ca.ts"
import type { Route } from "./Route.ts"
import { passthrough } from "./families/passthrough.ts"
import { type Recorder, recorder, recordingTargetProblem } from "./families/record.ts"
import { writeOnClose } from "./serve/recording.ts"
import { fromHar } from "./families/harImport.ts"
import { simnetVersion } from "./network/har.ts"
import { defaultRedactor } from "./core/redact.ts"
import { printable } from "./core/util.ts"
import { runCommand, runEnv } from "./serve/child.ts"
import type { Terminal } from "./terminal/terminal.ts"
import { controlRuntime } from "./serve/run.ts"
import { INSPECTOR_PATH, inspector } from "./control/inspector.ts"
import { CONTROL_BASE } from "./control/endpoint.ts"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { existsSync, readFileSync } from "node:fs"
import { loadFixture } from "./Fixture.ts"
import { type ChaosOptions, SimulationNetwork } from "./SimulationNetwork.ts"

/**
 * The port `simnet serve` listens on when `--port` is not given.
 */
export const DEFAULT_PORT = 4747

/**
 * The fixture `simnet serve` serves when `--fixture` is not given: the package's own
 * `fixtures/default.json`, wherever the command is run from.
 */
export const DEFAULT_FIXTURE = fileURLToPath(new URL("../fixtures/default.json", import.meta.url))


/** A command line the user must correct (exit 2). */
class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The port asked for is taken or not ours to bind (exit 1). */
class PortUnavailable extends Data.TaggedError("PortUnavailable")<{ readonly port: number; readonly message: string }> {}

const parseSeed = (seed: string): number | string => (/^-?\d+$/.test(seed) ? Number(seed) : seed)

const parsePort = (raw: string): Effect.Effect<number, UsageError> => {
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  return Number.isInteger(port) && port >= 0 && port <= 65_535
    ? Effect.succeed(port)
    : Effect.fail(new UsageError({ message: `invalid --port ${JSON.stringify(raw)}: expected a whole number from 0 to 65535` }))
}

const parseBytes = (flag: string) => (raw: string): Effect.Effect<number, UsageError> => {
  const bytes = /^\d{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  return Number.isSafeInteger(bytes) && bytes > 0
    ? Effect.succeed(bytes)
    : Effect.fail(new UsageError({ message: `invalid ${flag} ${JSON.stringify(raw)}: expected a whole number of bytes, at least 1` }))
}

const portError = (port: number, cause: unknown): PortUnavailable => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  const reason = code === "EADDRINUSE"
    ? "is already in use"
    : code === "EACCES"
    ? "may not be bound by this user"
    : `cannot be bound (${cause instanceof Error ? cause.message : String(cause)})`
  return new PortUnavailable({ port, message: `port ${port} on 127.0.0.1 ${reason}` })
}

const chaosFlag = Flag.String("chaos").pipe(
  Flag.optional,
  Flag.withMetavar("rate"),
  Flag.withDescription("seeded chaos: hit this share of requests (0 to 1) with faults, as the fixture's chaos options say (default: every kind)")
)

const keepBodiesFlag = Flag.Boolean("keep-bodies").pipe(
  Flag.withDefault(false),
  Flag.withDescription("keep each exchange's bodies (1 MiB each at most) in the log, for its HAR export (GET network/log?format=har, the inspector's Export HAR)")
)

/** The fixture's chaos with `--chaos RATE` over its rate. */
const chaosOf = (flag: Option.Option<string>, fromFixture: ChaosOptions | undefined): Effect.Effect<ChaosOptions | undefined, UsageError> =>
  Option.match(flag, {
    onNone: () => Effect.succeed(fromFixture),
    onSome: (raw) => {
      const rate = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
      return Number.isFinite(rate)
        ? Effect.succeed({ ...fromFixture, rate })
        : Effect.fail(new UsageError({ message: `invalid --chaos ${JSON.stringify(raw)}: expected a rate from 0 to 1` }))
    }
  })

const passthroughFlag = Flag.String("passthrough").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host"),
  Flag.withDescription("send what no route answers for HOST (repeatable; * for every host) to the real network: the only way a request leaves")
)
const upstreamFlag = Flag.String("upstream").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host=url"),
  Flag.withDescription("send HOST's passthrough requests to URL instead (repeatable)")
)

const recordFlag = Flag.String("record").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription("record mode: what no route answers is forwarded to its real host (or --upstream), streamed back, and written to FILE as a fixture as it goes and when the server stops (merged with what FILE held); without --fixture, what FILE already holds is served (replay what it has, record what it lacks)")
)

const recordModeFlag = Flag.Literals("record-mode", ["new", "all", "none"]).pipe(
  Flag.withDefault("new"),
  Flag.withDescription("with --record FILE: new (replay what FILE holds, record what it lacks), all (replay nothing, record everything, FILE replaced by the new recording), none (replay FILE only, forward nothing)")
)

/**
 * The routes `--passthrough`, `--record` and `--upstream` ask for, and at the end the recording to
 * write (the scope's finalizer writes it).
 */
const forwardingRoutes = (
  hosts: ReadonlyArray<string>,
  upstreams: ReadonlyArray<string>,
  record: Option.Option<string>
): Effect.Effect<{ readonly routes: ReadonlyArray<Route>; readonly recorder: Recorder | undefined }, UsageError> =>
  Effect.gen(function*() {
    const upstream: Record<string, string> = {}
    for (const pair of upstreams) {
      const at = pair.indexOf("=")
      if (at <= 0 || !URL.canParse(pair.slice(at + 1))) return yield* new UsageError({ message: `invalid --upstream ${JSON.stringify(pair)}: expected HOST=URL` })
      upstream[pair.slice(0, at)] = pair.slice(at + 1)
    }
    const unused = Object.keys(upstream).filter((host) => !hosts.includes(host))
    if (unused.length > 0 && Option.isNone(record)) return yield* new UsageError({ message: `--upstream ${unused[0]}=… needs --passthrough ${unused[0]} or --record` })
    const routes: Array<Route> = passthrough(hosts, Object.fromEntries(Object.entries(upstream).filter(([host]) => hosts.includes(host))))
    if (Option.isNone(record)) return { routes, recorder: undefined }
    const problem = recordingTargetProblem(path.resolve(process.cwd(), record.value))
    if (problem !== undefined) return yield* new UsageError({ message: `cannot record into --record ${record.value}: ${problem}` })
    const recording = recorder({ upstream })
    return { routes: [...routes, recording.route], recorder: recording }
  })

/** The flags `serve` and `run` share that make the network. */
interface NetworkFlags {
  readonly fixture: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly drive: boolean
  readonly chaos: Option.Option<string>
  readonly passthrough: ReadonlyArray<string>
  readonly upstream: ReadonlyArray<string>
  readonly record: Option.Option<string>
  readonly recordMode: "new" | "all" | "none"
  readonly keepBodies: boolean
}

/**
 * The network `serve` and `run` answer from: the fixture (`--fixture`, else simnet's own) with
 * the flags over it. In record mode the recording is written when the scope closes.
 */
const fixtureNetwork = (config: NetworkFlags) =>
  Effect.gen(function*() {
    // Replay or record in one flag, as Polly and nock.back do: `--record F` alone serves what F
    // already holds and records what it lacks (`--record-mode new`); `all` serves nothing and
    // records everything; `none` serves F and forwards nothing. Recording never starts from
    // simnet's own fixture, whose model families would answer what is to be recorded.
    const recordFile = Option.map(config.record, (f) => path.resolve(process.cwd(), f))
    const mode = Option.isSome(recordFile) ? config.recordMode : undefined
    const replayed = Option.isSome(recordFile) && mode !== "all" && (mode === "none" || existsSync(recordFile.value)) ? recordFile.value : undefined
    const file = Option.match(config.fixture, { onNone: () => replayed ?? (mode === undefined ? DEFAULT_FIXTURE : undefined), onSome: (f) => path.resolve(process.cwd(), f) })
    // The record file is checked before it is read as the fixture: a file that cannot be merged
    // into is refused as a recording target, naming why.
    const forwarding = yield* forwardingRoutes(config.passthrough, mode === "none" ? [] : config.upstream, mode === "none" ? Option.none() : config.record)
    const fixture = file === undefined ? { seed: undefined, routes: [], llm: [], llmRules: [], chaos: undefined } : yield* loadFixture(file)
    const seed = Option.match(config.seed, { onNone: () => fixture.seed, onSome: parseSeed })
    const chaos = yield* chaosOf(config.chaos, fixture.chaos)
    const network = yield* SimulationNetwork.make({ seed, routes: [...fixture.routes, ...forwarding.routes], llm: fixture.llm, llmRules: fixture.llmRules, drive: config.drive, chaos, keepBodies: config.keepBodies })
    yield* writeOnClose(config.record, forwarding.recorder, network, mode === "all")
    return { file, network }
  })

/** The proxy's CA in `dir`, made there on first use; a usage error naming the directory and the fix when it cannot be used. */
const caIn = (dir: string) =>
  Effect.try({ try: () => loadCa(dir), catch: (cause) => new UsageError({ message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}` }) })

/** The start-up check of a CA that is made at the first CONNECT: usable if there, else makeable. */
const caChecked = (dir: string) =>
  Effect.try({ try: () => checkCa(dir), catch: (cause) => new UsageError({ message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}` }) })

const caDirFlag = Flag.String("ca-dir").pipe(
  Flag.optional,
  Flag.withMetavar("dir"),
  Flag.withDescription("where the proxy's local CA lives (default: SIMNET_CA_DIR, else ~/.config/simnet/ca); made there on first use")
)

/** `--refusal-status CODE`: the status a refused request is answered with. */
const refusalStatusFlag = (fallback: number, why: string) =>
  Flag.String("refusal-status").pipe(
    Flag.withDefault(String(fallback)),
    Flag.withMetavar("code"),
    Flag.withDescription(`the status a request no route answers gets, 400-599 (default: ${fallback}${why}); the body names the request and the nearest routes either way`)
  )

const parseRefusalStatus = (text: string) => {
  const code = Number(text)
  return Number.isInteger(code) && code >= 400 && code <= 599
    ? Effect.succeed(code)
    : Effect.fail(new UsageError({ message: `--refusal-status must be a status from 400 to 599, got ${JSON.stringify(text.slice(0, 40))}` }))
}

const serve = Command.make(
  "serve",
  {
    fixture: Flag.String("fixture").pipe(
      Flag.optional,
      Flag.withMetavar("file"),
      Flag.withDescription("fixture file, relative to the current directory (default: simnet's own fixtures/default.json)")
    ),
    port: Flag.String("port").pipe(
      Flag.withDefault(String(DEFAULT_PORT)),
      Flag.withMetavar("port"),
      Flag.withDescription(`port on 127.0.0.1 (default: ${DEFAULT_PORT}; 0: any free port)`)
    ),
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
    keepBodies: keepBodiesFlag
  },
  (config) =>
    Effect.gen(function*() {
      const port = yield* parsePort(config.port)
      const bodyLimit = yield* Option.match(config.bodyLimit, { onNone: () => Effect.succeed(DEFAULT_BODY_LIMIT), onSome: parseBytes("--body-limit") })
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      yield* caChecked(caDirectory(Option.getOrUndefined(config.caDir)))
      const { file, network } = yield* fixtureNetwork(config)
      const control = yield* controlRuntime(network, { trace: Option.getOrUndefined(config.trace), quiet: config.quiet })
      const announce = Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        const routes = yield* network.routes
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
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (default: the fixture's, else 0)")),
    trace: Flag.String("trace").pipe(Flag.optional, Flag.withMetavar("file"), Flag.withDescription("write a replay trace (JSON lines) to FILE")),
    drive: Flag.Boolean("drive").pipe(Flag.withDefault(false), Flag.withDescription("hold model requests no script or rule serves for a driver")),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("no line per request (they go to standard error)")),
    proxyLoopback: Flag.Boolean("proxy-loopback").pipe(Flag.withDefault(false), Flag.withDescription("send loopback traffic through the proxy too (default: NO_PROXY covers it)")),
    refusalStatus: refusalStatusFlag(404, ", which no common client retries: a refused side call costs the command one round trip"),
    strict: Flag.Boolean("strict").pipe(Flag.withDefault(false), Flag.withDescription("exit 1 when the command succeeded but the network refused a request or a route marked required was never used; each is named on standard error")),
    caDir: caDirFlag,
    chaos: chaosFlag,
    passthrough: passthroughFlag,
    upstream: upstreamFlag,
    record: recordFlag,
    recordMode: recordModeFlag,
    keepBodies: keepBodiesFlag,
    tty: Flag.Boolean("tty").pipe(Flag.withDefault(false), Flag.withDescription("run the command in a pseudo-terminal that the driver socket's ui.* methods see and type into (its URL is printed, and in the command's SIMNET_DRIVER_URL)")),
    cols: Flag.Int("cols").pipe(Flag.withDefault(100), Flag.withDescription("the terminal's width with --tty")),
    rows: Flag.Int("rows").pipe(Flag.withDefault(30), Flag.withDescription("the terminal's height with --tty")),
    command: Argument.String("command").pipe(Argument.variadic, Argument.withDescription("the command and its arguments, after --"))
  },
  (config) =>
    Effect.gen(function*() {
      const [command, ...args] = config.command as ReadonlyArray<string>
      if (command === undefined) return yield* new UsageError({ message: "simnet run needs a command: simnet run [options] -- COMMAND ARGS..." })
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      const { network } = yield* fixtureNetwork(config)
      const trace = Option.getOrUndefined(config.trace)
      let terminal: Terminal | undefined
      const control = yield* controlRuntime(network, { trace, quiet: config.quiet, out: (line) => void process.stderr.write(`${line}\n`), terminal: () => terminal })
      const caDir = caDirectory(Option.getOrUndefined(config.caDir))
      const authority = yield* caIn(caDir)
      const served = yield* Layer.build(serveLayer(network, 0, control.routes, { watch: control.watch, caDir, refusalStatus }))
      const { env, driverUrl } = runEnv(HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address), authority.certFile, { proxyLoopback: config.proxyLoopback })
      const tty = config.tty ? { cols: config.cols, rows: config.rows, driverUrl, opened: (made: Terminal) => void (terminal = made) } : undefined
      const code = yield* runCommand(command, args, env, tty).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
      const counters = yield* network.counters
      const log = yield* network.log
      const refused = log.find((record) => record.status === undefined || record.denial !== undefined)
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

const show = Command.make(
  "show",
  {
    port: Flag.String("port").pipe(Flag.withDefault("0"), Flag.withMetavar("port"), Flag.withDescription("port on 127.0.0.1 (default: any free port)")),
    file: Argument.String("file").pipe(Argument.withDescription("a failing case's file, as simnet/testing's property writes it"))
  },
  (config) =>
    Effect.gen(function*() {
      const port = yield* parsePort(config.port)
      const file = path.resolve(process.cwd(), config.file)
      const failure = yield* Effect.try({
        try: () => JSON.parse(readFileSync(file, "utf8")) as { simnet?: string; name?: string; error?: string; seed?: number; path?: string; counterexample?: unknown; end?: { seed?: number } },
        catch: (cause) => new UsageError({ message: `cannot read ${file}: ${cause instanceof Error ? cause.message : String(cause)}` })
      })
      if (failure.simnet !== "property-failure/v1" || failure.end === undefined) {
        return yield* new UsageError({ message: `${file} is not a failing case simnet/testing wrote (simnet: "property-failure/v1")` })
      }
      const network = yield* SimulationNetwork.make({ seed: failure.end.seed })
      yield* network.restore(failure.end)
      // Read-only: the inspector alone, the case first; every other control path answers 403.
      const log = yield* network.log
      const failed = [...log].reverse().find((r) => r.denial !== undefined || (r.status ?? 0) >= 500) ?? log.at(-1)
      const step = failed === undefined ? undefined : `#${failed.seq} ${failed.method} ${failed.url} → ${failed.denial ?? failed.fault ?? failed.status ?? "no answer"}`
      const page = inspector(network, {}, { name: failure.name ?? "a property", error: String(failure.error ?? ""), seed: failure.seed ?? failure.end.seed ?? 0, path: failure.path, counterexample: failure.counterexample, step })
      const readOnly = HttpRouter.add("*", `${CONTROL_BASE}/*`, () =>
        Effect.succeed(HttpServerResponse.jsonUnsafe({ error: { tag: "ReadOnly", message: "simnet show is read-only: it has no control endpoint" } }, { status: 403 })))
      const announce = Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        yield* Console.log(printable(`simnet: the failing case of ${JSON.stringify(failure.name ?? "a property")} (${(yield* network.log).length} requests), read-only`))
        yield* Console.log(printable(`  error:     ${String(failure.error ?? "").split("\n")[0]}`))
        yield* Console.log(printable(`  inspector: ${base}${INSPECTOR_PATH}`))
      })
      yield* Layer.launch(Layer.effectDiscard(announce).pipe(Layer.provideMerge(serveLayer(network, port, Layer.merge(page.layer, readOnly), { watch: [page.watch] })))).pipe(
        Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause)))
      )
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("open a failing property case (simnet/testing) in the inspector, read-only"))

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

const har = Command.make("har").pipe(Command.withDescription("HAR files"), Command.withSubcommands([harImport]))

const simnet = Command.make("simnet").pipe(
  Command.withDescription("a simulated network for Effect apps and their tests"),
  Command.withSubcommands([serve, run, ca, show, har])
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
