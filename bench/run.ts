/**
 * Runs the benchmarks, each in its own Node process (msw and nock patch globals, and a fresh heap
 * keeps figures honest): `npm run bench` runs them all; `npm run bench -- core` (or `generate`, `graphql`, `global`,
 * `llm`, `llmApis`, `surfaces`, `serve`, `serveModel`, `driver`, `mcp`, `property`, `record`, `refusals`, `cold`, `agents`, `serveCpu`, `instructions`, `explore`, `isolate`, `connectFlood`, `template`, `terminal`) runs one. Other arguments (such as `--quick`) are passed on.
 */
import { spawnSync } from "node:child_process"

/** Every bench, in the order a full run takes them (`scripts/benchDoc.ts` writes them in this order too). */
export const ALL_BENCHES: ReadonlyArray<string> = [
  "core",
  "generate",
  "graphql",
  "llm",
  "llmApis",
  "surfaces",
  "global",
  "serve",
  "serveModel",
  "driver",
  "mcp",
  "property",
  "record",
  "refusals",
  "cold",
  "agents",
  "serveCpu",
  "instructions",
  "explore",
  "isolate",
  "connectFlood",
  "template",
  "terminal"
]

if (import.meta.main) {
  const args = process.argv.slice(2)
  const chosen = args.filter((a) => ALL_BENCHES.includes(a))
  const rest = args.filter((a) => !ALL_BENCHES.includes(a))
  let failed = false
  for (const name of chosen.length === 0 ? ALL_BENCHES : chosen) {
    const result = spawnSync(process.execPath, ["--expose-gc", `bench/${name}.bench.ts`, ...rest], { stdio: "inherit" })
    if (result.status !== 0) failed = true
  }
  process.exitCode = failed ? 1 : 0
}
