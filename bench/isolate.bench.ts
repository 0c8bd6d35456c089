/**
 * What sealing costs (issue 35): `simnet run --isolate -- true` against `simnet run -- true`, whole
 * commands timed from spawn to exit, interleaved, medians and ranges over rounds. The difference is
 * the sealed room: the namespaces, the mounts, the relay's start and its sockets handed over.
 * Skipped where the room cannot be made (not Linux, no util-linux, no namespaces).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isolationProblem } from "../src/serve/isolate.ts"

const quick = process.argv.includes("--quick")
const ROUNDS = quick ? 5 : 15
const simnet = join(import.meta.dirname, "..", "bin", "simnet.js")
const env = { ...process.env, SIMNET_CA_DIR: mkdtempSync(join(tmpdir(), "simnet-bench-ca-")) }

const timed = (args: ReadonlyArray<string>): number => {
  const started = performance.now()
  const run = spawnSync(process.execPath, [simnet, "run", "--quiet", ...args, "--", "true"], { env, encoding: "utf8" })
  if (run.status !== 0) throw new Error(`simnet run ${args.join(" ")} -- true failed: ${run.stderr}`)
  return performance.now() - started
}

const problem = isolationProblem()
if (problem !== undefined || spawnSync("unshare", ["--net", "--mount", "true"]).status !== 0) {
  console.log(`\nisolate: skipped (${problem ?? "no namespaces here"})`)
} else {
  timed([])
  timed(["--isolate"])
  const plain: Array<number> = []
  const sealed: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      plain.push(timed([]))
      sealed.push(timed(["--isolate"]))
    } else {
      sealed.push(timed(["--isolate"]))
      plain.push(timed([]))
    }
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const range = (xs: ReadonlyArray<number>) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`
  console.log(`\nsimnet run -- true, whole command, ${ROUNDS} rounds interleaved (median, range in ms)`)
  console.log(`  plain:     ${median(plain).toFixed(0)} ms (${range(plain)})`)
  console.log(`  --isolate: ${median(sealed).toFixed(0)} ms (${range(sealed)})`)
  console.log(`  sealing adds ${(median(sealed) - median(plain)).toFixed(0)} ms (goal: at most 150 ms)`)
}
