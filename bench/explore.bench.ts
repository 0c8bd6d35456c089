/**
 * `simnet explore` at its default settings, on the example terminal agent (`examples/tty/repl.mjs`:
 * each line is a model call through the proxy) and on a menu app (`examples/tty/menu.mjs`: keys
 * that redraw the screen): actions per second, and simnet's own share of the CPU beside the app's.
 * Each run starts the app (a Node process) in a terminal on a fresh network, does 5 actions and
 * waits after each until the whole app is at rest — detected from the app's processes here
 * (`src/terminal/rest.ts`), a still screen for `--quiet-ms 150` before. `--against DIR` explores
 * the same apps with another checkout's code (a copy of an older commit with this checkout's
 * node_modules linked in), interleaved with this one's in the same process, and prints the ratio.
 *
 * Then `--clock virtual` on an app that waits 30 s of timers after every key
 * (`examples/tty/backoff.mjs`): the wall time per action, beside the virtual time covered.
 *
 * CPU is read from the kernel: this process's own (`process.cpuUsage`), and the apps' from a cgroup
 * this process moves itself into first (`src/terminal/cgroup.ts`; its runs' cgroups are made
 * inside it, and an older checkout's apps stay in it): its usage less this process's own. Where
 * none can be made, the apps' CPU is what reaches this process's waited-for children (`cutime` +
 * `cstime` of `/proc/self/stat`), which misses an app killed with its PID namespace. Linux only
 * (it reads `/proc`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { Effect } from "effect"
import { makeCgroup } from "../src/terminal/cgroup.ts"
import { exploreResult } from "../src/explore/explore.ts"

type Explore = typeof exploreResult

const quick = process.argv.includes("--quick")
const at = process.argv.indexOf("--against")
const against = at === -1 ? undefined : resolve(process.argv[at + 1]!)
const ROUNDS = quick ? 1 : 3
const RUNS = quick ? 4 : 10
const ACTIONS = 5
const examples = join(import.meta.dirname, "..", "examples", "tty")
const apps = {
  agent: {
    command: [process.execPath, join(examples, "repl.mjs")],
    fixture: {
      routes: [{ family: "openai" }],
      prompts: ["What is the capital of France?"],
      llm: { rules: [{ match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: "Paris." }]] } }] }
    }
  },
  menu: { command: [process.execPath, join(examples, "menu.mjs")], fixture: { prompts: ["Theme"] } }
} as const

/** The cgroup this process measures its apps in, where one can be made. */
const measured = process.platform === "linux" ? makeCgroup() : undefined
if (measured !== undefined && !measured.adopt(process.pid))
  throw new Error("explore bench: cannot move into the cgroup it made")

/** CPU of the apps so far, in ms: the cgroup's usage less this process's own; else this process's waited-for children's (clock ticks of 10 ms). */
const appsMs = (): number => {
  if (measured !== undefined) {
    const own = process.cpuUsage()
    return measured.usage() / 1000 - (own.user + own.system) / 1000
  }
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
  // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return (Number(fields[13]) + Number(fields[14])) * 10
}

interface Round {
  readonly actionsPerSecond: number
  readonly msPerAction: number
  readonly simnetCpuMsPerAction: number
  readonly appCpuMsPerAction: number
  readonly virtualMsPerAction: number
}

const once = async (
  explore: Explore,
  app: { readonly command: ReadonlyArray<string>; readonly fixture: Readonly<Record<string, unknown>> },
  seed: number,
  options: Parameters<Explore>[1] = {}
): Promise<Round> => {
  const cpu0 = process.cpuUsage()
  const apps0 = appsMs()
  const t0 = performance.now()
  const result = await explore(app.command, {
    fixture: app.fixture,
    runs: RUNS,
    actions: ACTIONS,
    minActions: ACTIONS,
    seed,
    env: { NODE_NO_WARNINGS: "1" },
    ...options
  })
  const wall = performance.now() - t0
  if (result.failure !== undefined) throw new Error(`explore failed: ${result.failure.reason}`)
  const cpu = process.cpuUsage(cpu0)
  const own = (cpu.user + cpu.system) / 1000
  const child = appsMs() - apps0
  const virtualMs = (result as { readonly clock?: { readonly virtualMs: number } }).clock?.virtualMs ?? 0
  return {
    actionsPerSecond: result.actions / (wall / 1000),
    msPerAction: wall / result.actions,
    simnetCpuMsPerAction: own / result.actions,
    appCpuMsPerAction: child / result.actions,
    virtualMsPerAction: virtualMs / result.actions
  }
}

