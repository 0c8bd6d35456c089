import { createRequire } from "node:module"
import * as path from "node:path"
import { cruise, type IConfiguration } from "dependency-cruiser"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")
const require = createRequire(import.meta.url)
const config = require(path.join(root, ".dependency-cruiser.cjs")) as IConfiguration

describe("layout", () => {
  it("registry/ imports no route kind, provider or control; control/ and the CLI use public faces; no circles", async () => {
    process.chdir(root)
    const result = await cruise(["src"], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } })
    const output = result.output as { summary: { violations: ReadonlyArray<{ from: string; to: string; rule: { name: string } }> }; modules: ReadonlyArray<unknown> }
    expect(output.modules.length).toBeGreaterThan(40)
    expect(output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([])
  }, 60_000)
})
