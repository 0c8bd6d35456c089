/**
 * What `simnet serve`, `simnet run` and `simnet mcp` share on the command line: the usage error
 * (exit 2), the port, the network flags and the network made from them (the fixture, record mode,
 * chaos, passthrough and upstreams), the CA, the refusal status, the endpoint manifest, and
 * `--isolate` with its bounds.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import * as path from "node:path"
import { Data, Effect, Option, type Scope } from "effect"
import { Flag } from "effect/cli"
import { makeDirectory, writeFileAtomic } from "../core/files.ts"
import { errorMessage } from "../core/util.ts"
import { checkCa, loadCa } from "./ca.ts"
import type { Endpoints } from "./run.ts"
import type { Route } from "../core/route.ts"
import { passthrough } from "../families/passthrough.ts"
import { type Recorder, recorder, recordingTargetProblem } from "../families/record.ts"
import { writeOnClose } from "./recording.ts"
import { loadFixture } from "../network/fixture.ts"
import { make as makeNetwork } from "../network/network.ts"
import type { ChaosOptions } from "../core/chaos.ts"
import { ISOLATE_DEFAULTS, type IsolateOptions } from "./isolate.ts"

/** A command line the user must correct (exit 2). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The port asked for is taken or not ours to bind (exit 1). */
export class PortUnavailable extends Data.TaggedError("PortUnavailable")<{ readonly port: number; readonly message: string }> {}

export const parseSeed = (seed: string): number | string => (/^-?\d+$/.test(seed) ? Number(seed) : seed)

export const parsePort = (raw: string): Effect.Effect<number, UsageError> => {
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  return Number.isInteger(port) && port >= 0 && port <= 65_535
    ? Effect.succeed(port)
    : Effect.fail(new UsageError({ message: `invalid --port ${JSON.stringify(raw)}: expected a whole number from 0 to 65535` }))
}

/** `--port`: the port on 127.0.0.1, `fallback` unless given (0: any free port). */
export const portFlag = (fallback: number) =>
  Flag.String("port").pipe(
    Flag.withDefault(String(fallback)),
    Flag.withMetavar("port"),
    Flag.withDescription(`port on 127.0.0.1 (default: ${fallback === 0 ? "any free port" : `${fallback}; 0: any free port`})`)
  )

export const parseBytes = (flag: string) => (raw: string): Effect.Effect<number, UsageError> => {
  const bytes = /^\d{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
  return Number.isSafeInteger(bytes) && bytes > 0
    ? Effect.succeed(bytes)
    : Effect.fail(new UsageError({ message: `invalid ${flag} ${JSON.stringify(raw)}: expected a whole number of bytes, at least 1` }))
}

export const portError = (port: number, cause: unknown): PortUnavailable => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  const reason = code === "EADDRINUSE"
    ? "is already in use"
    : code === "EACCES"
    ? "may not be bound by this user"
    : `cannot be bound (${cause instanceof Error ? cause.message : String(cause)})`
  return new PortUnavailable({ port, message: `port ${port} on 127.0.0.1 ${reason}` })
}

export const chaosFlag = Flag.String("chaos").pipe(
  Flag.optional,
  Flag.withMetavar("rate"),
  Flag.withDescription("seeded chaos: hit this share of requests (0 to 1) with faults, as the fixture's chaos options say (default: every kind)")
)

export const keepBodiesFlag = Flag.Boolean("keep-bodies").pipe(
  Flag.withDefault(false),
  Flag.withDescription("keep each exchange's bodies (1 MiB each at most) in the log, for its HAR export (GET network/log?format=har, the inspector's Export HAR); without it the export carries only the answers of text, bytes, status and generated routes, made again")
)

/** The fixture's chaos with `--chaos RATE` over its rate. */
export const chaosOf = (flag: Option.Option<string>, fromFixture: ChaosOptions | undefined): Effect.Effect<ChaosOptions | undefined, UsageError> =>
  Option.match(flag, {
    onNone: () => Effect.succeed(fromFixture),
    onSome: (raw) => {
      const rate = /^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN
      return Number.isFinite(rate)
        ? Effect.succeed({ ...fromFixture, rate })
        : Effect.fail(new UsageError({ message: `invalid --chaos ${JSON.stringify(raw)}: expected a rate from 0 to 1` }))
    }
  })

export const passthroughFlag = Flag.String("passthrough").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host"),
  Flag.withDescription("send what no route answers for HOST (repeatable; * for every host) to the real network: the only way a request leaves")
)
export const upstreamFlag = Flag.String("upstream").pipe(
  Flag.atLeast(0),
  Flag.withMetavar("host=url"),
  Flag.withDescription("send HOST's passthrough requests to URL instead (repeatable)")
)

export const recordFlag = Flag.String("record").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription("record mode: what no route answers is forwarded to its real host (or --upstream), streamed back, and written to FILE as a fixture as it goes and when the server stops (merged with what FILE held); without --fixture, what FILE already holds is served (replay what it has, record what it lacks)")
)

