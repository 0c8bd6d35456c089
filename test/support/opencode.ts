/**
 * opencode, as shipped, for the judge test: the platform binary of `opencode-ai` (the package
 * whose postinstall only picks it), installed with its version pinned (`installCached`). It is
 * not a dev dependency: `opencode-ai` names a binary for every platform, and a lock file must list
 * them all, which `npm ci` then fails to fetch where the registry serves only this platform's.
 */
import { spawnSync } from "node:child_process"
import { installCached } from "./agentJudge.ts"

/** The opencode version the judge runs. */
export const OPENCODE_VERSION = "1.18.33"

/**
 * The path of a runnable opencode binary, installing it first when needed (the x64 build, then
 * the baseline build for processors without AVX2); or why there is none.
 */
export const opencodeBinary = (): { readonly path: string } | { readonly why: string } => {
  if (process.platform !== "linux" && process.platform !== "darwin")
    return { why: `opencode's binary is not tried on ${process.platform}` }
  const names = [
    `opencode-${process.platform}-${process.arch}`,
    `opencode-${process.platform}-${process.arch}-baseline`
  ]
  for (const name of names) {
    const found = installCached(
      "opencode",
      name,
      OPENCODE_VERSION,
      `node_modules/${name}/bin/opencode`,
      (path) =>
        spawnSync(path, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout?.trim() === OPENCODE_VERSION
    )
    if ("path" in found) return found
  }
  return { why: `no opencode ${OPENCODE_VERSION} binary runs here (${names.join(", ")} could not be installed or run)` }
}
