/**
 * The child of a terminal is always reaped (issue 36): `simnet run --tty` stopped by SIGINT or
 * SIGTERM leaves no process of its command behind; a driver that vanishes mid-session changes
 * nothing (the command runs on, the next driver sees it); `simnet mcp` ends with its client (its
 * standard input closed), and its command with it.
 *
 * And every child of a command (issue 54): under `simnet run`, `run --tty`, `explore` and `mcp`,
 * a command that leaves children behind with `&`, `nohup` and `setsid` leaves none of them once
 * simnet has ended — normally, by SIGTERM, or by SIGKILL — where a PID namespace can hold it;
 * where none can, a terminal's program takes its process group with it, and its cgroup (where one
 * can be made: `src/terminal/cgroup.ts`) takes every process it started, a `setsid` one too.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WebSocket } from "ws"
import { afterAll, describe, expect, it, vi } from "vitest"
import { Effect } from "effect"
import { makeCgroup } from "../src/terminal/cgroup.ts"
import { canHold } from "../src/terminal/holder.ts"
import { processesRunning } from "./support/sealed.ts"

const root = join(import.meta.dirname, "..")
const app = join(import.meta.dirname, "fixtures", "tty", "prompt.mjs")
const simnet = join(root, "bin", "simnet.js")

/** Starts `simnet ARGS`; resolves once its standard error has shown `ready`, with what it showed. */
const start = async (args: ReadonlyArray<string>, ready: RegExp, stdin: "ignore" | "pipe" = "ignore") => {
  const child = spawn(process.execPath, [simnet, ...args], { cwd: root, stdio: [stdin, "pipe", "pipe"] })
  let err = ""
  const shown = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr!.on("data", (data: Buffer) => {
      err += data.toString()
      const found = ready.exec(err)
      if (found !== null) resolve(found)
    })
    child.once("exit", () => reject(new Error(err)))
  })
  return { child, shown }
}

/** The pids of the processes whose parent is `pid`. */
const childrenOf = (pid: number): Array<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((n) => n > 0)
  } catch {
    return [] // ps exits 1 when there are none
  }
}

/** Whether process `pid` is alive (a zombie is not: it has ended and only waits to be reaped). */
const alive = (pid: number): boolean => {
  try {
    const state = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim()
    return state !== "" && !state.startsWith("Z")
  } catch {
    return false
  }
}

/** The command simnet started for its terminal (the one child that is not simnet's own). */
const commandOf = async (simnetChild: ChildProcess): Promise<number> => {
  let found: Array<number> = []
  await vi.waitFor(
    () => {
      found = childrenOf(simnetChild.pid!)
      expect(found.length).toBeGreaterThan(0)
    },
    { timeout: 10_000, interval: 50 }
  )
  return found[0]!
}

describe("the child of a terminal is always reaped", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`simnet run --tty stopped by ${signal} leaves no process of its command`, async () => {
      const { child } = await start(
        ["run", "--quiet", "--tty", "--", process.execPath, app],
        /runs in a \d+x\d+ terminal/
      )
      const command = await commandOf(child)
      expect(alive(command)).toBe(true)
      const exited = once(child, "exit")
      child.kill(signal)
      await exited
      await vi.waitFor(() => expect(alive(command)).toBe(false), { timeout: 10_000, interval: 50 })
    }, 30_000)
  }

  it("a driver that vanishes mid-session changes nothing: the command runs on and the next driver sees it", async () => {
    const { child, shown } = await start(
      ["run", "--quiet", "--tty", "--", process.execPath, app],
      /driver: (ws:\/\/\S+)/
    )
    const command = await commandOf(child)
    const first = new WebSocket(shown[1]!)
    await once(first, "open")
    first.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ui.wait", params: { text: "never shown", timeoutMs: 60_000 } })
    )
    first.terminate() // gone without a close frame, a call pending
    const next = new WebSocket(shown[1]!)
    await once(next, "open")
    next.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ui.wait", params: { text: "ready" } }))
    const [reply] = (await once(next, "message")) as [Buffer]
    expect((JSON.parse(reply.toString()) as { result: { lines: Array<string> } }).result.lines.join("\n")).toContain(
      "ready"
    )
    expect(alive(command)).toBe(true)
    next.close()
    const exited = once(child, "exit")
    child.kill("SIGTERM")
    await exited
    await vi.waitFor(() => expect(alive(command)).toBe(false), { timeout: 10_000, interval: 50 })
  }, 30_000)

  it("simnet mcp ends when its client goes away, and its command with it", async () => {
    const { child } = await start(["mcp", "--", process.execPath, app], /tools over stdio/, "pipe")
    const command = await commandOf(child)
    expect(alive(command)).toBe(true)
    const exited = once(child, "exit")
    child.stdin!.end()
    const [code] = await exited
    expect(code).toBe(0)
    await vi.waitFor(() => expect(alive(command)).toBe(false), { timeout: 10_000, interval: 50 })
  }, 30_000)
})

/** Marks no other test uses: the arguments of the `sleep`s a command leaves behind. */
let next = 600_000 + Math.floor(Math.random() * 50_000) * 4
const marks = (): [string, string, string] => [String(next++), String(next++), String(next++)]

