/**
 * What the commands share on the command line, written once: the usage error (exit 2), the port,
 * the flags that make a command's network (`networkFlags`: the fixture, seed, chaos, passthrough
 * and upstreams, record mode) and the network made from them, the terminal's size, the CA, the
 * refusal status, the endpoint manifest, and `--isolate` with its bounds. A command is a file of
 * its own beside this one, and a line in `main.ts`.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import * as path from "node:path"
import { createRequire } from "node:module"
import { Data, Effect, Option, type Scope } from "effect"
import { Flag } from "effect/cli"
import { makeDirectory, writeFileAtomic } from "../fileSystem/files.ts"
import type { Redactor } from "../registry/redact.ts"
import { errorMessage, printable } from "../registry/util.ts"
import { checkCa, loadCa } from "../serve/ca.ts"
import type { Endpoints } from "../control/runtime.ts"
import { passthrough } from "../families/passthrough.ts"
import {
  MAX_RECORDED_BODY,
  MAX_RECORDING_BYTES,
  persist,
  type Recorder,
  recorder,
  recordingTargetProblem
} from "../network/record/record.ts"
import { loadFixture } from "../network/fixture.ts"
import { make as makeNetwork, type NetworkOptions } from "../network/network.ts"
import { ISOLATE_DEFAULTS, type IsolateOptions } from "../serve/isolate.ts"

/** The network's chaos and routes as its options name them: the command line uses the network through its API. */
type ChaosOptions = NonNullable<NetworkOptions["chaos"]>
type Route = NonNullable<NetworkOptions["routes"]> extends Iterable<infer R> ? R : never

/** The port `simnet serve` listens on when `--port` is not given. */
export const DEFAULT_PORT = 4747

/**
 * The fixture a command serves when `--fixture` is not given: the package's own
 * `fixtures/default.json`, wherever the command is run from. Found through the package itself, as
 * its version is: the same in a checkout, in `dist/` and in an installed package, whichever file
 * of them this code is bundled in.
 */
export const DEFAULT_FIXTURE = path.join(
  path.dirname(createRequire(import.meta.url).resolve("simnet/package.json")),
  "fixtures",
  "default.json"
)

/** A command line the user must correct (exit 2). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The port asked for is taken or not ours to bind (exit 1). */
export class PortUnavailable extends Data.TaggedError("PortUnavailable")<{
  readonly port: number
  readonly message: string
}> {}

/** `--seed`: a whole number as a number, anything else as the string seed it is. */
export const parseSeed = (seed: string): number | string => (/^-?\d+$/.test(seed) ? Number(seed) : seed)

/** `--port`: a whole number from 0 to 65535, else a usage error naming it. */
export const parsePort = (raw: string): Effect.Effect<number, UsageError> => {
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  return Number.isInteger(port) && port >= 0 && port <= 65_535
    ? Effect.succeed(port)
    : Effect.fail(
        new UsageError({ message: `invalid --port ${JSON.stringify(raw)}: expected a whole number from 0 to 65535` })
      )
}

/** `--port`: the port on 127.0.0.1, `fallback` unless given (0: any free port). */
export const portFlag = (fallback: number) =>
  Flag.String("port").pipe(
    Flag.withDefault(String(fallback)),
    Flag.withMetavar("port"),
    Flag.withDescription(
      `port on 127.0.0.1 (default: ${fallback === 0 ? "any free port" : `${fallback}; 0: any free port`})`
    )
  )

