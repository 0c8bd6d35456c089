/**
 * Fixture files: `{ "seed": 0, "routes": [RouteSpec...], "llm": [LlmScript...] }`. A fixture is
 * decoded with the same Schema as the control endpoint, and every problem names its JSON path.
 */
import * as fs from "node:fs/promises"
import { Effect, Result, Schema } from "effect"
import { decodeAt } from "./registry/schemaPath.ts"
import type { Route } from "./registry/route.ts"
import { defaultDecodeContext } from "./Routes.ts"
import { decodeRouteSpecs, type DecodeContext } from "./RouteSpec.ts"
import { LlmScript } from "./schemas/llmScript.ts"
import { FixtureFile } from "./schemas/routeSpec.ts"
import { InvalidRouteSpec, type SimnetError } from "./SimnetError.ts"

/**
 * A decoded fixture: its seed, its routes, and the LLM scripts to queue on the model.
 */
export interface Fixture {
  readonly seed: number | string | undefined
  readonly routes: ReadonlyArray<Route>
  readonly llm: ReadonlyArray<LlmScript>
}

const decodeScript = (json: unknown, index: number): Effect.Effect<LlmScript, InvalidRouteSpec> =>
  Effect.fromResult(Result.mapError(decodeAt(LlmScript, json, `llm[${index}]`), (issue) => new InvalidRouteSpec(issue)))

/**
 * Decodes a fixture document.
 */
export const decodeFixture = (json: unknown, context: DecodeContext = {}): Effect.Effect<Fixture, SimnetError> =>
  Effect.gen(function*() {
    const file = yield* Schema.decodeUnknownEffect(FixtureFile)(json).pipe(
      Effect.mapError((issue) => new InvalidRouteSpec({ path: "$", message: `not a fixture file: ${issue.message}` }))
    )
    const decoded = yield* decodeRouteSpecs(file.routes ?? [], { ...defaultDecodeContext, source: "fixture", ...context }).pipe(
      Effect.mapError((error) =>
        error instanceof InvalidRouteSpec ? new InvalidRouteSpec({ path: `routes${error.path}`, message: error.message }) : error
      )
    )
    const llm = yield* Effect.forEach(file.llm ?? [], decodeScript)
    const routes = decoded.routes.map((route) => ({ ...route, specPath: `routes${route.specPath ?? ""}` }))
    return { seed: file.seed, routes, llm }
  })

/**
 * Reads and decodes a fixture file. A missing file or bad JSON is an `InvalidRouteSpec` at `$`
 * naming the file.
 */
export const loadFixture = (file: string, context: DecodeContext = {}): Effect.Effect<Fixture, SimnetError> =>
  Effect.tryPromise({
    try: async () => JSON.parse(await fs.readFile(file, "utf8")) as unknown,
    catch: (error) => new InvalidRouteSpec({ path: "$", message: `cannot read fixture ${file}: ${error instanceof Error ? error.message : String(error)}` })
  }).pipe(Effect.flatMap((json) => decodeFixture(json, context)))
