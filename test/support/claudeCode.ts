/**
 * Claude Code, as shipped, for the judge test: the platform binary of `@anthropic-ai/claude-code`
 * (which names one optional package per platform), installed once into
 * `node_modules/.cache/claude-code` from the npm registry with the version pinned. Not a dev
 * dependency, for the reason `opencode.ts` gives: a lock file would list every platform's binary.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

/** The Claude Code version the judge runs. */
export const CLAUDE_CODE_VERSION = "2.1.332"

const root = join(import.meta.dirname, "../..")
const prefix = join(root, "node_modules/.cache/claude-code")

const runs = (path: string): boolean =>
  existsSync(path) && (spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout ?? "").startsWith(`${CLAUDE_CODE_VERSION} `)

/** The path of a runnable `claude` binary, installing it first when needed; or why there is none. */
export const claudeCodeBinary = (): { readonly path: string } | { readonly why: string } => {
  if (process.platform !== "linux" && process.platform !== "darwin") return { why: `Claude Code's binary is not tried on ${process.platform}` }
  const name = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`
  const path = join(prefix, "node_modules", name, "claude")
  if (runs(path)) return { path }
  const install = spawnSync("npm", ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", prefix, `${name}@${CLAUDE_CODE_VERSION}`], { encoding: "utf8", timeout: 300_000 })
  return install.status === 0 && runs(path) ? { path } : { why: `no Claude Code ${CLAUDE_CODE_VERSION} binary runs here (${name} could not be installed or run)` }
}
