import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { inspectorPage, UI_FILES } from "../../src/control/inspector/page.ts"

const UI = join(import.meta.dirname, "../../src/control/inspector/ui")

describe("the inspector page's script", () => {
  it("is every file of ui/, each checked by tsc (// @ts-check), joined in UI_FILES order into the one script its CSP hash allows", () => {
    const files = readdirSync(UI).filter((file) => file.endsWith(".js"))
    expect([...UI_FILES].sort()).toEqual(files.sort())
    const { html, csp } = inspectorPage()
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? ""
    expect(script.match(/<\/script/gi)).toBeNull()
    let at = 0
    for (const file of UI_FILES) {
      const text = readFileSync(join(UI, file), "utf8")
      expect(text.startsWith("// @ts-check\n"), file).toBe(true)
      const body = text.slice("// @ts-check\n".length)
      const found = script.indexOf(body, at)
      expect(found, `${file} in order`).toBeGreaterThanOrEqual(at)
      at = found + body.length
    }
    expect(csp).toContain(`script-src 'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`)
  })
})
