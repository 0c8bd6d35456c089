import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { targetUrl } from "../../src/serve/target.ts"

/** What `targetUrl` was written as, and must still answer: the two regular expressions. */
const reference = (path: string): string | undefined => {
  const match = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(path)
  if (match === null || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(match[1])) return undefined
  return `https://${match[1]}${match[2] ?? "/"}${match[3] ?? ""}`
}

describe("targetUrl", () => {
  it("maps /HOST/PATH?QUERY to https://HOST/PATH?QUERY, and a path naming no host to nothing", () => {
    expect(targetUrl("/api.openai.com/v1/chat/completions")).toBe("https://api.openai.com/v1/chat/completions")
    expect(targetUrl("/h.test:8443?x=/a?b")).toBe("https://h.test:8443/?x=/a?b")
    expect(targetUrl("/h.test")).toBe("https://h.test/")
    for (const path of [
      "",
      "/",
      "//x",
      "/h.test#f",
      "/h_test/x",
      "/h.test:/x",
      "/h.test:80:81/x",
      "/:80/x",
      "h.test/x"
    ])
      expect(targetUrl(path)).toBe(undefined)
  })

  it("answers every path as the regular expressions it replaced", () => {
    const piece = fc.constantFrom(
      "/",
      "?",
      "#",
      ":",
      ".",
      "-",
      "a",
      "Z",
      "0",
      "9",
      "_",
      "%2F",
      "é",
      " ",
      "api.openai.com",
      ":8080"
    )
    const path = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join(""))
    fc.assert(
      fc.property(
        fc.oneof(
          path,
          path.map((p) => `/${p}`),
          fc.string()
        ),
        (p) => {
          expect(targetUrl(p)).toBe(reference(p))
        }
      ),
      { numRuns: 3000, seed: 38 }
    )
  })
})
