/**
 * `simnet/testing`: its arbitraries make only values simnet accepts (hundreds of draws each,
 * checked by simnet itself and, for tool arguments, by Ajv against the tool's schema), and
 * `property` runs a network per case and, on failure, writes a file with the shrunk case that
 * `replayTrace` reads and `simnet show` opens read-only.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Ajv2020 } from "ajv/dist/2020.js"
import fc from "fast-check"
import OpenAI from "openai"
import { replayTrace, Route, Routes, Schemas, SimulationNetwork } from "simnet"
import { chaos, llmRule, llmScript, onNetwork, property, routeSpec } from "simnet/testing"
import { it as effectIt } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { launchSecureChromium } from "./support/chromium.ts"

const tools = [
  {
    name: "read",
    inputSchema: {
      type: "object",
      required: ["filePath"],
      properties: { filePath: { type: "string", pattern: "^[a-z]{1,8}(/[a-z]{1,8}){0,2}\\.md$" } },
      additionalProperties: false
    }
  },
  {
    name: "search",
    inputSchema: {
      type: "object",
      required: ["query", "limit"],
      properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 10 } }
    }
  }
]

describe("simnet/testing arbitraries", () => {
  it("llmScript: every draw is enqueued, and its tool calls' arguments are valid against the tool's schema (Ajv)", async () => {
    const network = await SimulationNetwork.start()
    const ajv = new Ajv2020({ strict: false })
    const valid = Object.fromEntries(tools.map((t) => [t.name, ajv.compile(t.inputSchema)]))
    let calls = 0
    fc.assert(
      fc.property(llmScript({ tools, maxSteps: 4 }), (script) => {
        network.llm.enqueue(script)
        for (const action of script.steps.flat()) {
          if (action.type !== "tool_call") continue
          calls++
          expect(valid[action.name](action.input), JSON.stringify(action.input)).toBe(true)
        }
      }),
      { numRuns: 300, seed: 1 }
    )
    expect(calls).toBeGreaterThan(100)
    expect(network.llm.queued).toBe(300)
  })

  it("llmRule, chaos and routeSpec: every draw is accepted by the network", async () => {
    const network = await SimulationNetwork.start()
    fc.assert(
      fc.property(llmRule({ tools }), (rule) => void network.llm.addRules([rule])),
      { numRuns: 200, seed: 2 }
    )
    await fc.assert(
      fc.asyncProperty(chaos(), async (options) => void (await SimulationNetwork.start({ chaos: options }))),
      { numRuns: 200, seed: 3 }
    )
    const kinds = new Set<string>()
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(routeSpec({ handlers: ["echo"] }), { minLength: 1, maxLength: 8, selector: (r) => r.id }),
        async (specs) => {
          const fresh = await SimulationNetwork.start({ handlers: { echo: () => new Response("echo") } })
          expect(await fresh.registerSpec(specs)).toHaveLength(specs.length)
          for (const spec of specs) kinds.add(spec.respond.kind)
        }
      ),
      { numRuns: 100, seed: 4 }
    )
    expect([...kinds].sort()).toEqual([
      "bytes",
      "fault",
      "graphql",
      "handler",
      "jsonSchema",
      "loopback",
      "mcp",
      "sse",
      "status",
      "text"
    ])
  })
})

describe("property", () => {
  /** A tiny agent: asks the model, reads the tool it names through the network, says what it read. */
  const agent = async (network: { fetch: typeof fetch }, prompt: string, buggy: boolean) => {
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const answer = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: prompt }]
    })
    const call = answer.choices[0].message.tool_calls?.[0]
    if (call === undefined || call.type !== "function") return answer.choices[0].message.content ?? ""
    const args = JSON.parse(call.function.arguments) as { filePath: string }
    // The planted bug: the path is not encoded, so one with a "/" is a different URL that no route answers.
    const path = buggy ? args.filePath : encodeURIComponent(args.filePath)
    const response = await network.fetch(`https://files.example.com/read/${path}`)
    if (!response.ok) throw new Error(`reading ${args.filePath} answered ${response.status}`)
    return await response.text()
  }
  const networkFor = (script: unknown) => ({ seed: 5, routes: Routes.openai(), llm: [script as never] })
  const scriptArb = llmScript({ tools: [tools[0]], maxSteps: 1 })
    .filter((s) => s.steps[0][0].type === "tool_call")
    .map((s) => ({ steps: [[s.steps[0][0]]] }))

  it("holds for a correct agent: every case on a fresh network", async () => {
    await property(
      "agent reads files",
      [scriptArb],
      async (network, script) => {
        await network.registerSpec({
          id: "files",
          match: "GET https://files.example.com/read/:name",
          respond: { kind: "text", body: "contents" }
        })
        expect(await agent(network, "read the notes", false)).toBe("contents")
        expect(network.log().every((r) => r.status === 200)).toBe(true)
        void script
      },
      { network: networkFor, numRuns: 30, seed: 9 }
    )
  })

  it("finds a planted bug, shrinks it, and writes a file replayTrace reads and simnet show opens", async () => {
    const failures = mkdtempSync(join(tmpdir(), "simnet-failures-"))
    const failing = property(
      "agent reads files, buggy",
      [scriptArb],
      async (network) => {
        await network.registerSpec({
          id: "files",
          match: "GET https://files.example.com/read/:name",
          respond: { kind: "text", body: "contents" }
        })
        expect(await agent(network, "read the notes", true)).toBe("contents")
      },
      { network: networkFor, numRuns: 200, seed: 9, failures }
    )
    const error = await failing.then(
      () => undefined,
      (e: Error & { file?: string }) => e
    )
    expect(error?.message).toMatch(/Property failed after \d+ tests/)
    const file = JSON.parse(readFileSync(error!.file!, "utf8"))
    expect(file).toMatchObject({
      simnet: "property-failure/v1",
      name: "agent reads files, buggy",
      seed: expect.any(Number)
    })
    // The case that broke it: a path with a "/".
    const input = file.counterexample[0].steps[0][0].input
    expect(input.filePath).toContain("/")
    expect(file.error).toMatch(/fetch failed/)
    expect(file.trace.at(-1)).toMatchObject({ type: "request", outcome: "UnregisteredRequest" })
    const replay = replayTrace(file.trace.map((line: unknown) => JSON.stringify(line)).join("\n"))
    expect(replay.requests.map((r) => `${r.method} ${r.url.split("/read/")[0]}`)).toEqual([
      "POST https://api.openai.com/v1/chat/completions",
      "GET https://files.example.com"
    ])
    // simnet show: the inspector of that network, read-only (no control endpoint).
    const child = spawn(process.execPath, [join(import.meta.dirname, "..", "bin/simnet.js"), "show", error!.file!], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    try {
      const ui = await new Promise<string>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (d: Buffer) => {
          out += d
          const found = /inspector:\s+(\S+)/.exec(out)
          if (found) resolve(found[1])
        })
        child.on("exit", (code) => reject(new Error(`simnet show exited ${code}: ${out}`)))
      })
      const base = ui.replace(/\/experimental\/simulation\/ui$/, "")
      expect((await fetch(ui)).status).toBe(200)
      const state = (await (await fetch(`${ui}/state`)).json()) as { routes: Array<{ id: string }> }
      expect(state.routes.map((r) => r.id)).toContain("files")
      expect((await fetch(`${base}/experimental/simulation/reset`, { method: "POST" })).status).toBe(403)
      // In real headless Chromium, web security on: the case first, the page read-only.
      const browser = await launchSecureChromium()
      try {
        const page = await browser.newPage()
        await page.goto(ui)
        await page.waitForSelector("#case:not([hidden])", { timeout: 20_000 })
        await page.waitForFunction(() => document.getElementById("conn")?.textContent === "read-only", {
          timeout: 20_000
        })
        const banner = await page.$eval("#case", (section) => section.textContent ?? "")
        expect(banner).toContain("Failing case: agent reads files, buggy")
        expect(banner).toContain(file.error.split("\n")[0])
        expect(banner).toContain(`Seed${file.seed}`)
        expect(banner).toMatch(/Failing step#\d+ GET https:\/\/files\.example\.com\/read\/.* → UnregisteredRequest/)
        expect(banner).toContain(JSON.stringify(input.filePath))
        const shown = await page.$$eval("#reset, #register-form, label.file, #attach", (nodes) =>
          nodes.map((n) => (n as HTMLElement).offsetParent !== null)
        )
        expect(shown).toEqual([false, false, false, false])
        expect(await page.$eval("#har-download", (n) => (n as HTMLElement).offsetParent !== null)).toBe(true)
      } finally {
        await browser.close()
      }
    } finally {
      child.kill("SIGTERM")
    }
  }, 60_000)
})

