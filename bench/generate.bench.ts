/**
 * Generated responses: simnet's whole pipeline (generate from the schema, encode with the
 * production schema, decode-check, serialise, answer through `fetch` and read the body) against
 * json-schema-faker's bare generation from the equivalent JSON Schema, in the same run, for the
 * models.dev catalog and a 20-field object. Then the cost of the 1st and of the 1 000th request
 * of a fresh route, to show the generator is compiled once per route, not per request.
 *
 * `npm run bench -- generate` (`--quick` for shorter runs).
 */
import { Result, Schema } from "effect"
import { generateSync } from "json-schema-faker"
import { compileGenerator } from "../src/routes/jsonSchema/generate.ts"
import { Catalog, CatalogGenerated } from "../src/schemas/models.ts"
import { Route, Routes, SimulationNetwork } from "../src/index.ts"
import { type Measure, measure, report } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000

const fields: Record<string, Schema.Codec<unknown, unknown>> = {}
for (let i = 0; i < 20; i++) {
  fields[`field${i}`] = [Schema.String, Schema.Int, Schema.Boolean, Schema.Finite][i % 4] as Schema.Codec<
    unknown,
    unknown
  >
}
const Object20 = Schema.Struct(fields) as Schema.Codec<unknown, unknown>

/** The JSON Schema of an Effect schema, with its definitions inlined as `$defs` for json-schema-faker. */
const jsonSchemaOf = (schema: Schema.Top): object => {
  const document = Schema.toJsonSchemaDocument(schema)
  return Object.keys(document.definitions).length === 0
    ? document.schema
    : { ...document.schema, $defs: document.definitions }
}

const jsf = (name: string, schema: object) =>
  measure(name, (i) => generateSync(schema as Parameters<typeof generateSync>[0], { seed: i + 1 }), {
    minMs,
    warmup: 500,
    minIterations: 200
  })

const throughFetch = async (name: string, routes: ReturnType<typeof Routes.models>, url: string): Promise<Measure> => {
  const handle = await SimulationNetwork.start({ seed: 1, routes })
  const result = await measure(name, async () => (await handle.fetch(url)).text(), {
    minMs,
    warmup: 500,
    minIterations: 200
  })
  await handle.close()
  return result
}

const pipelineOnly = (name: string, schema: Schema.Codec<unknown, unknown>, narrow?: Schema.Top): Promise<Measure> => {
  const compiled = compileGenerator(schema, { narrow, label: name })
  if (Result.isFailure(compiled)) throw compiled.failure
  const generate = compiled.success.generate
  return measure(name, (i) => generate(i), { minMs, warmup: 500, minIterations: 200 })
}

const micros = (start: number) => ((performance.now() - start) * 1000).toFixed(0)

/** Registration (compile and probe), then the 1st, 1 000th and mean of the 2nd..1 000th request. */
const firstVsThousandth = async (label: string, route: () => Route.Route, url: string) => {
  const handle = await SimulationNetwork.start({ seed: 1 })
  let start = performance.now()
  await handle.register(route())
  const register = micros(start)
  start = performance.now()
  await (await handle.fetch(url)).text()
  const first = micros(start)
  start = performance.now()
  for (let i = 2; i < 1_000; i++) await (await handle.fetch(url)).text()
  const middle = ((performance.now() - start) * 1000) / 998
  start = performance.now()
  await (await handle.fetch(url)).text()
  const thousandth = micros(start)
  await handle.close()
  console.log(
    `  ${label.padEnd(18)} register ${register.padStart(7)} µs   1st ${first.padStart(6)} µs   mean 2..999 ${middle
      .toFixed(0)
      .padStart(5)} µs   1000th ${thousandth.padStart(5)} µs`
  )
}

const best = (runs: ReadonlyArray<Measure>): Measure => runs.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a))

/** Runs every measurement of a table in turn, three rounds, and keeps the best of each. */
const interleaved = async (measurements: ReadonlyArray<() => Promise<Measure>>): Promise<Array<Measure>> => {
  const rounds: Array<Array<Measure>> = measurements.map(() => [])
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < measurements.length; i++) rounds[i].push(await measurements[i]())
  }
  return rounds.map(best)
}

/**
 * Runs the generation benchmarks and prints their tables. The measurements of a table alternate
 * over three rounds and the best of each counts, so load on the machine hits all of them alike.
 */
export const run = async (): Promise<void> => {
  console.log(`generate bench (node ${process.version}${quick ? ", --quick" : ""}); best of 3 interleaved rounds`)
  const catalogUrl = "https://models.dev/api.json"
  const catalog = await interleaved([
    () => jsf("json-schema-faker (narrowed catalog JSON Schema)", jsonSchemaOf(CatalogGenerated)),
    () => jsf("json-schema-faker (full catalog JSON Schema)", jsonSchemaOf(Catalog)),
    () => pipelineOnly("simnet generate+encode+check", Catalog as Schema.Codec<unknown, unknown>, CatalogGenerated),
    // The generated catalog (each answer a new seeded value); the real catalog is static bytes, shown apart.
    () =>
      throughFetch(
        "simnet served through fetch (generated)",
        Routes.models(undefined, { generated: true }),
        catalogUrl
      ),
    () => throughFetch("simnet served through fetch (static real catalog)", Routes.models(), catalogUrl)
  ])
  report("models.dev catalog, responses/s", catalog, "json-schema-faker (narrowed catalog JSON Schema)")

  const objectUrl = "https://api.example.com/object"
  const object = await interleaved([
    () => jsf("json-schema-faker", jsonSchemaOf(Object20)),
    () => pipelineOnly("simnet generate+encode+check", Object20),
    () => throughFetch("simnet served through fetch", [Route.json(`GET ${objectUrl}`, Object20)], objectUrl)
  ])
  report("20-field object, responses/s", object, "json-schema-faker")

  console.log("\nCompiled once per route: a fresh route's registration, 1st and 1 000th request")
  await firstVsThousandth("models.dev catalog", () => Routes.models(undefined, { generated: true })[0], catalogUrl)
  await firstVsThousandth("20-field object", () => Route.json(`GET ${objectUrl}`, Object20), objectUrl)
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
