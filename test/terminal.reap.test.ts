/**
 * The child of a terminal is always reaped (issue 36): `simnet run --tty` stopped by SIGINT or
 * SIGTERM leaves no process of its command behind; a driver that vanishes mid-session changes
 * nothing (the command runs on, the next driver sees it); `simnet mcp` ends with its client (its
 * standard input closed), and its command with it.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { join } from "node:path"
import { WebSocket } from "ws"
import { describe, expect, it, vi } from "vitest"

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
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).split("\n").map((line) => Number(line.trim())).filter((n) => n > 0)
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
  await vi.waitFor(() => {
    found = childrenOf(simnetChild.pid!)
    expect(found.length).toBeGreaterThan(0)
  }, { timeout: 10_000, interval: 50 })
  return found[0]!
}

describe("the child of a terminal is always reaped", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`simnet run --tty stopped by ${signal} leaves no process of its command`, async () => {
      const { child } = await start(["run", "--quiet", "--tty", "--", process.execPath, app], /runs in a \d+x\d+ terminal/)
      const command = await commandOf(child)
      expect(alive(command)).toBe(true)
      const exited = once(child, "exit")
      child.kill(signal)
      await exited
      await vi.waitFor(() => expect(alive(command)).toBe(false), { timeout: 10_000, interval: 50 })
    }, 30_000)
  }

  it("a driver that vanishes mid-session changes nothing: the command runs on and the next driver sees it", async () => {
    const { child, shown } = await start(["run", "--quiet", "--tty", "--", process.execPath, app], /driver: (ws:\/\/\S+)/)
    const command = await commandOf(child)
    const first = new WebSocket(shown[1]!)
    await once(first, "open")
    first.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ui.wait", params: { text: "never shown", timeoutMs: 60_000 } }))
    first.terminate() // gone without a close frame, a call pending
    const next = new WebSocket(shown[1]!)
    await once(next, "open")
    next.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ui.wait", params: { text: "ready" } }))
    const [reply] = await once(next, "message") as [Buffer]
    expect((JSON.parse(reply.toString()) as { result: { lines: Array<string> } }).result.lines.join("\n")).toContain("ready")
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
