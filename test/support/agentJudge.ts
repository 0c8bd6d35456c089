/**
 * What the agent judges share (`agents.test.ts`, `opencode.test.ts`): an app installed once
 * into `node_modules/.cache/NAME` from the npm registry with its version pinned (not a dev
 * dependency: its platform binaries or its tree would land in every contributor's lock file), and
 * one run of it against `simnet serve` with a fixture, both in a network namespace with loopback
 * only, with simnet's trace read back.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = join(import.meta.dirname, "../..")

/**
 * `pkg@version` installed into `node_modules/.cache/cache` unless `file` (a path inside that
 * prefix) already runs, as `runs` tells; the path of the runnable file, or why there is none.
 */
export const installCached = (
  cache: string,
  pkg: string,
  version: string,
  file: string,
  runs: (path: string) => boolean
): { readonly path: string } | { readonly why: string } => {
  const prefix = join(root, "node_modules/.cache", cache)
  const path = join(prefix, file)
  if (existsSync(path) && runs(path)) return { path }
  const install = spawnSync(
    "npm",
    [
      "install",
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--prefix",
      prefix,
      `${pkg}@${version}`
    ],
    { encoding: "utf8", timeout: 300_000 }
  )
  return install.status === 0 && existsSync(path) && runs(path)
    ? { path }
    : { why: `${pkg}@${version} could not be installed or run here` }
}

/** Whether this machine can make a network namespace with loopback only (Linux, as root). */
export const namespaces = process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0

/** One request of simnet's trace. */
export interface Traced {
  readonly type: string
  readonly method: string
  readonly url: string
  readonly route?: string
  readonly status: number
  readonly outcome: string
  readonly body?: { readonly text?: string }
}

/**
 * Runs `command` (a shell line) in `work` with `env` against `simnet serve --port 4747` on
 * `fixture`, both in a loopback-only namespace; `prepare` writes what the app needs into the run's
 * directory first (its home at `home`, files in `work`). With `via: "run"` the command runs under
 * `simnet run` instead (the proxy and CA environment, no base URL). Its status, output, wall time
 * in milliseconds, the run's directories, and the trace.
 */
export const judgeRun = (options: {
  readonly via?: "serve" | "run" | undefined
  readonly fixture: (dirs: { readonly work: string; readonly home: string }) => unknown
  readonly prepare?: (dirs: { readonly work: string; readonly home: string }) => void
  readonly env: (dirs: { readonly work: string; readonly home: string }) => Readonly<Record<string, string>>
  readonly command: string
}) => {
  const dir = mkdtempSync(join(tmpdir(), "simnet-judge-"))
  const dirs = { work: join(dir, "work"), home: join(dir, "home") }
  mkdirSync(dirs.work)
  mkdirSync(dirs.home)
  options.prepare?.(dirs)
  const fixture = join(dir, "fixture.json")
  writeFileSync(fixture, JSON.stringify(options.fixture(dirs)))
  const trace = join(dir, "trace.jsonl")
  const log = join(dir, "serve.log")
  const script = join(dir, "run.sh")
  const simnet = `${JSON.stringify(process.execPath)} bin/simnet.js`
  const timed = (line: string) => [
    "START=$(date +%s%N)",
    line,
    "CODE=$?",
    `echo $(( ($(date +%s%N) - START) / 1000000 )) > ${JSON.stringify(join(dir, "ms"))}`
  ]
  writeFileSync(
    script,
    options.via === "run"
      ? [
          "set -u",
          "ip link set lo up",
          ...Object.entries(options.env(dirs)).map(([name, value]) => `export ${name}=${JSON.stringify(value)}`),
          `cd ${JSON.stringify(dirs.work)}`,
          ...timed(
            `timeout 120 ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "bin/simnet.js"))} run --quiet --fixture ${JSON.stringify(fixture)} --trace ${JSON.stringify(trace)} -- ${options.command}`
          ),
          "exit $CODE"
        ].join("\n")
      : [
          "set -u",
          "ip link set lo up",
          `cd ${JSON.stringify(root)}`,
          `${simnet} serve --port 4747 --quiet --fixture ${JSON.stringify(fixture)} --trace ${JSON.stringify(trace)} > ${JSON.stringify(log)} 2>&1 &`,
          "SERVE=$!",
          `for i in $(seq 1 100); do grep -q "driver:" ${JSON.stringify(log)} && break; sleep 0.1; done`,
          `cd ${JSON.stringify(dirs.work)}`,
          ...Object.entries(options.env(dirs)).map(([name, value]) => `export ${name}=${JSON.stringify(value)}`),
          ...timed(`timeout 120 ${options.command}`),
          "kill $SERVE",
          "wait $SERVE",
          "exit $CODE"
        ].join("\n")
  )
  const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 180_000 })
  const requests = existsSync(trace)
    ? readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Traced)
        .filter((entry) => entry.type === "request")
    : []
  const ms = existsSync(join(dir, "ms")) ? Number(readFileSync(join(dir, "ms"), "utf8")) : Number.NaN
  return {
    status: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    served: existsSync(log) ? readFileSync(log, "utf8") : run.stderr,
    requests,
    ms,
    dirs
  }
}
