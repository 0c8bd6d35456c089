/**
 * `simnet serve`: a fixture's network on 127.0.0.1 until SIGINT or SIGTERM, as a loopback server
 * (`http://127.0.0.1:PORT/HOST/PATH` is `https://HOST/PATH`) and an HTTP(S) proxy, with the control
 * endpoint, the driver socket, the inspector and the agents' MCP tools beside it.
 */
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as HttpServer from "effect/http/HttpServer"
import { endpointsOf, controlRuntime } from "../control/runtime.ts"
import { printable } from "../registry/util.ts"
import { caDirectory } from "../serve/ca.ts"
import { DEFAULT_BODY_LIMIT, serveLayer } from "../serve/serve.ts"
import {
  caChecked,
  DEFAULT_PORT,
  fixtureNetwork,
  manifestFlag,
  networkFlags,
  parseBytes,
  parsePort,
  parseRefusalStatus,
  portError,
  portFlag,
  refusalStatusFlag,
  traceFlag,
  writeManifest
} from "./flags.ts"

/** `simnet serve`. */
export const serve = Command.make(
  "serve",
  {
    port: portFlag(DEFAULT_PORT),
    ...networkFlags,
    trace: traceFlag,
    bodyLimit: Flag.String("body-limit").pipe(
      Flag.optional,
      Flag.withMetavar("bytes"),
      Flag.withDescription(
        `largest request body on a network path, in bytes (default: ${DEFAULT_BODY_LIMIT}); 413 past it`
      )
    ),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("no line per request")),
    refusalStatus: refusalStatusFlag(502, ""),
    manifest: manifestFlag
  },
  (config) =>
    Effect.gen(function* () {
      const port = yield* parsePort(config.port)
      const bodyLimit = yield* Option.match(config.bodyLimit, {
        onNone: () => Effect.succeed(DEFAULT_BODY_LIMIT),
        onSome: parseBytes("--body-limit")
      })
      const refusalStatus = yield* parseRefusalStatus(config.refusalStatus)
      yield* caChecked(caDirectory(Option.getOrUndefined(config.caDir)))
      const { file, network } = yield* fixtureNetwork(config)
      const control = yield* controlRuntime(network, {
        trace: Option.getOrUndefined(config.trace),
        quiet: config.quiet
      })
      const announce = Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        const routes = yield* network.routes
        yield* writeManifest(config.manifest, endpointsOf(base))
        yield* Console.log(
          printable(
            `simnet serving ${routes.length} routes from ${file ?? "no fixture (--record-mode all)"} (seed ${network.seed})`
          )
        )
        for (const route of routes) {
          if (route.simulated === false)
            yield* Console.log(printable(`  not simulated: ${route.id}: ${String(route.message ?? route.match)}`))
          if (typeof route.refused === "string")
            yield* Console.log(printable(`  not served:    ${route.id}: ${route.refused}`))
        }
        yield* Console.log(printable(`  network:  ${base}/HOST/PATH  ->  https://HOST/PATH`))
        yield* Console.log(printable(`  example:  ${base}/api.openai.com/v1`))
        yield* control.announce(base)
      })
      yield* Layer.launch(
        Layer.effectDiscard(announce).pipe(
          Layer.provideMerge(
            serveLayer(network, port, control.routes, {
              watch: control.watch,
              bodyLimit,
              refusalStatus,
              caDir: Option.getOrUndefined(config.caDir)
            })
          )
        )
      ).pipe(Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause))))
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("serve a fixture's simulated network over loopback HTTP"))
