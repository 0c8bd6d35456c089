import { createRequire } from "node:module"
import * as path from "node:path"
import { cruise, type IConfiguration } from "dependency-cruiser"
import { describe, expect, it } from "vitest"
import { look } from "../../scripts/look.ts"
import { HEAVY_WORK } from "../support/timeouts.ts"

const root = path.resolve(import.meta.dirname, "../..")
const require = createRequire(import.meta.url)
const config = require(path.join(root, ".dependency-cruiser.cjs")) as IConfiguration

describe("layout", () => {
  it(
    "each folder imports only the layers below it and no public face but SimnetError.ts; no circles",
    async () => {
      process.chdir(root)
      const result = await cruise(["src"], {
        ...config.options,
        validate: true,
        ruleSet: { forbidden: config.forbidden }
      })
      const output = result.output as {
        summary: { violations: ReadonlyArray<{ from: string; to: string; rule: { name: string } }> }
        modules: ReadonlyArray<unknown>
      }
      expect(output.modules.length).toBeGreaterThan(40)
      expect(output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([])
    },
    HEAVY_WORK
  )

  it(
    "scripts/look.ts sees no arrow back up and no circle",
    async () => {
      const seen = await look()
      expect(seen.files.length).toBeGreaterThan(40)
      expect(seen.arrows.size).toBeGreaterThan(10)
      expect({ back: seen.back, circles: seen.circles }).toEqual({ back: [], circles: [] })
    },
    HEAVY_WORK
  )
})
