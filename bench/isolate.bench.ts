/**
 * What sealing and holding cost (issues 35 and 54): `simnet run --isolate -- true` against
 * `simnet run -- true`, whole commands timed from spawn to exit, interleaved, medians and ranges
 * over rounds. The difference is the sealed room: the namespaces, the mounts (every host mount
 * remounted read-only, then checked), the relay's start and its sockets handed over. Plain runs
 * hold their command in a PID namespace of its own. `--against DIR` times another checkout (a
 * worktree of an older commit) in the same rounds, for a before and after. Skipped where the room
 * cannot be made (not Linux, no util-linux, no namespaces).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { isolationProblem } from "../src/serve/isolate.ts"

const quick = process.argv.includes("--quick")
const ROUNDS = quick ? 5 : 15
const at = process.argv.indexOf("--against")
const against = at === -1 ? undefined : resolve(process.argv[at + 1]!)
const env = { ...process.env, SIMNET_CA_DIR: mkdtempSync(join(tmpdir(), "simnet-bench-ca-")) }

/** The contenders: this checkout's plain and sealed runs, and the other checkout's when given. */
const contenders = [
  { name: "plain", repo: join(import.meta.dirname, ".."), args: [] },
  { name: "--isolate", repo: join(import.meta.dirname, ".."), args: ["--isolate"] },
  ...(against === undefined
    ? []
    : [
        { name: "plain (against)", repo: against, args: [] },
        { name: "--isolate (against)", repo: against, args: ["--isolate"] }
      ])
]

const timed = (repo: string, args: ReadonlyArray<string>): number => {
  const started = performance.now()
  const run = spawnSync(process.execPath, [join(repo, "bin", "simnet.js"), "run", "--quiet", ...args, "--", "true"], {
    env,
    encoding: "utf8"
  })
  if (run.status !== 0) throw new Error(`simnet run ${args.join(" ")} -- true (${repo}) failed: ${run.stderr}`)
  return performance.now() - started
}

const problem = isolationProblem()
if (problem !== undefined || spawnSync("unshare", ["--net", "--mount", "true"]).status !== 0) {
  console.log(`\nisolate: skipped (${problem ?? "no namespaces here"})`)
} else {
  for (const contender of contenders) timed(contender.repo, contender.args)
  const times = contenders.map(() => [] as Array<number>)
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order, so no contender always runs first.
    const order = contenders.map((_, i) => (i + round) % contenders.length)
    for (const i of order) times[i]!.push(timed(contenders[i]!.repo, contenders[i]!.args))
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const range = (xs: ReadonlyArray<number>) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`
  console.log(
    `\nsimnet run -- true, whole command, ${ROUNDS} rounds interleaved (median, range in ms)${against === undefined ? "" : `; against ${against}`}`
  )
  contenders.forEach((contender, i) => {
    console.log(`  ${`${contender.name}:`.padEnd(22)} ${median(times[i]!).toFixed(0)} ms (${range(times[i]!)})`)
  })
  console.log(`  sealing adds ${(median(times[1]!) - median(times[0]!)).toFixed(0)} ms (goal: at most 150 ms)`)
  if (against !== undefined) {
    console.log(
      `  against it: plain ${(median(times[0]!) - median(times[2]!)).toFixed(0)} ms, --isolate ${(median(times[1]!) - median(times[3]!)).toFixed(0)} ms (this checkout minus the other)`
    )
  }
}
