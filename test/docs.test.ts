/**
 * The generated reference pages are current: `docs/cli.md` is each command's own `--help`, and
 * `docs/routespec.md` the JSON Schema of the Schemas fixture files are decoded with. A flag or a
 * field changed without `npm run docs` fails here. Every link between the README and `docs/`
 * leads to a page that exists.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { generatedPages } from "../scripts/docs.ts"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = join(import.meta.dirname, "..")

describe("docs", () => {
  it("docs/cli.md and docs/routespec.md are what npm run docs writes", () => {
    for (const [file, text] of Object.entries(generatedPages())) expect(readFileSync(join(root, file), "utf8"), `${file} is stale: run npm run docs`).toBe(text)
    // The CLI started once per command (nine times) for its help.
  }, HEAVY_WORK)

  it("the README is a front door of at most 15 KB, and every relative link in it and in docs/ leads to a file", () => {
    expect(readFileSync(join(root, "README.md")).byteLength).toBeLessThanOrEqual(15 * 1024)
    const pages = ["README.md", "CONTRIBUTING.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)]
    const broken: Array<string> = []
    for (const page of pages) {
      for (const [, target] of readFileSync(join(root, page), "utf8").matchAll(/\]\(((?!https?:|#)[^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!existsSync(join(root, dirname(page), target!))) broken.push(`${page} -> ${target}`)
      }
    }
    expect(broken).toEqual([])
  })
})
