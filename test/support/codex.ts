/**
 * Codex, as shipped, for the judge test: the platform build of `@openai/codex` (published as the
 * version `VERSION-linux-x64` and the like), installed with its version pinned (`installCached`).
 */
import { spawnSync } from "node:child_process"
import { installCached } from "./agentJudge.ts"

/** The Codex version the judge runs. */
export const CODEX_VERSION = "0.171.0"

const TRIPLES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl"
}

/** The path of a runnable `codex` binary, installing it first when needed; or why there is none. */
export const codexBinary = (): { readonly path: string } | { readonly why: string } => {
  const platform = `${process.platform}-${process.arch}`
  const triple = TRIPLES[platform]
  if (triple === undefined) return { why: `Codex's binary is not tried on ${platform}` }
  return installCached(
    "codex",
    "@openai/codex",
    `${CODEX_VERSION}-${platform}`,
    `node_modules/@openai/codex/vendor/${triple}/bin/codex`,
    (path) =>
      (spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout ?? "").trim() ===
      `codex-cli ${CODEX_VERSION}`
  )
}
