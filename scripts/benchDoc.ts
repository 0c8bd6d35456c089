/**
 * Regenerates the benchmark figures in one command: `npm run bench:doc` runs every bench
 * (`bench/run.ts`'s list; or those named: `npm run bench:doc -- core serve`), each in its own Node
 * process with `--quick` unless other flags are given (`-- --full` passes none). What each printed,
 * with the command that made it, the date, Node's version and the machine's cores, is added whole
 * to `bench/HISTORY.md` as a run of its own, at the top of its runs (newest first): one block per
 * bench between `<!-- bench:NAME -->` markers. A bench that exits non-zero (a missed goal) is
 * written all the same, marked with its exit status.
 *
 * `docs/performance.md` is then written from the history: its "Current figures" section holds,
 * for each bench, the header of its newest block and the lines that are its headline (`HEADLINES`:
 * the ratios and goals a reader quotes), between the same markers. So the page stays short (at
 * most 20 KB, `test/docs.test.ts`) and is a function of the history: `performancePage()` is what
 * this script writes, which the test holds the page to.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { ALL_BENCHES } from "../bench/run.ts"

const root = path.resolve(import.meta.dirname, "..")
const pageFile = path.join(root, "docs", "performance.md")
const historyFile = path.join(root, "bench", "HISTORY.md")
const START = "<!-- bench:generated -->"
const END = "<!-- /bench:generated -->"
/** Where a new run goes in the history: right below this line, above every earlier run. */
const RUNS = "<!-- runs, newest first -->"

/**
 * What each bench measures, in a phrase, and which lines of its output are its headline. A bench
 * with no entry, or whose output has no line the pattern picks, is shown whole.
 */
