/**
 * The judge for Codex (issue 33): `@openai/codex`'s platform binary, as shipped and unmodified,
 * on its default model, against `simnet serve` with a fixture alone, configured as a model
 * provider at simnet's base URL. Its request has no `tools` field: its tools come in an
 * `additional_tools` input item, grouped in `namespace`s, and the only way to run a command is the
 * freeform `exec` custom tool, which takes JavaScript. A rule's `tool_call` whose `input` is a
 * string is answered as a `custom_tool_call`; Codex runs it for real (`tools.exec_command`), and
 * the round after it is matched by the command's output in its `custom_tool_call_output`. Codex
 * must exit 0 and print the answer, and simnet's trace must hold no refused request.
 *
 * Both processes run in a network namespace with loopback only. Skipped, saying why, where the
 * binary or the namespace cannot be had.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { judgeRun, namespaces } from "./support/agentJudge.ts"
import { codexBinary } from "./support/codex.ts"

const found = codexBinary()
const binary = "path" in found ? found.path : undefined
const why = "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

const EXEC = "const r = await tools.exec_command({ cmd: \"echo simnet-marker-$((6*7))\" }); text(r)"

describe.skipIf(why !== undefined)(`Codex from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("runs its exec custom tool for a rule and answers the round after it, its tools read from additional_tools, nothing refused", () => {
    const run = judgeRun({
      prepare: ({ home }) => {
        mkdirSync(join(home, ".codex"))
        writeFileSync(join(home, ".codex", "config.toml"), [
          `model_provider = "simnet"`,
          `[model_providers.simnet]`,
          `name = "simnet"`,
          `base_url = "http://127.0.0.1:4747/api.openai.com/v1"`,
          `env_key = "OPENAI_API_KEY"`,
          `wire_api = "responses"`
        ].join("\n"))
      },
      fixture: () => ({
        routes: [{ family: "openai" }],
        llm: {
          rules: [
            { id: "run", match: { tool: "exec", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "exec", input: EXEC }]] } },
            { id: "answer", match: { toolResult: true, contains: "simnet-marker-42" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The command printed simnet-marker-42." }]] } }
          ]
        }
      }),
      env: ({ home }) => ({ HOME: home, CODEX_HOME: join(home, ".codex"), OPENAI_API_KEY: "sk-simnet-judge" }),
      command: `${JSON.stringify(binary!)} exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "run the marker command"`
    })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
    expect(run.stdout.trim().split("\n").at(-1)).toBe("The command printed simnet-marker-42.")
    expect(run.requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)).toEqual([])
    expect(run.requests.map((r) => r.route)).toEqual(["openai.responses", "openai.responses"])
    // Its tools came in an additional_tools item, not `tools`; the second call carried the custom tool's output.
    const [first, second] = run.requests.map((r) => JSON.parse(r.body!.text!) as { tools?: unknown; input: Array<{ type?: string }> })
    expect(first!.tools ?? null).toBeNull()
    expect(first!.input.some((item) => item.type === "additional_tools")).toBe(true)
    expect(second!.input.map((item) => item.type)).toEqual(expect.arrayContaining(["custom_tool_call", "custom_tool_call_output"]))
  }, 240_000)

  it("speaks the Responses WebSocket when its provider supports it, with no HTTPS fallback", () => {
    const run = judgeRun({
      prepare: ({ home }) => {
        mkdirSync(join(home, ".codex"))
        writeFileSync(join(home, ".codex", "config.toml"), [
          `model_provider = "simnet"`,
          `[model_providers.simnet]`,
          `name = "simnet"`,
          `base_url = "http://127.0.0.1:4747/api.openai.com/v1"`,
          `env_key = "OPENAI_API_KEY"`,
          `wire_api = "responses"`,
          `supports_websockets = true`
        ].join("\n"))
      },
      fixture: () => ({
        routes: [{ family: "openai" }],
        llm: {
          rules: [
            { id: "run", match: { tool: "exec", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "exec", input: EXEC }]] } },
            { id: "answer", match: { toolResult: true, contains: "simnet-marker-42" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The command printed simnet-marker-42." }]] } }
          ]
        }
      }),
      env: ({ home }) => ({ HOME: home, CODEX_HOME: join(home, ".codex"), OPENAI_API_KEY: "sk-simnet-judge" }),
      command: `${JSON.stringify(binary!)} exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "run the marker command"`
    })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
  }, 240_000)
})
