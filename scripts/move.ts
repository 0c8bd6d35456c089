/**
 * Moves files of `src/` and rewrites every path that names them: the import specifiers of each
 * TypeScript and JavaScript file (read by the TypeScript compiler's own parser, so `import`,
 * `import type`, `export … from` and `import("…")` alike, never guessed by a regex), then the paths
 * written as text in docs, comments, strings and scripts (`src/core/redact.ts`, `core/answer.ts`
 * relative to `src/`, and either without its extension before a dot: `"/kinds/openapi/operation."`).
 * The moves themselves are `git mv`, so history follows each file.
 *
 * Usage (on the pinned Node, from the repository's root):
 *
 *   npm run move                          every move of scripts/moves.json and the rules below,
 *                                         over the files there are now
 *   npm run move -- --dry-run             says what it would do, changes nothing
 *   npm run move -- --only src/kinds/     only the moves of files under these prefixes
 *   npm run move -- FROM TO [FROM TO…]    these moves alone (files, or folders ending in /)
 *   npm run move -- --map FILE.json       the moves of another map
 *
 * It is idempotent: a move whose file is already at its new path is not made again, a specifier
 * that already names an existing file is left alone (unless the file it stands in moved), and a
 * second run changes nothing. So a branch that merges the restructure runs it over its own work:
 *
 *   git -c merge.directoryRenames=false merge main   # new files stay where the branch made them
 *   npm run move                                     # places them, rewrites their imports and paths
 *   npm exec -- tsc --noEmit && npm run look         # then the usual checks
 *
 * A file the map does not name is placed by the folder renames of the map (keys ending in `/`)
 * and by these rules (CONTRIBUTING.md, "Layout", says where each kind of code lives):
 *
 * - `src/kinds/mcp/…` → `src/mcp-route/…`; `src/kinds/NAME/…` (a kind's folder) → `src/routes/NAME/…`;
 *   `src/kinds/NAME.ts` → `src/routes/NAME/NAME.ts` when it builds routes of kind NAME (`make("NAME"`)
 *   or that folder exists, else `src/routes/NAME.ts` (code several kinds share);
 * - `src/routeSpec/NAME.ts` (a kind's builder) → `src/routes/NAME/NAMESpec.ts`;
 * - `src/models/apis/NAME.ts` → `src/models/API/NAME.ts` for the API folder whose name starts NAME
 *   (`openaiBatch.ts` → `models/openai/`), else a folder of its own (`a2a.ts` → `models/a2a/a2a.ts`);
 * - `src/schemas/NAME.ts` → `src/models/NAME/NAMESchema.ts` (or `src/routes/NAME/NAMESchema.ts`)
 *   when that API's (or kind's) folder exists: a wire's Schema beside its wire;
 * - `src/testing/explore*.ts`, and a file of `src/testing/` that imports the terminal, a server,
 *   the control plane or exploration → `src/explore/`;
 * - `src/families/record*.ts` → `src/network/record/`.
 *
 * Every derived move is printed; a file a rule placed where it does not belong is moved again by
 * hand with `npm run move -- FROM TO`. What is left naming an old folder is printed at the end.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const posix = path.posix

/** Old path → new path: files, and folders (both ending in `/`). */
export type MoveMap = ReadonlyMap<string, string>

/** A run's moves: `map` (or `pairs` alone, no rules), `only` those under these prefixes, `keep` files never rewritten (the map's own). */
export interface MoveOptions {
  readonly map?: MoveMap
  readonly pairs?: MoveMap
  readonly only?: ReadonlyArray<string>
  readonly keep?: ReadonlyArray<string>
  readonly dryRun?: boolean
}

