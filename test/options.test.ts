/**
 * Fixtures in code (issue 37): `start/make/layer({ fixture: PATH })` starts from a fixture file
 * as `simnet serve --fixture` does, and `Fixture.load(PATH)` reads one; an option key the network
 * does not know is refused, naming it and the nearest known one, instead of being ignored.
 * A loaded fixture is network options (issue 53): `start(await Fixture.load(p))`, `start({ ...f })`,
 * `make`/`layer` alike, `{ fixture: f }`; every key `Fixture.load` can give is one `start` takes.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, FileSystem, Layer } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { Fixture, type NetworkOptions, Route, Schemas, SimulationFileSystem, SimulationNetwork } from "simnet"

const dir = mkdtempSync(join(tmpdir(), "simnet-options-"))
const file = join(dir, "fixture.json")
writeFileSync(
  file,
  JSON.stringify({
    seed: 11,
    routes: [
      { id: "item", match: "GET https://api.example.com/items/:id", respond: { kind: "text", body: "from the file" } },
      { family: "openai" }
    ],
    llm: {
      queue: [{ steps: [[{ type: "text", content: "queued in the file" }]] }],
      rules: [
        {
          id: "hi",
          match: { lastUserMessage: "hi" },
          behaviour: { type: "respond", steps: [[{ type: "text", content: "ruled in the file" }]] }
        }
      ]
    }
  })
)

describe("a fixture in code", () => {
  it("start({ fixture }) serves the file's routes, scripts and rules, with its seed; what code gives is added after it", async () => {
    const network = await SimulationNetwork.start({
      fixture: file,
      routes: [Route.text("GET https://api.example.com/health", "ok")]
    })
    expect(network.network.seed).toBe(11)
    expect(await (await network.fetch("https://api.example.com/items/1")).text()).toBe("from the file")
    expect(await (await network.fetch("https://api.example.com/health")).text()).toBe("ok")
    const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
    const first = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hello" }]
    })
    expect(first.choices[0]!.message.content).toBe("queued in the file")
    const second = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }]
    })
    expect(second.choices[0]!.message.content).toBe("ruled in the file")
    // A seed given in code wins over the file's.
    expect((await SimulationNetwork.start({ fixture: file, seed: 3 })).network.seed).toBe(3)
    // Fixture.load reads the same file as a value.
    const loaded = await Fixture.load(file)
    expect([loaded.seed, loaded.routes.length > 1, loaded.llm.length, loaded.llmRules.length]).toEqual([11, true, 1, 1])
  })

  it("a missing or broken fixture is the start's typed error, naming the file or the field", async () => {
    expect(await SimulationNetwork.start({ fixture: join(dir, "missing.json") }).catch((e) => e)).toMatchObject({
      _tag: "FixtureUnreadable",
      reason: "file not found"
    })
    const broken = join(dir, "broken.json")
    writeFileSync(
      broken,
      JSON.stringify({ routes: [{ match: "GET https://a.example.com/", respond: { kind: "nope" } }] })
    )
    expect(await SimulationNetwork.start({ fixture: broken }).catch((e) => e)).toMatchObject({
      _tag: "InvalidRouteSpec",
      path: "routes[0].respond.kind"
    })
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

/**
 * A value for every key of the fixture file's Schema, checked against the Schema's own list: a key
 * added to `FixtureFile` without a sample here fails the last test, so this list cannot drift.
 */
const EVERY_KEY: Readonly<Record<string, unknown>> = {
  seed: "every-key",
  chaos: { rate: 0 },
  routes: [
    { id: "item", match: "GET https://api.example.com/items/:id", respond: { kind: "text", body: "from the file" } },
    { family: "openai" }
  ],
  files: { "notes/todo.txt": "buy milk\n", "logo.bin": { base64: "AAECAw==" } },
  prompts: ["summarise notes/todo.txt"],
  llm: {
    queue: [{ steps: [[{ type: "text", content: "queued in the file" }]] }],
    rules: [
      {
        id: "hi",
        match: { contains: "hello there" },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "ruled in the file" }]] }
      }
    ]
  }
}
const everyKeyFile = join(dir, "every-key.json")
writeFileSync(everyKeyFile, JSON.stringify(EVERY_KEY))

