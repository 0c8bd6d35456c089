/**
 * A model call's own work as CPU instructions, which this shared machine's load does not move
 * (seconds here drift by a third between runs; `serveCpu`'s ratios by a tenth): valgrind's
 * callgrind counts what `bench/servers/modelCalls.ts` executes, non-streamed OpenAI and Anthropic
 * calls dispatched in process as `simnet serve`'s Node door dispatches them, against the same
 * request answered by a static route (the network's own floor: the request, its route, its answer).
 * Each figure is the count of a run of `FEW + MORE` calls less a run of `FEW`, over `MORE`: what
 * start-up, compiling and warming up cost falls out. V8 runs single-threaded (`--single-threaded`:
 * no compiler or GC thread racing the main one): a model call's count repeats to within about 4%
 * (2 000 instructions a call), the static route's to within about a tenth of its small count. Needs valgrind (`apt-get install valgrind`); without it, says so.
 * `npm run bench -- instructions` (`--quick`: fewer calls).
 */
import { spawn, spawnSync } from "node:child_process"
import { join } from "node:path"

const quick = process.argv.includes("--quick")
const FEW = quick ? 2_000 : 10_000
const MORE = quick ? 8_000 : 20_000

if (spawnSync("valgrind", ["--version"]).status !== 0) {
  console.log("\nmodel call instructions: valgrind is not installed (apt-get install valgrind); nothing measured")
  process.exit(0)
}

/** The instructions callgrind counts for `calls` calls of `kind` (after the loop's own warm-up). */
const count = (kind: string, calls: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn("valgrind", [
      "--tool=callgrind", "--callgrind-out-file=/dev/null",
      process.execPath, "--single-threaded", join(import.meta.dirname, "servers", "modelCalls.ts"), kind, String(calls)
    ], { stdio: ["ignore", "ignore", "pipe"] })
    let err = ""
    child.stderr.on("data", (data: Buffer) => (err += data.toString()))
    child.once("error", reject)
    child.once("exit", (code) => {
      const collected = /Collected\s*:\s*(\d+)/.exec(err)?.[1]
      if (code !== 0 || collected === undefined) reject(new Error(`callgrind on ${kind} ${calls} exited ${code}: ${err.slice(-400)}`))
      else resolve(Number(collected))
    })
  })

/** Instructions a call: the two runs side by side, one on each core. */
const perCall = async (kind: string): Promise<number> => {
  const [few, more] = await Promise.all([count(kind, FEW), count(kind, FEW + MORE)])
  return (more - few) / MORE
}

console.log(`\nmodel call instructions, in process (valgrind callgrind; runs of ${FEW + MORE} calls less runs of ${FEW}, over ${MORE})`)
const floor = await perCall("static")
console.log(`  ${"static route, the same answer".padEnd(34)} ${Math.round(floor).toLocaleString("en-US").padStart(8)} instructions/call`)
for (const kind of ["openai", "anthropic"]) {
  const own = await perCall(kind)
  console.log(`  ${`${kind}, non-streamed model call`.padEnd(34)} ${Math.round(own).toLocaleString("en-US").padStart(8)} instructions/call  ${(own / floor).toFixed(2)}x the static route`)
}
