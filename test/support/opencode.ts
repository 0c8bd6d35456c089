/**
 * opencode, as shipped, for the judge test: the platform binary of `opencode-ai` (the package
 * whose postinstall only picks it), installed once into `node_modules/.cache/opencode` from the
 * npm registry with the version pinned. It is not a dev dependency: `opencode-ai` names a binary
 * for every platform, and a lock file must list them all, which `npm ci` then fails to fetch
 * where the registry serves only this platform's.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

/** The opencode version the judge runs. */
export const OPENCODE_VERSION = "1.18.33"

const root = join(import.meta.dirname, "../..")
const prefix = join(root, "node_modules/.cache/opencode")

const runs = (path: string): boolean => existsSync(path) && spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout?.trim() === OPENCODE_VERSION

/**
 * The path of a runnable opencode binary, installing it first when needed (the x64 build, then
 * the baseline build for processors without AVX2); or why there is none.
 */
export const opencodeBinary = (): { readonly path: string } | { readonly why: string } => {
  if (process.platform !== "linux" && process.platform !== "darwin") return { why: `opencode's binary is not tried on ${process.platform}` }
  const names = [`opencode-${process.platform}-${process.arch}`, `opencode-${process.platform}-${process.arch}-baseline`]
  for (const name of names) {
    const path = join(prefix, "node_modules", name, "bin", "opencode")
    if (runs(path)) return { path }
    const install = spawnSync("npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", prefix, `${name}@${OPENCODE_VERSION}`], {
      encoding: "utf8",
      timeout: 300_000
    })
    if (install.status === 0 && runs(path)) return { path }
  }
  return { why: `no opencode ${OPENCODE_VERSION} binary runs here (${names.join(", ")} could not be installed or run)` }
}
