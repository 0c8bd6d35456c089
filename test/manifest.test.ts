/**
 * `--manifest FILE` on `simnet serve`, `run` and `mcp` (seed 000's endpoint manifest): the
 * endpoints' URLs as JSON, written whole once listening and removed however simnet exits — a
 * signal (SIGTERM, SIGINT, SIGHUP), an error, a normal end. And `simnet run --drive` without
 * `--tty` names its driver socket and takes `--port`, so something outside can find it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WebSocket } from "ws"
import { describe, expect, it, vi } from "vitest"

const root = join(import.meta.dirname, "..")
const simnet = join(root, "bin", "simnet.js")
const dir = mkdtempSync(join(tmpdir(), "simnet-manifest-"))
let files = 0
const nextFile = () => join(dir, `run-${++files}`, "endpoints.json")

/** Starts `simnet ARGS`, its output kept. */
const start = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [simnet, ...args], { cwd: root, stdio: ["pipe", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (data: Buffer) => (out += data.toString()))
  child.stderr!.on("data", (data: Buffer) => (out += data.toString()))
  return { child, out: () => out }
}

/** The manifest once written: its endpoints. */
const manifestOf = async (file: string, child: ChildProcess, out: () => string) => {
  await vi.waitFor(
    () => {
      expect(child.exitCode, out()).toBeNull()
      expect(existsSync(file)).toBe(true)
    },
    { timeout: 20_000, interval: 20 }
  )
  return (JSON.parse(readFileSync(file, "utf8")) as { endpoints: Record<string, string> }).endpoints
}

/** What every manifest holds: the five endpoints of one server, each answering. */
const expectEndpoints = async (endpoints: Record<string, string>) => {
  const base = endpoints["network"]!
  expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(endpoints).toEqual({
    network: base,
    control: `${base}/experimental/simulation`,
    driver: `${base.replace("http:", "ws:")}/experimental/simulation/drive`,
    inspector: `${base}/experimental/simulation/ui`,
    mcp: `${base}/experimental/simulation/mcp`
  })
  expect((await fetch(`${endpoints["control"]}/network/routes`)).status).toBe(200)
  expect((await fetch(endpoints["inspector"]!)).status).toBe(200)
  const socket = new WebSocket(endpoints["driver"]!)
  await once(socket, "open")
  socket.close()
}

describe("--manifest FILE", () => {
  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)(
    "simnet serve writes the endpoints once listening and removes them on %s",
    async (signal) => {
      const file = nextFile()
      const { child, out } = start(["serve", "--port", "0", "--quiet", "--manifest", file])
      await expectEndpoints(await manifestOf(file, child, out))
      child.kill(signal)
      const [code, killed] = await once(child, "exit")
      expect(existsSync(file)).toBe(false)
      // SIGHUP ends serve as it always did (by the signal); SIGINT and SIGTERM stop it cleanly.
      expect(signal === "SIGHUP" ? killed : code).toBe(signal === "SIGHUP" ? "SIGHUP" : 0)
    },
    30_000
  )

  it("simnet run writes it before its command starts (the command reads it) and removes it when the command ends, and when it cannot start", async () => {
    const file = nextFile()
    const read = `process.stdout.write(require("node:fs").readFileSync(${JSON.stringify(file)}, "utf8"))`
    const { child, out } = start(["run", "--quiet", "--manifest", file, "--", process.execPath, "-e", read])
    const [code] = await once(child, "exit")
    expect(code, out()).toBe(0)
    const endpoints = (JSON.parse(out().slice(0, out().lastIndexOf("}") + 1)) as { endpoints: Record<string, string> })
      .endpoints
    expect(Object.keys(endpoints)).toEqual(["network", "control", "driver", "inspector", "mcp"])
    expect(existsSync(file)).toBe(false)
    const missing = start(["run", "--manifest", file, "--", "/nonexistent/command"])
    const [failed] = await once(missing.child, "exit")
    expect(failed).not.toBe(0)
    expect(existsSync(file)).toBe(false)
  }, 30_000)

  it("simnet mcp writes it and removes it when its client goes away", async () => {
    const file = nextFile()
    const { child, out } = start(["mcp", "--manifest", file])
    await expectEndpoints(await manifestOf(file, child, out))
    child.stdin!.end()
    await once(child, "exit")
    expect(existsSync(file)).toBe(false)
  }, 30_000)

  it("a manifest that cannot be written is a usage error naming it, and nothing runs", async () => {
    // A regular file where the manifest's directory would be.
    const blocked = join(dir, "a-file")
    writeFileSync(blocked, "")
    const target = join(blocked, "endpoints.json")
    for (const args of [
      ["serve", "--port", "0"],
      ["run", "--", process.execPath, "-e", "console.log('ran')"]
    ]) {
      const { child, out } = start([args[0]!, "--manifest", target, ...args.slice(1)])
      const [code] = await once(child, "exit")
      expect([code, out()]).toEqual([
        2,
        `simnet: cannot write --manifest ${target}: cannot make ${blocked}: ${blocked} is not a directory\n`
      ])
    }
  }, 30_000)
})

describe("simnet run --drive without --tty", () => {
  it("names its driver socket and takes --port", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const { child, out } = start([
      "run",
      "--drive",
      "--port",
      String(port),
      "--",
      process.execPath,
      "-e",
      "setTimeout(() => {}, 60000)"
    ])
    await vi.waitFor(
      () => expect(out()).toContain(`simnet: driver: ws://127.0.0.1:${port}/experimental/simulation/drive`),
      { timeout: 20_000, interval: 20 }
    )
    const socket = new WebSocket(`ws://127.0.0.1:${port}/experimental/simulation/drive`)
    await once(socket, "open")
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "llm.attach" }))
    const [reply] = await once(socket, "message")
    expect(JSON.parse(String(reply))).toEqual({ jsonrpc: "2.0", id: 1, result: { attached: true, pending: 0 } })
    socket.close()
    // The same port again is taken: one line naming it, exit 1.
    const taken = start(["run", "--port", String(port), "--", process.execPath, "-e", ""])
    const [code] = await once(taken.child, "exit")
    expect([code, taken.out()]).toEqual([1, `simnet: port ${port} on 127.0.0.1 is already in use\n`])
    child.kill("SIGTERM")
    await once(child, "exit")
  }, 30_000)
})
