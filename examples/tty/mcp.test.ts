/**
 * `simnet mcp` judged by the official MCP SDK client over stdio: an agent's view of a simulation.
 * With the example REPL as its command and `--drive`, the client types a question (`type`,
 * `press`), sees the model call held (`llm_pending`), answers it (`llm_respond`), waits for the
 * answer on screen (`wait`), and finds the call in `network_log`. Bad input is a tool error that
 * says why. Run in a network namespace with loopback only.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "vitest"
import { namespaces } from "../../test/support/agentJudge.ts"

const root = join(import.meta.dirname, "..", "..")

const text = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? "")

describe.skipIf(!namespaces)(`simnet mcp through the MCP SDK client${namespaces ? "" : " (skipped: no network namespace here)"}`, () => {
  it("types, sees the held model call, answers it, and reads the answer off the screen and the log", async () => {
    const fixture = join(mkdtempSync(join(tmpdir(), "simnet-mcp-")), "fixture.json")
    writeFileSync(fixture, JSON.stringify({ routes: [{ family: "openai" }] }))
    const simnet = [process.execPath, join(root, "bin", "simnet.js"), "mcp", "--drive", "--cols", "60", "--rows", "12", "--fixture", fixture, "--", process.execPath, join(import.meta.dirname, "repl.mjs")]
    const quoted = simnet.map((part) => `'${part.replace(/'/g, "'\\\\''")}'`).join(" ")
    const transport = new StdioClientTransport({ command: "unshare", args: ["-n", "bash", "-c", `ip link set lo up && exec ${quoted}`], cwd: root, stderr: "pipe" })
    const client = new Client({ name: "judge", version: "1.0.0" })
    await client.connect(transport)
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name)
      expect(tools).toEqual(["screen", "type", "press", "resize", "wait", "network_log", "register_routes", "llm_enqueue", "llm_rules", "llm_pending", "llm_respond", "files", "snapshot", "reset"])
      await client.callTool({ name: "wait", arguments: { text: "repl ready" } })
      await client.callTool({ name: "type", arguments: { text: "Who wrote Hamlet?" } })
      await client.callTool({ name: "press", arguments: { key: "enter" } })
      let pending: Array<{ id: string }> = []
      // The REPL's call reaches the model in its own time: look again after each still moment on screen.
      for (let i = 0; i < 200 && pending.length === 0; i++) {
        pending = (JSON.parse(text(await client.callTool({ name: "llm_pending", arguments: {} }))) as { pending: Array<{ id: string }> }).pending
        if (pending.length === 0) await client.callTool({ name: "wait", arguments: { quietMs: 25, timeoutMs: 1000 } })
      }
      expect(pending).toHaveLength(1)
      const responded = await client.callTool({ name: "llm_respond", arguments: { id: pending[0]!.id, text: "Shakespeare wrote Hamlet." } })
      expect(text(responded)).toContain("answered")
      const screen = JSON.parse(text(await client.callTool({ name: "wait", arguments: { text: "agent> Shakespeare", timeoutMs: 10_000 } }))) as { lines: Array<string> }
      expect(screen.lines).toContain("agent> Shakespeare wrote Hamlet.")
      const log = JSON.parse(text(await client.callTool({ name: "network_log", arguments: {} }))) as { records: Array<{ url: string; status?: number }> }
      expect(log.records.map((record) => [record.url, record.status])).toEqual([["https://api.openai.com/v1/chat/completions", 200]])
      const bad = await client.callTool({ name: "press", arguments: { key: "hyper+q" } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toContain("no key named")
      expect((await client.callTool({ name: "files", arguments: {} })).isError).toBe(true)
    } finally {
      await client.close()
    }
  }, 60_000)
})

/**
 * The same tools on `simnet run --tty` at its loopback path (`/experimental/simulation/mcp`, MCP's
 * Streamable HTTP), through the SDK's HTTP client: an agent attaches to a simulation already
 * running rather than starting one. `simnet serve` serves the path as well (no terminal: the screen
 * tools say so).
 */
describe("the simnet mcp tools over Streamable HTTP, on a running simulation", () => {
  it("drives the app of simnet run --tty: types, presses, reads the screen and the log; without a terminal the screen tools say why", async () => {
    const { spawn } = await import("node:child_process")
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    const fixture = join(mkdtempSync(join(tmpdir(), "simnet-mcp-http-")), "fixture.json")
    writeFileSync(fixture, JSON.stringify({ routes: [{ family: "openai" }], llm: { rules: [{ match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: "Shakespeare." }]] } }] } }))
    const app = join(import.meta.dirname, "..", "..", "test", "fixtures", "tty", "prompt.mjs")
    const run = spawn(process.execPath, [join(root, "bin", "simnet.js"), "run", "--quiet", "--tty", "--cols", "60", "--rows", "12", "--fixture", fixture, "--", process.execPath, app], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
    const serve = spawn(process.execPath, [join(root, "bin", "simnet.js"), "serve", "--port", "0", "--quiet", "--fixture", fixture], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    const shown = (child: import("node:child_process").ChildProcess, stream: "stdout" | "stderr", pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        let out = ""
        child[stream]!.on("data", (data: Buffer) => {
          out += data.toString()
          const found = pattern.exec(out)
          if (found !== null) resolve(found[1]!)
        })
        child.once("exit", () => reject(new Error(out)))
      })
    try {
      const driver = await shown(run, "stderr", /driver: (ws:\/\/\S+)/)
      const client = new Client({ name: "judge", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(driver.replace(/^ws/, "http").replace(/\/drive$/, "/mcp"))))
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("llm_respond")
        await client.callTool({ name: "wait", arguments: { text: "ready" } })
        await client.callTool({ name: "type", arguments: { text: "hi" } })
        await client.callTool({ name: "press", arguments: { key: "enter" } })
        expect(text(await client.callTool({ name: "wait", arguments: { text: "you typed: hi" } }))).toContain("you typed: hi")
        expect(JSON.parse(text(await client.callTool({ name: "screen", arguments: {} }))).lines).toContain("you typed: hi")
        expect(JSON.parse(text(await client.callTool({ name: "network_log", arguments: {} }))).records).toEqual([])
      } finally {
        await client.close()
      }
      // simnet serve: the same path, no terminal.
      const mcp = (await shown(serve, "stdout", /mcp:\s+(\S+)/))
      const other = new Client({ name: "judge", version: "1.0.0" })
      await other.connect(new StreamableHTTPClientTransport(new URL(mcp)))
      try {
        const screen = await other.callTool({ name: "screen", arguments: {} })
        expect(screen.isError).toBe(true)
        expect(text(screen)).toContain("simnet run --tty")
        const ids = JSON.parse(text(await other.callTool({ name: "register_routes", arguments: { specs: { id: "hello", match: "GET https://api.example.com/hello", respond: { kind: "text", body: "hi" } } } })))
        expect(ids).toEqual({ ids: ["hello"] })
      } finally {
        await other.close()
      }
      // A page elsewhere cannot reach it: the control endpoint's checks hold (a foreign Origin).
      const refused = await fetch(mcp, { method: "POST", headers: { origin: "https://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" })
      expect(refused.status).toBe(403)
    } finally {
      run.kill("SIGTERM")
      serve.kill("SIGTERM")
    }
  }, 60_000)
})