export const HEADLINES: Readonly<Record<string, { readonly what: string; readonly lines: RegExp }>> = {
  core: {
    what: "`fetch` through 1 to 10 000 routes beside undici's `MockAgent`, msw and nock; a network's cost; the log's heap; refusals.",
    lines:
      /route lookup over|routes vs MockAgent|routes vs fewer|µs per network|heap per network|growth|per record|10,000 routes: .* per unmatched/
  },
  generate: {
    what: "responses generated from a Schema, against json-schema-faker; a route's compiling.",
    lines: /responses\/s$|simnet generate\+encode\+check|register /
  },
  graphql: {
    what: "GraphQL answers generated from an SDL, against graphql-js with constant resolvers.",
    lines: /simnet graphql/
  },
  llm: {
    what: "a model call through the openai SDK, streamed and not, against the SDK reading a prebuilt answer.",
    lines: /target/
  },
  llmApis: {
    what: "every model API's stream through its official SDK, each against its own floor.",
    lines: /lowest ratio|^embeddings|^\s*simnet\s+network\.fetch/
  },
  surfaces: {
    what: "one non-streamed call of every model surface through its SDK, against its floor and aimock.",
    lines: /^\s*(surface|openai\.chat|anthropic\.messages|gemini) |every surface within|below the targets/
  },
  global: {
    what: "`installGlobal`: the global `fetch` and axios against `MockAgent`, msw, nock and a real loopback server.",
    lines: /^\s*\d+ routes: global fetch vs/
  },
  serve: {
    what: "`simnet serve` against `node:http`, mockttp, Mockoon and WireMock, then its proxy against `node:https` and mockttp; new hosts' certificates; a `CONNECT` flood.",
    lines: /goals:|^\s*WireMock |simnet before|^\s*mockttp \(HTTPS proxy\)\s+plain/
  },
  serveModel: { what: "model calls over `simnet serve`.", lines: /calls\/s/ },
  driver: { what: "a driven answer over the driver socket against one driven in process.", lines: /goal/ },
  mcp: { what: "`tools/call` round trips with the MCP client, against the SDK's server in memory.", lines: /simnet:/ },
  property: { what: "property cases per second against fast-check with msw at equal work.", lines: /simnet \/ msw/ },
  record: { what: "replaying a recording, and keeping bodies, against hand-written routes.", lines: /round by round/ },
  refusals: { what: "a refused request through the openai SDK: its retries and their time.", lines: /attempt/ },
  cold: {
    what: '`import("simnet")` in a fresh process against effect, msw and nock.',
    lines: /goals:|^\s*simnet \(dist\)/
  },
  agents: {
    what: "Claude Code, Codex and Gemini CLI one-shot under `simnet run`, families against routes by hand.",
    lines: /family\/by hand/
  },
  serveCpu: {
    what: "server CPU a model call over loopback, against aimock.",
    lines: /simnet\/aimock per server CPU-s/
  },
  instructions: {
    what: "instructions a model call, in process and served (callgrind), against a static route, bare `node:http` and aimock.",
    lines: /x the static route|fewer than aimock/
  },
  explore: {
    what: "`simnet explore` at its defaults on the example agent and a menu app, against an older checkout; then `--clock virtual` on an app that waits 30 s of timers a key.",
    lines: /^ (agent|menu):|ratio \(this \/ against|^ --clock virtual|wall time per action/
  },
  isolate: { what: "`simnet run -- true`, plain and sealed.", lines: /sealing adds|against it:/ },
  connectFlood: {
    what: "a plain route's latency beside a flood of `CONNECT`s to new hosts, against a bare Node server.",
    lines: /with the flood \/ without/
  },
  template: {
    what: "templated and scenario-gated routes against static ones.",
    lines: /cost of a template|^\s*1 000 scenario-gated/
  },
  terminal: {
    what: "interactables per screen, and resize storms contained.",
    lines: /per screen:|storms with an exception/
  }
}

const BLOCK = /<!-- bench:(\w+) -->\n([\s\S]*?)\n<!-- \/bench:\1 -->/g

/** Each bench's newest block in the history (the first, as runs are newest first), by name. */
const newestBlocks = (history: string): Map<string, string> => {
  const blocks = new Map<string, string>()
  for (const [, name, body] of history.matchAll(BLOCK)) if (!blocks.has(name!)) blocks.set(name!, body!)
  return blocks
}

/** A block's header line and the lines of its output. */
const partsOf = (body: string): { readonly header: string; readonly output: ReadonlyArray<string> } => {
  const [header = "", ...rest] = body.split("\n")
  return {
    header,
    output: rest
      .join("\n")
      .replace(/^\s*```\n/, "")
      .replace(/\n```\s*$/, "")
      .split("\n")
  }
}

/** The lines `HEADLINES` picks from a bench's output; none when it has no entry or the pattern picks nothing. */
export const headlineLines = (name: string, body: string): ReadonlyArray<string> => {
  const rule = HEADLINES[name]
  return rule === undefined ? [] : partsOf(body).output.filter((line) => rule.lines.test(line))
}

/** A bench's block on the performance page: the newest run's header, what it measures, its headline. */
const headlineBlock = (name: string, body: string): string => {
  const { header, output } = partsOf(body)
  const picked = headlineLines(name, body)
  const what = HEADLINES[name]?.what
  const lines = picked.length === 0 ? output : picked
  return [
    `<!-- bench:${name} -->`,
    what === undefined ? header : `${header} ${what}`,
    "",
    "```",
    ...lines,
    "```",
    `<!-- /bench:${name} -->`
  ].join("\n")
}

/** `docs/performance.md` as this script writes it from `history` (by default `bench/HISTORY.md`). */
export const performancePage = (history: string = readFileSync(historyFile, "utf8")): string => {
  const page = readFileSync(pageFile, "utf8")
  const blocks = newestBlocks(history)
  const body = ALL_BENCHES.flatMap((name) => (blocks.has(name) ? [headlineBlock(name, blocks.get(name)!)] : [])).join(
    "\n\n"
  )
  return `${page.slice(0, page.indexOf(START))}${START}\n${body}\n${END}${page.slice(page.indexOf(END) + END.length)}`
}

/** Runs `names` with `flags`, each in its own Node process: each one's block, as the history keeps it. */
const runBenches = (names: ReadonlyArray<string>, flags: ReadonlyArray<string>): string => {
  const ansi = /\u001b\[[0-9;]*m/g
  const blockOf = (name: string): string => {
    const command = `node --expose-gc bench/${name}.bench.ts${flags.length === 0 ? "" : ` ${flags.join(" ")}`}`
    process.stdout.write(`${command}\n`)
    const started = Date.now()
    const run = spawnSync(process.execPath, ["--expose-gc", `bench/${name}.bench.ts`, ...flags], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024
    })
    const output = `${run.stdout ?? ""}`.replace(ansi, "").trim()
    process.stdout.write(`${output}\n\n`)
    const status = run.status === 0 ? "" : `, exit ${run.status ?? run.signal}`
    const when = new Date().toISOString().slice(0, 10)
    return [
      `<!-- bench:${name} -->`,
      `**${name}** (\`${command}\`, ${when}, Node ${process.version}, ${availableParallelism()} cores, ${Math.round((Date.now() - started) / 1000)} s${status}):`,
      "",
      "```",
      output === "" ? "(no output)" : output,
      "```",
      `<!-- /bench:${name} -->`
    ].join("\n")
  }
  return names.map(blockOf).join("\n\n")
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const chosen = args.filter((a) => ALL_BENCHES.includes(a))
  const given = args.filter((a) => !ALL_BENCHES.includes(a))
  const names = chosen.length === 0 ? ALL_BENCHES : chosen
  const run = runBenches(names, given.length === 0 ? ["--quick"] : given.filter((a) => a !== "--full"))
  // The benches run first and the files are read after, so an edit made to them meanwhile is kept.
  const history = readFileSync(historyFile, "utf8")
  if (!history.includes(RUNS)) throw new Error(`bench/HISTORY.md has lost its line ${RUNS}, below which each run goes`)
  const at = history.indexOf(RUNS) + RUNS.length
  const heading = `## Run of ${new Date().toISOString().slice(0, 10)}: ${names.join(", ")}`
  const next = `${history.slice(0, at)}\n\n${heading}\n\n${run}${history.slice(at)}`
  writeFileSync(historyFile, next)
  writeFileSync(pageFile, performancePage(next))
  process.stdout.write(
    `bench/HISTORY.md and docs/performance.md: ${chosen.length === 0 ? "every bench" : chosen.join(", ")} written\n`
  )
}
