/**
 * `simnet explore` on the example terminal agent (`examples/tty/repl.mjs`, no bug): actions per
 * second, and simnet's own share of the CPU beside the app's. Each run starts the agent (a Node
 * process) in a terminal on a fresh network, does 5 actions and waits after each until the whole
 * app is at rest for `quietMs`; so the rate is bounded by the waiting and the agent, not by simnet.
 * CPU is read from the kernel: this process's own (`process.cpuUsage`), and its waited-for
 * children's (`cutime` + `cstime` of `/proc/self/stat`: the agents, their terminals reaped). Two
 * quiet times, interleaved, rounds reported as ranges. Linux only (it reads `/proc`).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { exploreResult } from "../src/explore/explore.ts"

const quick = process.argv.includes("--quick")
const ROUNDS = quick ? 1 : 3
const RUNS = quick ? 4 : 10
const ACTIONS = 5
const repl = join(import.meta.dirname, "..", "examples", "tty", "repl.mjs")
const fixture = {
  routes: [{ family: "openai" }],
  prompts: ["What is the capital of France?"],
  llm: { rules: [{ match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: "Paris." }]] } }] }
}

/** CPU of this process's waited-for children so far, in ms (clock ticks of 10 ms). */
const childrenMs = (): number => {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
  // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * 10
}

interface Round {
  readonly actionsPerSecond: number
  readonly msPerAction: number
  readonly simnetCpuMsPerAction: number
  readonly appCpuMsPerAction: number
}

const once = async (quietMs: number, seed: number): Promise<Round> => {
  const cpu0 = process.cpuUsage()
  const children0 = childrenMs()
  const t0 = performance.now()
  const result = await exploreResult([process.execPath, repl], { fixture, runs: RUNS, actions: ACTIONS, minActions: ACTIONS, quietMs, seed, env: { NODE_NO_WARNINGS: "1" } })
  const wall = performance.now() - t0
  if (result.failure !== undefined) throw new Error(`explore failed: ${result.failure.reason}`)
  const cpu = process.cpuUsage(cpu0)
  const own = (cpu.user + cpu.system) / 1000
  const app = childrenMs() - children0
  return { actionsPerSecond: result.actions / (wall / 1000), msPerAction: wall / result.actions, simnetCpuMsPerAction: own / result.actions, appCpuMsPerAction: app / result.actions }
}

const range = (xs: ReadonlyArray<number>, digits = 1) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[0] === sorted.at(-1) ? sorted[0]!.toFixed(digits) : `${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)}`
}

if (process.platform !== "linux") {
  console.log("\nexplore: skipped (reads /proc; Linux only)")
} else {
  console.log(`\nsimnet explore on the example agent: ${RUNS} runs × ${ACTIONS} actions, ${ROUNDS} rounds interleaved`)
  const quiets = [50, 150]
  const rounds = new Map<number, Array<Round>>(quiets.map((q) => [q, []]))
  await once(50, 999) // warm-up: the CA, the modules
  for (let round = 0; round < ROUNDS; round++) {
    for (const quietMs of round % 2 === 0 ? quiets : [...quiets].reverse()) rounds.get(quietMs)!.push(await once(quietMs, round + 1))
  }
  for (const quietMs of quiets) {
    const rs = rounds.get(quietMs)!
    const share = rs.map((r) => (100 * r.simnetCpuMsPerAction) / (r.simnetCpuMsPerAction + r.appCpuMsPerAction))
    console.log(`  quietMs ${String(quietMs).padStart(3)}: ${range(rs.map((r) => r.actionsPerSecond))} actions/s (${range(rs.map((r) => r.msPerAction), 0)} ms each); CPU per action: simnet ${range(rs.map((r) => r.simnetCpuMsPerAction))} ms, the agent ${range(rs.map((r) => r.appCpuMsPerAction))} ms (simnet's share ${range(share, 0)}%)`)
  }
}
