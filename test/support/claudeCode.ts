/**
 * Claude Code, as shipped, for the judge test: the platform binary of `@anthropic-ai/claude-code`
 * (which names one optional package per platform), installed with its version pinned
 * (`installCached`).
 */
import { spawnSync } from "node:child_process"
import { installCached } from "./agentJudge.ts"

/** The Claude Code version the judge runs. */
export const CLAUDE_CODE_VERSION = "2.1.332"

/** The path of a runnable `claude` binary, installing it first when needed; or why there is none. */
export const claudeCodeBinary = (): { readonly path: string } | { readonly why: string } => {
  if (process.platform !== "linux" && process.platform !== "darwin")
    return { why: `Claude Code's binary is not tried on ${process.platform}` }
  const name = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`
  return installCached("claude-code", name, CLAUDE_CODE_VERSION, `node_modules/${name}/claude`, (path) =>
    (spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout ?? "").startsWith(
      `${CLAUDE_CODE_VERSION} `
    )
  )
}