/** What a network started from the every-key fixture answers: its route, its queue and rule, its seed. */
const answers = async (network: { readonly fetch: typeof globalThis.fetch; readonly seed: number }) => {
  const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch, maxRetries: 0 })
  const ask = async (content: string) =>
    (await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content }] })).choices[0]!
      .message.content
  return {
    item: await (await network.fetch("https://api.example.com/items/1")).text(),
    queued: await ask("first"),
    ruled: await ask("hello there"),
    seed: network.seed
  }
}
const expected = async () => ({
  item: "from the file",
  queued: "queued in the file",
  ruled: "ruled in the file",
  seed: (await SimulationNetwork.start({ seed: "every-key" })).network.seed
})

describe("a loaded fixture is network options", () => {
  it("start(await Fixture.load(path)) starts from it, prompts and files and all", async () => {
    const network = await SimulationNetwork.start(await Fixture.load(everyKeyFile))
    expect(await answers({ fetch: network.fetch, seed: network.network.seed })).toEqual(await expected())
    expect(network.network.files).toEqual(EVERY_KEY["files"])
    await network.close()
  })

  it("start({ ...fixture, more }) takes it spread, with options of its own beside it", async () => {
    const fixture = await Fixture.load(everyKeyFile)
    const network = await SimulationNetwork.start({
      ...fixture,
      routes: [...fixture.routes, Route.text("GET https://api.example.com/health", "ok")],
      keepBodies: true
    })
    expect(await answers({ fetch: network.fetch, seed: network.network.seed })).toEqual(await expected())
    expect(await (await network.fetch("https://api.example.com/health")).text()).toBe("ok")
    await network.close()
  })

  it("SimulationNetwork.make and .layer take it alike; given the network, SimulationFileSystem.layer() lays out its files", async () => {
    const fixture = await Fixture.load(everyKeyFile)
    const made = await Effect.runPromise(SimulationNetwork.make(fixture))
    expect(await answers({ fetch: made.fetch, seed: made.seed })).toEqual(await expected())
    const program = Effect.gen(function* () {
      const response = yield* HttpClient.get("https://api.example.com/items/2")
      const fs = yield* FileSystem.FileSystem
      return {
        item: yield* response.text,
        todo: yield* fs.readFileString("notes/todo.txt"),
        logo: yield* fs.readFile("logo.bin")
      }
    })
    const seen = await Effect.runPromise(
      program.pipe(Effect.provide(Layer.provideMerge(SimulationFileSystem.layer(), SimulationNetwork.layer(fixture))))
    )
    expect(seen).toEqual({ item: "from the file", todo: "buy milk\n", logo: new Uint8Array([0, 1, 2, 3]) })
  })

  it("{ fixture: PATH } and { fixture: loaded } start the same network; a fixture option that is neither is refused, naming it", async () => {
    const byPath = await SimulationNetwork.start({ fixture: everyKeyFile })
    const byValue = await SimulationNetwork.start({ fixture: await Fixture.load(everyKeyFile), seed: "every-key" })
    expect(await answers({ fetch: byValue.fetch, seed: byValue.network.seed })).toEqual(
      await answers({ fetch: byPath.fetch, seed: byPath.network.seed })
    )
    expect(byValue.network.files).toEqual(byPath.network.files)
    expect(await SimulationNetwork.start({ fixture: { routes: "no" } } as never).catch((e) => e)).toMatchObject({
      _tag: "InvalidNetworkOption",
      option: "fixture"
    })
    expect(await SimulationNetwork.start({ files: { "../escape.txt": "x" } }).catch((e) => e)).toMatchObject({
      _tag: "InvalidNetworkOption",
      option: `files["../escape.txt"]`
    })
    expect(await SimulationNetwork.start({ prompts: [7] } as never).catch((e) => e)).toMatchObject({
      _tag: "InvalidNetworkOption",
      option: "prompts[0]"
    })
  })

  it("every key Fixture.load can give is an option start takes, alone and together (the keys come from the fixture's Schema)", async () => {
    expect(Object.keys(EVERY_KEY).sort()).toEqual(Object.keys(Schemas.RouteSpec.FixtureFile.fields).sort())
    const fixture = await Fixture.load(everyKeyFile)
    // The file's `llm` is read as the model's queue and its rules: `llm` and `llmRules`.
    expect(Object.keys(fixture).sort()).toEqual(["chaos", "files", "llm", "llmRules", "prompts", "routes", "seed"])
    const options: NetworkOptions = fixture
    for (const [key, value] of Object.entries(options)) {
      const network = await SimulationNetwork.start({ [key]: value }).catch((error: unknown) => error)
      expect(network, key).toHaveProperty("fetch")
    }
  })
})
