/**
 * The versions simnet knows of: the Node version it needs, in one place (`package.json`'s
 * `engines`, `.nvmrc` and the `simnet` command, `bin/simnet.js`, say the same;
 * `test/internal/nodeVersion.test.ts` holds them together), and its own. Importing the library on
 * an older Node fails at once with the message the command prints, rather than later with
 * whatever newer API it met first (`Map.groupBy is not a function`).
 */
import { createRequire } from "node:module"

/** The oldest Node simnet runs on: major, minor. */
export const NODE_REQUIRED: readonly [number, number] = [22, 19]

/** Why `version` (`process.versions.node`) cannot run simnet, or undefined when it can. */
export const nodeProblem = (version: string): string | undefined => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  const [needMajor, needMinor] = NODE_REQUIRED
  return major > needMajor || (major === needMajor && minor >= needMinor)
    ? undefined
    : `simnet needs Node.js >= ${NODE_REQUIRED.join(".")}; this is Node.js ${version}`
}

let version: string | undefined

/** simnet's version as its package.json says (`simnet --version`, a HAR's `creator`), read when first asked. */
export const simnetVersion = (): string =>
  (version ??= (createRequire(import.meta.url)("simnet/package.json") as { readonly version: string }).version)

const problem = nodeProblem(process.versions.node)
if (problem !== undefined) throw new Error(problem)
