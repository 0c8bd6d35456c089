/**
 * Fixture files: `{ "seed": 0, "routes": [RouteSpec...], "llm": [LlmScript...] }`. A fixture is
 * decoded with the same Schema as the control endpoint, and every problem names what it is: a
 * file that cannot be read (`FixtureUnreadable`), text that is not JSON (`FixtureNotJson`, with
 * line and column), a bad route (`InvalidRouteSpec` at `routes[i]...`) or a bad script
 * (`InvalidLlmInput` at `llm[i]...`).
 */
import type * as Fs from "node:fs/promises"
import type { ChaosOptions } from "../registry/chaos.ts"
import { Effect, Result } from "effect"
import { withFields, type Route } from "../registry/route.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import { type FileContent, filesRefusal } from "../fileSystem/workspace.ts"
import { errorMessage } from "../registry/util.ts"
import { defaultDecodeContext } from "../families/index.ts"
import { decodeRouteSpecs, type DecodeContext } from "../schemas/decode.ts"
import { LlmScript } from "../schemas/llmScript.ts"
import { FixtureFile } from "../schemas/routeSpec.ts"
import {
  type FixtureError,
  FixtureNotJson,
  FixtureUnreadable,
  type InvalidLlmInput,
  InvalidRouteSpec
} from "../SimnetError.ts"
import { SimulatedProvider, SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import { decodeInput, under } from "../models/provider/validate.ts"

/**
 * A decoded fixture: its seed, its routes, the LLM scripts to queue on the model and its rules
 * (`LlmRuleSpec` JSON, checked). `llm` in the file is the queue (an array), or
 * `{ "queue": [...], "rules": [...] }`.
 */
export interface Fixture {
  readonly seed: number | string | undefined
  readonly routes: ReadonlyArray<Route>
  readonly llm: ReadonlyArray<LlmScript>
  readonly llmRules: ReadonlyArray<unknown>
  /** Seeded chaos, when the fixture asks for it (`"chaos": { "rate": 0.1 }`). */
  readonly chaos: ChaosOptions | undefined
  /**
   * What a person might type into the app (`simnet explore` types them among its generated
   * text): the fixture's `prompts`, then the texts its model rules match on (`contains`,
   * `lastUserMessage`), each once.
   */
  readonly prompts: ReadonlyArray<string>
  /** The files a sealed run's workspace starts with (`files`), their paths checked. */
  readonly files: Readonly<Record<string, FileContent>>
}

/** The texts model rules match on (`contains`, `lastUserMessage`): prompts the fixture expects. */
const ruleTexts = (rules: ReadonlyArray<unknown>): Array<string> =>
  rules.flatMap((rule) => {
    const match = typeof rule === "object" && rule !== null ? (rule as { match?: unknown }).match : undefined
    if (typeof match !== "object" || match === null) return []
    return ["contains", "lastUserMessage"].flatMap((key) => {
      const text = (match as Record<string, unknown>)[key]
      return typeof text === "string" && text !== "" ? [text] : []
    })
  })

const decodeScript =
  (base: string) =>
  (json: unknown, index: number): Effect.Effect<LlmScript, InvalidLlmInput> =>
    Effect.fromResult(decodeInput(LlmScript, json, "script", `${base}[${index}]`))

/** Whether a fixture's `llm` is the queue alone (an array), as before `{ queue, rules }`. */
const isQueue = (llm: unknown): llm is ReadonlyArray<unknown> => Array.isArray(llm)

/** Checks rules on a model of their own, as `addRules` checks them: the first problem, named under `base`. */
const checkRules = (rules: ReadonlyArray<unknown>, base: string): Effect.Effect<void, InvalidLlmInput> =>
  Effect.asVoid(under(SimulatedProviderApi.addRules(SimulatedProvider.make({ logLimit: 0 }), rules), base))

/**
 * Decodes a fixture document.
 */
export const decodeFixture = (json: unknown, context: DecodeContext = {}): Effect.Effect<Fixture, FixtureError> =>
  Effect.gen(function* () {
    const file = yield* Effect.fromResult(
      Result.mapError(
        decodeAt(FixtureFile, json, "", { onExcessProperty: "error" }),
        (issue) => new InvalidRouteSpec({ path: issue.path || "$", message: `not a fixture file: ${issue.message}` })
      )
    )
    const decoded = yield* decodeRouteSpecs(file.routes ?? [], {
      ...defaultDecodeContext,
      source: "fixture",
      ...context
    }).pipe(
      Effect.mapError((error) =>
        error instanceof InvalidRouteSpec
          ? new InvalidRouteSpec({ path: `routes${error.path}`, message: error.message })
          : error
      )
    )
    const given = file.llm
    const asQueue = isQueue(given)
    const llm = yield* Effect.forEach(
      asQueue ? given : (given?.queue ?? []),
      decodeScript(asQueue ? "llm" : "llm.queue")
    )
    const llmRules = asQueue ? [] : (given?.rules ?? [])
    yield* checkRules(llmRules, "llm.rules")
    const routes = decoded.routes.map((route) => withFields(route, { specPath: `routes${route.specPath ?? ""}` }))
    const prompts = [...new Set([...(file.prompts ?? []), ...ruleTexts(llmRules)])]
    const files = file.files ?? {}
    const refused = filesRefusal(files)
    if (refused !== undefined) return yield* refused
    return { seed: file.seed, routes, llm, llmRules, chaos: file.chaos, prompts, files }
  })

/**
 * The offset of the first character `JSON.parse` cannot take in `text`, or `undefined` when the
 * text is only cut short. V8 names a position for some errors but not for an unexpected token, so
 * without one the offset is found by bisection: a prefix of valid JSON fails only for running
 * out, and the shortest prefix that fails otherwise ends at the culprit.
 */
const badOffset = (text: string): number | undefined => {
  const failure = (prefix: string): { readonly at: number | undefined; readonly short: boolean } | undefined => {
    try {
      JSON.parse(prefix)
      return undefined
    } catch (error) {
      const message = errorMessage(error)
      const at = /position (\d+)/.exec(message)
      const offset = at === null ? undefined : Number(at[1])
      const short = /end of JSON input|Unterminated/.test(message) || (offset !== undefined && offset >= prefix.length)
      return { at: offset, short }
    }
  }
  const whole = failure(text)
  if (whole === undefined || whole.short) return whole === undefined ? undefined : text.length
  if (whole.at !== undefined) return whole.at
  let lo = 1
  let hi = text.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const found = failure(text.slice(0, mid))
    if (found !== undefined && !found.short) hi = mid
    else lo = mid + 1
  }
  return lo - 1
}

