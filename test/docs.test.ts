/**
 * The generated reference pages are current: `docs/cli.md` is each command's own `--help`, and
 * `docs/routespec.md` the JSON Schema of the Schemas fixture files are decoded with. A flag or a
 * field changed without `npm run docs` fails here. Every link between the README and `docs/`
 * leads to a page that exists, and every path they name under `src/`, `test/`, `bench/`, … is
 * there. `docs/performance.md` holds the current figures only, at most 20 KB, as `npm run
 * bench:doc` writes them from `bench/HISTORY.md`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { HEADLINES, headlineLines, performancePage } from "../scripts/benchDoc.ts"
import { generatedPages } from "../scripts/docs.ts"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = join(import.meta.dirname, "..")
const pages = ["README.md", "CONTRIBUTING.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)]

/**
 * The paths a page names that are not there: a word of slashes ending in a file's extension, or a
 * top folder of the repository or a floor of `src/` ending in `/`, found neither from the
 * repository, from `src/` nor from the page. A segment in capitals is a placeholder
 * (`routes/KIND/KINDSpec.ts`), not a path; a package's path (`effect/…`, `@scope/…`) has no
 * extension or starts with `@`.
 */
const stalePaths = (page: string, text: string): ReadonlyArray<string> => {
  const floors = readdirSync(join(root, "src"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
  const folders = ["src", "test", "bench", "scripts", "fixtures", "examples", "bin", "docs", ...floors].join("|")
  const word = new RegExp(
    `(?<![\\w.@/:-])((?:[a-z][\\w.-]*/)+[\\w.-]*\\.(?:ts|js|mjs|cjs|json|md)|(?:${folders})/(?:[\\w.-]+/)*)(?![\\w/-])`,
    "g"
  )
  return Array.from(text.matchAll(word), (m) => m[1]!).filter(
    (p) =>
      ![root, join(root, "src"), join(root, dirname(page))].some((from) => existsSync(join(from, p))) &&
      !p.split("/").some((segment) => /^[A-Z]{2,}/.test(segment))
  )
}

describe("docs", () => {
  it(
    "docs/cli.md and docs/routespec.md are what npm run docs writes",
    () => {
      for (const [file, text] of Object.entries(generatedPages()))
        expect(readFileSync(join(root, file), "utf8"), `${file} is stale: run npm run docs`).toBe(text)
      // The CLI started once per command (nine times) for its help.
    },
    HEAVY_WORK
  )

  it("the README is a front door of at most 15 KB, and every relative link in it and in docs/ leads to a file", () => {
    expect(readFileSync(join(root, "README.md")).byteLength).toBeLessThanOrEqual(15 * 1024)
    const broken: Array<string> = []
    for (const page of pages) {
      for (const [, target] of readFileSync(join(root, page), "utf8").matchAll(
        /\]\(((?!https?:|#)[^)#\s]+)(?:#[^)]*)?\)/g
      )) {
        if (!existsSync(join(root, dirname(page), target!))) broken.push(`${page} -> ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it("every path the README, CONTRIBUTING and docs/ name exists, from the repository or from src/", () => {
    expect(
      pages.flatMap((page) => stalePaths(page, readFileSync(join(root, page), "utf8")).map((p) => `${page}: ${p}`))
    ).toEqual([])
    // The check itself: a moved file's old path is caught; a placeholder, a package and a URL are not.
    expect(
      stalePaths(
        "README.md",
        "`src/core/engine.ts`, serve/door.ts, doors/node.ts, routes/KIND/KINDSpec.ts, effect/http/HttpClient, @scope/x/y.js, https://a.example/b/c.json"
      )
    ).toEqual(["src/core/engine.ts", "serve/door.ts"])
  })

  it("docs/performance.md is at most 20 KB, each bench's headline as npm run bench:doc writes it from bench/HISTORY.md", () => {
    const page = readFileSync(join(root, "docs", "performance.md"), "utf8")
    expect(Buffer.byteLength(page)).toBeLessThanOrEqual(20 * 1024)
    expect(page, "docs/performance.md is not what npm run bench:doc writes from bench/HISTORY.md").toBe(
      performancePage()
    )
    // Each bench's headline picks lines from its newest output: a bench whose output changed shape
    // would otherwise be shown whole.
    const history = readFileSync(join(root, "bench", "HISTORY.md"), "utf8")
    const blind = Object.keys(HEADLINES).filter((name) => {
      const block = new RegExp(`<!-- bench:${name} -->\\n([\\s\\S]*?)\\n<!-- /bench:${name} -->`).exec(history)
      return block !== null && headlineLines(name, block[1]!).length === 0
    })
    expect(blind).toEqual([])
  })
})