/** A count of bytes given to `flag`: a whole number of at least 1, else a usage error naming it. */
export const parseBytes =
  (flag: string) =>
  (raw: string): Effect.Effect<number, UsageError> => {
    const bytes = /^\d{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
    return Number.isSafeInteger(bytes) && bytes > 0
      ? Effect.succeed(bytes)
      : Effect.fail(
          new UsageError({
            message: `invalid ${flag} ${JSON.stringify(raw)}: expected a whole number of bytes, at least 1`
          })
        )
  }

/** Why `port` could not be listened on, as one line: taken, not this user's to bind, or the system's reason. */
export const portError = (port: number, cause: unknown): PortUnavailable => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  const reason =
    code === "EADDRINUSE"
      ? "is already in use"
      : code === "EACCES"
        ? "may not be bound by this user"
        : `cannot be bound (${cause instanceof Error ? cause.message : String(cause)})`
  return new PortUnavailable({ port, message: `port ${port} on 127.0.0.1 ${reason}` })
}

const chaosFlag = Flag.String("chaos").pipe(
  Flag.optional,
  Flag.withMetavar("rate"),
  Flag.withDescription(
    "seeded chaos: hit this share of requests (0 to 1) with faults, as the fixture's chaos options say (default: every kind)"
  )
)

const keepBodiesFlag = Flag.Boolean("keep-bodies").pipe(
  Flag.withDefault(false),
  Flag.withDescription(
    "keep each exchange's bodies (1 MiB each at most) in the log, for its HAR export (GET network/log?format=har, the inspector's Export HAR); without it the export carries only the answers of text, bytes, status and generated routes, made again"
  )
)

/** The fixture's chaos with `--chaos RATE` over its rate. */
export const chaosOf = (
  flag: Option.Option<string>,
  fromFixture: ChaosOptions | undefined
): Effect.Effect<ChaosOptions | undefined, UsageError> =>
  Option.match(flag, {
    onNone: () => Effect.succeed(fromFixture),
    onSome: (raw) => {
      const rate = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
      return Number.isFinite(rate)
        ? Effect.succeed({ ...fromFixture, rate })
        : Effect.fail(
            new UsageError({ message: `invalid --chaos ${JSON.stringify(raw)}: expected a rate from 0 to 1` })
          )
    }
  })

const passthroughFlag = Flag.String("passthrough").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host"),
  Flag.withDescription(
    "send what no route answers for HOST (repeatable; * for every host) to the real network: the only way a request leaves"
  )
)
const upstreamFlag = Flag.String("upstream").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host=url"),
  Flag.withDescription("send HOST's passthrough requests to URL instead (repeatable)")
)

const recordFlag = Flag.String("record").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription(
    "record mode: what no route answers is forwarded to its real host (or --upstream), streamed back, and written to FILE as a fixture as it goes and when the server stops (merged with what FILE held); without --fixture, what FILE already holds is served (replay what it has, record what it lacks)"
  )
)

const recordModeFlag = Flag.Literals("record-mode", ["new", "all", "none"]).pipe(
  Flag.withDefault("new"),
  Flag.withDescription(
    "with --record FILE: new (replay what FILE holds, record what it lacks), all (replay nothing, record everything, FILE replaced by the new recording), none (replay FILE only, forward nothing)"
  )
)

/**
 * The routes `--passthrough`, `--record` and `--upstream` ask for, and at the end the recording to
 * write (the scope's finalizer writes it). For a `sealed` run, what they forward for a host the
 * user did not name reaches no address on the host's own networks.
 */
export const forwardingRoutes = (
  hosts: ReadonlyArray<string>,
  upstreams: ReadonlyArray<string>,
  record: Option.Option<string>,
  sealed = false
): Effect.Effect<{ readonly routes: ReadonlyArray<Route>; readonly recorder: Recorder | undefined }, UsageError> =>
  Effect.gen(function* () {
    const upstream: Record<string, string> = {}
    for (const pair of upstreams) {
      const at = pair.indexOf("=")
      if (at <= 0 || !URL.canParse(pair.slice(at + 1)))
        return yield* new UsageError({ message: `invalid --upstream ${JSON.stringify(pair)}: expected HOST=URL` })
      upstream[pair.slice(0, at)] = pair.slice(at + 1)
    }
    const unused = Object.keys(upstream).filter((host) => !hosts.includes(host))
    if (unused.length > 0 && Option.isNone(record))
      return yield* new UsageError({
        message: `--upstream ${unused[0]}=… needs --passthrough ${unused[0]} or --record`
      })
    const routes: Array<Route> = passthrough(
      hosts,
      Object.fromEntries(Object.entries(upstream).filter(([host]) => hosts.includes(host))),
      sealed
    )
    if (Option.isNone(record)) return { routes, recorder: undefined }
    const problem = recordingTargetProblem(path.resolve(process.cwd(), record.value))
    if (problem !== undefined)
      return yield* new UsageError({ message: `cannot record into --record ${record.value}: ${problem}` })
    const recording = recorder({ upstream, sealed })
    return { routes: [...routes, recording.route], recorder: recording }
  })

