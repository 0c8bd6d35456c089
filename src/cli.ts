/**
 * The `simnet` command line. `simnet serve [--fixture FILE] [--port N] [--seed S]` serves a
 * fixture's network on 127.0.0.1 until SIGINT or SIGTERM.
 */
import { Cause, Console, Effect, Exit, Layer, Option } from "effect"
import * as Runtime from "effect/Runtime"
import { Command, Flag } from "effect/cli"
import * as HttpServer from "effect/http/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { serveLayer } from "./control/serve.ts"
import { controlRuntime } from "./control/run.ts"
import { loadFixture } from "./Fixture.ts"
import { SimulationNetwork } from "./SimulationNetwork.ts"

/**
 * The port `simnet serve` listens on when `--port` is not given.
 */
export const DEFAULT_PORT = 4747

const parseSeed = (seed: string): number | string => (/^-?\d+$/.test(seed) ? Number(seed) : seed)

const serve = Command.make(
  "serve",
  {
    fixture: Flag.String("fixture").pipe(Flag.withDefault("fixtures/default.json"), Flag.withDescription("fixture file to serve")),
    port: Flag.Int("port").pipe(Flag.withDefault(DEFAULT_PORT), Flag.withDescription("port on 127.0.0.1 (0: any free port)")),
    seed: Flag.String("seed").pipe(Flag.optional, Flag.withDescription("run seed (overrides the fixture's)")),
    // Control plane flags (see control/run.ts).
    trace: Flag.String("trace").pipe(Flag.optional, Flag.withDescription("write a replay trace (JSON lines) to FILE")),
    drive: Flag.Boolean("drive").pipe(Flag.withDefault(false), Flag.withDescription("hold model requests no script or rule serves for a driver, even before one attaches")),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("no line per request"))
  },
  (config) =>
    Effect.gen(function*() {
      const fixture = yield* loadFixture(config.fixture)
      const seed = Option.match(config.seed, { onNone: () => fixture.seed, onSome: parseSeed })
      const network = yield* SimulationNetwork.make({ seed, routes: fixture.routes, llm: fixture.llm, drive: config.drive })
      const control = yield* controlRuntime(network, { trace: Option.getOrUndefined(config.trace), quiet: config.quiet })
      const announce = Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        const routes = yield* network.routes
        yield* Console.log(`simnet serving ${routes.length} routes from ${config.fixture} (seed ${network.seed})`)
        yield* Console.log(`  network:  ${base}/HOST/PATH  ->  https://HOST/PATH`)
        yield* Console.log(`  example:  ${base}/api.openai.com/v1`)
        yield* control.announce(base)
      })
      yield* Layer.launch(Layer.effectDiscard(announce).pipe(Layer.provideMerge(serveLayer(network, config.port, control.routes))))
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("serve a fixture's simulated network over loopback HTTP"))

const simnet = Command.make("simnet").pipe(
  Command.withDescription("a simulated network for Effect apps and their tests"),
  Command.withSubcommands([serve])
)

const describeError = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const e = error as { _tag: string; message?: string; path?: string }
    return `simnet: ${e._tag}${e.path === undefined ? "" : ` at ${e.path}`}: ${e.message ?? ""}`
  }
  return `simnet: ${String(error)}`
}

/** SIGINT and SIGTERM end the server cleanly (exit 0); failures exit 1 with one readable line. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

Command.run(simnet, { version: "0.1.0" }).pipe(
  Effect.tapError((error) => Console.error(describeError(error))),
  Effect.provide(NodeServices.layer),
  (program) => NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
)
