/**
 * The package from a fresh clone, as a Node script sees it: `npm install` builds `dist/` once
 * (`prepare`, through scripts/build.ts), so `import("simnet")` works from a plain `.mjs` file in
 * the repository with no flag; a second build with nothing changed builds nothing, so
 * `npm run build && npm pack` builds once.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = path.resolve(import.meta.dirname, "..")
/** Runs the build script; what it says (on stderr, so `npm pack --json` keeps a clean stdout). */
const build = (...args: Array<string>): string => {
  const run = spawnSync(process.execPath, ["scripts/build.ts", ...args], { cwd: root, encoding: "utf8" })
  if (run.status !== 0) throw new Error(`build failed: ${run.stderr}`)
  return run.stderr
}
mkdirSync(path.join(root, ".scratch"), { recursive: true })
const scratch = mkdtempSync(path.join(root, ".scratch", "build-"))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("dist/ from a fresh clone", { timeout: HEAVY_WORK }, () => {
  it("a build with nothing changed builds nothing, and says so", () => {
    build()
    expect(build()).toMatch(/dist\/ is up to date with src\//)
  })

  it("import('simnet') from a plain Node script in the repository, with no flag, starts a network", () => {
    build()
    const script = path.join(scratch, "plain.mjs")
    writeFileSync(
      script,
      `
      const { Route, SimulationNetwork } = await import("simnet")
      const network = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/hi", "hello")] })
      console.log(await (await network.fetch("https://api.example.com/hi")).text())
      await network.close()
    `
    )
    // No --conditions: the package's default export, dist/.
    expect(execFileSync(process.execPath, [script], { cwd: root, encoding: "utf8" }).trim()).toBe("hello")
  })
})
