import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const script = path.resolve(import.meta.dirname, "../../scripts/move.ts")
const repo = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-move-"))
afterAll(() => fs.rmSync(repo, { recursive: true, force: true }))

const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true })
  fs.writeFileSync(path.join(repo, file), text)
}
const read = (file: string) => fs.readFileSync(path.join(repo, file), "utf8")
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: repo, encoding: "utf8" })
const run = (...args: Array<string>) => {
  const result = spawnSync(process.execPath, [script, "--map", "map.json", ...args], { cwd: repo, encoding: "utf8" })
  expect(result.stderr).toBe("")
  expect(result.status).toBe(0)
  return result.stdout
}
const snapshot = () => git("ls-files", "-s") + git("diff")

describe("scripts/move.ts", () => {
  it("moves files with git, rewrites imports and paths in text, and a second run changes nothing", () => {
    git("init", "-q")
    write("map.json", JSON.stringify({ "src/core/a.ts": "src/registry/a.ts", "src/kinds/b.ts": "src/routes/b/b.ts" }))
    write("src/core/a.ts", `export const a = 1\n`)
    write(
      "src/kinds/b.ts",
      `import { a } from "../core/a.ts"\nexport type A = typeof import("../core/a.ts")\nexport * as Core from "../core/a.ts"\nexport const b = a // see core/a.ts\n`
    )
    write("test/b.test.ts", `import { b } from "../src/kinds/b.ts"\nconst where = "/kinds/b."\n`)
    write("docs/x.md", "The answer is in `src/core/a.ts`; `src/core/ab.ts` is another file.\n")
    git("add", ".")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")

    run()
    // Moved by git: the index has the new paths, and the old ones are gone from it and from the disk.
    expect(git("ls-files").trim().split("\n")).toEqual([
      "docs/x.md",
      "map.json",
      "src/registry/a.ts",
      "src/routes/b/b.ts",
      "test/b.test.ts"
    ])
    expect(fs.existsSync(path.join(repo, "src/core")) || fs.existsSync(path.join(repo, "src/kinds"))).toBe(false)
    expect(read("src/routes/b/b.ts")).toBe(
      `import { a } from "../../registry/a.ts"\nexport type A = typeof import("../../registry/a.ts")\nexport * as Core from "../../registry/a.ts"\nexport const b = a // see registry/a.ts\n`
    )
    expect(read("test/b.test.ts")).toBe(`import { b } from "../src/routes/b/b.ts"\nconst where = "/routes/b/b."\n`)
    expect(read("docs/x.md")).toBe("The answer is in `src/registry/a.ts`; `src/core/ab.ts` is another file.\n")

    const before = snapshot()
    run()
    expect(snapshot()).toBe(before)
  })

  it("places a file made later by the rules, and mends one written for its old place", () => {
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "moved")
    // As a branch that made these before the restructure has them after merging it.
    write(
      "src/kinds/c.ts",
      `import { a } from "../core/a.ts"\nimport { b } from "./b.ts"\nexport const c = make("c")\n`
    )
    write("src/routes/b/b.ts", `${read("src/routes/b/b.ts")}import "../core/a.ts"\n`)
    write("docs/y.md", "Route c lives in `src/kinds/c.ts`.\n")
    git("add", ".")

    expect(run()).toContain("src/kinds/c.ts -> src/routes/c/c.ts   (by a rule: check it)")
    expect(read("src/routes/c/c.ts")).toBe(
      `import { a } from "../../registry/a.ts"\nimport { b } from "../b/b.ts"\nexport const c = make("c")\n`
    )
    expect(read("src/routes/b/b.ts")).toContain(`\nimport "../../registry/a.ts"\n`)
    expect(read("docs/y.md")).toBe("Route c lives in `src/routes/c/c.ts`.\n")

    const before = snapshot()
    run()
    expect(snapshot()).toBe(before)
  })
})
