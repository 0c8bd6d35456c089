/**
 * Gemini CLI, as shipped, for the judge test: `@google/gemini-cli` with its version pinned
 * (`installCached`), run with this checkout's Node.
 */
import { spawnSync } from "node:child_process"
import { installCached } from "./agentJudge.ts"

/** The Gemini CLI version the judge runs. */
export const GEMINI_CLI_VERSION = "0.61.0"

/** The entry script of a runnable Gemini CLI (run it with `node`), installing it first when needed; or why there is none. */
export const geminiCliEntry = (): { readonly path: string } | { readonly why: string } =>
  installCached(
    "gemini-cli",
    "@google/gemini-cli",
    GEMINI_CLI_VERSION,
    "node_modules/@google/gemini-cli/bundle/gemini.js",
    (path) =>
      (spawnSync(process.execPath, [path, "--version"], { encoding: "utf8", timeout: 60_000 }).stdout ?? "").trim() ===
      GEMINI_CLI_VERSION
  )
