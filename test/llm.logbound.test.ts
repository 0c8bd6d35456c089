import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

describe("the model's log is bounded in bytes as well as in entries", () => {
  it("big request bodies drop the oldest entries past logBytes while callCount and counts stay exact", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.openai(), logBytes: 1_000_000 })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 0 })
    const big = "x".repeat(200_000)
    for (let i = 0; i < 10; i++) {
      await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: `${i} ${big}` }] })
    }
    expect(handle.llm.callCount).toBe(10)
    const log = handle.llm.log
    // Each entry counts as about 2 × 200 KB against the 1 MB bound: only the newest two are held.
    expect(log.map((entry) => entry.seq)).toEqual([9, 10])
    expect([...handle.llm.counts.values()].reduce((a, b) => a + b, 0)).toBe(10)
  })

  it("small bodies are all kept up to logLimit", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.openai() })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "ok" }]] })
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch, maxRetries: 0 })
    for (let i = 0; i < 20; i++)
      await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: `q${i}` }] })
    expect(handle.llm.log.length).toBe(20)
  })
})
