/**
 * `simnet run [options] -- COMMAND ARGS…`: a command with every HTTP(S) request it makes answered
 * by a fixture's network — a server on a free port, its proxy and CA in the command's environment
 * — optionally in a terminal the driver sees (`--tty`) or sealed off (`--isolate`); simnet exits
 * with the command's status (`--strict`: 1 when the network refused a request or a required route
 * went unused).
 */
import { Context, Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as HttpServer from "effect/http/HttpServer"
import { controlRuntime, endpointsOf } from "../control/runtime.ts"
import { printable } from "../registry/util.ts"
import { caDirectory } from "../serve/ca.ts"
import { RUN_REFUSAL_STATUS, runCommand, runEnv } from "../serve/child.ts"
import { resolveCommand, type RoomHooks, type SealedRun, sealRun } from "../serve/isolate.ts"
import { serveLayer } from "../serve/serve.ts"
import type { Terminal } from "../terminal/terminal.ts"
import {
  caIn,
  fixtureNetwork,
  isolateFlags,
  isolateOptions,
  manifestFlag,
  networkFlags,
  parsePort,
  parseRefusalStatus,
  portError,
  portFlag,
  refusalStatusFlag,
  terminalFlags,
  traceFlag,
  UsageError,
  writeManifest
} from "./flags.ts"

/** `simnet run`. */
export const run = Command.make(
  "run",
  {
    port: portFlag(0),
    ...networkFlags,
    trace: traceFlag,
    quiet: Flag.Boolean("quiet").pipe(
      Flag.withDefault(false),
      Flag.withDescription("no line per request (they go to standard error)")
    ),
    proxyLoopback: Flag.Boolean("proxy-loopback").pipe(
      Flag.withDefault(false),
      Flag.withDescription("send loopback traffic through the proxy too (default: NO_PROXY covers it)")
    ),
    refusalStatus: refusalStatusFlag(
      RUN_REFUSAL_STATUS,
      ", which no common client retries: a refused side call costs the command one round trip"
    ),
    strict: Flag.Boolean("strict").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "exit 1 when the command succeeded but the network refused a request or a route marked required was never used; each is named on standard error"
      )
    ),
    manifest: manifestFlag,
    tty: Flag.Boolean("tty").pipe(
      Flag.withDefault(false),
      Flag.withDescription(
        "run the command in a pseudo-terminal that the driver socket's ui.* methods see and type into (its URL is printed, and in the command's SIMNET_DRIVER_URL)"
      )
    ),
    ...terminalFlags,
    ...isolateFlags,
    command: Argument.String("command").pipe(
      Argument.variadic,
      Argument.withDescription("the command and its arguments, after --")
    )
  },
  (config) =>
    Effect.gen(function* () {
      const [command, ...args] = config.command as ReadonlyArray<string>
      if (command === undefined)
        return yield* new UsageError({ message: "simnet run needs a command: simnet run [options] -- COMMAND ARGS..." })
      const port = yield* parsePort(config.port)
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      const isolate = yield* isolateOptions(config)
      // A path is resolved from the directory simnet was started in: the sealed command starts in its workspace.
      const program = isolate === undefined ? command : resolveCommand(command)
      if (typeof program !== "string") return yield* program
      const { network, files } = yield* fixtureNetwork(config)
      const trace = Option.getOrUndefined(config.trace)
      let terminal: Terminal | undefined
      let sealed: SealedRun | undefined
      let room: RoomHooks | undefined
      const control = yield* controlRuntime(network, {
        trace,
        quiet: config.quiet,
        out: (line) => void process.stderr.write(`${line}\n`),
        terminal: () => terminal,
        workspace: () => sealed?.workspace
      })
      const caDir = caDirectory(Option.getOrUndefined(config.caDir))
      const authority = yield* caIn(caDir)
      const served = yield* Layer.build(
        serveLayer(network, port, control.routes, {
          watch: control.watch,
          caDir,
          refusalStatus,
          room: isolate === undefined ? undefined : (hooks) => void (room = hooks)
        })
      ).pipe(Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause))))
      const base = HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address)
      yield* writeManifest(config.manifest, endpointsOf(base))
      if (isolate !== undefined)
        sealed = yield* sealRun(
          files,
          Number(new URL(base).port),
          room!,
          authority.certPem,
          isolate,
          control.traceLine,
          program
        )
      // A sealed command reads the CA from its sandbox: the host's copy may be where the room cannot see.
      const { env, driverUrl } = runEnv(base, sealed?.ca ?? authority.certFile, { proxyLoopback: config.proxyLoopback })
      const target = sealed?.target(program, args, env, config.tty) ?? { command, args, env }
      const tty = config.tty
        ? {
            cols: config.cols,
            rows: config.rows,
            driverUrl,
            opened: (made: Terminal) => void (terminal = made),
            told: control.exitsTold,
            traceLine: control.traceLine
          }
        : undefined
      // Under --tty the terminal's line names the driver; a driven run without one names it here.
      if (tty === undefined && config.drive)
        process.stderr.write(`${printable(`simnet: driver: ${driverUrl} (llm.attach, llm.chunk, llm.finish, ...)`)}\n`)
      // A sealed command is held by its room; any other by a PID namespace of its own.
      const code = yield* runCommand(target.command, target.args, target.env, tty, sealed === undefined).pipe(
        Effect.mapError((error) => new UsageError({ message: error.message }))
      )
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
      process.stderr.write(
        `${printable(`simnet: ${parts.join(", ")}${trace === undefined ? "" : `; trace: ${trace}`}`)}\n`
      )
      process.exitCode = code
      // As nock's disableNetConnect with done(): a refusal, or a required route never used, fails
      // the run even when the command shrugged it off.
      const checked = config.strict ? yield* Effect.flip(network.verify).pipe(Effect.option) : Option.none()
      if (Option.isSome(checked)) {
        const { denied, refused, unused } = checked.value
        for (const record of refused)
          process.stderr.write(`${printable(`simnet: refused ${record.method} ${record.url} (${record.tag})`)}\n`)
        if (denied > refused.length) process.stderr.write(`simnet: and ${denied - refused.length} more refused\n`)
        for (const id of unused) process.stderr.write(`${printable(`simnet: required route ${id} was never used`)}\n`)
        process.stderr.write(
          `simnet: --strict: ${[...(denied === 0 ? [] : [`${denied} request${denied === 1 ? " was" : "s were"} refused`]), ...(unused.length === 0 ? [] : [`${unused.length} required route${unused.length === 1 ? " was" : "s were"} never used`])].join(", ")}\n`
        )
        if (code === 0) process.exitCode = 1
      }
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "run a command with every HTTP(S) request it makes answered by a fixture's network (a proxy and its CA in its environment)"
  )
)
