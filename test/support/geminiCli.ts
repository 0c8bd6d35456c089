/**
 * Gemini CLI, as shipped, for the judge test: `@google/gemini-cli` with the version pinned,
 * installed once into `node_modules/.cache/gemini-cli` from the npm registry and run with this
 * checkout's Node. Not a dev dependency: it would bring its own large tree (and its native
 * optional packages) into the lock file every contributor installs.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

/** The Gemini CLI version the judge runs. */
export const GEMINI_CLI_VERSION = "0.61.0"

const root = join(import.meta.dirname, "../..")
const prefix = join(root, "node_modules/.cache/gemini-cli")
const entry = join(prefix, "node_modules/@google/gemini-cli/bundle/gemini.js")

const runs = (): boolean =>
  existsSync(entry) && (spawnSync(process.execPath, [entry, "--version"], { encoding: "utf8", timeout: 60_000 }).stdout ?? "").trim() === GEMINI_CLI_VERSION

/** The entry script of a runnable Gemini CLI (run it with `node`), installing it first when needed; or why there is none. */
export const geminiCliEntry = (): { readonly path: string } | { readonly why: string } => {
  if (runs()) return { path: entry }
  const install = spawnSync("npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", prefix, `@google/gemini-cli@${GEMINI_CLI_VERSION}`], { encoding: "utf8", timeout: 300_000 })
  return install.status === 0 && runs() ? { path: entry } : { why: `Gemini CLI ${GEMINI_CLI_VERSION} could not be installed or run here` }
}
