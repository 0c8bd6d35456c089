/**
 * Builds `dist/` (what `import("simnet")` loads outside this repository's tests) when the sources
 * changed since the last build, and says so when they did not: `npm install` builds it once
 * (`prepare`), so a plain Node script in a fresh clone can import simnet, and `npm run build &&
 * npm pack` builds once, not twice (`prepack` finds it up to date). `--force` builds regardless.
 *
 * What decides "changed": a hash of every file under `src/`, the TypeScript configs, the
 * package's `exports` and the TypeScript version, kept beside the build in node_modules/.cache
 * (not in `dist/`, which is shipped).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"

const root = join(import.meta.dirname, "..")
const stampFile = join(root, "node_modules", ".cache", "simnet-build.sha256")
const require = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8")) as Record<string, unknown>

const files = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]))

const stamp = (): string => {
  const hash = createHash("sha256")
  for (const file of [...files(join(root, "src")), join(root, "tsconfig.json"), join(root, "tsconfig.build.json")]) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  hash.update(JSON.stringify(require("package.json").exports))
  hash.update(String(require("node_modules/typescript/package.json").version))
  return hash.digest("hex")
}

const current = stamp()
const fresh = existsSync(join(root, "dist", "index.js")) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === current
if (fresh && !process.argv.includes("--force")) {
  console.error("simnet: dist/ is up to date with src/ (npm run build -- --force rebuilds)")
} else {
  rmSync(join(root, "dist"), { recursive: true, force: true })
  rmSync(stampFile, { force: true })
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
  cpSync(join(root, "src", "control", "inspector", "ui"), join(root, "dist", "control", "inspector", "ui"), {
    recursive: true,
    filter: (file) => !file.endsWith(".d.ts")
  })
  mkdirSync(join(root, "node_modules", ".cache"), { recursive: true })
  writeFileSync(stampFile, current)
  console.error("simnet: built dist/")
}
