/**
 * `property(name, arbitraries, body)`: a fast-check property with a fresh simulated network per
 * case. When a case fails, fast-check shrinks it; the shrunk case is then run once more on a
 * fresh network, and one file is written with everything needed to look at it: fast-check's seed
 * and path (to run it again), the counterexample, the error, the network's state before and after
 * (routes as RouteSpecs, chaos, the log) and its trace in the form `replayTrace` reads.
 * `simnet show FILE` opens it in the inspector, read-only. `onNetwork` is the same case for
 * another property runner.
 */
import fc from "fast-check"
import * as path from "node:path"
import { Data, Effect } from "effect"
import { makeDirectory, writeFileAtomic } from "../fileSystem/files.ts"
import { type NetworkHandle, startHandle } from "../network/handle.ts"
import type { NetworkOptions } from "../network/network.ts"
import { wasReset } from "../registry/requestRecord.ts"
import { requestTraceLine } from "./traceLines.ts"

/** Options of `property`. */
export interface PropertyOptions<Values extends ReadonlyArray<unknown>> {
  /** The network each case runs on, from the case's values (its routes, model scripts, chaos, seed). */
  readonly network?: ((...values: Values) => NetworkOptions) | undefined
  /** fast-check's own: `numRuns` (default 100), `seed`, `path` (to run one case again). */
  readonly numRuns?: number | undefined
  readonly seed?: number | undefined
  readonly path?: string | undefined
  /** Where the failing case's file goes (default `.simnet/failures` under the current directory). */
  readonly failures?: string | undefined
  /**
   * How long one case may take before it fails as not settling (default `DEFAULT_CASE_TIMEOUT_MS`):
   * a chaos `timeout` never answers, and a client without a timeout of its own would wait forever.
   * The failure names the requests and model calls still pending and the chaos that hit them.
   */
  readonly timeoutMs?: number | undefined
}

/**
 * The values a tuple of arbitraries draws, in order: what `property`'s body and `network` take
 * (inferred from the arbitraries, so a body may leave out values it does not use).
 */
export type ValuesOf<Arbitraries extends ReadonlyArray<fc.Arbitrary<unknown>>> = {
  -readonly [K in keyof Arbitraries]: Arbitraries[K] extends fc.Arbitrary<infer T> ? T : never
}

/** How long one case of `property` may take by default, in milliseconds. */
export const DEFAULT_CASE_TIMEOUT_MS = 10_000

/** A case that did not settle within its `timeoutMs`: what was still pending, and why it may be. */
export class CaseTimedOut extends Data.TaggedError("CaseTimedOut")<{
  readonly timeoutMs: number
  readonly pending: ReadonlyArray<string>
}> {
  override get message(): string {
    return `the case did not settle within ${this.timeoutMs} ms${this.pending.length === 0 ? "" : `; still pending:\n${this.pending.map((line) => `  - ${line}`).join("\n")}`}\n(a chaos "timeout" never answers: give the client a timeout of its own, or leave "timeout" out of the chaos faults)`
  }
}

/** What a network still has pending: requests with no answer yet (with the chaos that hit them) and model calls waiting. */
const pendingOf = (network: NetworkHandle): Array<string> => [
  ...network
    .log()
    .filter((record) => record.status === undefined && record.denial === undefined && !wasReset(record))
    .map(
      (record) =>
        `${record.method} ${record.url}${record.chaos === undefined ? "" : ` (chaos: ${record.chaos.effect})`}${record.fault === undefined ? "" : ` (fault: ${record.fault})`}`
    ),
  ...network.llm.pending.map((call) => `model call ${call.id} waiting for its script or driver`)
]

/** The file a failing case writes (`simnet show` reads it). */
export interface FailureFile {
  readonly simnet: "property-failure/v1"
  readonly name: string
  readonly seed: number
  readonly path: string | undefined
  readonly counterexample: unknown
  readonly error: string
  /** The network's state when the case began, and when it had failed (its log included). */
  readonly start: unknown
  readonly end: unknown
  /** The case's trace as JSON-lines objects: `replayTrace(trace.map(JSON.stringify).join("\n"))`. */
  readonly trace: ReadonlyArray<Record<string, unknown>>
}

/** A value as JSON (functions and cycles as text), for the counterexample in the file. */
const jsonable = (value: unknown): unknown => {
  const seen = new WeakSet<object>()
  return JSON.parse(
    JSON.stringify(value, (_, v: unknown) => {
      if (typeof v === "function") return `[function ${v.name || "anonymous"}]`
      if (typeof v === "bigint") return `${v}n`
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[cycle]"
        seen.add(v)
      }
      return v
    }) ?? "null"
  )
}

const message = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error))

