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
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { geminiCliEntry } from "./support/geminiCli.ts"

const root = join(import.meta.dirname, "..")
const found = geminiCliEntry()
const entry = "path" in found ? found.path : undefined
const namespaces = process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0
const why = "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

interface Traced {
  readonly type: string
  readonly method: string
  readonly url: string
  readonly route?: string
  readonly outcome: string
  readonly body?: { readonly text?: string }
}

describe.skipIf(why !== undefined)(`Gemini CLI from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("its router call gets JSON from a structured rule, then read_file runs for a rule and the round after it is answered, nothing refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-gemini-cli-"))
    const work = join(dir, "work")
    const home = join(dir, "home")
    mkdirSync(work)
    mkdirSync(join(home, ".gemini"), { recursive: true })
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }))
    const notes = join(work, "notes.txt")
    writeFileSync(notes, "buy milk\n")
    const fixture = join(dir, "fixture.json")
    writeFileSync(fixture, JSON.stringify({
      routes: [{ family: "gemini" }],
      llm: {
        rules: [
          { id: "router", match: { structured: true }, behaviour: { type: "respond", steps: [[{ type: "json", value: { complexity_reasoning: "A file read.", complexity_score: 10 } }]] } },
          { id: "read", match: { tool: "read_file", toolResult: false }, behaviour: { type: "respond", steps: [[{ type: "tool_call", name: "read_file", input: { file_path: notes } }]] } },
          { id: "answer", match: { toolResult: true, contains: "buy milk" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "The notes say: buy milk." }]] } }
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
      `export HOME=${JSON.stringify(home)} GEMINI_API_KEY=gm-simnet-judge GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4747/generativelanguage.googleapis.com GEMINI_CLI_TRUST_WORKSPACE=true`,
      `timeout 120 ${JSON.stringify(process.execPath)} ${JSON.stringify(entry!)} -p "read notes.txt"`,
      "CODE=$?",
      "kill $SERVE",
      "wait $SERVE",
      "exit $CODE"
    ].join("\n"))
    const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 180_000 })
    expect(run.status, `${run.stdout}\n${run.stderr}\n${readFileSync(log, "utf8")}`).toBe(0)
    expect(run.stdout.trim()).toBe("The notes say: buy milk.")
    expect(run.stderr).not.toMatch(/Routing\] .* failed/)
    const requests = readFileSync(trace, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Traced).filter((e) => e.type === "request")
    expect(requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)).toEqual([])
    expect(requests).toHaveLength(3)
    // The router call asked for JSON in Gemini's spelling; the two after it are the main call and its tool round.
    const router = JSON.parse(requests[0]!.body!.text!) as { generationConfig: { responseMimeType: string; responseJsonSchema: { type: string } } }
    expect(router.generationConfig).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: { type: "OBJECT" } })
    expect(requests.slice(1).every((r) => r.url.includes(":streamGenerateContent"))).toBe(true)
  }, 240_000)
})