/** `--ca-dir`: where the proxy's local CA lives. */
export const caDirFlag = Flag.String("ca-dir").pipe(
  Flag.optional,
  Flag.withMetavar("dir"),
  Flag.withDescription(
    "where the proxy's local CA lives (default: SIMNET_CA_DIR, else ~/.config/simnet/ca); made there on first use"
  )
)

/**
 * The flags that make a command's network, written once for every command that serves one
 * (`serve`, `run`, `mcp`): the fixture and seed, a driver's hold, the proxy's CA, seeded chaos,
 * passthrough and upstreams, record mode, and kept bodies. `fixtureNetwork` makes the network.
 */
export const networkFlags = {
  fixture: Flag.String("fixture").pipe(
    Flag.optional,
    Flag.withMetavar("file"),
    Flag.withDescription(
      "fixture file, relative to the current directory (default: simnet's own fixtures/default.json)"
    )
  ),
  seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (default: the fixture's, else 0)")),
  drive: Flag.Boolean("drive").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "hold model requests no script or rule serves for a driver, even before one attaches (the driver socket's URL is printed; simnet mcp answers them with llm_respond)"
    )
  ),
  caDir: caDirFlag,
  chaos: chaosFlag,
  passthrough: passthroughFlag,
  upstream: upstreamFlag,
  record: recordFlag,
  recordMode: recordModeFlag,
  keepBodies: keepBodiesFlag
}

/** The size of the terminal a command runs in (`run --tty`, `mcp`, `explore`). */
export const terminalFlags = {
  cols: Flag.Int("cols").pipe(Flag.withDefault(100), Flag.withDescription("the terminal's width (default: 100)")),
  rows: Flag.Int("rows").pipe(Flag.withDefault(30), Flag.withDescription("the terminal's height (default: 30)"))
}

/** `--trace FILE`: the replay trace `serve`, `run` and `mcp` write. */
export const traceFlag = Flag.String("trace").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription("write a replay trace (JSON lines) to FILE")
)

/** What `networkFlags` decode to: the network's flags as `fixtureNetwork` reads them. */
export interface NetworkFlags {
  readonly fixture: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly drive: boolean
  readonly chaos: Option.Option<string>
  readonly passthrough: ReadonlyArray<string>
  readonly upstream: ReadonlyArray<string>
  readonly record: Option.Option<string>
  readonly recordMode: "new" | "all" | "none"
  readonly keepBodies: boolean
  /** A sealed run's network (`--isolate`): see `forwardingRoutes`. */
  readonly isolate?: boolean | undefined
}

/**
 * The network a command answers from: the fixture (`--fixture`, else simnet's own) with the flags
 * over it. In record mode the recording is written when the scope closes.
 */
