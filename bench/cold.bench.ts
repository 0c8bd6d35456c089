/**
 * Cold start: `import()` of simnet (the built package, as a user imports it), msw/node, nock and
 * effect, each in a fresh Node process, five runs each, interleaved; the median time and resident
 * memory after the import, and (in one more, untimed run with a resolve hook) how many modules
 * the import loads, its own and its dependencies'. Vitest runs each test file in a fresh worker,
 * so a suite pays this once a file. `npm run bench -- cold` (it builds `dist/` first when it is
 * missing).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

if (!existsSync("dist/index.js")) execFileSync("npm", ["run", "build"], { stdio: "ignore" })

const probe = `const t = performance.now(); await import(process.argv[1]); console.log(JSON.stringify({ ms: performance.now() - t, rss: process.memoryUsage().rss }))`
const targets = [
  { name: "simnet (dist)", specifier: new URL("../dist/index.js", import.meta.url).href },
  { name: "effect", specifier: "effect" },
  { name: "msw/node", specifier: "msw/node" },
  { name: "nock", specifier: "nock" }
]
const RUNS = 5
const samples = new Map<string, Array<{ ms: number; rss: number }>>(targets.map((t) => [t.name, []]))
for (let run = 0; run < RUNS; run++) {
  for (const target of targets) {
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", probe, target.specifier], {
      encoding: "utf8"
    })
    samples.get(target.name)!.push(JSON.parse(result.stdout.trim()) as { ms: number; rss: number })
  }
}
// How many modules an import loads: ES modules through a resolve hook, CommonJS from the cache.
const hooks = mkdtempSync(join(tmpdir(), "simnet-cold-"))
writeFileSync(
  join(hooks, "hook.mjs"),
  `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  if (r.url.startsWith("file:")) process.stderr.write("LOADED " + r.url + "\\n")
  return r
}
`
)
writeFileSync(
  join(hooks, "register.mjs"),
  `import { register } from "node:module"\nregister(${JSON.stringify(pathToFileURL(join(hooks, "hook.mjs")).href)})\n`
)
const counting = `await import(process.argv[1]); for (const path of Object.keys((await import("node:module")).createRequire(import.meta.url).cache)) process.stderr.write("LOADED file://" + path + "\\n")`
const modulesLoaded = (specifier: string): ReadonlySet<string> => {
  const result = spawnSync(
    process.execPath,
    ["--import", join(hooks, "register.mjs"), "--input-type=module", "-e", counting, specifier],
    { encoding: "utf8" }
  )
  return new Set(
    result.stderr
      .split("\n")
      .filter((line) => line.startsWith("LOADED "))
      .map((line) => line.slice("LOADED ".length))
  )
}
/** The packages among `urls` (`node_modules/NAME/` or `node_modules/@SCOPE/NAME/`), each once. */
const packagesOf = (urls: ReadonlySet<string>): ReadonlyArray<string> =>
  [...new Set([...urls].flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))].sort()

const median = (values: Array<number>) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]
const figures = targets
  .map((t) => ({
    name: t.name,
    ms: median(samples.get(t.name)!.map((s) => s.ms)),
    mb: median(samples.get(t.name)!.map((s) => s.rss)) / 1048576,
    loaded: modulesLoaded(t.specifier)
  }))
  .map((f) => ({ ...f, modules: f.loaded.size }))
const effect = figures.find((f) => f.name === "effect")!
console.log(`cold start: import() in a fresh process (node ${process.version}), median of ${RUNS}, interleaved`)
for (const f of figures) {
  console.log(
    `  ${f.name.padEnd(16)} ${f.ms.toFixed(0).padStart(5)} ms  ${f.mb.toFixed(0).padStart(4)} MB RSS  ${String(f.modules).padStart(4)} modules  ${(f.ms / effect.ms).toFixed(2)}× effect`
  )
}
const simnet = figures[0]
console.log(
  `  goals: within 1.3× effect: ${(simnet.ms / effect.ms).toFixed(2)}×; under 100 MB: ${simnet.mb.toFixed(0)} MB`
)
// What loads on first use (the MCP SDK, Ajv, undici, RE2, …) must not load with the import.
console.log(`  packages import("simnet") loads: ${packagesOf(simnet.loaded).join(", ")}`)
