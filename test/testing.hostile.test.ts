/**
 * `simnet/testing` draws hostile values (issue 53): a tool's arguments take paths that climb out,
 * empty and very long strings, control characters, odd Unicode, format strings, boundary numbers,
 * empty and large objects — at the weight `hostile` (default `DEFAULT_HOSTILE`) and only where the
 * tool's schema allows them (judged here by Ajv with its formats, not by simnet) — and so a
 * property finds a path-traversal bug with its default settings and no `examples` hint.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import fc from "fast-check"
import OpenAI from "openai"
import { Routes, type Schemas } from "simnet"
import { DEFAULT_HOSTILE, HOSTILE_STRINGS, llmRule, llmScript, property, routeSpec } from "simnet/testing"
import { describe, expect, it } from "vitest"

const hostile = new Set<string>(Object.values(HOSTILE_STRINGS).flat())
const callsOf = (scripts: ReadonlyArray<{ readonly steps: ReadonlyArray<ReadonlyArray<{ readonly type: string }>> }>) =>
  scripts
    .flatMap((s) => s.steps.flat())
    .filter((a): a is { type: "tool_call"; name: string; input: any } => a.type === "tool_call")

describe("hostile draws", () => {
  const write = {
    name: "write",
    inputSchema: {
      type: "object",
      required: ["path", "content", "mode"],
      additionalProperties: false,
      properties: {
        path: { type: "string", maxLength: 24 },
        content: { type: "string" },
        mode: { enum: ["create", "append"] },
        tag: { type: "string", pattern: "^[a-z]{1,8}$" },
        email: { type: "string", format: "email" },
        link: { type: "string", format: "uri" },
        count: { type: "integer", minimum: 0, maximum: 100 },
        ratio: { type: "number" },
        lines: { type: "array", items: { type: "string" }, maxItems: 20 },
        options: { type: "object", properties: { force: { type: "boolean" } } }
      }
    }
  }

  it("tool arguments are hostile where the schema allows, and every one satisfies it (Ajv with its formats)", () => {
    const ajv = new Ajv2020({ strict: false })
    addFormats.default(ajv)
    const valid = ajv.compile(write.inputSchema)
    const calls = callsOf(fc.sample(llmScript({ tools: [write], maxSteps: 4 }), { numRuns: 600, seed: 21 }))
    expect(calls.length).toBeGreaterThan(300)
    for (const call of calls) expect(valid(call.input), JSON.stringify(call.input).slice(0, 300)).toBe(true)
    const inputs = calls.map((c) => c.input)
    const seen = (test: (input: any) => boolean) => inputs.some(test)
    // Paths that climb out, are absolute or name a home; all within maxLength 24.
    expect(seen((i) => i.path.includes(".."))).toBe(true)
    expect(seen((i) => i.path.startsWith("/"))).toBe(true)
    expect(seen((i) => i.path.startsWith("~"))).toBe(true)
    expect(inputs.every((i) => [...i.path].length <= 24)).toBe(true)
    // A string too long for maxLength is tried again shorter: a long climb still comes, cut to fit.
    expect(seen((i) => i.path.length > 12 && /^(\.\.\/){4}/.test(i.path))).toBe(true)
    // Unbounded strings: empty, very long, NUL and escapes, lone surrogates, format strings.
    expect(seen((i) => i.content === "")).toBe(true)
    expect(seen((i) => i.content.length >= 10_000)).toBe(true)
    expect(seen((i) => i.content.includes("\u0000"))).toBe(true)
    expect(seen((i) => i.content.includes("\u001b["))).toBe(true)
    expect(seen((i) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(i.content))).toBe(
      true
    )
    expect(seen((i) => i.content.includes("%s") || i.content.includes("${"))).toBe(true)
    // Numbers at their boundaries, within the schema's: 0 and 1 for an integer from 0 to 100; anything for a bare number.
    expect(seen((i) => i.count === 0)).toBe(true)
    expect(seen((i) => i.ratio === Number.MAX_SAFE_INTEGER || i.ratio === -1e308)).toBe(true)
    expect(
      inputs.every((i) => i.count === undefined || (Number.isInteger(i.count) && i.count >= 0 && i.count <= 100))
    ).toBe(true)
    // Arrays empty (never large past maxItems); open objects empty and large, with keys such as __proto__.
    expect(seen((i) => Array.isArray(i.lines) && i.lines.length === 0)).toBe(true)
    expect(
      seen(
        (i) => i.options !== undefined && Object.keys(i.options).length >= 256 && Object.hasOwn(i.options, "__proto__")
      )
    ).toBe(true)
    // What the schema fixes stays fixed: the enum, the pattern, the formats.
    expect(new Set(inputs.map((i) => i.mode))).toEqual(new Set(["create", "append"]))
    expect(inputs.every((i) => i.tag === undefined || /^[a-z]{1,8}$/.test(i.tag))).toBe(true)
    expect(inputs.filter((i) => i.email !== undefined).every((i) => !hostile.has(i.email))).toBe(true)
  })

  it("appear at about their weight: DEFAULT_HOSTILE by default, the option's otherwise, none at 0", () => {
    const note = {
      name: "note",
      inputSchema: {
        type: "object",
        required: ["text"],
        additionalProperties: false,
        properties: { text: { type: "string" } }
      }
    }
    const rate = (weight: number | undefined) => {
      const scripts = fc.sample(llmScript({ tools: [note], hostile: weight }), { numRuns: 1500, seed: 5 })
      const notes = callsOf(scripts).map((c) => c.input.text as string)
      const texts = scripts
        .flatMap((s) => s.steps.flat())
        .flatMap((a) => (a.type === "text" || a.type === "thinking" ? [a.content] : []))
      const share = (list: ReadonlyArray<string>) => list.filter((value) => hostile.has(value)).length / list.length
      return { notes: share(notes), texts: share(texts), count: notes.length }
    }
    expect(DEFAULT_HOSTILE).toBe(0.2)
    const byDefault = rate(undefined)
    expect(byDefault.count).toBeGreaterThan(1000)
    expect(byDefault.notes).toBeGreaterThan(0.16)
    expect(byDefault.notes).toBeLessThan(0.24)
    expect(byDefault.texts).toBeGreaterThan(0.16)
    expect(byDefault.texts).toBeLessThan(0.24)
    const half = rate(0.5)
    expect(half.notes).toBeGreaterThan(0.45)
    expect(half.notes).toBeLessThan(0.55)
    expect(rate(0)).toMatchObject({ notes: 0, texts: 0 })
  })

  it("are a function of fast-check's seed; routeSpec and llmRule take the weight too; a weight out of range is refused", () => {
    const tool = {
      name: "read",
      inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } }
    }
    const draw = () => JSON.stringify(fc.sample(llmScript({ tools: [tool] }), { numRuns: 200, seed: 8 }))
    expect(draw()).toBe(draw())
    const bodies = fc
      .sample(routeSpec(), { numRuns: 800, seed: 9 })
      .flatMap((r) => (r.respond.kind === "text" ? [r.respond.body] : []))
    expect(bodies.some((body) => hostile.has(body))).toBe(true)
    expect(
      fc
        .sample(routeSpec({ hostile: 0 }), { numRuns: 800, seed: 9 })
        .some((r) => r.respond.kind === "text" && hostile.has(r.respond.body))
    ).toBe(false)
    const rules = fc.sample(llmRule({ tools: [tool], hostile: 1 }), { numRuns: 50, seed: 10 })
    expect(rules.flatMap((r) => callsOf([r.behaviour])).every((c) => hostile.has(c.input.path))).toBe(true)
    expect(() => llmScript({ hostile: 2 })).toThrow(/llmScript\.hostile: must be a weight from 0 to 1, got 2/)
    expect(() => routeSpec({ hostile: -0.1 })).toThrow(
      expect.objectContaining({ _tag: "InvalidArbitraryOption", option: "routeSpec.hostile" })
    )
    // A schema simnet generates from but Ajv cannot judge (one $id twice) is refused by name when hostile values are asked for.
    const twice = {
      name: "twice",
      inputSchema: {
        type: "object",
        properties: {
          a: { $id: "https://x.example/same", type: "string" },
          b: { $id: "https://x.example/same", type: "string" }
        }
      }
    }
    expect(() => llmScript({ tools: [twice] })).toThrow(
      expect.objectContaining({ _tag: "InvalidArbitraryOption", option: "tools.twice.inputSchema" })
    )
    expect(fc.sample(llmScript({ tools: [twice], hostile: 0 }), { numRuns: 5, seed: 1 })).toHaveLength(5)
  })
})

describe("a planted path-traversal bug", () => {
  const ROOT = "/srv/workspace"
  const readFile = {
    name: "read_file",
    inputSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } }
  }

  /** An agent whose `read_file` resolves the model's path under ROOT and never checks it stays there: the planted bug. */
  const agent = async (network: { fetch: typeof fetch }) => {
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const read: Array<string> = []
    const messages: Array<OpenAI.ChatCompletionMessageParam> = [{ role: "user", content: "summarise the notes" }]
    for (let round = 0; round < 8; round++) {
      const answer = await openai.chat.completions.create({
        model: "gpt-4o",
        messages,
        tools: [{ type: "function", function: { name: readFile.name, parameters: readFile.inputSchema } }]
      })
      const message = answer.choices[0].message
      const calls = (message.tool_calls ?? []).filter((call) => call.type === "function")
      if (calls.length === 0) break
      messages.push(message)
      for (const call of calls) {
        const target = resolve(ROOT, (JSON.parse(call.function.arguments) as { path: string }).path)
        read.push(target)
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: target === join(ROOT, "notes.txt") ? "buy milk" : "no such file"
        })
      }
    }
    return read
  }
  const staysInside = async (network: { fetch: typeof fetch }) => {
    const outside = (await agent(network)).filter((target) => !target.startsWith(`${ROOT}/`) && target !== ROOT)
    expect(outside).toEqual([])
  }
  // The model's last word comes after its tool calls: a script ends with a text step.
  const networkFor = (script: Schemas.LlmScript.LlmScript) => ({
    routes: Routes.openai(),
    llm: [{ ...script, steps: [...script.steps, [{ type: "text" as const, content: "Done." }]] }]
  })

  it("is found by property with its default settings, no examples hint, within 200 runs; the shrunk case names the path", async () => {
    const failures = mkdtempSync(join(tmpdir(), "simnet-hostile-"))
    const error = await property("reads stay in the workspace", [llmScript({ tools: [readFile] })], staysInside, {
      network: networkFor,
      numRuns: 200,
      failures
    }).then(
      () => undefined,
      (e: Error & { file?: string }) => e
    )
    expect(error?.message).toMatch(/Property failed after \d+ tests/)
    const file = JSON.parse(readFileSync(error!.file!, "utf8")) as {
      counterexample: [{ steps: Array<Array<{ type: string; input?: { path: string } }>> }]
    }
    const paths = file.counterexample[0].steps.flat().flatMap((a) => (a.type === "tool_call" ? [a.input!.path] : []))
    expect(paths.some((path) => !resolve(ROOT, path).startsWith(`${ROOT}/`) && resolve(ROOT, path) !== ROOT)).toBe(true)
  }, 120_000)

  it("is not found by ordinary draws alone (hostile: 0), which is why the weight is on by default", async () => {
    const failures = mkdtempSync(join(tmpdir(), "simnet-hostile-"))
    await property(
      "reads stay in the workspace, ordinary draws",
      [llmScript({ tools: [readFile], hostile: 0 })],
      staysInside,
      { network: networkFor, numRuns: 100, seed: 3, failures }
    )
  }, 120_000)
})
