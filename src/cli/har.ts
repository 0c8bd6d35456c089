/**
 * `simnet har import FILE`: a HAR 1.2 file printed as a fixture (a route for each request,
 * credentials left out), the entries skipped and why on standard error.
 */
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { Console, Effect } from "effect"
import { Argument, Command } from "effect/cli"
import { fromHar } from "../network/harImport.ts"
import { defaultRedactor } from "../registry/redact.ts"
import { printable } from "../registry/util.ts"
import { UsageError } from "./flags.ts"

/** `simnet har import FILE`. */
const harImport = Command.make(
  "import",
  { file: Argument.String("file").pipe(Argument.withDescription("a HAR 1.2 file")) },
  (config) =>
    Effect.gen(function* () {
      const file = path.resolve(process.cwd(), config.file)
      const imported = yield* Effect.try({
        try: () => fromHar(JSON.parse(readFileSync(file, "utf8")), defaultRedactor),
        catch: (cause) =>
          new UsageError({
            message: `cannot import ${file}: ${cause instanceof Error ? cause.message : String(cause)}`
          })
      })
      yield* Console.log(printable(JSON.stringify({ routes: imported.routes }, null, 2)))
      for (const { reason } of imported.skipped) yield* Console.error(printable(`simnet: skipped ${reason}`))
      yield* Console.error(
        printable(
          `simnet: imported ${imported.imported} of ${imported.imported + imported.skipped.length} entries as ${imported.routes.length} route${imported.routes.length === 1 ? "" : "s"}; ${imported.skipped.length} skipped`
        )
      )
    })
).pipe(
  Command.withDescription(
    "print a HAR 1.2 file as a fixture (routes for each request, credentials left out); entries skipped, and why, on standard error"
  )
)

/** `simnet har`: its subcommands. */
export const har = Command.make("har").pipe(Command.withDescription("HAR files"), Command.withSubcommands([harImport]))
