/**
 * `simnet mcp` judged by the official MCP SDK client over stdio: an agent's view of a simulation.
 * With the example REPL as its command and `--drive`, the client types a question (`type`,
 * `press`), sees the model call held (`llm_pending`), answers it (`llm_respond`), waits for the
 * answer on screen (`wait`), and finds the call in `network_log`. Bad input is a tool error that
 * says why. Run in a network namespace with loopback only.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it, vi } from "vitest"
import { namespaces } from "../../test/support/agentJudge.ts"
import { launchSecureChromium } from "../../test/support/chromium.ts"

const root = join(import.meta.dirname, "..", "..")

const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]?.text ?? ""

describe.skipIf(!namespaces)(
  `simnet mcp through the MCP SDK client${namespaces ? "" : " (skipped: no network namespace here)"}`,
  () => {
    it("types, sees the held model call, answers it, and reads the answer off the screen and the log", async () => {
      const fixture = join(mkdtempSync(join(tmpdir(), "simnet-mcp-")), "fixture.json")
      writeFileSync(fixture, JSON.stringify({ routes: [{ family: "openai" }] }))
      const simnet = [
        process.execPath,
        join(root, "bin", "simnet.js"),
        "mcp",
        "--drive",
        "--cols",
        "60",
        "--rows",
        "12",
        "--fixture",
        fixture,
        "--",
        process.execPath,
        join(import.meta.dirname, "repl.mjs")
      ]
      const quoted = simnet.map((part) => `'${part.replace(/'/g, "'\\\\''")}'`).join(" ")
      const transport = new StdioClientTransport({
        command: "unshare",
        args: ["-n", "bash", "-c", `ip link set lo up && exec ${quoted}`],
        cwd: root,
        stderr: "pipe"
      })
      const client = new Client({ name: "judge", version: "1.0.0" })
      await client.connect(transport)
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name)
        expect(tools).toEqual([
          "screen",
          "interactables",
          "type",
          "press",
          "click",
          "paste",
          "submit",
          "resize",
          "wait",
          "network_log",
          "register_routes",
          "llm_enqueue",
          "llm_rules",
          "llm_pending",
          "llm_respond",
          "files",
          "snapshot",
          "reset"
        ])
        await client.callTool({ name: "wait", arguments: { text: "repl ready" } })
        await client.callTool({ name: "type", arguments: { text: "Who wrote Hamlet?" } })
        await client.callTool({ name: "press", arguments: { key: "enter" } })
        let pending: Array<{ id: string }> = []
        // The REPL's call reaches the model in its own time: look again after each still moment on screen.
        for (let i = 0; i < 200 && pending.length === 0; i++) {
          pending = (
            JSON.parse(text(await client.callTool({ name: "llm_pending", arguments: {} }))) as {
              pending: Array<{ id: string }>
            }
          ).pending
          if (pending.length === 0) await client.callTool({ name: "wait", arguments: { quietMs: 25, timeoutMs: 1000 } })
        }
        expect(pending).toHaveLength(1)
        const responded = await client.callTool({
          name: "llm_respond",
          arguments: { id: pending[0]!.id, text: "Shakespeare wrote Hamlet." }
        })
        expect(text(responded)).toContain("answered")
        const screen = JSON.parse(
          text(await client.callTool({ name: "wait", arguments: { text: "agent> Shakespeare", timeoutMs: 10_000 } }))
        ) as { lines: Array<string> }
        expect(screen.lines).toContain("agent> Shakespeare wrote Hamlet.")
        const log = JSON.parse(text(await client.callTool({ name: "network_log", arguments: {} }))) as {
          records: Array<{ url: string; status?: number }>
        }
        expect(log.records.map((record) => [record.url, record.status])).toEqual([
          ["https://api.openai.com/v1/chat/completions", 200]
        ])
        const bad = await client.callTool({ name: "press", arguments: { key: "hyper+q" } })
        expect(bad.isError).toBe(true)
        expect(text(bad)).toContain("no key named")
        expect((await client.callTool({ name: "files", arguments: {} })).isError).toBe(true)
      } finally {
        await client.close()
      }
    }, 60_000)
  }
)

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
    writeFileSync(
      fixture,
      JSON.stringify({
        routes: [{ family: "openai" }],
        llm: {
          rules: [
            { match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: "Shakespeare." }]] } }
          ]
        }
      })
    )
    const app = join(import.meta.dirname, "..", "..", "test", "fixtures", "tty", "prompt.mjs")
    const run = spawn(
      process.execPath,
      [
        join(root, "bin", "simnet.js"),
        "run",
        "--quiet",
        "--tty",
        "--cols",
        "60",
        "--rows",
        "12",
        "--fixture",
        fixture,
        "--",
        process.execPath,
        app
      ],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] }
    )
    const serve = spawn(
      process.execPath,
      [join(root, "bin", "simnet.js"), "serve", "--port", "0", "--quiet", "--fixture", fixture],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
    )
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
      await client.connect(
        new StreamableHTTPClientTransport(new URL(driver.replace(/^ws/, "http").replace(/\/drive$/, "/mcp")))
      )
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("llm_respond")
        await client.callTool({ name: "wait", arguments: { text: "ready" } })
        await client.callTool({ name: "type", arguments: { text: "hi" } })
        await client.callTool({ name: "press", arguments: { key: "enter" } })
        expect(text(await client.callTool({ name: "wait", arguments: { text: "you typed: hi" } }))).toContain(
          "you typed: hi"
        )
        expect(JSON.parse(text(await client.callTool({ name: "screen", arguments: {} }))).lines).toContain(
          "you typed: hi"
        )
        expect(JSON.parse(text(await client.callTool({ name: "network_log", arguments: {} }))).records).toEqual([])
      } finally {
        await client.close()
      }
      // simnet serve: the same path, no terminal.
      const mcp = await shown(serve, "stdout", /mcp:\s+(\S+)/)
      const other = new Client({ name: "judge", version: "1.0.0" })
      await other.connect(new StreamableHTTPClientTransport(new URL(mcp)))
      try {
        const screen = await other.callTool({ name: "screen", arguments: {} })
        expect(screen.isError).toBe(true)
        expect(text(screen)).toContain("simnet run --tty")
        const ids = JSON.parse(
          text(
            await other.callTool({
              name: "register_routes",
              arguments: {
                specs: {
                  id: "hello",
                  match: "GET https://api.example.com/hello",
                  respond: { kind: "text", body: "hi" }
                }
              }
            })
          )
        )
        expect(ids).toEqual({ ids: ["hello"] })
      } finally {
        await other.close()
      }
      // A page elsewhere cannot reach it: the control endpoint's checks hold (a foreign Origin).
      const refused = await fetch(mcp, {
        method: "POST",
        headers: {
          origin: "https://evil.example",
          "content-type": "application/json",
          accept: "application/json, text/event-stream"
        },
        body: "{}"
      })
      expect(refused.status).toBe(403)
    } finally {
      run.kill("SIGTERM")
      serve.kill("SIGTERM")
    }
  }, 60_000)
})

/**
 * Bad input and a dead app, through the SDK's client over stdio: each tool decodes its arguments
 * by its Schema and answers bad ones naming the field and what it must be; once the command has
 * exited, every screen tool names the exit and the last screen, and the inspector shows it.
 */
