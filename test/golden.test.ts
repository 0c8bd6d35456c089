/**
 * Golden bodies: generated values are stable within a simnet version. The same seed gives the
 * same bytes across runs and processes; these files hold a few of them. After a deliberate change
 * to generation (or an `effect` upgrade), regenerate them with `SIMNET_UPDATE_GOLDEN=1 npx vitest
 * run test/golden.test.ts` and say so in the changelog.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { Route, Routes, RouteSpec, Schemas, SimulationNetwork } from "simnet"

const { NAMED_SCHEMAS } = Schemas

const update = process.env.SIMNET_UPDATE_GOLDEN === "1"

/**
 * Compares `body` with the golden file. In update mode (`SIMNET_UPDATE_GOLDEN=1`) the file is
 * written instead and nothing is asserted: that run regenerates, it does not test (it used to
 * compare each file with itself).
 */
const golden = (name: string, body: string) => {
  const file = new URL(`./golden/${name}.json`, import.meta.url)
  if (update) return writeFileSync(file, body)
  expect(body).toBe(readFileSync(file, "utf8"))
}

const fields: Record<string, Schema.Codec<unknown, unknown>> = {}
for (let i = 0; i < 20; i++) {
  fields[`field${i}`] = [Schema.String, Schema.Int, Schema.Boolean, Schema.Number][i % 4] as Schema.Codec<
    unknown,
    unknown
  >
}

describe("golden bodies", () => {
  it("the models.dev catalog generated at run seed 0", async () => {
    const handle = await SimulationNetwork.start({ seed: 0, routes: Routes.models(undefined, { generated: true }) })
    golden("models.catalog.seed0", await (await handle.fetch("https://models.dev/api.json")).text())
  })

  it.effect("named schemas at fixed seeds", () =>
    Effect.gen(function* () {
      for (const name of ["account.user", "account.deviceCode", "installation.githubRelease", "skills.index"]) {
        const entry = NAMED_SCHEMAS.get(name)!
        const route = Route.json("GET https://golden.example.com/", entry.schema, { narrow: entry.narrow })
        golden(`${name}.seed42`, yield* route.regenerate!(42))
      }
    })
  )

  it.effect("a 20-field object and a JSON Schema document at fixed seeds", () =>
    Effect.gen(function* () {
      const object = Route.json(
        "GET https://golden.example.com/",
        Schema.Struct(fields) as Schema.Codec<unknown, unknown>
      )
      golden("object20.seed7", yield* object.regenerate!(7))
      const jsonSchema = {
        type: "object",
        required: ["id", "when", "items"],
        properties: {
          id: { type: "string", format: "uuid" },
          when: { type: "string", format: "date-time" },
          items: {
            type: "array",
            maxItems: 3,
            items: { type: "object", required: ["n"], properties: { n: { type: "integer" } } }
          }
        }
      }
      const decoded = yield* RouteSpec.decodeRouteSpecs(
        { match: "GET https://golden.example.com/", respond: { kind: "jsonSchema", schema: { jsonSchema } } },
        Routes.defaultDecodeContext
      )
      const [document] = decoded.routes
      golden("jsonSchema.seed7", yield* document.regenerate!(7))
    })
  )

  it("OpenAPI: the Petstore 3.1 example's findPetsByStatus, generated, at run seed 5", async () => {
    const document = JSON.parse(readFileSync(new URL("../fixtures/openapi/petstore-3.1.json", import.meta.url), "utf8"))
    const handle = await SimulationNetwork.start({
      seed: 5,
      routes: Routes.openapi(document, { baseUrl: "https://petstore.example.com", examples: false })
    })
    golden(
      "openapi.petstore31.findPetsByStatus.seed5",
      await (await handle.fetch("https://petstore.example.com/v2/pet/findByStatus?status=sold")).text()
    )
  })
})
