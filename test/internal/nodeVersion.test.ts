/**
 * The library and the `simnet` command agree on the Node version simnet needs, and say so the
 * same way: `package.json`'s `engines`, `.nvmrc`, `bin/simnet.js` and `src/registry/version.ts`.
 * The command is run on this machine's system Node when it is older (Node 20 here), as a user
 * with an old Node would meet it.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { NODE_REQUIRED, nodeProblem } from "../../src/registry/version.ts"

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")

/** This machine's system Node, when it is too old for simnet (Node 20 on the development machine). */
const older = ((): { readonly system: string; readonly version: string } | undefined => {
  const system = spawnSync("bash", ["-lc", "command -v /usr/bin/node || command -v /usr/local/bin/node"], {
    encoding: "utf8"
  }).stdout.trim()
  const version =
    system === "" ? "" : execFileSync(system, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
  return version === "" || nodeProblem(version) === undefined ? undefined : { system, version }
})()

describe("the Node version simnet needs", () => {
  it("is one figure: engines, .nvmrc (at or above it), the command and the library", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node
    expect(engines).toBe(`>=${NODE_REQUIRED.join(".")}`)
    expect(read("bin/simnet.js")).toContain(`const REQUIRED = [${NODE_REQUIRED.join(", ")}]`)
    expect(nodeProblem(read(".nvmrc").trim())).toBeUndefined()
    expect(nodeProblem(process.versions.node)).toBeUndefined()
    expect(nodeProblem("22.18.9")).toBe("simnet needs Node.js >= 22.19; this is Node.js 22.18.9")
    expect(nodeProblem("20.20.2")).toBe("simnet needs Node.js >= 22.19; this is Node.js 20.20.2")
    expect(nodeProblem("24.0.0")).toBeUndefined()
  })

  it.skipIf(older === undefined)(
    `an older system Node gets the same one line from the command as the library's message${older === undefined ? " (skipped: no system Node older than 22.19 here)" : ""}`,
    () => {
      const { system, version } = older!
      const run = spawnSync(system, [new URL("../../bin/simnet.js", import.meta.url).pathname, "--help"], {
        encoding: "utf8"
      })
      expect(run.status).toBe(1)
      expect(run.stderr.trim()).toBe(nodeProblem(version))
    }
  )
})
