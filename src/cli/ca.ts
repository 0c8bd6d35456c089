/**
 * `simnet ca [--pem]`: the path of the proxy's local CA certificate (made on first use), or the
 * certificate itself, for a client that must trust it.
 */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { printable } from "../registry/util.ts"
import { caDirectory } from "../serve/ca.ts"
import { caDirFlag, caIn } from "./flags.ts"

/** `simnet ca`. */
export const ca = Command.make(
  "ca",
  {
    pem: Flag.Boolean("pem").pipe(
      Flag.withDefault(false),
      Flag.withDescription("print the certificate itself, not its path")
    ),
    caDir: caDirFlag
  },
  (config) =>
    Effect.gen(function* () {
      const authority = yield* caIn(caDirectory(Option.getOrUndefined(config.caDir)))
      yield* Console.log(printable(config.pem ? authority.certPem.trimEnd() : authority.certFile))
    })
).pipe(
  Command.withDescription(
    "print the path of the proxy's local CA certificate (made on first use), or with --pem the certificate"
  )
)