/** Which of `marks`' sleeps are running. */
const running = (mark: ReadonlyArray<string>) => mark.flatMap((m) => processesRunning(["sleep", m]))

/** A command that leaves a child behind with `&`, `nohup` and `setsid`, then shows `ready` and runs until `flag` exists. */
const leaver = (mark: ReadonlyArray<string>, flag: string) => [
  "sh",
  "-c",
  `sleep ${mark[0]} & nohup sleep ${mark[1]} >/dev/null 2>&1 & setsid sleep ${mark[2]} & echo ready; while [ ! -e ${flag} ]; do sleep 0.1; done`
]

const scratch = mkdtempSync(join(tmpdir(), "simnet-reap-"))
const survivors: Array<number> = []
afterAll(() => {
  for (const pid of survivors) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // gone
    }
  }
})

/** Every way a simnet ends: `normal` (its command ends, or its client goes away), SIGTERM, SIGKILL. */
const ENDINGS = ["normal", "SIGTERM", "SIGKILL"] as const

/**
 * Starts `simnet ARGS -- leaver` once per ending, all at once; once each command's children run,
 * ends each simnet its way, and waits for it to have exited.
 */
const endEachWay = async (
  args: (flag: string) => ReadonlyArray<string>,
  normal: (child: ChildProcess, flag: string) => void
) =>
  Promise.all(
    ENDINGS.map(async (ending) => {
      const mark = marks()
      const flag = join(scratch, `flag-${mark[0]}`)
      const child = spawn(process.execPath, [simnet, ...args(flag), "--", ...leaver(mark, flag)], {
        cwd: scratch,
        stdio: ["pipe", "ignore", "ignore"],
        env: { ...process.env, SIMNET_CA_DIR: join(scratch, "ca") }
      })
      await vi.waitFor(() => expect(running(mark)).toHaveLength(3), { timeout: 30_000, interval: 100 })
      const exited = once(child, "exit")
      if (ending === "normal") normal(child, flag)
      else child.kill(ending)
      await exited
      return { ending, mark }
    })
  )

describe.skipIf(!canHold())(
  `every child of a command ends with simnet${canHold() ? "" : " (skipped: no PID namespace can be made here)"}`,
  () => {
    const commands: ReadonlyArray<readonly [string, (flag: string) => ReadonlyArray<string>]> = [
      ["simnet run", () => ["run", "--quiet"]],
      ["simnet run --tty", () => ["run", "--quiet", "--tty"]],
      [
        "simnet explore",
        () => ["explore", "--runs", "1", "--actions", "2", "--ready", "ready", "--out", join(scratch, "explore")]
      ],
      ["simnet mcp", () => ["mcp"]]
    ]
    for (const [name, args] of commands) {
      it(`${name}: children left with &, nohup and setsid end whether simnet ends normally, by SIGTERM or by SIGKILL`, async () => {
        // Normally: the command is told to end (mcp: its client goes away).
        const ended = await endEachWay(args, (child, flag) =>
          name === "simnet mcp" ? child.stdin!.end() : writeFileSync(flag, "")
        )
        for (const { ending, mark } of ended) {
          await vi.waitFor(() => expect(running(mark), `${name}, ${ending}`).toEqual([]), {
            timeout: 10_000,
            interval: 100
          })
        }
      }, 90_000)
    }
  }
)

/** A PATH holding what the leaver needs and no `unshare`: no command can be held. */
const withoutHolder = (): string => {
  const bin = join(scratch, "bin")
  if (!existsSync(bin)) {
    spawnSync("mkdir", [bin])
    for (const tool of ["sh", "sleep", "nohup", "setsid"])
      symlinkSync(execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim(), join(bin, tool))
  }
  return bin
}

/** Whether a run's cgroup can be made here (root, or a delegated cgroup v2 subtree). */
const cgroup = makeCgroup()
if (cgroup !== undefined) await Effect.runPromise(cgroup.end)

describe.skipIf(process.platform !== "linux")("where no PID namespace can be had", () => {
  it(`simnet run --tty takes the terminal's process group with it: & and nohup children end, a setsid one ${cgroup === undefined ? "is beyond it (no cgroup here)" : "too, in the run's cgroup"}`, async () => {
    const mark = marks()
    const flag = join(scratch, `flag-${mark[0]}`)
    const child = spawn(process.execPath, [simnet, "run", "--quiet", "--tty", "--", ...leaver(mark, flag)], {
      cwd: scratch,
      stdio: "ignore",
      env: { ...process.env, PATH: withoutHolder(), SIMNET_CA_DIR: join(scratch, "ca") }
    })
    await vi.waitFor(() => expect(running(mark)).toHaveLength(3), { timeout: 30_000, interval: 100 })
    const exited = once(child, "exit")
    writeFileSync(flag, "")
    await exited
    await vi.waitFor(() => expect(running(mark.slice(0, 2))).toEqual([]), { timeout: 10_000, interval: 100 })
    if (cgroup !== undefined)
      await vi.waitFor(() => expect(running([mark[2]])).toEqual([]), { timeout: 10_000, interval: 100 })
    const left = running([mark[2]])
    survivors.push(...left)
    expect(left).toHaveLength(cgroup === undefined ? 1 : 0)
  }, 60_000)
})