describe("simnet mcp: bad arguments and an app that exits", () => {
  it("every tool refuses bad arguments naming what is wrong; a command's exit is every screen tool's answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-mcp-bad-"))
    const manifest = join(dir, "endpoints.json")
    const fixture = join(dir, "fixture.json")
    writeFileSync(fixture, JSON.stringify({ routes: [] }))
    const crash = join(root, "test", "fixtures", "tty", "crash.mjs")
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, "bin", "simnet.js"),
        "mcp",
        "--fixture",
        fixture,
        "--manifest",
        manifest,
        "--cols",
        "40",
        "--rows",
        "6",
        "--",
        process.execPath,
        crash
      ],
      cwd: root,
      stderr: "pipe"
    })
    const client = new Client({ name: "judge", version: "1.0.0" })
    await client.connect(transport)
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args })
      return { isError: result.isError === true, text: text(result) }
    }
    try {
      const tools = (await client.listTools()).tools
      // The listing is the Schemas' JSON Schema: an object, its required keys, no other keys.
      expect(tools.find((tool) => tool.name === "llm_respond")?.inputSchema).toMatchObject({
        type: "object",
        required: ["id", "text"],
        additionalProperties: false
      })
      expect(tools.find((tool) => tool.name === "reset")?.inputSchema).toEqual({
        type: "object",
        properties: {},
        additionalProperties: false
      })
      expect(tools.find((tool) => tool.name === "click")?.inputSchema).toMatchObject({
        type: "object",
        properties: { x: { type: "integer" }, y: { type: "integer" }, text: { type: "string" } },
        additionalProperties: false
      })
      const bad: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["screen", { lines: 1 }, `simnet: bad arguments to screen: lines: unknown key "lines"`],
        ["type", {}, "simnet: bad arguments to type: text: Missing key"],
        ["type", { text: 42 }, "simnet: bad arguments to type: text: Expected string"],
        ["press", { key: ["enter"] }, "simnet: bad arguments to press: key: Expected string"],
        ["interactables", { all: 1 }, `simnet: bad arguments to interactables: all: unknown key "all"`],
        ["click", { x: 1 }, "simnet: bad arguments to click: y: click needs a cell (x and y) or a text"],
        [
          "click",
          { x: 1, y: 2, text: "OK" },
          "simnet: bad arguments to click: text: click at a text or at a cell (x and y), not both"
        ],
        ["paste", {}, "simnet: bad arguments to paste: text: Missing key"],
        [
          "submit",
          { text: "hi", gapMs: 99_999 },
          "simnet: bad arguments to submit: gapMs: Expected a value between 0 and 10000"
        ],
        ["resize", { cols: "wide", rows: 10 }, "simnet: bad arguments to resize: cols: Expected number"],
        ["wait", { timeoutMs: -1 }, "simnet: bad arguments to wait: timeoutMs: Expected a value between 0 and 600000"],
        [
          "wait",
          { timeout: 100 },
          `simnet: bad arguments to wait: timeout: unknown key "timeout"; did you mean timeoutMs?`
        ],
        ["network_log", { since: "yesterday" }, "simnet: bad arguments to network_log: since: Expected number"],
        ["register_routes", {}, "simnet: bad arguments to register_routes: specs: Missing key"],
        [
          "register_routes",
          { specs: { match: "GET https://api.example.com/x" } },
          "simnet: InvalidRouteSpec at respond: Missing key"
        ],
        ["llm_enqueue", {}, "simnet: bad arguments to llm_enqueue: script: Missing key"],
        ["llm_enqueue", { script: { steps: "hello" } }, "simnet: invalid LLM script at steps"],
        ["llm_rules", {}, "simnet: bad arguments to llm_rules: rules: Missing key"],
        ["llm_rules", { rules: [{ match: "any" }] }, "simnet: invalid LLM rule at [0].behaviour"],
        ["llm_pending", { all: true }, `simnet: bad arguments to llm_pending: all: unknown key "all"`],
        ["llm_respond", { id: "inv_1" }, "simnet: bad arguments to llm_respond: text: Missing key"],
        ["llm_respond", { id: "inv_1", text: "hi" }, "inv_1"],
        ["files", { path: "/" }, `simnet: bad arguments to files: path: unknown key "path"`],
        ["snapshot", { full: 1 }, `simnet: bad arguments to snapshot: full: unknown key "full"`],
        ["reset", { hard: true }, `simnet: bad arguments to reset: hard: unknown key "hard"`],
        ["nope", {}, 'simnet: no tool named "nope"']
      ]
      for (const [name, args, said] of bad)
        expect({ name, ...(await call(name, args)) }).toEqual({
          name,
          isError: true,
          text: expect.stringContaining(said)
        })
      // Every tool named at least once, each refusal changing nothing: good arguments still work.
      expect(new Set(bad.map(([name]) => name))).toEqual(new Set([...tools.map((tool) => tool.name), "nope"]))
      expect(await call("llm_enqueue", { script: { steps: [[{ type: "text", content: "hi" }]] } })).toEqual({
        isError: false,
        text: expect.stringContaining(`"queued": 1`)
      })

      // The app dies; every screen tool says so, with the last screen.
      expect((await call("wait", { text: "agent> " })).isError).toBe(false)
      expect((await call("type", { text: "x" })).isError).toBe(false)
      const died = "simnet: the program exited with code 3; its last screen:\ncrash ready\nagent>\nboom: the agent died"
      await vi.waitFor(async () => expect(await call("screen", {})).toEqual({ isError: true, text: died }), {
        timeout: 10_000,
        interval: 20
      })
      for (const [name, args] of [
        ["type", { text: "again" }],
        ["press", { key: "enter" }],
        ["wait", { text: "agent> " }],
        ["resize", { cols: 50, rows: 10 }],
        ["click", { x: 0, y: 0 }],
        ["paste", { text: "p" }],
        ["submit", { text: "s" }],
        ["interactables", {}]
      ] as const) {
        expect(await call(name, args)).toEqual({ isError: true, text: died })
      }
      // The inspector's screen shows the last screen and how the program ended.
      const { endpoints } = JSON.parse(readFileSync(manifest, "utf8")) as { endpoints: Record<string, string> }
      const shown = (await (await fetch(`${endpoints.inspector}/terminal`)).json()) as {
        lines: Array<string>
        exit?: unknown
      }
      expect(shown).toMatchObject({
        lines: ["crash ready", "agent>", "boom: the agent died", "", "", ""],
        exit: { code: 3 }
      })
      // The page itself, in headless Chromium: its Screen tab says so beside the last screen.
      const browser = await launchSecureChromium()
      try {
        const page = await browser.newPage()
        await page.goto(endpoints.inspector!)
        await page.click("#tab-screen")
        await page.waitForFunction(
          () => (document.getElementById("screen-status")?.textContent ?? "").startsWith("Exited"),
          { timeout: 20_000 }
        )
        expect(await page.$eval("#screen-status", (n) => n.textContent)).toBe(
          "Exited with code 3: its last screen, 40×6"
        )
        expect(await page.$eval("#screen", (n) => n.textContent ?? "")).toContain("boom: the agent died")
      } finally {
        await browser.close()
      }
    } finally {
      await client.close()
    }
    // The client gone, simnet mcp ends and its manifest with it.
    await vi.waitFor(() => expect(existsSync(manifest)).toBe(false), { timeout: 10_000, interval: 20 })
  }, 60_000)
})
