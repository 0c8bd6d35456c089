/**
 * Runs `simnet run` in a network namespace with loopback only, as root or as an ordinary user
 * (nobody, become through `setpriv`, which needs root). The ordinary user runs simnet from a
 * world-readable temporary directory where this clone is bind-mounted in a private mount
 * namespace: the clone may live where nobody cannot enter (under `mktemp -d`, under `/root`), and
 * its parents' modes are never changed.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { isolationProblem } from "../../src/serve/isolate.ts"
import { namespaces } from "./agentJudge.ts"

export const root = join(import.meta.dirname, "../..")

/** Who runs simnet. */
export type As = "root" | "user"

/** Why a sealed run cannot be had here, or undefined. */
export const sealedWhy = !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : isolationProblem()

const NOBODY = 65534

/** Whether an ordinary user (nobody, become through setpriv as root) can make the user namespaces a sealed run needs. */
export const userNamespaces =
  sealedWhy === undefined &&
  process.getuid?.() === 0 &&
  spawnSync("setpriv", [
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    "--clear-groups",
    "unshare",
    "--user",
    "--map-root-user",
    "--net",
    "--mount",
    "--pid",
    "--fork",
    "true"
  ]).status === 0

const quote = (part: string) => `'${part.replace(/'/g, "'\\''")}'`

/**
 * Where the clone is seen by the ordinary user: a directory anyone may enter, the clone
 * bind-mounted there. Not under `/tmp`: the room's `/tmp` is an overlay of the host's `/tmp`
 * directory, which shows no mount made beneath it.
 */
let shared: string | undefined
/** What the runs made under /var/tmp, which no reboot empties: removed once the file that made it is done. */
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})
const sharedClone = (): string => {
  if (shared !== undefined) return shared
  const dir = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "simnet-clone-"))
  // Empty on the host: the clone is bound there only in each run's own mount namespace.
  made.push(dir)
  chmodSync(dir, 0o755)
  mkdirSync(join(dir, "simnet"))
  return (shared = join(dir, "simnet"))
}

/** A fresh directory for one run's files (fixture, trace, CA, home), writable by whoever runs simnet; under `base` (default: the system's temporary directory). */
export const scratch = (as: As, name = "simnet-isolate-", base = tmpdir()): string => {
  const dir = mkdtempSync(join(base, name))
  if (base !== tmpdir()) made.push(dir)
  if (as === "user") {
    chmodSync(dir, 0o755)
    chownSync(dir, NOBODY, NOBODY)
  }
  return dir
}

/** The pinned node as `as` reaches it (through the bind-mounted clone for the ordinary user). */
export const nodeFor = (as: As): string =>
  as === "user" && process.execPath.startsWith(`${root}/`)
    ? `${sharedClone()}${process.execPath.slice(root.length)}`
    : process.execPath

/** Where simnet starts (default: the run's directory), what it is given in its environment, and shell lines run before it in its namespace (as root: a server of the host's, say). */
export interface SealedOptions {
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  readonly before?: string
}

/**
 * The `unshare` arguments that run `simnet ARGS` in a loopback-only network namespace as `as`,
 * in `cwd`, with the CA and home under `dir` and `env` added.
 */
export const sealedCommand = (
  as: As,
  dir: string,
  args: ReadonlyArray<string>,
  options: SealedOptions = {}
): ReadonlyArray<string> => {
  const clone = as === "user" ? sharedClone() : root
  const node = nodeFor(as)
  const env = { SIMNET_CA_DIR: join(dir, "ca"), ...(as === "user" ? { HOME: dir } : {}), ...options.env }
  const line = [
    ...(as === "user" ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"] : []),
    "env",
    ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
    node,
    join(clone, "bin", "simnet.js"),
    ...args
  ]
    .map(quote)
    .join(" ")
  const script = [
    "set -e",
    ...(as === "user" ? ["mount --make-rprivate /", `mount --bind ${quote(root)} ${quote(clone)}`] : []),
    "ip link set lo up",
    ...(options.before === undefined ? [] : [options.before]),
    `cd ${quote(options.cwd ?? dir)}`,
    // simnet is the process spawned, but for a run with processes before it, which end after it.
    options.before === undefined ? `exec ${line}` : `${line}; s=$?; kill $(jobs -p) 2>/dev/null; exit $s`
  ].join("\n")
  return [as === "user" ? "-nm" : "-n", "bash", "-c", script]
}

/** `simnet ARGS` run to its end (see `sealedCommand`): status, output, error. */
export const runSealed = (as: As, dir: string, args: ReadonlyArray<string>, options: SealedOptions = {}) =>
  spawnSync("unshare", sealedCommand(as, dir, args, options), { encoding: "utf8", timeout: 90_000 })

/** The pids of the processes whose command line is exactly `words` (`/proc/PID/cmdline`). */
export const processesRunning = (words: ReadonlyArray<string>): Array<number> => {
  const { readdirSync, readFileSync } = process.getBuiltinModule("node:fs")
  const wanted = `${words.join("\0")}\0`
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, "utf8") === wanted
      } catch {
        return false
      }
    })
    .map(Number)
}
