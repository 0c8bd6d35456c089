import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..")
const bin = path.join(root, "bin", "simnet.js")

/** Runs the CLI on the Node running this test (22) from `cwd`; resolves with its exit and output. */
const simnet = (args: ReadonlyArray<string>, cwd = root) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** A Node older than 22.19 on this machine, if there is one (the global `node` is 20 here). */
const olderNode = ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"].find((candidate) => {
  if (!fs.existsSync(candidate)) return false
  const version = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
  const [major, minor] = version.split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
})

describe("simnet command line", () => {
  it.runIf(olderNode !== undefined)("on Node older than 22.19 prints one line naming the version it needs", () => {
    const result = spawnSync(olderNode!, [bin, "serve"], { encoding: "utf8" })
    expect(result.status).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toMatch(/^simnet needs Node\.js >= 22\.19; this is Node\.js \d+\.\d+\.\d+\n$/)
  })

  it("bare simnet prints the help and exits 0", async () => {
    const { code, stdout, stderr } = await simnet([])
    expect(code).toBe(0)
    expect(stdout).toContain("SUBCOMMANDS")
    expect(stdout).toContain("serve")
    expect(stdout + stderr).not.toContain("ShowHelp")
  })

  it("serve --help shows the defaults of port and fixture", async () => {
    const { code, stdout } = await simnet(["serve", "--help"])
    expect(code).toBe(0)
    expect(stdout).toMatch(/--port port\s+port on 127\.0\.0\.1 \(default: 4747; 0: any free port\)/)
    expect(stdout).toMatch(/--fixture file\s+.*default: simnet's own fixtures\/default\.json/)
  })

  it.each([["abc"], ["-1"], ["70000"], ["1.5"]])("--port %s is one line naming the port, exit 2", async (port) => {
    const { code, stdout, stderr } = await simnet(["serve", "--port", port])
    expect(code).toBe(2)
    expect(stdout).toBe("")
    expect(stderr).toBe(`simnet: invalid --port ${JSON.stringify(port)}: expected a whole number from 0 to 65535\n`)
  })

  it("an unknown subcommand prints the help once with the error, exit 2, no stray ShowHelp", async () => {
    const { code, stdout, stderr } = await simnet(["bogus"])
    const all = stdout + stderr
    expect(code).toBe(2)
    expect(all.match(/USAGE/g)).toHaveLength(1)
    expect(all).toContain(`Unknown subcommand "bogus"`)
    expect(all).not.toContain("ShowHelp")
  })

  it("a port in use is one line naming the port, exit 1", async () => {
    const server = http.createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const { code, stderr } = await simnet(["serve", "--port", String(port)])
      expect(code).toBe(1)
      expect(stderr).toBe(`simnet: port ${port} on 127.0.0.1 is already in use\n`)
    } finally {
      server.close()
    }
  })

  it("serve without --fixture serves the package's own fixture from any directory; --fixture is relative to the cwd", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-cwd-"))
    fs.writeFileSync(
      path.join(dir, "mine.json"),
      JSON.stringify({ routes: [{ match: "GET https://a.example.com/", respond: { kind: "text", body: "mine" } }] })
    )
    const serveOnce = (args: ReadonlyArray<string>) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], {
          cwd: dir,
          stdio: ["ignore", "pipe", "pipe"]
        })
        let out = ""
        const onData = (d: Buffer) => {
          out += d.toString()
          if (out.includes("example:")) {
            child.kill("SIGTERM")
            resolve(out)
          }
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
        child.on("exit", () => reject(new Error(out)))
      })
    expect(await serveOnce([])).toContain(`18 routes from ${path.join(root, "fixtures", "default.json")}`)
    expect(await serveOnce(["--fixture", "mine.json"])).toContain(
      `1 routes from ${path.join(fs.realpathSync(dir), "mine.json")}`
    )
    const missing = await simnet(["serve", "--port", "0", "--fixture", "absent.json"], dir)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(path.join(dir, "absent.json"))
  })
})