/** Runs `body` on a fresh network for `values`, and returns what the network looked like. */
const runCase = async <Values extends ReadonlyArray<unknown>>(
  options: PropertyOptions<Values>,
  body: (network: NetworkHandle, ...values: Values) => unknown,
  values: Values
) => {
  const network = await startHandle(options.network?.(...values) ?? {})
  const start = Effect.runSync(network.network.state)
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS
  let failure: unknown
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await Promise.race([
      Promise.resolve().then(() => body(network, ...values)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CaseTimedOut({ timeoutMs, pending: pendingOf(network) })), timeoutMs)
      })
    ])
  } catch (error) {
    failure = error
  } finally {
    clearTimeout(timer)
  }
  const end = Effect.runSync(network.network.state)
  const log = network.log()
  await network.close()
  return { failure, start, end, log }
}

/**
 * Runs the property; resolves when every case holds, rejects with fast-check's report and the
 * failing case's file otherwise. Works inside `@effect/vitest`'s `it.prop`-style tests and any
 * test runner: it is a Promise.
 */
export const property = async <const Arbitraries extends ReadonlyArray<fc.Arbitrary<unknown>>>(
  name: string,
  arbitraries: Arbitraries,
  body: (network: NetworkHandle, ...values: ValuesOf<Arbitraries>) => unknown,
  options: PropertyOptions<ValuesOf<Arbitraries>> = {}
): Promise<void> => {
  type Values = ValuesOf<Arbitraries>
  const check = fc.asyncProperty(
    ...(arbitraries as unknown as [fc.Arbitrary<unknown>]),
    async (...values: Array<unknown>) => {
      const { failure } = await runCase(options, body, values as unknown as Values)
      if (failure !== undefined) throw failure
    }
  )
  const details = await fc.check(check, {
    numRuns: options.numRuns ?? 100,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.path === undefined ? {} : { path: options.path })
  })
  if (!details.failed) return
  const values = (details.counterexample ?? []) as unknown as Values
  const again = await runCase(options, body, values)
  const target = writeFailure(
    name,
    details.seed,
    details.counterexamplePath ?? undefined,
    values,
    again,
    details.errorInstance,
    options.failures
  )
  const error = new Error(
    `${fc.defaultReportMessage(details)}\n\nThe shrunk case failed with: ${message(again.failure ?? details.errorInstance)}\n\nsimnet: the failing case is in ${target} (open it with: simnet show ${target})`
  )
  ;(error as Error & { file?: string }).file = target
  throw error
}

/** Writes the file of a failing case (atomically) and returns its path. */
const writeFailure = (
  name: string,
  seed: number,
  fcPath: string | undefined,
  values: ReadonlyArray<unknown>,
  again: Awaited<ReturnType<typeof runCase>>,
  fallbackError: unknown,
  failures: string | undefined
): string => {
  const trace: Array<Record<string, unknown>> = [
    { type: "start", seed: (again.start as { seed: number }).seed, state: again.start },
    ...again.log.map(requestTraceLine)
  ]
  const file: FailureFile = {
    simnet: "property-failure/v1",
    name,
    seed,
    path: fcPath,
    counterexample: jsonable(values),
    error: message(again.failure ?? fallbackError),
    start: again.start,
    end: again.end,
    trace
  }
  const dir = failures ?? path.join(process.cwd(), ".simnet", "failures")
  makeDirectory(dir)
  const target = path.join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80) || "property"}-${seed}.json`)
  writeFileAtomic(target, `${JSON.stringify(file, null, 2)}\n`)
  return target
}

/**
 * For another property runner (`@effect/vitest`'s `it.effect.prop`, with Schemas such as
 * `Schemas.LlmScript.LlmScript` or Effect `Arbitrary`s): the body of one case as an Effect, run
 * on a fresh network. A failing case writes the same file `property` writes (under the runner's
 * shrinking, the last one written is the smallest), then fails with the case's error, its
 * message naming the file.
 */
export const onNetwork =
  <Values extends ReadonlyArray<unknown>>(
    name: string,
    body: (network: NetworkHandle, ...values: Values) => unknown,
    options: Pick<PropertyOptions<Values>, "network" | "failures" | "timeoutMs"> = {}
  ) =>
  (...values: Values): Effect.Effect<void, Error> =>
    Effect.flatMap(
      Effect.promise(() => runCase(options, body, values)),
      (outcome) => {
        if (outcome.failure === undefined) return Effect.void
        const target = writeFailure(name, 0, undefined, values, outcome, outcome.failure, options.failures)
        const error = new Error(
          `${message(outcome.failure)}\n\nsimnet: the failing case is in ${target} (open it with: simnet show ${target})`
        )
        ;(error as Error & { file?: string }).file = target
        return Effect.fail(error)
      }
    )
