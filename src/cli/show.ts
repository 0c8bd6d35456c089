/**
 * `simnet show FILE`: a failing case's file — a property's (`simnet/testing`) or an explored run's
 * (`simnet explore`, its screens step by step) — opened in the inspector, read-only: the network's
 * end state restored, every control path answering 403.
 */
import * as path from "node:path"
import { Console, Effect, Layer } from "effect"
import { Argument, Command } from "effect/cli"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { CONTROL_BASE } from "../control/endpoint.ts"
import { type FailingCase, INSPECTOR_PATH, inspector } from "../control/inspector.ts"
import { make as makeNetwork } from "../network/network.ts"
import { printable } from "../registry/util.ts"
import { serveLayer } from "../serve/serve.ts"
import { type ExploreFileData, readFailureFile } from "../testing/failureFiles.ts"
import { parsePort, portError, portFlag, UsageError } from "./flags.ts"

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
    frames: shown.steps.map((step) => ({
      step: step.step,
      action: step.action,
      lines: step.screen.lines,
      cursor: step.screen.cursor,
      styles: step.screen.styles,
      requests: step.requests,
      failed: step.step === failure.step
    }))
  }
}

/** A failure file decoded (`testing/failureFiles.ts`); a bad one is a usage error naming the bad value (exit 2). */
const readShown = <K extends "explore-failure/v1" | "property-failure/v1">(file: string, kinds?: ReadonlyArray<K>) =>
  Effect.try({
    try: () => readFailureFile(file, kinds),
    catch: (cause) => new UsageError({ message: cause instanceof Error ? cause.message : String(cause) })
  })

/** `simnet show FILE`. */
export const show = Command.make(
  "show",
  {
    port: portFlag(0),
    file: Argument.String("file").pipe(
      Argument.withDescription("a failing case's file, as simnet/testing's property or simnet explore writes it")
    )
  },
  (config) =>
    Effect.gen(function* () {
      const port = yield* parsePort(config.port)
      const file = path.resolve(process.cwd(), config.file)
      const failure = yield* readShown(file)
      const network = yield* makeNetwork()
      // The network's end state is decoded as any snapshot is; a bad one names its path under `end`.
      yield* network.restore(failure.end).pipe(
        Effect.mapError(
          (error) =>
            new UsageError({
              message: `${file} at end${"path" in error && typeof error.path === "string" && error.path !== "" ? `.${error.path}` : ""}: ${error.message}`
            })
        )
      )
      // Read-only: the inspector alone, the case first; every other control path answers 403.
      const log = yield* network.log
      const failed = [...log].reverse().find((r) => r.denial !== undefined || (r.status ?? 0) >= 500) ?? log.at(-1)
      const step =
        failed === undefined
          ? undefined
          : `#${failed.seq} ${failed.method} ${failed.url} → ${failed.denial ?? failed.fault ?? failed.status ?? "no answer"}`
      const failing =
        failure.simnet === "explore-failure/v1"
          ? exploredCase(file, failure)
          : {
              name: failure.name,
              error: failure.error,
              seed: failure.seed ?? network.seed,
              path: failure.path,
              counterexample: failure.counterexample,
              step
            }
      const page = inspector(network, {}, failing)
      const readOnly = HttpRouter.add("*", `${CONTROL_BASE}/*`, () =>
        Effect.succeed(
          HttpServerResponse.jsonUnsafe(
            { error: { tag: "ReadOnly", message: "simnet show is read-only: it has no control endpoint" } },
            { status: 403 }
          )
        )
      )
      const announce = Effect.gen(function* () {
        const server = yield* HttpServer.HttpServer
        const base = HttpServer.formatAddress(server.address)
        yield* Console.log(
          printable(
            `simnet: the failing case of ${JSON.stringify(failing.name)} (${(yield* network.log).length} requests), read-only`
          )
        )
        yield* Console.log(printable(`  error:     ${failing.error.split("\n")[0]}`))
        yield* Console.log(printable(`  inspector: ${base}${INSPECTOR_PATH}`))
      })
      yield* Layer.launch(
        Layer.effectDiscard(announce).pipe(
          Layer.provideMerge(serveLayer(network, port, Layer.merge(page.layer, readOnly), { watch: [page.watch] }))
        )
      ).pipe(Effect.catchTag("ServeError", (error) => Effect.fail(portError(port, error.cause))))
    }).pipe(Effect.scoped)
).pipe(
  Command.withDescription(
    "open a failing property case (simnet/testing) or explored run (simnet explore: its screens step by step) in the inspector, read-only"
  )
)
