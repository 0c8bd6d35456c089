/**
 * The judge for Claude Code (issue 33): `@anthropic-ai/claude-code`'s platform binary, as shipped
 * and unmodified, on its default model, against `simnet serve` with a fixture alone — no control
 * calls, no driver, no workaround flag. `claude -p "run the marker command"`: the main call is
 * answered by a rule that calls Claude Code's own `Bash` tool, which runs for real; the round
 * after it by a rule that matches only when the command's output came back. Its default model
 * sends a `role: "system"` turn inside `messages`; its connectivity check (`HEAD /api/hello`) is
 * answered by the `claude-code` family. Claude Code must exit 0 and print the answer, and simnet's
 * trace must hold no refused request.
 *
 * Both processes run in a network namespace with loopback only. Skipped, saying why, where the
 * binary or the namespace cannot be had.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { claudeCodeBinary } from "./support/claudeCode.ts"

const root = join(import.meta.dirname, "..")
const found = claudeCodeBinary()
const binary = "path" in found ? found.path : undefined
const namespaces = process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0
const why = "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

interface Traced {
  readonly type: string
  readonly method: string
  readonly url: string
  readonly route?: string
  readonly status: number
  readonly outcome: string
  readonly body?: { readonly text?: string }
}

describe.skipIf(why !== undefined)(`Claude Code from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("runs its Bash tool for a rule and answers the round after it, on its default model, with nothing refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-claude-code-"))
    const work = join(dir, "work")
    const home = join(dir, "home")
    mkdirSync(work)
    mkdirSync(home)
    const fixture = join(dir, "fixture.json")
    writeFileSync(fixture, JSON.stringify({
      routes: [{ family: "anthropic" }, { family: "claude-code" }],
      llm: {
        rules: [
          { id: "run", match: { tool: "Bash", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "Bash", input: { command: "echo simnet-marker-$((6*7))", description: "Print the marker" } }]] } },
          { id: "answer", match: { toolResult: true, contains: "simnet-marker-42" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The command printed simnet-marker-42." }]] } }
        ]
      }
    }))
    const trace = join(dir, "trace.jsonl")
    const log = join(dir, "serve.log")
    const script = join(dir, "run.sh")
    writeFileSync(script, [
      "set -u",
      "ip link set lo up",
      `cd ${JSON.stringify(root)}`,
      `${JSON.stringify(process.execPath)} bin/simnet.js serve --port 4747 --quiet --fixture ${JSON.stringify(fixture)} --trace ${JSON.stringify(trace)} > ${JSON.stringify(log)} 2>&1 &`,
      "SERVE=$!",
      `for i in $(seq 1 100); do grep -q "driver:" ${JSON.stringify(log)} && break; sleep 0.1; done`,
      `cd ${JSON.stringify(work)}`,
      `export HOME=${JSON.stringify(home)} ANTHROPIC_BASE_URL=http://127.0.0.1:4747/api.anthropic.com ANTHROPIC_API_KEY=sk-ant-simnet-judge`,
      `timeout 120 ${JSON.stringify(binary!)} -p "run the marker command" --allowedTools Bash`,
      "CODE=$?",
      "kill $SERVE",
      "wait $SERVE",
      "exit $CODE"
    ].join("\n"))
    const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 180_000 })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${readFileSync(log, "utf8")}`).toBe(0)
    expect(run.stdout.trim()).toBe("The command printed simnet-marker-42.")
    const requests = readFileSync(trace, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Traced).filter((entry) => entry.type === "request")
    expect(requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)).toEqual([])
    expect(requests.map((r) => r.route)).toEqual(["claude-code.hello", "anthropic.messages", "anthropic.messages"])
    // Its default model's request carries a system turn inside messages, which is read, not refused.
    const first = JSON.parse(requests[1]!.body!.text!) as { model: string; messages: Array<{ role: string }> }
    expect(first.messages.map((m) => m.role)).toContain("system")
  }, 240_000)
})