export const fixtureNetwork = (config: NetworkFlags, defaultFixture: string = DEFAULT_FIXTURE) =>
  Effect.gen(function* () {
    // Replay or record in one flag, as Polly and nock.back do: `--record F` alone serves what F
    // already holds and records what it lacks (`--record-mode new`); `all` serves nothing and
    // records everything; `none` serves F and forwards nothing. Recording never starts from
    // simnet's own fixture, whose model families would answer what is to be recorded.
    const recordFile = Option.map(config.record, (f) => path.resolve(process.cwd(), f))
    const mode = Option.isSome(recordFile) ? config.recordMode : undefined
    const replayed =
      Option.isSome(recordFile) && mode !== "all" && (mode === "none" || existsSync(recordFile.value))
        ? recordFile.value
        : undefined
    const file = Option.match(config.fixture, {
      onNone: () => replayed ?? (mode === undefined ? defaultFixture : undefined),
      onSome: (f) => path.resolve(process.cwd(), f)
    })
    // The record file is checked before it is read as the fixture: a file that cannot be merged
    // into is refused as a recording target, naming why.
    const forwarding = yield* forwardingRoutes(
      config.passthrough,
      mode === "none" ? [] : config.upstream,
      mode === "none" ? Option.none() : config.record,
      config.isolate === true
    )
    const fixture =
      file === undefined
        ? { seed: undefined, routes: [], llm: [], llmRules: [], chaos: undefined, prompts: [], files: {} }
        : yield* loadFixture(file)
    const seed = Option.match(config.seed, { onNone: () => fixture.seed, onSome: parseSeed })
    const chaos = yield* chaosOf(config.chaos, fixture.chaos)
    const network = yield* makeNetwork({
      seed,
      routes: [...fixture.routes, ...forwarding.routes],
      llm: fixture.llm,
      llmRules: fixture.llmRules,
      drive: config.drive,
      chaos,
      keepBodies: config.keepBodies
    })
    yield* writeOnClose(config.record, forwarding.recorder, network, mode === "all")
    return { file, network, files: fixture.files }
  })