const range = (xs: ReadonlyArray<number>, digits = 1) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[0] === sorted.at(-1)
    ? sorted[0]!.toFixed(digits)
    : `${sorted[0]!.toFixed(digits)}–${sorted.at(-1)!.toFixed(digits)}`
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const line = (label: string, rs: ReadonlyArray<Round>) => {
  const share = rs.map((r) => (100 * r.simnetCpuMsPerAction) / (r.simnetCpuMsPerAction + r.appCpuMsPerAction))
  return `  ${label.padEnd(26)} ${range(rs.map((r) => r.actionsPerSecond))} actions/s (${range(
    rs.map((r) => r.msPerAction),
    0
  )} ms each); CPU per action: simnet ${range(rs.map((r) => r.simnetCpuMsPerAction))} ms, the app ${range(rs.map((r) => r.appCpuMsPerAction))} ms (simnet's share ${range(share, 0)}%)`
}

if (process.platform !== "linux") {
  console.log("\nexplore: skipped (reads /proc; Linux only)")
} else {
  const contenders: Array<{ readonly name: string; readonly explore: Explore }> = [
    { name: "this checkout", explore: exploreResult }
  ]
  if (against !== undefined) {
    // An older checkout has exploration in src/testing/, a newer one in src/explore/.
    const older = join(against, "src", "testing", "explore.ts")
    const other = (await import(existsSync(older) ? older : join(against, "src", "explore", "explore.ts"))) as {
      readonly exploreResult: Explore
    }
    contenders.push({ name: "against", explore: other.exploreResult })
  }
  console.log(
    `\nsimnet explore at default settings: ${RUNS} runs × ${ACTIONS} actions, ${ROUNDS} rounds interleaved${against === undefined ? "" : `; against ${against}`}`
  )
  for (const [appName, app] of Object.entries(apps)) {
    const rounds = contenders.map(() => [] as Array<Round>)
    for (const contender of contenders) await once(contender.explore, app, 999) // warm-up: the CA, the modules
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? contenders.map((_, i) => i) : contenders.map((_, i) => i).reverse()
      for (const i of order) rounds[i]!.push(await once(contenders[i]!.explore, app, round + 1))
    }
    console.log(` ${appName}:`)
    for (const [i, contender] of contenders.entries()) console.log(line(contender.name, rounds[i]!))
    if (rounds.length === 2)
      console.log(
        `  ratio (this / against, medians): ${(median(rounds[0]!.map((r) => r.actionsPerSecond)) / median(rounds[1]!.map((r) => r.actionsPerSecond))).toFixed(2)}x actions/s`
      )
  }

  // --clock virtual: 30 s of timers per key, in how much wall time.
  const backoff = { command: [process.execPath, join(examples, "backoff.mjs")], fixture: {} }
  const virtual: Array<Round> = []
  for (let round = 0; round < ROUNDS; round++)
    virtual.push(
      await once(exploreResult, backoff, round + 1, { clock: "virtual", timeoutMs: 60_000, ready: "backoff ready" })
    )
  console.log(` --clock virtual, an app that waits 30 s of timers per key (examples/tty/backoff.mjs):`)
  console.log(
    `  ${range(
      virtual.map((r) => r.msPerAction),
      0
    )} ms of wall time per action, covering ${range(
      virtual.map((r) => r.virtualMsPerAction / 1000),
      1
    )} s of virtual time per action (simnet's CPU ${range(virtual.map((r) => r.simnetCpuMsPerAction))} ms, the app's ${range(virtual.map((r) => r.appCpuMsPerAction))} ms per action)`
  )
}

// Out of the measuring cgroup, which goes (its runs' cgroups went with their runs).
if (measured !== undefined) {
  writeFileSync(join(dirname(measured.dir), "cgroup.procs"), String(process.pid))
  await Effect.runPromise(measured.end)
}
