/**
 * The example agent under property tests (`simnet/testing`): generated prompts and model scripts
 * (tool calls with arguments valid for the agent's tools), seeded chaos on every route. The
 * invariants: the agent never crashes, every tool call it was given gets an answer, and nothing
 * it asks for is unregistered. The agent as written holds them; a copy with a planted bug (an id
 * put in a URL without encoding) is caught, shrunk, and written to a file `simnet show` opens.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { Routes, type NetworkHandle, type NetworkOptions } from "simnet"
import { chaos, llmScript, property } from "simnet/testing"
import { describe, expect, it } from "vitest"
import { runAgent, TOOLS } from "./agent.ts"

/** The network an agent case runs on: an HTTP API, the model with the case's scripts, an MCP server, the case's chaos. */
const networkFor = (_prompt: string, scripts: ReadonlyArray<unknown>, chaosOptions: unknown): NetworkOptions => ({
  seed: 11,
  routes: Routes.openai(),
  llm: scripts as never,
  chaos: chaosOptions as never
})

const routes = [
  {
    id: "settings",
    match: "GET https://api.example.com/settings",
    respond: { kind: "text", body: '{"model":"gpt-4o"}', contentType: "application/json" }
  },
  {
    id: "item",
    match: "GET https://api.example.com/items/:id",
    respond: {
      kind: "jsonSchema",
      schema: {
        jsonSchema: {
          type: "object",
          required: ["id", "name"],
          properties: { id: { type: "string" }, name: { type: "string" } }
        }
      }
    }
  },
  {
    id: "docs",
    match: "https://mcp.example.com/mcp",
    respond: {
      kind: "mcp",
      server: {
        name: "docs",
        version: "1.0.0",
        tools: [
          { name: "search_docs", inputSchema: TOOLS[1].inputSchema, result: "Found 2 pages about {{arguments.query}}" }
        ]
      }
    }
  }
]

const prompts = fc.constantFrom("what is item ab12?", "search the docs for retries", "look up c9 and search for limits")
const scripts = fc.array(llmScript({ tools: [...TOOLS], maxSteps: 2 }), { minLength: 1, maxLength: 3 })
const chaotic = chaos({ maxRate: 0.3 }).map((c) => ({
  ...c,
  faults: (c.faults ?? []).filter((f) => f !== "timeout"),
  latencyMs: undefined
}))

/** The invariants, checked after one turn of the agent on `network`. */
const holds = async (network: NetworkHandle, prompt: string, planted: boolean) => {
  await network.registerSpec(routes)
  const exit = await Effect.runPromiseExit(
    runAgent(prompt, { fetch: network.fetch, planted }).pipe(
      Effect.provideService((await import("effect/http/HttpClient")).HttpClient, network.network.httpClient)
    )
  )
  if (!Exit.isSuccess(exit)) throw new Error(`the agent crashed: ${String(exit.cause)}`)
  await network.quiescent()
  expect(exit.value.toolResults).toEqual(exit.value.toolCalls)
  const unregistered = network
    .log()
    .filter((r) => r.denial === "UnregisteredRequest")
    .map((r) => `${r.method} ${r.url}`)
  if (unregistered.length > 0) throw new Error(`asked for what is not registered: ${unregistered.join(", ")}`)
}

describe("the example agent under property tests", () => {
  it("never crashes, answers every tool call and asks for nothing unregistered, with chaos on", async () => {
    let hit = 0
    let toolCalls = 0
    await property(
      "example agent",
      [prompts, scripts, chaotic],
      async (network, prompt) => {
        await holds(network, prompt, false)
        hit += network.log().filter((r) => r.chaos !== undefined).length
        toolCalls += network
          .log()
          .filter(
            (r) => r.url.startsWith("https://api.example.com/items/") || r.url === "https://mcp.example.com/mcp"
          ).length
      },
      { network: networkFor, numRuns: 40, seed: 21 }
    )
    // Not vacuous: chaos hit requests, and the model's scripts made the agent call its tools.
    expect(hit).toBeGreaterThan(2)
    expect(toolCalls).toBeGreaterThan(10)
  }, 120_000)

  it("a planted bug is found, shrunk and written to a file (the file simnet show opens: test/testing.test.ts)", async () => {
    const failures = mkdtempSync(join(tmpdir(), "simnet-agent-failures-"))
    const error = await property(
      "example agent with a planted bug",
      [prompts, scripts, chaotic],
      (network, prompt) => holds(network, prompt, true),
      {
        network: networkFor,
        numRuns: 200,
        seed: 21,
        failures
      }
    ).then(
      () => undefined,
      (e: Error & { file?: string }) => e
    )
    expect(error?.message).toMatch(
      /asked for what is not registered: GET https:\/\/api\.example\.com\/items\/[a-z0-9]+\/[a-z0-9]+/
    )
    expect(existsSync(error!.file!)).toBe(true)
    const file = JSON.parse(readFileSync(error!.file!, "utf8"))
    // Shrunk: one script is enough to show it.
    expect(file.counterexample[1]).toHaveLength(1)
    expect(file.trace.some((line: { outcome?: string }) => line.outcome === "UnregisteredRequest")).toBe(true)
  }, 120_000)
})
