/**
 * Regenerates the figures of `docs/performance.md` in one command: `npm run bench:doc` runs every
 * bench (`bench/run.ts`'s list; or those named: `npm run bench:doc -- core serve`), each in its
 * own Node process with `--quick` unless other flags are given (`-- --full` passes none), and
 * writes what each printed, with the command that made it, the date, Node's version and the
 * machine's cores, into the page's "Latest run" section: one block per bench between
 * `<!-- bench:NAME -->` markers, so a bench run alone replaces only its own block. A bench that
 * exits non-zero (a missed goal) is written all the same, marked with its exit status.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import * as path from "node:path"
import { ALL_BENCHES } from "../bench/run.ts"

const root = path.resolve(import.meta.dirname, "..")
const page = path.join(root, "docs", "performance.md")
const START = "<!-- bench:generated -->"
const END = "<!-- /bench:generated -->"

const args = process.argv.slice(2)
const chosen = args.filter((a) => ALL_BENCHES.includes(a))
const given = args.filter((a) => !ALL_BENCHES.includes(a))
const flags = given.length === 0 ? ["--quick"] : given.filter((a) => a !== "--full")
const ansi = /\u001b\[[0-9;]*m/g

const blockOf = (name: string): string => {
  const command = `node --expose-gc bench/${name}.bench.ts${flags.length === 0 ? "" : ` ${flags.join(" ")}`}`
  process.stdout.write(`${command}\n`)
  const started = Date.now()
  const run = spawnSync(process.execPath, ["--expose-gc", `bench/${name}.bench.ts`, ...flags], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
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

// The benches run first and the page is read after, so an edit made to it meanwhile is kept.
const made = new Map((chosen.length === 0 ? ALL_BENCHES : chosen).map((name) => [name, blockOf(name)] as const))
const text = readFileSync(page, "utf8")
const at = text.indexOf(START)
const section = at === -1 ? "" : text.slice(at + START.length, text.indexOf(END))
const blocks = new Map<string, string>()
for (const match of section.matchAll(/<!-- bench:(\w+) -->[\s\S]*?<!-- \/bench:\1 -->/g)) blocks.set(match[1], match[0])
for (const [name, block] of made) blocks.set(name, block)
const body = `${START}\n${ALL_BENCHES.flatMap((name) => (blocks.has(name) ? [blocks.get(name)!] : [])).join("\n\n")}\n${END}`
const intro = "## Latest run\n\nWritten by `npm run bench:doc` (`scripts/benchDoc.ts`): what each bench printed, with the command that made it. The sections after it are earlier runs, kept with their commands and the analysis they came with.\n\n"
const next = at === -1
  ? text.replace(/\n## /, `\n${intro}${body}\n\n## `)
  : `${text.slice(0, at)}${body}${text.slice(text.indexOf(END) + END.length)}`
writeFileSync(page, next)
process.stdout.write(`docs/performance.md: ${chosen.length === 0 ? "every bench" : chosen.join(", ")} written\n`)
