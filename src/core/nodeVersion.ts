/**
 * The Node version simnet needs, in one place: `package.json`'s `engines`, `.nvmrc` and the
 * `simnet` command (`bin/simnet.js`) say the same (`test/internal/nodeVersion.test.ts` holds them
 * together). Importing the library on an older Node fails at once with the message the command
 * prints, rather than later with whatever newer API it met first (`Map.groupBy is not a
 * function`).
 */

/** The oldest Node simnet runs on: major, minor. */
export const NODE_REQUIRED: readonly [number, number] = [22, 19]

/** Why `version` (`process.versions.node`) cannot run simnet, or undefined when it can. */
export const nodeProblem = (version: string): string | undefined => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  const [needMajor, needMinor] = NODE_REQUIRED
  return major > needMajor || (major === needMajor && minor >= needMinor) ? undefined : `simnet needs Node.js >= ${NODE_REQUIRED.join(".")}; this is Node.js ${version}`
}

const problem = nodeProblem(process.versions.node)
if (problem !== undefined) throw new Error(problem)