/** What one run did, or would do. */
export interface MoveReport {
  readonly moved: ReadonlyArray<readonly [string, string]>
  readonly derived: ReadonlyArray<readonly [string, string]>
  readonly importsRewritten: ReadonlyArray<string>
  readonly textRewritten: ReadonlyArray<string>
  readonly unresolved: ReadonlyArray<string>
}

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|json|yml|yaml|txt)$/
/** Files whose paths are history, the map itself, or a stale path on purpose (the docs test): never rewritten. */
const KEPT = new Set([
  "CHANGELOG.md",
  "package-lock.json",
  "scripts/move.ts",
  "scripts/moves.json",
  "test/internal/move.test.ts",
  "test/docs.test.ts",
  "bench/HISTORY.md"
])

/** Reads a map file: one JSON object, old path → new path. */
export const readMap = (file: string): Map<string, string> =>
  new Map(Object.entries(JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>))

/** The files git tracks in `root`, with those added but not yet committed. */
const trackedFiles = (root: string): Array<string> =>
  execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(root, f)))

/** The new place of `file` by a folder rename of `map` (the longest folder that holds it). */
const byFolder = (map: MoveMap, file: string): string | undefined => {
  let best: string | undefined
  for (const from of map.keys()) {
    if (from.endsWith("/") && file.startsWith(from) && (best === undefined || from.length > best.length)) best = from
  }
  return best === undefined ? undefined : map.get(best)! + file.slice(best.length)
}

/**
 * The new place of a file the map does not name, by the rules of the header; `exists` says
 * whether a path is there once this run's moves are made, `text` reads the file.
 */
const byRule = (file: string, exists: (p: string) => boolean, text: () => string): string | undefined => {
  let m: RegExpExecArray | null
  if ((m = /^src\/kinds\/mcp\/(.+)$/.exec(file)) !== null) return `src/mcp-route/${m[1]}`
  if ((m = /^src\/kinds\/([^/]+)\/(.+)$/.exec(file)) !== null) return `src/routes/${m[1]}/${m[2]}`
  if ((m = /^src\/kinds\/([^/]+)\.ts$/.exec(file)) !== null) {
    const name = m[1]
    return exists(`src/routes/${name}/`) || text().includes(`make("${name}"`)
      ? `src/routes/${name}/${name}.ts`
      : `src/routes/${name}.ts`
  }
  if ((m = /^src\/routeSpec\/([^/]+)\.ts$/.exec(file)) !== null) return `src/routes/${m[1]}/${m[1]}Spec.ts`
  if ((m = /^src\/models\/apis\/([^/]+)\.ts$/.exec(file)) !== null) {
    const name = m[1]
    const apis = fs.existsSync("src/models")
      ? fs
          .readdirSync("src/models", { withFileTypes: true })
          .filter((d) => d.isDirectory() && !["provider", "wire", "apis"].includes(d.name))
          .map((d) => d.name)
      : []
    const api = apis.filter((a) => name.startsWith(a)).sort((a, b) => b.length - a.length)[0]
    return api !== undefined ? `src/models/${api}/${name}.ts` : `src/models/${name}/${name}.ts`
  }
  if ((m = /^src\/schemas\/([^/]+)\.ts$/.exec(file)) !== null) {
    const name = m[1]
    if (exists(`src/models/${name}/`)) return `src/models/${name}/${name}Schema.ts`
    if (exists(`src/routes/${name}/`)) return `src/routes/${name}/${name}Schema.ts`
    return undefined
  }
  if ((m = /^src\/testing\/(explore[^/]*)$/.exec(file)) !== null) return `src/explore/${m[1]}`
  if ((m = /^src\/testing\/([^/]+\.ts)$/.exec(file)) !== null) {
    const source = text()
    // A path named by an import whose file is gone (text unknown): exploration's, if it is there.
    if (source === "") return `src/explore/${m[1]}`
    const reaches = specifiersOf(file, source).some(
      ([, , name]) => /^\.\.\/(terminal|serve|control|explore)\//.test(name) || /^\.\/explore/.test(name)
    )
    return reaches ? `src/explore/${m[1]}` : undefined
  }
  if ((m = /^src\/families\/(record[^/]*)$/.exec(file)) !== null) return `src/network/record/${m[1]}`
  return undefined
}

