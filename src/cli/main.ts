/**
 * The `simnet` command line: the table of commands (each a file of this folder; the flags they
 * share are `flags.ts`), and how a run ends. A command is one file and one line in the table below.
 *
 * Exit codes: 0 after help or a clean stop, 2 for a usage error (one line, or the help once for
 * an unknown command or flag), 1 for anything else (one line naming the problem).
 */
import { Cause, Console, Effect, Exit } from "effect"
import * as Runtime from "effect/Runtime"
import { Command } from "effect/cli"
import * as CliError from "effect/cli/CliError"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { printable } from "../registry/util.ts"
import { simnetVersion } from "../registry/version.ts"
import { ca } from "./ca.ts"
import { explore } from "./explore.ts"
import { har } from "./har.ts"
import { mcp } from "./mcp.ts"
import { run } from "./run.ts"
import { serve } from "./serve.ts"
import { show } from "./show.ts"

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
    const line =
      e.message?.startsWith("simnet: ") === true
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
    return Effect.andThen(
      line === undefined ? Effect.void : Console.error(printable(line)),
      Effect.sync(() => void (process.exitCode = code))
    )
  }),
  Effect.provide(NodeServices.layer),
  (program) => NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
)