/** `--record FILE`: the recording written as it grows, and whole when the scope closes (the server stops), what it holds said on standard error. */
const writeOnClose = (
  file: Option.Option<string>,
  kept: Recorder | undefined,
  network: { readonly redactor: Redactor; readonly seed: number },
  fresh: boolean
) => {
  if (Option.isNone(file) || kept === undefined) return Effect.void
  const target = path.resolve(process.cwd(), file.value)
  const persisted = persist(kept, target, { redactor: network.redactor, seed: network.seed, fresh })
  return Effect.addFinalizer(() =>
    Effect.sync(() => {
      let flushed: ReturnType<typeof persisted.flush>
      try {
        flushed = persisted.flush()
      } catch (error) {
        process.stderr.write(
          `simnet: could not write the recording into ${printable(file.value)}: ${printable(error instanceof Error ? error.message : String(error))}\n`
        )
        process.exitCode = 1
        return
      }
      const { written, recording } = flushed
      const overflow = kept.overflow()
      if (written === undefined) {
        process.stderr.write(
          `simnet: recorded nothing (no request was forwarded); ${printable(file.value)} was not written\n`
        )
        return
      }
      const calls = recording.llm?.rules.length ?? 0
      const aside = written === target ? "" : ` (${printable(file.value)} could not be merged into any more)`
      for (const warning of recording.warnings ?? [])
        process.stderr.write(`simnet: recorded in part: ${printable(warning)}\n`)
      process.stderr.write(
        `simnet: recorded ${recording.routes.length} route${recording.routes.length === 1 ? "" : "s"}${calls === 0 ? "" : ` and ${calls} model call${calls === 1 ? "" : "s"}`} into ${printable(written === target ? file.value : written)}${aside}${overflow === 0 ? "" : `; ${overflow} more exchange${overflow === 1 ? " was" : "s were"} answered but not recorded (past the recording's ${MAX_RECORDING_BYTES / 1024 / 1024} MiB, or a body over ${MAX_RECORDED_BODY / 1024 / 1024} MiB)`}\n`
      )
    })
  )
}

/** The proxy's CA in `dir`, made there on first use; a usage error naming the directory and the fix when it cannot be used. */
export const caIn = (dir: string) =>
  Effect.try({
    try: () => loadCa(dir),
    catch: (cause) =>
      new UsageError({
        message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  })

/** The start-up check of a CA that is made at the first CONNECT: usable if there, else makeable. */
export const caChecked = (dir: string) =>
  Effect.try({
    try: () => checkCa(dir),
    catch: (cause) =>
      new UsageError({
        message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  })

/** `--refusal-status CODE`: the status a refused request is answered with. */
export const refusalStatusFlag = (fallback: number, why: string) =>
  Flag.String("refusal-status").pipe(
    Flag.withDefault(String(fallback)),
    Flag.withMetavar("code"),
    Flag.withDescription(
      `the status a request no route answers gets, 400-599 (default: ${fallback}${why}); the body names the request and the nearest routes either way`
    )
  )

/** `--refusal-status`: a status from 400 to 599, else a usage error naming it. */
export const parseRefusalStatus = (text: string) => {
  const code = Number(text)
  return Number.isInteger(code) && code >= 400 && code <= 599
    ? Effect.succeed(code)
    : Effect.fail(
        new UsageError({
          message: `--refusal-status must be a status from 400 to 599, got ${JSON.stringify(text.slice(0, 40))}`
        })
      )
}

/** `--manifest FILE` on `serve`, `run` and `mcp`: where the endpoints' URLs are written (`writeManifest`). */
export const manifestFlag = Flag.String("manifest").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription(
    'once listening, write the endpoints\' URLs to FILE as JSON ({ "endpoints": { "network", "control", "driver", "inspector", "mcp" } }), whole or not at all; removed when simnet exits, however it exits'
  )
)

/**
 * Writes the endpoint manifest of `--manifest FILE` (when given) for the life of the scope:
 * `{ "endpoints": { network, control, driver, inspector, mcp } }`, whole or not at all (its
 * directory made if missing), and removed when the scope closes — a normal end, an error, SIGINT
 * or SIGTERM (which interrupt the program) — or, failing that, when the process exits, or is hung
 * up on with no one else listening for SIGHUP (whose default ends the process: the file is removed
 * first, then the signal raised again). A file another process has written there since is left.
 */
export const writeManifest = (
  file: Option.Option<string>,
  endpoints: Endpoints
): Effect.Effect<void, UsageError, Scope.Scope> => {
  if (Option.isNone(file)) return Effect.void
  const target = path.resolve(process.cwd(), file.value)
  const text = `${JSON.stringify({ endpoints }, null, 2)}\n`
  const remove = () => {
    try {
      if (readFileSync(target, "utf8") === text) rmSync(target, { force: true })
    } catch {
      // Gone already, or not ours to read: nothing to remove.
    }
  }
  const hangup = () => {
    if (process.listenerCount("SIGHUP") > 1) return
    remove()
    process.off("SIGHUP", hangup)
    process.kill(process.pid, "SIGHUP")
  }
  return Effect.acquireRelease(
    Effect.try({
      try: () => {
        makeDirectory(path.dirname(target))
        writeFileAtomic(target, text)
        process.once("exit", remove)
        process.on("SIGHUP", hangup)
      },
      catch: (cause) => new UsageError({ message: `cannot write --manifest ${file.value}: ${errorMessage(cause)}` })
    }),
    () =>
      Effect.sync(() => {
        process.off("exit", remove)
        process.off("SIGHUP", hangup)
        remove()
      })
  )
}

/** A size in bytes, or with a binary suffix: `k`, `m`, `g` (`512m`, `2g`), at least `least`. */
const parseSize = (flag: string, raw: string, least: number): Effect.Effect<number, UsageError> => {
  const found = /^(\d{1,12})([kmg]?)$/i.exec(raw.trim())
  const bytes = found === null ? Number.NaN : Number(found[1]) * 1024 ** " kmg".indexOf((found[2] || " ").toLowerCase())
  return Number.isSafeInteger(bytes) && bytes >= least
    ? Effect.succeed(bytes)
    : Effect.fail(
        new UsageError({
          message: `invalid ${flag} ${JSON.stringify(raw.slice(0, 40))}: expected a size of at least ${least} bytes, in bytes or with k, m or g (512m, 2g)`
        })
      )
}

/** The fewest processes a room may be bounded to: its relay alone runs a dozen threads. */
const LEAST_PIDS = 32

/** `--isolate` and its bounds (`isolate.ts`): one set of flags for every command that seals. */
export const isolateFlags = {
  isolate: Flag.Boolean("isolate").pipe(
    Flag.withDefault(false),
    Flag.withDescription(
      "seal the command off (Linux): its own network, mount, PID and IPC namespaces, where every name resolves to simnet and every connection is simnet's or refused; its own workspace seeded from the fixture's files, HOME and temporary directory in a sized tmpfs; the rest of the host read-only, a minimal /dev, no capabilities; everything in it ends with simnet"
    )
  ),
  isolatePids: Flag.Int("isolate-pids").pipe(
    Flag.optional,
    Flag.withMetavar("n"),
    Flag.withDescription(
      `with --isolate: the most processes (threads included) the room holds (default: ${ISOLATE_DEFAULTS.pids}; at least ${LEAST_PIDS})`
    )
  ),
  isolateDisk: Flag.String("isolate-disk").pipe(
    Flag.optional,
    Flag.withMetavar("size"),
    Flag.withDescription(
      "with --isolate: the size of the sandbox's tmpfs, which holds the workspace, HOME, TMPDIR and what /tmp gets (default: 2g)"
    )
  ),
  isolateShm: Flag.String("isolate-shm").pipe(
    Flag.optional,
    Flag.withMetavar("size"),
    Flag.withDescription("with --isolate: the size of /dev/shm (default: 512m)")
  ),
  isolateControl: Flag.Literals("isolate-control", ["room", "none", "host"]).pipe(
    Flag.optional,
    Flag.withMetavar("who"),
    Flag.withDescription(
      "with --isolate: what the command may do through the control endpoint, driver and MCP: room (default: all but registering a route that forwards to the host's network, without the host's token), none, or host (as the host, its SIMNET_TOKEN passed in)"
    )
  )
}

/** The `--isolate-*` flags as `IsolateOptions` (their defaults where not given); undefined without `--isolate`, whose bounds are then a usage error. */
export const isolateOptions = (config: {
  readonly isolate: boolean
  readonly isolatePids: Option.Option<number>
  readonly isolateDisk: Option.Option<string>
  readonly isolateShm: Option.Option<string>
  readonly isolateControl: Option.Option<IsolateOptions["control"]>
}): Effect.Effect<IsolateOptions | undefined, UsageError> =>
  Effect.gen(function* () {
    const given = [config.isolatePids, config.isolateDisk, config.isolateShm, config.isolateControl].some(
      (option: Option.Option<unknown>) => Option.isSome(option)
    )
    if (!config.isolate)
      return given
        ? yield* new UsageError({ message: "the --isolate-* flags bound a sealed run: add --isolate" })
        : undefined
    const pids = Option.getOrElse(config.isolatePids, () => ISOLATE_DEFAULTS.pids)
    if (pids < LEAST_PIDS)
      return yield* new UsageError({ message: `invalid --isolate-pids ${pids}: at least ${LEAST_PIDS}` })
    return {
      pids,
      disk: yield* Option.match(config.isolateDisk, {
        onNone: () => Effect.succeed(ISOLATE_DEFAULTS.disk),
        onSome: (raw) => parseSize("--isolate-disk", raw, 1024 * 1024)
      }),
      shm: yield* Option.match(config.isolateShm, {
        onNone: () => Effect.succeed(ISOLATE_DEFAULTS.shm),
        onSome: (raw) => parseSize("--isolate-shm", raw, 4096)
      }),
      control: Option.getOrElse(config.isolateControl, () => ISOLATE_DEFAULTS.control)
    }
  })
