/**
 * The end of a recording under `simnet serve` and `simnet run` (`--record FILE`): written as it
 * grows and whole when the scope closes, and what it holds said on standard error.
 */
import * as path from "node:path"
import { Effect, Option } from "effect"
import type { Redactor } from "../registry/redact.ts"
import { printable } from "../registry/util.ts"
import { MAX_RECORDED_BODY, MAX_RECORDING_BYTES, persist, type Recorder } from "../network/record/record.ts"

/** Writes the recording as it grows, and whole when the scope closes (the server stops), saying what it holds. */
export const writeOnClose = (file: Option.Option<string>, kept: Recorder | undefined, network: { readonly redactor: Redactor; readonly seed: number }, fresh: boolean) => {
  if (Option.isNone(file) || kept === undefined) return Effect.void
  const target = path.resolve(process.cwd(), file.value)
  const persisted = persist(kept, target, { redactor: network.redactor, seed: network.seed, fresh })
  return Effect.addFinalizer(() =>
    Effect.sync(() => {
      let flushed: ReturnType<typeof persisted.flush>
      try {
        flushed = persisted.flush()
      } catch (error) {
        process.stderr.write(`simnet: could not write the recording into ${printable(file.value)}: ${printable(error instanceof Error ? error.message : String(error))}\n`)
        process.exitCode = 1
        return
      }
      const { written, recording } = flushed
      const overflow = kept.overflow()
      if (written === undefined) {
        process.stderr.write(`simnet: recorded nothing (no request was forwarded); ${printable(file.value)} was not written\n`)
        return
      }
      const calls = recording.llm?.rules.length ?? 0
      const aside = written === target ? "" : ` (${printable(file.value)} could not be merged into any more)`
      for (const warning of recording.warnings ?? []) process.stderr.write(`simnet: recorded in part: ${printable(warning)}\n`)
      process.stderr.write(`simnet: recorded ${recording.routes.length} route${recording.routes.length === 1 ? "" : "s"}${calls === 0 ? "" : ` and ${calls} model call${calls === 1 ? "" : "s"}`} into ${printable(written === target ? file.value : written)}${aside}${overflow === 0 ? "" : `; ${overflow} more exchange${overflow === 1 ? " was" : "s were"} answered but not recorded (past the recording's ${MAX_RECORDING_BYTES / 1024 / 1024} MiB, or a body over ${MAX_RECORDED_BODY / 1024 / 1024} MiB)`}\n`)
    }))
}

