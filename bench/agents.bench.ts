/**
 * What a one-shot "hi" costs each agent CLI under `simnet run` (issue 33), in wall time from the
 * command's start to its exit, each in a network namespace with loopback only: with its
 * side-call family, beside the same run with every side call answered by hand-written text routes
 * (the family should cost nothing extra), and with every side call refused (simnet run's 404,
 * which no client retries). Runs interleaved, medians and ratios printed. Skips an app whose
 * platform binary cannot be had, and everything where no namespace can be made.
 */
import { judgeRun, namespaces } from "../test/support/agentJudge.ts"
import { AGENT_APPS } from "../test/support/agentApps.ts"

const quick = process.argv.includes("--quick")
const ROUNDS = quick ? 2 : 5

const json = (match: string, body: unknown, status = 200) => ({
  match,
  respond: { kind: "text", body: JSON.stringify(body), status, contentType: "application/json" }
})
const A = "https://api.anthropic.com"

/** Each app's side calls written by hand, as its family answers them. */
const BY_HAND: Readonly<Record<string, ReadonlyArray<unknown>>> = {
  "Claude Code": [
    { match: `HEAD ${A}/api/hello`, respond: { kind: "status", status: 200 } },
    json(`GET ${A}/api/hello`, {}),
    {
      match: `GET ${A}/api/claude_code/settings`,
      respond: { kind: "status", status: 204, headers: { "request-id": "req_bench" } }
    },
    json(`GET ${A}/api/claude_code/policy_limits`, { restrictions: {} }),
    json(`GET ${A}/api/claude_code/organizations/metrics_enabled`, { metrics_logging_enabled: false }),
    json(`GET ${A}/api/claude_code_penguin_mode`, { enabled: false, disabled_reason: "preference" }),
    json(`GET ${A}/api/claude_cli/bootstrap`, {}),
    json(`GET ${A}/api/directory/server-urls`, { urls: [] }),
    json(`GET ${A}/mcp-registry/v0/servers`, { servers: [], metadata: { count: 0 } }),
    json(`POST ${A}/api/eval/:key`, { features: {} }),
    json(`POST ${A}/api/event_logging/v2/batch`, {}),
    { match: `HEAD ${A}/`, respond: { kind: "status", status: 200 } }
  ],
  Codex: [
    {
      match: "POST https://ab.chatgpt.com/otlp/v1/:signal",
      respond: { kind: "bytes", base64: "", contentType: "application/x-protobuf" }
    },
    json("GET https://chatgpt.com/backend-api/codex/models", { models: [] }),
    {
      match: "GET https://github.com/openai/plugins.git/info/refs",
      respond: { kind: "text", body: "Repository not found.\n", status: 404 }
    },
    json("GET https://api.github.com/repos/openai/plugins", { message: "Not Found" }, 404),
    json("GET https://chatgpt.com/backend-api/plugins/export/curated", { detail: "Not Found" }, 404)
  ],
  "Gemini CLI": [json("POST https://play.googleapis.com/log", ["900000"])]
}

const HI = {
  id: "hi",
  match: {},
  behaviour: { type: "respond", steps: [[{ type: "text", content: "Hello from simnet." }]] }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

console.log(`\nagent CLIs, one-shot "hi" under simnet run, wall ms (median of ${ROUNDS}, interleaved)`)
if (!namespaces) console.log("  skipped: no network namespace here (unshare -n needs root on Linux)")
for (const app of namespaces ? AGENT_APPS : []) {
  if (!("path" in app.found)) {
    console.log(`  ${app.name}: skipped (${app.found.why})`)
    continue
  }
  const path = app.found.path
  const variants = {
    family: [{ family: app.model }, { family: app.family }],
    "by hand": [{ family: app.model }, ...BY_HAND[app.name]!],
    refused: [{ family: app.model }]
  }
  const times: Record<string, Array<number>> = { family: [], "by hand": [], refused: [] }
  const refusedCounts: Record<string, number> = {}
  for (let round = 0; round < ROUNDS; round++) {
    for (const [variant, routes] of Object.entries(variants)) {
      const run = judgeRun({
        via: "run",
        prepare: (dirs) => app.prepare(dirs, "run"),
        fixture: () => ({ routes, llm: { rules: [...app.preamble, HI] } }),
        env: (dirs) => app.env(dirs, "run"),
        command: app.command(path, "hi")
      })
      if (run.status !== 0 || !run.stdout.includes("Hello from simnet."))
        throw new Error(`${app.name} (${variant}) failed: ${run.status}\n${run.stdout}\n${run.stderr.slice(-2000)}`)
      times[variant]!.push(run.ms)
      refusedCounts[variant] = run.requests.filter((r) => r.outcome !== "answered").length
    }
  }
  const [family, hand, refused] = [median(times.family!), median(times["by hand"]!), median(times.refused!)]
  console.log(
    `  ${app.name.padEnd(11)}  family ${String(family).padStart(5)} ms  by hand ${String(hand).padStart(5)} ms  (family/by hand ${(family / hand).toFixed(2)}x)  all side calls refused ${String(refused).padStart(5)} ms (${refusedCounts.refused} refused, 404)`
  )
}
