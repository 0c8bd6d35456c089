/**
 * Fixtures in code (issue 37): `start/make/layer({ fixture: PATH })` starts from a fixture file
 * as `simnet serve --fixture` does, and `Fixture.load(PATH)` reads one; an option key the network
 * does not know is refused, naming it and the nearest known one, instead of being ignored.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { Fixture, Route, SimulationNetwork } from "simnet"

const dir = mkdtempSync(join(tmpdir(), "simnet-options-"))
const file = join(dir, "fixture.json")
writeFileSync(file, JSON.stringify({
  seed: 11,
  routes: [{ id: "item", match: "GET https://api.example.com/items/:id", respond: { kind: "text", body: "from the file" } }, { family: "openai" }],
  llm: { queue: [{ steps: [[{ type: "text", content: "queued in the file" }]] }], rules: [{ id: "hi", match: { lastUserMessage: "hi" }, behaviour: { type: "respond", steps: [[{ type: "text", content: "ruled in the file" }]] } }] }
}))

describe("a fixture in code", () => {
  it("start({ fixture }) serves the file's routes, scripts and rules, with its seed; what code gives is added after it", async () => {
    const network = await SimulationNetwork.start({ fixture: file, routes: [Route.text("GET https://api.example.com/health", "ok")] })
    expect(network.network.seed).toBe(11)
    expect(await (await network.fetch("https://api.example.com/items/1")).text()).toBe("from the file")
    expect(await (await network.fetch("https://api.example.com/health")).text()).toBe("ok")
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const first = await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] })
    expect(first.choices[0]!.message.content).toBe("queued in the file")
    const second = await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
    expect(second.choices[0]!.message.content).toBe("ruled in the file")
    // A seed given in code wins over the file's.
    expect((await SimulationNetwork.start({ fixture: file, seed: 3 })).network.seed).toBe(3)
    // Fixture.load reads the same file as a value.
    const loaded = await Fixture.load(file)
    expect([loaded.seed, loaded.routes.length > 1, loaded.llm.length, loaded.llmRules.length]).toEqual([11, true, 1, 1])
  })

  it("a missing or broken fixture is the start's typed error, naming the file or the field", async () => {
    expect(await SimulationNetwork.start({ fixture: join(dir, "missing.json") }).catch((e) => e)).toMatchObject({ _tag: "FixtureUnreadable", reason: "file not found" })
    const broken = join(dir, "broken.json")
    writeFileSync(broken, JSON.stringify({ routes: [{ match: "GET https://a.example.com/", respond: { kind: "nope" } }] }))
    expect(await SimulationNetwork.start({ fixture: broken }).catch((e) => e)).toMatchObject({ _tag: "InvalidRouteSpec", path: "routes[0].respond.kind" })
  })

  it("an unknown option key is refused with InvalidNetworkOption naming it and the nearest known one; nothing starts", async () => {
    const refused = await SimulationNetwork.start({ fixtures: file } as never).catch((e) => e)
    expect(refused).toMatchObject({ _tag: "InvalidNetworkOption", option: "fixtures" })
    expect(refused.detail).toMatch(/did you mean fixture/)
    const viaMake = await Effect.runPromise(Effect.flip(SimulationNetwork.make({ logLimt: 5 } as never)))
    expect(viaMake).toMatchObject({ _tag: "InvalidNetworkOption", option: "logLimt" })
    expect(viaMake.message).toMatch(/did you mean logLimit/)
  })
})
