/**
 * Every `ui.*` call that acts, whichever door it came through, is a `control.ui` line of the trace
 * and is replayed; looking (`ui.screen`, `ui.interactables`) leaves no line. Judged end to end: the
 * MCP SDK's client drives `simnet mcp --trace -- REPL` (it submits questions, answers the held
 * model calls with `llm_respond`, looks at the screen and its interactables, is refused a click),
 * and the trace, replayed by `replayOver` against `simnet run --tty` running the same REPL (no
 * driver this time: the answers come back as one-use rules), shows the same screens.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "vitest"
import { replayOver, replayTrace } from "../src/Trace.ts"

const root = join(import.meta.dirname, "..")
const repl = join(root, "examples", "tty", "repl.mjs")
const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]?.text ?? ""

type Line = { type: string; method?: string; params?: Record<string, unknown>; screen?: { lines: Array<string> } }

describe("a session an agent drove through simnet mcp, replayed from its trace", () => {
  it("traces each action (not the looks), and replays to the same screens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-mcp-replay-"))
    const fixture = join(dir, "fixture.json")
    const trace = join(dir, "trace.jsonl")
    writeFileSync(fixture, JSON.stringify({ routes: [{ family: "openai" }] }))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(root, "bin", "simnet.js"),
        "mcp",
        "--drive",
        "--trace",
        trace,
        "--cols",
        "60",
        "--rows",
        "12",
        "--fixture",
        fixture,
        "--",
        process.execPath,
        repl
      ],
      cwd: root,
      stderr: "pipe"
    })
    const client = new Client({ name: "judge", version: "1.0.0" })
    await client.connect(transport)
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError === true) throw new Error(`${name}: ${text(result)}`)
      return JSON.parse(text(result)) as Record<string, any>
    }
    /** Answers the model call the REPL makes, once it is held. */
    const answer = async (reply: string) => {
      let pending: Array<{ id: string }> = []
      for (let i = 0; i < 200 && pending.length === 0; i++) {
        pending = (await call("llm_pending")).pending
        if (pending.length === 0) await call("wait", { quietMs: 25, timeoutMs: 1000 })
      }
      expect(pending).toHaveLength(1)
      await call("llm_respond", { id: pending[0]!.id, text: reply })
    }
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["interactables", "click", "paste", "submit"])
      )
      await call("wait", { text: "repl ready" })
      await call("submit", { text: "What is the capital of France?" })
      await answer("Paris.")
      await call("wait", { text: "agent> Paris." })
      // Looking is not acting: neither leaves a line.
      expect((await call("screen")).lines).toContain("agent> Paris.")
      expect((await call("interactables")).items).toContainEqual({ kind: "input", text: "", x: 5, y: 3, width: 55 })
      // A refused call leaves none either: the REPL turned on no mouse.
      const click = await client.callTool({ name: "click", arguments: { text: "Paris" } })
      expect([click.isError, text(click)]).toEqual([true, expect.stringContaining("the app enabled no mouse")])
      await call("type", { text: "And Spain?" })
      await call("press", { key: "enter" })
      await answer("Madrid.")
      await call("wait", { text: "agent> Madrid." })
    } finally {
      await client.close()
    }

    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line)
    const actions = lines.filter((line) => line.type === "control.ui").map((line) => line.method)
    expect(actions.filter((method) => method !== "ui.wait")).toEqual(["ui.submit", "ui.type", "ui.press"])
    expect(actions).not.toContain("ui.screen")
    expect(lines.filter((line) => line.type === "control.drive").map((line) => line.method)).toEqual([
      "llm.chunk",
      "llm.finish",
      "llm.chunk",
      "llm.finish"
    ])

    // The same REPL under simnet run --tty, no driver: the trace drives it again.
    const manifest = join(dir, "endpoints.json")
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
        "--manifest",
        manifest,
        "--",
        process.execPath,
        repl
      ],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] }
    )
    try {
      await new Promise<void>((resolve, reject) => {
        let err = ""
        run.stderr!.on("data", (data: Buffer) => {
          err += data.toString()
          if (/driver: /.test(err)) resolve()
        })
        run.once("exit", () => reject(new Error(err)))
      })
      const base = (JSON.parse(readFileSync(manifest, "utf8")) as { endpoints: { network: string } }).endpoints.network
      const replay = replayTrace(readFileSync(trace, "utf8"))
      const answers = await replayOver(replay, base)
      // Each wait for a text shows the screen it showed when the agent drove the REPL.
      const uiSteps = replay.steps.flatMap((step) => (step.kind === "ui" ? [step] : []))
      const uiAnswers = answers.filter((answer) => answer.method.startsWith("ui."))
      expect(uiAnswers.map((answer) => answer.method)).toEqual(uiSteps.map((step) => step.method))
      const waited = uiSteps.flatMap((step, i) =>
        step.method === "ui.wait" && (step.params as { text?: string }).text !== undefined ? [i] : []
      )
      for (const i of waited) {
        const then = (uiSteps[i]!.screen as { lines: Array<string> }).lines
        expect((JSON.parse(uiAnswers[i]!.body) as { lines: Array<string> }).lines).toEqual(then)
      }
      expect(waited).toHaveLength(3)
      // The REPL made its two model calls again, and the screens show the same answers.
      const log = (await (await fetch(`${base}/experimental/simulation/network/log`)).json()) as {
        records: Array<{ url: string; status: number }>
      }
      expect(log.records.map((record) => [record.url, record.status])).toEqual([
        ["https://api.openai.com/v1/chat/completions", 200],
        ["https://api.openai.com/v1/chat/completions", 200]
      ])
    } finally {
      run.kill("SIGTERM")
    }
  }, 120_000)
})
