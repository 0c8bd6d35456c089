import * as fs from "node:fs"
import * as path from "node:path"
import { describe, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..")
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
const blocks = Array.from(readme.matchAll(/```ts\n([\s\S]*?)```/g), (m) => m[1])
const dir = path.join(root, ".scratch", "readme")

describe("README examples", () => {
  it("has runnable examples", ({ expect }) => {
    expect(blocks.length).toBeGreaterThanOrEqual(5)
  })

  blocks.forEach((code, i) => {
    const heading = readme.slice(0, readme.indexOf(code)).match(/### (.*)\n(?![\s\S]*### )/)?.[1] ?? "README"
    it(`example ${i + 1} (${heading}) runs and its assertions hold`, async () => {
      fs.mkdirSync(dir, { recursive: true })
      const file = path.join(dir, `example-${i + 1}.ts`)
      fs.writeFileSync(file, code)
      await import(/* @vite-ignore */ `${file}?t=${Date.now()}`)
    })
  })
})

describe("README examples typecheck", () => {
  it("every example compiles against the public API", async ({ expect }) => {
    const ts = (await import("typescript")).default
    fs.mkdirSync(dir, { recursive: true })
    const files = blocks.map((code, i) => {
      const file = path.join(dir, `typed-${i + 1}.ts`)
      fs.writeFileSync(file, `${code}\nexport {}\n`)
      return file
    })
    const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile)
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
    const program = ts.createProgram(files, { ...parsed.options, noUnusedLocals: false })
    const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file !== undefined && files.includes(path.resolve(d.file.fileName)))
    const messages = diagnostics.map((d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
    expect(messages).toEqual([])
  }, 60_000)
})