export const recordModeFlag = Flag.Literals("record-mode", ["new", "all", "none"]).pipe(
  Flag.withDefault("new"),
  Flag.withDescription("with --record FILE: new (replay what FILE holds, record what it lacks), all (replay nothing, record everything, FILE replaced by the new recording), none (replay FILE only, forward nothing)")
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
  Effect.gen(function*() {
    const upstream: Record<string, string> = {}
    for (const pair of upstreams) {
      const at = pair.indexOf("=")
      if (at <= 0 || !URL.canParse(pair.slice(at + 1))) return yield* new UsageError({ message: `invalid --upstream ${JSON.stringify(pair)}: expected HOST=URL` })
      upstream[pair.slice(0, at)] = pair.slice(at + 1)
    }
    const unused = Object.keys(upstream).filter((host) => !hosts.includes(host))
    if (unused.length > 0 && Option.isNone(record)) return yield* new UsageError({ message: `--upstream ${unused[0]}=… needs --passthrough ${unused[0]} or --record` })
    const routes: Array<Route> = passthrough(hosts, Object.fromEntries(Object.entries(upstream).filter(([host]) => hosts.includes(host))), sealed)
    if (Option.isNone(record)) return { routes, recorder: undefined }
    const problem = recordingTargetProblem(path.resolve(process.cwd(), record.value))
    if (problem !== undefined) return yield* new UsageError({ message: `cannot record into --record ${record.value}: ${problem}` })
    const recording = recorder({ upstream, sealed })
    return { routes: [...routes, recording.route], recorder: recording }
  })

/** The flags `serve` and `run` share that make the network. */
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
 * The network `serve` and `run` answer from: the fixture (`--fixture`, else simnet's own) with
 * the flags over it. In record mode the recording is written when the scope closes.
 */
export const fixtureNetwork = (config: NetworkFlags, defaultFixture: string) =>
  Effect.gen(function*() {
    // Replay or record in one flag, as Polly and nock.back do: `--record F` alone serves what F
    // already holds and records what it lacks (`--record-mode new`); `all` serves nothing and
    // records everything; `none` serves F and forwards nothing. Recording never starts from
    // simnet's own fixture, whose model families would answer what is to be recorded.
    const recordFile = Option.map(config.record, (f) => path.resolve(process.cwd(), f))
    const mode = Option.isSome(recordFile) ? config.recordMode : undefined
    const replayed = Option.isSome(recordFile) && mode !== "all" && (mode === "none" || existsSync(recordFile.value)) ? recordFile.value : undefined
    const file = Option.match(config.fixture, { onNone: () => replayed ?? (mode === undefined ? defaultFixture : undefined), onSome: (f) => path.resolve(process.cwd(), f) })
    // The record file is checked before it is read as the fixture: a file that cannot be merged
    // into is refused as a recording target, naming why.
    const forwarding = yield* forwardingRoutes(config.passthrough, mode === "none" ? [] : config.upstream, mode === "none" ? Option.none() : config.record, config.isolate === true)
    const fixture = file === undefined ? { seed: undefined, routes: [], llm: [], llmRules: [], chaos: undefined, prompts: [], files: {} } : yield* loadFixture(file)
    const seed = Option.match(config.seed, { onNone: () => fixture.seed, onSome: parseSeed })
    const chaos = yield* chaosOf(config.chaos, fixture.chaos)
    const network = yield* makeNetwork({ seed, routes: [...fixture.routes, ...forwarding.routes], llm: fixture.llm, llmRules: fixture.llmRules, drive: config.drive, chaos, keepBodies: config.keepBodies })
    yield* writeOnClose(config.record, forwarding.recorder, network, mode === "all")
    return { file, network, files: fixture.files }
  })

/** The proxy's CA in `dir`, made there on first use; a usage error naming the directory and the fix when it cannot be used. */
export const caIn = (dir: string) =>
  Effect.try({ try: () => loadCa(dir), catch: (cause) => new UsageError({ message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}` }) })

/** The start-up check of a CA that is made at the first CONNECT: usable if there, else makeable. */
export const caChecked = (dir: string) =>
  Effect.try({ try: () => checkCa(dir), catch: (cause) => new UsageError({ message: `cannot use the CA in ${dir}: ${cause instanceof Error ? cause.message : String(cause)}` }) })

export const caDirFlag = Flag.String("ca-dir").pipe(
  Flag.optional,
  Flag.withMetavar("dir"),
  Flag.withDescription("where the proxy's local CA lives (default: SIMNET_CA_DIR, else ~/.config/simnet/ca); made there on first use")
)

/** `--refusal-status CODE`: the status a refused request is answered with. */
export const refusalStatusFlag = (fallback: number, why: string) =>
  Flag.String("refusal-status").pipe(
    Flag.withDefault(String(fallback)),
    Flag.withMetavar("code"),
    Flag.withDescription(`the status a request no route answers gets, 400-599 (default: ${fallback}${why}); the body names the request and the nearest routes either way`)
  )

export const parseRefusalStatus = (text: string) => {
  const code = Number(text)
  return Number.isInteger(code) && code >= 400 && code <= 599
    ? Effect.succeed(code)
    : Effect.fail(new UsageError({ message: `--refusal-status must be a status from 400 to 599, got ${JSON.stringify(text.slice(0, 40))}` }))
}

/** `--manifest FILE` on `serve`, `run` and `mcp`: where the endpoints' URLs are written (`writeManifest`). */
export const manifestFlag = Flag.String("manifest").pipe(
  Flag.optional,
  Flag.withMetavar("file"),
  Flag.withDescription("once listening, write the endpoints' URLs to FILE as JSON ({ \"endpoints\": { \"network\", \"control\", \"driver\", \"inspector\", \"mcp\" } }), whole or not at all; removed when simnet exits, however it exits")
)

/**
 * Writes the endpoint manifest of `--manifest FILE` (when given) for the life of the scope:
 * `{ "endpoints": { network, control, driver, inspector, mcp } }`, whole or not at all (its
 * directory made if missing), and removed when the scope closes — a normal end, an error, SIGINT
 * or SIGTERM (which interrupt the program) — or, failing that, when the process exits, or is hung
 * up on with no one else listening for SIGHUP (whose default ends the process: the file is removed
 * first, then the signal raised again). A file another process has written there since is left.
 */
export const writeManifest = (file: Option.Option<string>, endpoints: Endpoints): Effect.Effect<void, UsageError, Scope.Scope> => {
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
    : Effect.fail(new UsageError({ message: `invalid ${flag} ${JSON.stringify(raw.slice(0, 40))}: expected a size of at least ${least} bytes, in bytes or with k, m or g (512m, 2g)` }))
}

/** The fewest processes a room may be bounded to: its relay alone runs a dozen threads. */
const LEAST_PIDS = 32

/** `--isolate` and its bounds (`isolate.ts`): one set of flags for every command that seals. */
export const isolateFlags = {
  isolate: Flag.Boolean("isolate").pipe(Flag.withDefault(false), Flag.withDescription("seal the command off (Linux): its own network, mount, PID and IPC namespaces, where every name resolves to simnet and every connection is simnet's or refused; its own workspace seeded from the fixture's files, HOME and temporary directory in a sized tmpfs; the rest of the host read-only, a minimal /dev, no capabilities; everything in it ends with simnet")),
  isolatePids: Flag.Int("isolate-pids").pipe(Flag.optional, Flag.withMetavar("n"), Flag.withDescription(`with --isolate: the most processes (threads included) the room holds (default: ${ISOLATE_DEFAULTS.pids}; at least ${LEAST_PIDS})`)),
  isolateDisk: Flag.String("isolate-disk").pipe(Flag.optional, Flag.withMetavar("size"), Flag.withDescription("with --isolate: the size of the sandbox's tmpfs, which holds the workspace, HOME, TMPDIR and what /tmp gets (default: 2g)")),
  isolateShm: Flag.String("isolate-shm").pipe(Flag.optional, Flag.withMetavar("size"), Flag.withDescription("with --isolate: the size of /dev/shm (default: 512m)")),
  isolateControl: Flag.Literals("isolate-control", ["room", "none", "host"]).pipe(Flag.optional, Flag.withMetavar("who"), Flag.withDescription("with --isolate: what the command may do through the control endpoint, driver and MCP: room (default: all but registering a route that forwards to the host's network, without the host's token), none, or host (as the host, its SIMNET_TOKEN passed in)"))
}

/** The `--isolate-*` flags as `IsolateOptions` (their defaults where not given); undefined without `--isolate`, whose bounds are then a usage error. */
export const isolateOptions = (config: {
  readonly isolate: boolean
  readonly isolatePids: Option.Option<number>
  readonly isolateDisk: Option.Option<string>
  readonly isolateShm: Option.Option<string>
  readonly isolateControl: Option.Option<IsolateOptions["control"]>
}): Effect.Effect<IsolateOptions | undefined, UsageError> =>
  Effect.gen(function*() {
    const given = [config.isolatePids, config.isolateDisk, config.isolateShm, config.isolateControl].some((option: Option.Option<unknown>) => Option.isSome(option))
    if (!config.isolate) return given ? yield* new UsageError({ message: "the --isolate-* flags bound a sealed run: add --isolate" }) : undefined
    const pids = Option.getOrElse(config.isolatePids, () => ISOLATE_DEFAULTS.pids)
    if (pids < LEAST_PIDS) return yield* new UsageError({ message: `invalid --isolate-pids ${pids}: at least ${LEAST_PIDS}` })
    return {
      pids,
      disk: yield* Option.match(config.isolateDisk, { onNone: () => Effect.succeed(ISOLATE_DEFAULTS.disk), onSome: (raw) => parseSize("--isolate-disk", raw, 1024 * 1024) }),
      shm: yield* Option.match(config.isolateShm, { onNone: () => Effect.succeed(ISOLATE_DEFAULTS.shm), onSome: (raw) => parseSize("--isolate-shm", raw, 4096) }),
      control: Option.getOrElse(config.isolateControl, () => ISOLATE_DEFAULTS.control)
    }
  })
