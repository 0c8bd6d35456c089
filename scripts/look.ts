/**
 * The project's structure at a glance: `node scripts/look.ts` (or `npm run look`). Prints the
 * layers (folders under `src/`, bottom first) with their files and lines, the arrows between
 * layers (how many imports each), the arrows that run back up (a layer importing one above it, or
 * a folder importing a public face other than `SimnetError.ts`), import circles, and, as a warning,
 * source files over 450 lines. Exits 1 when there is a back-arrow or a circle: a long file is a
 * prompt to look for where a concept ends, not a reason to trim one to fit.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { cruise, type IConfiguration } from "dependency-cruiser"

const root = path.resolve(import.meta.dirname, "..")
process.chdir(root)
const require = createRequire(import.meta.url)
const config = require(path.join(root, ".dependency-cruiser.cjs")) as IConfiguration
/** The layers, bottom first (`scripts/layers.cjs`, which the dependency-cruiser rules read too). */
export const LAYERS = require(path.join(root, "scripts/layers.cjs")) as ReadonlyArray<string>
export const MAX_LINES = 450

const layerOf = (file: string): string => {
  // The error vocabulary every layer speaks: a public face, and below the floor.
  if (file === "src/SimnetError.ts") return "errors"
  const match = /^src\/([^/]+)\//.exec(file)
  return match === null ? "faces" : match[1]
}
const rank = (layer: string): number =>
  layer === "errors" ? -1 : layer === "faces" ? LAYERS.length : LAYERS.indexOf(layer)
const lines = (file: string): number => fs.readFileSync(file, "utf8").split("\n").length - 1

export interface Look {
  readonly files: ReadonlyArray<{ readonly file: string; readonly lines: number }>
  readonly arrows: ReadonlyMap<string, number>
  readonly back: ReadonlyArray<string>
  readonly circles: ReadonlyArray<string>
  readonly oversized: ReadonlyArray<string>
}

export const look = async (): Promise<Look> => {
  const result = await cruise(["src"], { ...config.options, validate: false })
  const output = result.output as {
    modules: ReadonlyArray<{
      source: string
      dependencies: ReadonlyArray<{ resolved: string; circular: boolean; cycle?: ReadonlyArray<{ name: string }> }>
    }>
  }
  const modules = output.modules.filter((m) => m.source.startsWith("src/"))
  const arrows = new Map<string, number>()
  const back: Array<string> = []
  const circles = new Set<string>()
  for (const m of modules) {
    for (const dep of m.dependencies) {
      if (!dep.resolved.startsWith("src/")) continue
      if (dep.circular) circles.add([m.source, ...(dep.cycle ?? []).map((c) => c.name)].join(" -> "))
      const from = layerOf(m.source)
      const to = layerOf(dep.resolved)
      if (from === to) continue
      const key = `${from} -> ${to}`
      arrows.set(key, (arrows.get(key) ?? 0) + 1)
      if (rank(to) > rank(from)) back.push(`${m.source} -> ${dep.resolved}`)
    }
  }
  const files = modules.map((m) => ({ file: m.source, lines: lines(m.source) }))
  return {
    files,
    arrows,
    back,
    circles: [...circles],
    oversized: files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.file} (${f.lines} lines)`)
  }
}

if (import.meta.main) {
  const seen = await look()
  for (const layer of ["errors", ...LAYERS, "faces"]) {
    const files = seen.files.filter((f) => layerOf(f.file) === layer)
    const total = files.reduce((n, f) => n + f.lines, 0)
    console.log(
      `${layer.padEnd(9)} ${String(files.length).padStart(3)} files ${String(total).padStart(6)} lines  largest: ${[
        ...files
      ]
        .sort((a, b) => b.lines - a.lines)
        .slice(0, 3)
        .map((f) => `${path.basename(f.file)} ${f.lines}`)
        .join(", ")}`
    )
  }
  console.log(
    `\narrows between layers: ${seen.arrows.size} (${[...seen.arrows.values()].reduce((a, b) => a + b, 0)} imports)`
  )
  for (const [key, n] of [...seen.arrows].sort()) console.log(`  ${key} (${n})`)
  console.log(`\narrows back up: ${seen.back.length}`)
  for (const line of seen.back) console.log(`  ${line}`)
  console.log(`circles: ${seen.circles.length}`)
  for (const line of seen.circles) console.log(`  ${line}`)
  if (seen.oversized.length > 0)
    console.log(`warning: files over ${MAX_LINES} lines (look for where a concept ends): ${seen.oversized.length}`)
  else console.log(`files over ${MAX_LINES} lines: 0`)
  for (const line of seen.oversized) console.log(`  ${line}`)
  process.exitCode = seen.back.length + seen.circles.length > 0 ? 1 : 0
}