/** Line and column (from 1) of an offset in `text`. */
const lineColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, offset)
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") }
}

/**
 * Parses fixture text: `FixtureNotJson` naming `file`, line and column when it is not JSON.
 */
export const parseFixtureText = (file: string, text: string): Result.Result<unknown, FixtureNotJson> => {
  try {
    return Result.succeed(JSON.parse(text) as unknown)
  } catch (error) {
    const { line, column } = lineColumn(text, badOffset(text) ?? text.length)
    const detail = errorMessage(error)
      .replace(/\s*\(line \d+ column \d+\)$/, "")
      .replace(/, ".*" is not valid JSON$/s, "")
    return Result.fail(new FixtureNotJson({ file, line, column, detail }))
  }
}

/**
 * Reads and decodes a fixture file.
 */
export const loadFixture = (file: string, context: DecodeContext = {}): Effect.Effect<Fixture, FixtureError> =>
  Effect.tryPromise({
    // node:fs/promises loads with the first fixture read, not with import("simnet").
    try: () => (process.getBuiltinModule("node:fs/promises") as typeof Fs).readFile(file, "utf8"),
    catch: (error) => {
      const code = (error as { code?: unknown }).code
      const reason =
        code === "ENOENT"
          ? "file not found"
          : code === "EISDIR"
            ? "is a directory"
            : code === "EACCES"
              ? "permission denied"
              : "unreadable"
      return new FixtureUnreadable({
        file,
        reason,
        ...(reason === "unreadable" ? { detail: errorMessage(error) } : {})
      })
    }
  }).pipe(
    Effect.flatMap((text) => Effect.fromResult(parseFixtureText(file, text))),
    // Files the fixture names (a GraphQL schema's `{ "file" }`) are read beside it, and only there.
    Effect.flatMap((json) =>
      decodeFixture(json, {
        baseDir: (process.getBuiltinModule("node:path") as typeof import("node:path")).dirname(file),
        ...context
      })
    )
  )
