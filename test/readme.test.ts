import * as fs from "node:fs"
import * as path from "node:path"
import { describe, it } from "vitest"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = path.resolve(import.meta.dirname, "..")
/** The README and every page of docs/, each with its TypeScript blocks and the heading each stands under. */
const pages = [
  "README.md",
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`)
]
const examples = pages.flatMap((page) => {
  const text = fs.readFileSync(path.join(root, page), "utf8")
  return Array.from(text.matchAll(/```ts\n([\s\S]*?)```/g), (m) => {
    const heading = text.slice(0, m.index).match(/#{1,3} (.*)\n(?![\s\S]*\n#{1,3} )/)?.[1] ?? page
    return { page, heading, code: m[1] }
  })
})
const blocks = examples.map((example) => example.code)
const dir = path.join(root, ".scratch", "readme")

describe("README and docs examples", () => {
  it("has runnable examples", ({ expect }) => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
  })

  // The first example to run loads all of simnet's sources through vitest's transform.
  examples.forEach(({ page, heading, code }, i) => {
    it(
      `example ${i + 1} (${page}: ${heading}) runs and its assertions hold`,
      async () => {
        fs.mkdirSync(dir, { recursive: true })
        const file = path.join(dir, `example-${i + 1}.ts`)
        fs.writeFileSync(file, code)
        await import(/* @vite-ignore */ `${file}?t=${Date.now()}`)
      },
      HEAVY_WORK
    )
  })
})

describe("README and docs examples typecheck", () => {
  it(
    "every example compiles against the public API",
    async ({ expect }) => {
      const ts = (await import("typescript")).default
      fs.mkdirSync(dir, { recursive: true })
      const files = blocks.map((code, i) => {
        const file = path.join(dir, `typed-${i + 1}.ts`)
        fs.writeFileSync(file, `${code}\nexport {}\n`)
        return file
      })
      const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile)
      const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
      // One program for every block, and only the blocks checked: the checker reads of src/ and the
      // libraries what the examples use, where the program's whole diagnostics would check all of
      // src/ again (`tsc --noEmit`'s job) and took most of a minute.
      const program = ts.createProgram(files, { ...parsed.options, noUnusedLocals: false })
      const diagnostics = files.flatMap((file) => {
        const source = program.getSourceFile(file)!
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
      })
      const messages = diagnostics.map(
        (d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
      )
      expect(messages).toEqual([])
    },
    HEAVY_WORK
  )
})