/**
 * Every module specifier a file names, with its place in the text: `import`, `import type`,
 * `export … from` (`export * as NS from` too), `import("…")` as a call and as a type.
 */
export const specifiersOf = (file: string, text: string): Array<readonly [number, number, string]> => {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    false,
    /\.(js|mjs|cjs)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS
  )
  const found: Array<readonly [number, number, string]> = []
  const add = (literal: ts.Node | undefined) => {
    if (literal !== undefined && ts.isStringLiteralLike(literal))
      found.push([literal.getStart(source) + 1, literal.end - 1, literal.text])
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0])
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const relativeSpecifier = (fromFile: string, toFile: string): string => {
  const spec = posix.relative(posix.dirname(fromFile), toFile)
  return spec.startsWith(".") ? spec : `./${spec}`
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Moves files in the git repository at `root` by `map` (or, when `pairs` is given, by those
 * alone) and rewrites what names them. `only` keeps the moves of files under those prefixes.
 */
export const move = (root: string, options: MoveOptions = {}): MoveReport => {
  const cwd = process.cwd()
  process.chdir(root)
  try {
    return moveHere(options)
  } finally {
    process.chdir(cwd)
  }
}

const moveHere = (options: MoveOptions): MoveReport => {
  const map: MoveMap = options.pairs ?? options.map ?? new Map()
  const useRules = options.pairs === undefined
  const files = trackedFiles(".")
  const present = new Set(files)
  const tracked = new Set(execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" }).split("\0"))
  const read = (file: string) => fs.readFileSync(file, "utf8")
  const kept = (file: string) => KEPT.has(file) || (options.keep ?? []).includes(file) || file.startsWith("dist/")

  // 1. The moves of this run: the map's files, its folders, then the rules.
  const planned = new Map<string, string>()
  const targets = new Set<string>()
  const plan = (from: string, to: string) => {
    planned.set(from, to)
    targets.add(to)
  }
  const existsAfter = (file: string) => (present.has(file) && !planned.has(file)) || targets.has(file)
  const folderExistsAfter = (dir: string) =>
    files.some((f) => !planned.has(f) && f.startsWith(dir)) || [...targets].some((f) => f.startsWith(dir))
  const wanted = (file: string) => options.only === undefined || options.only.some((prefix) => file.startsWith(prefix))
  const derived: Array<readonly [string, string]> = []
  for (const file of files) {
    if (!wanted(file)) continue
    const to = map.get(file) ?? byFolder(map, file)
    if (to !== undefined && to !== file) plan(file, to)
  }
  if (useRules) {
    // Rules look at what exists once the other moves are made (a kind's folder, an API's): deeper files first.
    const depth = (f: string) => f.split("/").length
    for (const file of [...files].sort((a, b) => depth(b) - depth(a) || a.localeCompare(b))) {
      if (planned.has(file) || !wanted(file) || !/^src\//.test(file)) continue
      const to = byRule(file, folderExistsAfter, () => read(file))
      if (to !== undefined && to !== file && !existsAfter(to)) {
        plan(file, to)
        derived.push([file, to])
      }
    }
  }
  for (const [from, to] of planned) {
    if (present.has(to) && !planned.has(to)) throw new Error(`cannot move ${from} to ${to}: a file is there`)
  }
  const after = (file: string) => planned.get(file) ?? file

  /** Where a file named by an old path is now: this run's move, or one made before (by the map, its folders or the rules). */
  const inverse = new Map<string, string>()
  for (const [from, to] of [...map, ...planned]) if (!to.endsWith("/")) inverse.set(to, from)
  const nowAt = (target: string): string | undefined => {
    if (planned.has(target)) return planned.get(target)
    if (existsAfter(target)) return target
    const to =
      map.get(target) ?? byFolder(map, target) ?? (useRules ? byRule(target, folderExistsAfter, () => "") : undefined)
    return to !== undefined && existsAfter(to) ? to : undefined
  }
  const oldPlaceOf = (file: string): string | undefined => {
    const direct = inverse.get(file)
    if (direct !== undefined) return direct
    for (const [from, to] of map)
      if (to.endsWith("/") && from.endsWith("/") && file.startsWith(to)) return from + file.slice(to.length)
    return undefined
  }
  // 2. Import specifiers, resolved where the file is (or, for a file moved before and written for its old place, there).
  const contents = new Map<string, string>()
  const importsRewritten: Array<string> = []
  const unresolved: Array<string> = []
  for (const file of files.filter((f) => CODE.test(f) && !kept(f))) {
    const text = read(file)
    const edits: Array<readonly [number, number, string]> = []
    for (const [start, end, name] of specifiersOf(file, text)) {
      if (!name.startsWith("./") && !name.startsWith("../")) continue
      const here = posix.normalize(posix.join(posix.dirname(file), name))
      let target = nowAt(here)
      const old = oldPlaceOf(file)
      if (target === undefined && old !== undefined)
        target = nowAt(posix.normalize(posix.join(posix.dirname(old), name)))
      if (target === undefined) {
        if (/^src\//.test(here) || /^src\//.test(file)) unresolved.push(`${after(file)}: ${name}`)
        continue
      }
      const spec = relativeSpecifier(after(file), target)
      if (spec !== name) edits.push([start, end, spec])
    }
    if (edits.length === 0) continue
    let out = text
    for (const [s, e, spec] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, s) + spec + out.slice(e)
    contents.set(file, out)
    importsRewritten.push(after(file))
  }

  // 3. Paths written as text: every file move in effect once this run is done (made now, or before).
  const pairs = new Map<string, string>()
  for (const [from, to] of [...map, ...planned]) {
    if (from.endsWith("/") || to.endsWith("/")) continue
    const now = planned.get(from) ?? (existsAfter(to) && !existsAfter(from) ? to : undefined)
    if (now !== undefined) pairs.set(from, now)
  }
  const forms: Array<readonly [string, string]> = []
  for (const [from, to] of pairs) {
    forms.push([from, to])
    if (from.startsWith("src/") && from.slice(4).includes("/") && to.startsWith("src/"))
      forms.push([from.slice(4), to.slice(4)])
  }
  forms.sort((a, b) => b[0].length - a[0].length)
  const textRewritten: Array<string> = []
  if (forms.length > 0) {
    const byForm = new Map<string, string>()
    const alternatives: Array<string> = []
    for (const [from, to] of forms) {
      byForm.set(from, to)
      alternatives.push(escapeRegExp(from))
      const stem = from.replace(/\.ts$/, "")
      if (stem !== from) {
        byForm.set(stem, to.replace(/\.ts$/, ""))
        alternatives.push(`${escapeRegExp(stem)}(?=\\.(?:js|d\\.ts)?(?![\\w-]))`)
      }
    }
    // A path starts the text or follows a space, a quote, a bracket or a slash, and ends where a name cannot go on.
    const pattern = new RegExp(`(?<=^|[\\s"'\`(\\[{</:=,])(?:${alternatives.join("|")})(?![\\w/-]|\\.[a-z])`, "g")
    const pathLike = new RegExp(
      `(?<=^|[\\s"'\`(\\[{</:=,])(?:${alternatives.join("|")})(?=\\.(?:js|d\\.ts)?(?![\\w-]))`,
      "g"
    )
    for (const file of files.filter((f) => TEXT.test(f) && !kept(f))) {
      const text = contents.get(file) ?? read(file)
      // In code, the import specifiers were step 2's: the text pass leaves them alone.
      const ranges = CODE.test(file) ? specifiersOf(file, text) : []
      const inSpec = (i: number) => ranges.some(([s, e]) => i >= s && i < e)
      let changed = false
      const replace = (re: RegExp, s: string) =>
        s.replace(re, (found: string, offset: number) => {
          if (inSpec(offset)) return found
          const to = byForm.get(found)
          if (to === undefined) return found
          changed = true
          return to
        })
      const out = replace(pathLike, replace(pattern, text))
      if (changed && out !== text) {
        contents.set(file, out)
        textRewritten.push(after(file))
      }
    }
  }

  // 4. The moves, so history follows, then the rewritten contents at the files' new places.
  if (options.dryRun !== true) {
    for (const [from, to] of planned) {
      fs.mkdirSync(posix.dirname(to), { recursive: true })
      if (tracked.has(from)) execFileSync("git", ["mv", from, to])
      else fs.renameSync(from, to)
    }
    for (const [file, text] of contents) fs.writeFileSync(after(file), text)
    for (const from of planned.keys()) {
      // A folder left empty by the moves goes too.
      let dir = posix.dirname(from)
      while (dir !== "." && fs.existsSync(dir) && fs.readdirSync(dir).length === 0) {
        fs.rmdirSync(dir)
        dir = posix.dirname(dir)
      }
    }
  }
  return {
    moved: [...planned],
    derived,
    importsRewritten: [...new Set(importsRewritten)].sort(),
    textRewritten: [...new Set(textRewritten)].sort(),
    unresolved
  }
}

const usage = () => {
  console.error("usage: npm run move [-- --dry-run] [--only PREFIX…] [--map FILE.json] [FROM TO…]")
  process.exit(2)
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
  let mapFile = path.join(root, "scripts/moves.json")
  const only: Array<string> = []
  const positional: Array<string> = []
  let dryRun = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === "--dry-run") dryRun = true
    else if (arg === "--map") mapFile = path.resolve(args[++i] ?? usage())
    else if (arg === "--only") {
      while (args[i + 1] !== undefined && !args[i + 1].startsWith("--")) only.push(args[++i])
    } else if (arg.startsWith("--")) usage()
    else positional.push(arg)
  }
  if (positional.length % 2 !== 0) usage()
  const pairs =
    positional.length > 0
      ? new Map(
          Array.from({ length: positional.length / 2 }, (_, i) => [positional[2 * i], positional[2 * i + 1]] as const)
        )
      : undefined
  const report = move(root, {
    map: readMap(mapFile),
    keep: [path.relative(root, mapFile)],
    ...(pairs === undefined ? {} : { pairs }),
    ...(only.length > 0 ? { only } : {}),
    dryRun
  })
  const verb = dryRun ? "would move" : "moved"
  console.log(`${verb} ${report.moved.length} file(s)`)
  for (const [from, to] of report.moved)
    console.log(`  ${from} -> ${to}${report.derived.some(([f]) => f === from) ? "   (by a rule: check it)" : ""}`)
  console.log(`imports rewritten in ${report.importsRewritten.length} file(s)`)
  for (const file of report.importsRewritten) console.log(`  ${file}`)
  console.log(`paths in text rewritten in ${report.textRewritten.length} file(s)`)
  for (const file of report.textRewritten) console.log(`  ${file}`)
  if (report.unresolved.length > 0) {
    console.log(`specifiers naming no file: ${report.unresolved.length}`)
    for (const line of report.unresolved) console.log(`  ${line}`)
  }
  if (!dryRun) {
    const left = spawnGrep(root)
    if (left !== "") console.log(`still naming an old folder (read each):\n${left}`)
  }
}

/** What still names a folder the restructure emptied, for a person to read. */
function spawnGrep(root: string): string {
  try {
    return execFileSync(
      "git",
      [
        "grep",
        "-nE",
        "\\b(src/)?(core|kinds|routeSpec|models/apis)/[A-Za-z]+\\.ts",
        "--",
        ".",
        ":!CHANGELOG.md",
        ":!bench/HISTORY.md",
        ":!scripts/move.ts",
        ":!scripts/moves.json",
        ":!test/internal/move.test.ts"
      ],
      { cwd: root, encoding: "utf8" }
    ).trim()
  } catch {
    return ""
  }
}
