/**
 * The judge for Gemini CLI (issue 33): `@google/gemini-cli` as shipped and unmodified, against
 * `simnet serve` with a fixture alone. Its hidden router call asks for JSON
 * (`responseMimeType: application/json` with a `responseJsonSchema` in Gemini's upper-case
 * spelling); a rule with `structured: true` answers it with a `json` action, so the main call
 * comes at once instead of after growing retries. The main call is answered by a rule that calls
 * Gemini CLI's own `read_file` tool, which reads the file for real, and the round after it by a
 * rule that matches only when the file's text came back. It must exit 0 and print the answer, and
 * simnet's trace must hold no refused request.
 *
 * Both processes run in a network namespace with loopback only. Skipped, saying why, where the
 * CLI or the namespace cannot be had.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { judgeRun, namespaces } from "./support/agentJudge.ts"
import { geminiCliEntry } from "./support/geminiCli.ts"

const found = geminiCliEntry()
const entry = "path" in found ? found.path : undefined
const why = "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

describe.skipIf(why !== undefined)(`Gemini CLI from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("its router call gets JSON from a structured rule, then read_file runs for a rule and the round after it is answered, nothing refused", () => {
    const run = judgeRun({
      prepare: ({ work, home }) => {
        mkdirSync(join(home, ".gemini"))
        writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }))
        writeFileSync(join(work, "notes.txt"), "buy milk\n")
      },
      fixture: ({ work }) => ({
        routes: [{ family: "gemini" }],
        llm: {
          rules: [
            { id: "router", match: { structured: true }, behaviour: { type: "respond", steps: [[{ type: "json", value: { complexity_reasoning: "A file read.", complexity_score: 10 } }]] } },
            { id: "read", match: { tool: "read_file", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "read_file", input: { file_path: join(work, "notes.txt") } }]] } },
            { id: "answer", match: { toolResult: true, contains: "buy milk" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The notes say: buy milk." }]] } }
          ]
        }
      }),
      env: ({ home }) => ({ HOME: home, GEMINI_API_KEY: "gm-simnet-judge", GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:4747/generativelanguage.googleapis.com", GEMINI_CLI_TRUST_WORKSPACE: "true" }),
      command: `${JSON.stringify(process.execPath)} ${JSON.stringify(entry!)} -p "read notes.txt"`
    })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
    expect(run.stdout.trim()).toBe("The notes say: buy milk.")
    expect(run.stderr).not.toMatch(/Routing\] .* failed/)
    expect(run.requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)).toEqual([])
    expect(run.requests).toHaveLength(3)
    // The router call asked for JSON in Gemini's spelling; the two after it are the main call and its tool round.
    const router = JSON.parse(run.requests[0]!.body!.text!) as { generationConfig: { responseMimeType: string; responseJsonSchema: { type: string } } }
    expect(router.generationConfig).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: { type: "OBJECT" } })
    expect(run.requests.slice(1).every((r) => r.url.includes(":streamGenerateContent"))).toBe(true)
  }, 240_000)
})
