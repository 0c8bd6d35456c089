/**
 * `simnet mcp [options] [-- COMMAND]`: the agents' MCP tools over stdio, on a fixture's network
 * served on a free port, with COMMAND (when given) in a terminal the tools see and type into.
 */
import { Context, Effect, Layer, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as HttpServer from "effect/http/HttpServer"
import { serveAgentTools } from "../control/agentTools.ts"
import { controlRuntime, endpointsOf } from "../control/runtime.ts"
import { printable } from "../registry/util.ts"
import { simnetVersion } from "../registry/version.ts"
import { caDirectory } from "../serve/ca.ts"
import { emulatorFailed, runEnv } from "../serve/child.ts"
import { serveLayer } from "../serve/serve.ts"
import { spawnTerminal, type Terminal } from "../terminal/terminal.ts"
import {
  caIn,
  fixtureNetwork,
  manifestFlag,
  networkFlags,
  terminalFlags,
  traceFlag,
  UsageError,
  writeManifest
} from "./flags.ts"

/** `simnet mcp`. */
export const mcp = Command.make(
  "mcp",
  {
    ...networkFlags,
    ...terminalFlags,
    manifest: manifestFlag,
    trace: traceFlag,
    command: Argument.String("command").pipe(
      Argument.variadic,
      Argument.withDescription("a command to run in a terminal the tools see and type into, after --")
    )
  },
  (config) =>
    Effect.scoped(
      Effect.gen(function* () {
        const { network } = yield* fixtureNetwork(config)
        let terminal: Terminal | undefined
        const control = yield* controlRuntime(network, {
          trace: Option.getOrUndefined(config.trace),
          quiet: true,
          terminal: () => terminal
        })
        const caDir = caDirectory(Option.getOrUndefined(config.caDir))
        const authority = yield* caIn(caDir)
        const served = yield* Layer.build(serveLayer(network, 0, control.routes, { watch: control.watch, caDir }))
        const base = HttpServer.formatAddress(Context.get(served, HttpServer.HttpServer).address)
        yield* writeManifest(config.manifest, endpointsOf(base))
        const { env, driverUrl } = runEnv(base, authority.certFile)
        const [command, ...args] = config.command as ReadonlyArray<string>
        if (command !== undefined)
          terminal = yield* spawnTerminal(command, args, {
            cols: config.cols,
            rows: config.rows,
            env,
            onFailure: emulatorFailed(command, control.traceLine)
          }).pipe(Effect.mapError((error) => new UsageError({ message: error.message })))
        process.stderr.write(
          `${printable(`simnet mcp: tools over stdio${command === undefined ? "" : `; ${command} runs in a ${config.cols}x${config.rows} terminal`}; driver: ${driverUrl}`)}\n`
        )
        yield* serveAgentTools(network, () => terminal, simnetVersion(), control.traceChange)
      })
    )
).pipe(
  Command.withDescription(
    "an MCP server over stdio that lets an agent observe and drive the simulation: the command's terminal, the network and the model"
  )
)
