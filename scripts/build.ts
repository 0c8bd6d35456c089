/**
 * Builds `dist/` (what `import("simnet")` loads outside this repository's tests) when the sources
 * changed since the last build, and says so when they did not: `npm install` builds it once
 * (`prepare`), so a plain Node script in a fresh clone can import simnet, and `npm run build &&
 * npm pack` builds once, not twice (`prepack` finds it up to date). `--force` builds regardless.
 *
 * What decides "changed": a hash of every file under `src/`, the TypeScript configs, this script,
 * the package's `exports` and the TypeScript and rolldown versions, kept beside the build in
 * node_modules/.cache (not in `dist/`, which is shipped).
 *
 * How: `tsc` writes the declarations and the modules, then rolldown bundles the modules from the
 * package's entries (those `exports` names, and `cli` from `cli/main.ts`) into one file each plus shared chunks
 * (`dist/chunks/`), what loads on first use in chunks of its own. Node resolves and links each
 * module of an import separately, so 109 files cost `import("simnet")` 10–15 ms more than a
 * few (`npm run bench -- cold`). Dependencies stay imports. The declarations stay one per source
 * file. Three modules find files beside themselves with `import.meta.url`: the inspector's page
 * (`./ui/`), whose browser files are copied beside whichever chunk holds it, the proxy's TLS
 * thread's starter (`serve/tls.ts`), beside whose chunk the thread's own script (`tlsThread.js`,
 * tsc's, whole) goes, and the virtual clock (`terminal/virtualClock.ts`), beside whose chunk its
 * hook (`clockHook.mjs`, the source file, loaded into apps by `--import`) goes. (The CLI finds the
 * default fixture through the package, as it finds its version.)
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"

const root = join(import.meta.dirname, "..")
const stampFile = join(root, "node_modules", ".cache", "simnet-build.sha256")
const require = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8")) as Record<string, unknown>

const files = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]))

const stamp = (): string => {
  const hash = createHash("sha256")
  for (const file of [
    ...files(join(root, "src")),
    join(root, "tsconfig.json"),
    join(root, "tsconfig.build.json"),
    join(root, "scripts", "build.ts")
  ]) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  hash.update(JSON.stringify(require("package.json").exports))
  hash.update(String(require("node_modules/typescript/package.json").version))
  hash.update(String(require("node_modules/rolldown/package.json").version))
  return hash.digest("hex")
}

/** The modules `tsc` wrote, bundled in place (see the top of this file); the declarations are left as they are. */
async function bundle(): Promise<void> {
  const { build } = await import("rolldown")
  const dist = join(root, "dist")
  const out = join(root, "node_modules", ".cache", "simnet-bundle")
  rmSync(out, { recursive: true, force: true })
  // The package's entries as its `exports` name them, and the CLI the bin loads.
  const exported = Object.values(
    require("package.json").exports as Record<string, string | { readonly default: string }>
  ).flatMap((target) =>
    typeof target === "object" && target.default.startsWith("./dist/")
      ? [target.default.slice("./dist/".length, -".js".length)]
      : []
  )
  // The CLI's entry keeps the name `cli.js` the bin loads.
  const sources: Record<string, string> = {
    ...Object.fromEntries(exported.map((name) => [name, name])),
    cli: "cli/main"
  }
  const entries = Object.keys(sources)
  const { output } = await build({
    input: Object.fromEntries(entries.map((name) => [name, join(dist, `${sources[name]}.js`)])),
    // Packages and Node's own modules stay imports: only simnet's files are bundled.
    external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0"),
    output: {
      dir: out,
      format: "esm",
      sourcemap: true,
      entryFileNames: "[name].js",
      chunkFileNames: "chunks/[name]-[hash].js"
    },
    logLevel: "warn"
  })
  // `cli` runs the command and `register` installs the interception when loaded: no other file may
  // load an entry.
  const entryFiles = entries.map((name) => `${name}.js`)
  const loader = output.find(
    (chunk) =>
      chunk.type === "chunk" && [...chunk.imports, ...chunk.dynamicImports].some((file) => entryFiles.includes(file))
  )
  if (loader !== undefined)
    throw new Error(`simnet build: ${loader.fileName} imports an entry; its shared modules belong in a chunk`)
  const page = join(dist, "control", "inspector", "page.js")
  const withPage = output.filter((chunk) => chunk.type === "chunk" && chunk.moduleIds.includes(page))
  if (withPage.length !== 1)
    throw new Error("simnet build: the inspector's page must be in one chunk, beside which its browser files go")
  // The proxy's TLS thread runs a script of its own, which imports nothing of simnet's: tsc's file of
  // it is kept whole and goes beside the chunk that starts the worker, which finds it there.
  const starter = join(dist, "serve", "tls.js")
  const withStarter = output.filter((chunk) => chunk.type === "chunk" && chunk.moduleIds.includes(starter))
  if (withStarter.length !== 1)
    throw new Error(
      "simnet build: the module that starts the TLS thread must be in one chunk, beside which its script goes"
    )
  const threadScript = readFileSync(join(dist, "serve", "tlsThread.js"), "utf8").replace(
    /\n\/\/# sourceMappingURL=.*\n?$/,
    "\n"
  )
  for (const file of files(dist)) if (file.endsWith(".js") || file.endsWith(".js.map")) rmSync(file)
  for (const file of files(out)) {
    const target = join(dist, relative(out, file))
    mkdirSync(dirname(target), { recursive: true })
    renameSync(file, target)
  }
  rmSync(out, { recursive: true, force: true })
  cpSync(join(root, "src", "control", "inspector", "ui"), join(dist, dirname(withPage[0].fileName), "ui"), {
    recursive: true,
    filter: (file) => !file.endsWith(".d.ts")
  })
  writeFileSync(join(dist, dirname(withStarter[0].fileName), "tlsThread.js"), threadScript)
  // The virtual clock's hook, a plain module Node loads into the app (`--import`), goes beside the
  // chunk that names it (`terminal/virtualClock.ts`).
  const clockDriver = join(dist, "terminal", "virtualClock.js")
  const withClock = output.filter((chunk) => chunk.type === "chunk" && chunk.moduleIds.includes(clockDriver))
  if (withClock.length !== 1)
    throw new Error("simnet build: the virtual clock's driver must be in one chunk, beside which its hook goes")
  cpSync(join(root, "src", "terminal", "clockHook.mjs"), join(dist, dirname(withClock[0].fileName), "clockHook.mjs"))
}

const current = stamp()
const fresh =
  existsSync(join(root, "dist", "index.js")) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === current
if (fresh && !process.argv.includes("--force")) {
  console.error("simnet: dist/ is up to date with src/ (npm run build -- --force rebuilds)")
} else {
  rmSync(join(root, "dist"), { recursive: true, force: true })
  rmSync(stampFile, { force: true })
  execFileSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
    { cwd: root, stdio: "inherit" }
  )
  await bundle()
  mkdirSync(join(root, "node_modules", ".cache"), { recursive: true })
  writeFileSync(stampFile, current)
  console.error("simnet: built dist/")
}
