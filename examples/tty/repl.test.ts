/**
 * The terminal agent (`repl.mjs`) under `simnet run --tty`, in a network namespace with loopback
 * only, driven through the driver socket's `ui.*` methods: a typed question gets the fixture's
 * scripted answer on screen, the model call is in simnet's log, and the trace holds every action
 * and the screen after it. Skipped, saying why, where there is no namespace.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { namespaces } from "../../test/support/agentJudge.ts"

const root = join(import.meta.dirname, "..", "..")

describe.skipIf(!namespaces)(
  `a terminal agent driven through ui.*${namespaces ? "" : " (skipped: no network namespace here)"}`,
  () => {
    it("a typed question gets the scripted answer on screen; the trace holds the actions and screens", async () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-repl-"))
      const fixture = join(dir, "fixture.json")
      const trace = join(dir, "trace.jsonl")
      writeFileSync(
        fixture,
        JSON.stringify({
          routes: [{ family: "openai" }],
          llm: {
            rules: [
              {
                match: { contains: "capital of France" },
                behaviour: { type: "respond", steps: [[{ type: "text", content: "Paris is the capital of France." }]] }
              }
            ]
          }
        })
      )
      // simnet, the REPL and the driver all run inside the namespace: its loopback is theirs alone.
      const drive = [
        process.execPath,
        join(import.meta.dirname, "drive.mjs"),
        fixture,
        trace,
        "What is the capital of France?",
        "agent> Paris"
      ]
      const quoted = drive.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")
      const child = spawn("unshare", ["-n", "bash", "-c", `ip link set lo up && exec ${quoted}`], {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      child.stdout!.on("data", (data: Buffer) => (out += data.toString()))
      child.stderr!.on("data", (data: Buffer) => (err += data.toString()))
      const [status] = await once(child, "exit")
      expect(status, err).toBe(0)
      const seen = JSON.parse(out.trim()) as {
        answered: { result?: { lines: Array<string> }; error?: unknown }
        code: number
        stderr: string
      }
      expect(seen.answered.error).toBeUndefined()
      expect(seen.answered.result!.lines).toContain("agent> Paris is the capital of France.")
      expect(seen.code, seen.stderr).toBe(0)
      expect(seen.stderr).toContain("1 answered, 0 refused")
      const lines = readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map(
          (line) =>
            JSON.parse(line) as { type: string; method?: string; screen?: { lines: Array<string> }; url?: string }
        )
      expect(lines.filter((line) => line.type === "control.ui").map((line) => line.method)).toEqual([
        "ui.wait",
        "ui.type",
        "ui.press",
        "ui.wait",
        "ui.wait",
        "ui.press"
      ])
      expect(
        lines.find(
          (line) =>
            line.type === "control.ui" &&
            line.method === "ui.wait" &&
            line.screen?.lines.some((text) => text.startsWith("agent> Paris"))
        )
      ).toBeDefined()
      expect(lines.some((line) => line.url === "https://api.openai.com/v1/chat/completions")).toBe(true)
    }, 60_000)
  }
)
