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
import { describe, expect, it } from "vitest"
import { judgeRun, namespaces } from "./support/agentJudge.ts"
import { claudeCodeBinary } from "./support/claudeCode.ts"

const found = claudeCodeBinary()
const binary = "path" in found ? found.path : undefined
const why = "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

describe.skipIf(why !== undefined)(`Claude Code from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("runs its Bash tool for a rule and answers the round after it, on its default model, with nothing refused", () => {
    const run = judgeRun({
      fixture: () => ({
        routes: [{ family: "anthropic" }, { family: "claude-code" }],
        llm: {
          rules: [
            { id: "run", match: { tool: "Bash", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "Bash", input: { command: "echo simnet-marker-$((6*7))", description: "Print the marker" } }]] } },
            { id: "answer", match: { toolResult: true, contains: "simnet-marker-42" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The command printed simnet-marker-42." }]] } }
          ]
        }
      }),
      env: ({ home }) => ({ HOME: home, ANTHROPIC_BASE_URL: "http://127.0.0.1:4747/api.anthropic.com", ANTHROPIC_API_KEY: "sk-ant-simnet-judge" }),
      command: `${JSON.stringify(binary!)} -p "run the marker command" --allowedTools Bash`
    })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
    expect(run.stdout.trim()).toBe("The command printed simnet-marker-42.")
    expect(run.requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)).toEqual([])
    expect(run.requests.map((r) => r.route)).toEqual(["claude-code.hello", "anthropic.messages", "anthropic.messages"])
    // Its default model's request carries a system turn inside messages, which is read, not refused.
    const first = JSON.parse(run.requests[1]!.body!.text!) as { model: string; messages: Array<{ role: string }> }
    expect(first.messages.map((m) => m.role)).toContain("system")
  }, 240_000)
})