describe("simnet/testing under @effect/vitest's it.effect.prop", () => {
  // it.effect.prop derives cases from the Schema simnet decodes scripts with; onNetwork runs each
  // case on a fresh network and writes the failing case's file as property does.
  const answers = onNetwork(
    "scripts answer the openai SDK",
    async (network, script: Schemas.LlmScript.LlmScript) => {
      const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
      const first = script.steps[0]
      const answer = await client.chat.completions
        .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
        .catch((e: Error) => e)
      await network.quiescent()
      // A script whose first step fails (an error or HTTP error action) fails the call; any other answers with its text.
      if (first.some((a) => a.type === "error" || a.type === "http_error")) return
      if (answer instanceof Error) throw answer
      // A json action answers a call that asks for no schema with its value, or `{}`.
      const texts = first
        .map((a) =>
          a.type === "text"
            ? a.content
            : a.type === "json"
              ? a.value === undefined
                ? "{}"
                : JSON.stringify(a.value)
              : ""
        )
        .join("")
      expect(answer.choices[0].message.content ?? "").toBe(texts)
    },
    {
      // A script's pace is real time on this network's clock: generated pauses are left out.
      network: (script) => ({ routes: Routes.openai(), llm: [{ ...script, pace: undefined }] })
    }
  )

  effectIt.effect.prop(
    "every script simnet decodes answers the openai SDK as it says",
    [Schemas.LlmScript.LlmScript],
    ([script]) => answers(script),
    {
      arbitrary: { runs: 40, seed: 12 }
    }
  )

  effectIt.effect("a failing case writes the file, and fails naming it", () =>
    Effect.gen(function* () {
      const failures = mkdtempSync(join(tmpdir(), "simnet-onnetwork-"))
      const failing = onNetwork(
        "always fails",
        async (network) => {
          await network.fetch("https://nowhere.example/x")
        },
        { failures }
      )
      const error = yield* Effect.flip(failing())
      expect(error.message).toMatch(/fetch failed[\s\S]*simnet: the failing case is in .*always-fails-0\.json/)
      const file = JSON.parse(readFileSync((error as Error & { file: string }).file, "utf8"))
      expect(file.trace.at(-1)).toMatchObject({ url: "https://nowhere.example/x", outcome: "UnregisteredRequest" })
    })
  )
})

describe("a case that never settles", () => {
  it("fails after timeoutMs naming what is pending and the chaos that hit it, and writes the failure file, instead of hanging", async () => {
    const failures = mkdtempSync(join(tmpdir(), "simnet-timeout-"))
    const run = property(
      "a client without a timeout",
      [fc.constant(1)],
      async (network) => {
        // No timeout of its own: under chaos "timeout" this waits forever.
        await network.fetch("https://api.example.com/items/1")
      },
      {
        network: () => ({
          routes: [Route.text("GET https://api.example.com/items/:id", "item", { id: "item" })],
          chaos: { rate: 1, faults: ["timeout"] }
        }),
        numRuns: 1,
        timeoutMs: 300,
        failures
      }
    )
    const error = (await run.catch((e: unknown) => e)) as Error & { file?: string }
    expect(error.message).toContain("did not settle within 300 ms")
    expect(error.message).toContain("GET https://api.example.com/items/1 (chaos: timeout)")
    expect(error.message).toContain('a chaos "timeout" never answers')
    const file = JSON.parse(readFileSync(error.file!, "utf8")) as { error: string; name: string }
    expect(file.name).toBe("a client without a timeout")
    expect(file.error).toContain("CaseTimedOut")
  })
})
