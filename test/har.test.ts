/**
 * HAR out and in (issue 23): the log exported as HAR 1.2 (`network.har()`, `GET
 * network/log?format=har`, the inspector's Export HAR) passes the HAR schema validator
 * (`har-validator`), carries no credential, and imported back (`Fixture.fromHar`) serves the same
 * statuses and bytes; a HAR that headless Chromium saved (Playwright's `recordHar`) visiting a
 * page that fetches from a local server is imported and served.
 */
import chromiumBinary from "@sparticuz/chromium"
import { once } from "node:events"
import { mkdtempSync, readFileSync } from "node:fs"
import * as http from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import OpenAI from "openai"
import { chromium } from "playwright-core"
import { Fixture, Route, Routes, SimulationNetwork } from "simnet"
import { afterAll, describe, expect, it } from "vitest"
import { download, launchSecureChromium, secureArgs } from "./support/chromium.ts"
import { serve, stopAll } from "./support/serve.ts"

afterAll(() => stopAll())

const LONG = 60_000
/** The HAR 1.2 schema's validator (ajv over `har-schema`): it rejects with the schema errors. */
const harValidator = createRequire(import.meta.url)("har-validator") as {
  readonly har: (data: unknown) => Promise<boolean>
}
const validHar = async (har: unknown): Promise<string> =>
  harValidator.har(har).then(
    () => "valid",
    (error: { errors?: unknown }) => JSON.stringify(error.errors ?? error)
  )

const BINARY = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255])

const routes = () => [
  Route.text("GET https://api.example.com/items/:id", '{"id":1,"name":"é 🙂"}', {
    id: "item",
    contentType: "application/json",
    headers: { "x-total": "1" }
  }),
  Route.bytes("GET https://cdn.example.com/blob", BINARY, { id: "blob", contentType: "application/octet-stream" }),
  Route.handler(
    "POST https://api.example.com/echo",
    async (request) =>
      new Response(JSON.stringify({ got: request.json() }), {
        status: 201,
        headers: { "content-type": "application/json", "set-cookie": "session=s3cr3t-cookie" }
      }),
    { id: "echo" }
  ),
  Route.status("GET https://api.example.com/gone", 410, { id: "gone", body: "gone" })
]

/** What a client sees of each request, in order: status and body as base64. */
const exchanges = async (fetch: typeof globalThis.fetch) => {
  const seen = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, init)
    return `${response.status} ${Buffer.from(await response.arrayBuffer()).toString("base64")}`
  }
  return [
    await seen("https://api.example.com/items/1?api_key=sk-live-query-123", {
      headers: { authorization: "Bearer sk-live-header-456" }
    }),
    await seen("https://cdn.example.com/blob"),
    await seen("https://api.example.com/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sku: "a" })
    }),
    await seen("https://api.example.com/gone")
  ]
}

describe("HAR export", () => {
  it("exports the log as valid HAR 1.2 without credentials, and importing it back serves the same bytes", async () => {
    const live = await SimulationNetwork.start({ keepBodies: true, routes: routes() })
    const before = await exchanges(live.fetch)
    await live.fetch("https://unknown.example.com/x").catch(() => undefined)
    await live.quiescent()
    const har = live.har()
    await live.close()

    expect(await validHar(har)).toBe("valid")
    // The judge can fail: an entry without its request is not HAR.
    expect(await validHar({ log: { ...har.log, entries: [{ ...har.log.entries[0], request: undefined }] } })).not.toBe(
      "valid"
    )
    const text = JSON.stringify(har)
    for (const secret of ["sk-live-query-123", "sk-live-header-456", "s3cr3t-cookie"])
      expect(text).not.toContain(secret)
    expect(har.log.creator.name).toBe("simnet")
    expect(har.log.creator.version).toBe(
      JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")).version
    )
    expect(har.log.entries.map((e) => `${e.request.method} ${e.response.status}`)).toEqual([
      "GET 200",
      "GET 200",
      "POST 201",
      "GET 410",
      "GET 0"
    ])
    const [item, blob, echo, , unknown] = har.log.entries
    expect(item!.request.headers).toContainEqual({ name: "authorization", value: "<redacted>" })
    expect(item!.response.content).toMatchObject({ mimeType: "application/json", text: '{"id":1,"name":"é 🙂"}' })
    expect(item!.response.headers).toContainEqual({ name: "x-total", value: "1" })
    expect(blob!.response.content).toMatchObject({
      encoding: "base64",
      text: Buffer.from(BINARY).toString("base64"),
      size: BINARY.length
    })
    expect(echo!.request.postData).toMatchObject({ mimeType: "application/json", text: '{"sku":"a"}' })
    expect(unknown).toMatchObject({ _error: "UnregisteredRequest", _simnet: { seq: 5 } })

    // Imported back, with every upstream gone: the same statuses and bytes.
    const fixture = await Fixture.fromHar(JSON.parse(text))
    const replay = await SimulationNetwork.start()
    await replay.registerSpec(fixture.routes)
    expect(await exchanges(replay.fetch)).toEqual(before)
    await replay.close()
  })

  it("an exchange a fault broke is exported as what the client saw and imported back as that fault", async () => {
    const live = await SimulationNetwork.start({
      keepBodies: true,
      routes: [
        Route.fault("GET https://flaky.example.com/reset", "reset", { id: "reset" }),
        Route.fault("GET https://flaky.example.com/cut", "malformed-body", { id: "cut" })
      ]
    })
    const outcome = async (fetch: typeof globalThis.fetch, path: string) => {
      try {
        const response = await fetch(`https://flaky.example.com/${path}`)
        JSON.parse(await response.text())
        return "ok"
      } catch (error) {
        return (error as Error).name
      }
    }
    const before = [await outcome(live.fetch, "reset"), await outcome(live.fetch, "cut")]
    expect(before.every((o) => o !== "ok")).toBe(true)
    await live.quiescent()
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    expect(har.log.entries.map((e) => e._simnet.fault)).toEqual(["reset", "malformed"])
    // A reset had no status (as Chromium writes a failed request: 0); a cut body did.
    expect(har.log.entries.map((e) => e.response.status)).toEqual([0, 200])
    const { routes } = await Fixture.fromHar(JSON.parse(JSON.stringify(har)))
    expect(routes.map((r) => r["respond"])).toEqual([
      { kind: "fault", fault: "reset" },
      { kind: "fault", fault: "malformed-body" }
    ])
    const replay = await SimulationNetwork.start()
    await replay.registerSpec(routes)
    expect([await outcome(replay.fetch, "reset"), await outcome(replay.fetch, "cut")]).toEqual(before)
    await replay.close()
  })

  it("without keepBodies a seeded route's answers are generated again from their seeds: the same bytes, valid HAR, imported back as served", async () => {
    const Item = Schema.Struct({ id: Schema.Number, name: Schema.String, tags: Schema.Array(Schema.String) })
    const live = await SimulationNetwork.start({
      seed: 7,
      routes: [Route.json("GET https://api.example.com/things/:id", Item, { id: "things" }), ...routes()]
    })
    const served = await Promise.all(
      ["1", "2", "1"].map(async (id) => (await live.fetch(`https://api.example.com/things/${id}`)).text())
    )
    await live.fetch("https://api.example.com/echo", { method: "POST", body: "{}" })
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    const [a, b, c, echo] = har.log.entries
    expect([a, b, c].map((entry) => entry!.response.content)).toEqual(
      served.map((text) => ({ size: Buffer.byteLength(text), mimeType: "application/json", text }))
    )
    expect(a!.comment).toMatch(/^body generated again from seed \d+ \(not kept\)$/)
    expect(a!._simnet).toMatchObject({ route: "things", bodyRegenerated: true })
    // A handler's answer depends on what it was sent and on code: not made again.
    expect(echo!._simnet).toMatchObject({ bodyKept: false })
    const imported = await Fixture.fromHar(JSON.parse(JSON.stringify(har)))
    expect(imported.skipped.map((s) => s.reason)).toEqual([
      "entries[3]: its body was not kept when simnet exported it (export from a network with keepBodies, simnet serve --keep-bodies)"
    ])
    const replay = await SimulationNetwork.start()
    await replay.registerSpec(imported.routes)
    expect(
      await Promise.all(
        ["1", "2"].map(async (id) => (await replay.fetch(`https://api.example.com/things/${id}`)).text())
      )
    ).toEqual([served[0], served[1]])
    await replay.close()
  })

  it("without keepBodies every deterministic route's answer is carried whole (text, bytes, statuses, generated JSON), credentials redacted; imported back, a new network answers the same bytes", async () => {
    const Order = Schema.Struct({ id: Schema.String, total: Schema.Number, placedAt: Schema.Date })
    const deterministic = () => [
      Route.text("GET https://api.example.com/notes", "buy milk\n", {
        id: "notes",
        status: 203,
        headers: { "x-total": "1", "set-cookie": "session=s3cr3t-cookie", "x-api-key": "sk-live-response-123" }
      }),
      Route.text("POST https://api.example.com/search", '{"hits":[]}', {
        id: "search",
        contentType: "application/json"
      }),
      Route.bytes("GET https://cdn.example.com/logo.png", BINARY, { id: "logo", contentType: "image/png" }),
      Route.status("DELETE https://api.example.com/items/:id", 204, { id: "deleted" }),
      Route.status("GET https://api.example.com/old", 410, { id: "old", body: "gone for good" }),
      Route.json("GET https://api.example.com/orders/:id", Order, {
        id: "orders",
        status: 202,
        headers: { "x-source": "sim" },
        seedOffset: 3
      })
    ]
    const requests: ReadonlyArray<readonly [string, RequestInit?]> = [
      ["https://api.example.com/notes", { headers: { authorization: "Bearer sk-live-header-456" } }],
      [
        "https://api.example.com/search",
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ q: "milk" }) }
      ],
      ["https://cdn.example.com/logo.png"],
      ["https://api.example.com/items/9", { method: "DELETE" }],
      ["https://api.example.com/old"],
      ["https://api.example.com/orders/1"],
      ["https://api.example.com/orders/2"],
      // The same request again: a generated route gives its next occurrence, which must come back in order.
      ["https://api.example.com/orders/1"]
    ]
    const seen = async (fetch: typeof globalThis.fetch) => {
      const out: Array<string> = []
      for (const [url, init] of requests) {
        const response = await fetch(url, init)
        const body = Buffer.from(await response.arrayBuffer()).toString("base64")
        out.push(
          `${response.status} ${response.headers.get("content-type")} ${response.headers.get("x-total") ?? response.headers.get("x-source") ?? "-"} ${body}`
        )
      }
      return out
    }
    const live = await SimulationNetwork.start({ seed: 5, routes: deterministic() })
    const before = await seen(live.fetch)
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    expect(har.log.entries.map((entry) => entry._simnet)).not.toContainEqual(
      expect.objectContaining({ bodyKept: false })
    )
    const text = JSON.stringify(har)
    for (const secret of ["s3cr3t-cookie", "sk-live-response-123", "sk-live-header-456"])
      expect(text).not.toContain(secret)

    const imported = await Fixture.fromHar(JSON.parse(text))
    expect(imported.skipped).toEqual([])
    const replay = await SimulationNetwork.start({ seed: 99, routes: [] })
    await replay.registerSpec(imported.routes)
    expect(await seen(replay.fetch)).toEqual(before)
    await replay.close()
  })

  it("without keepBodies the HAR is still valid: heads, statuses and timings, and a comment on the answer whose body was not kept", async () => {
    const live = await SimulationNetwork.start({ routes: routes() })
    await exchanges(live.fetch)
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    expect(har.log.entries).toHaveLength(4)
    expect(har.log.entries.map((e) => e.response.status)).toEqual([200, 200, 201, 410])
    // The handler's answer (the third) is not made again: its entry says the body was not kept.
    const [item, blob, echo, gone] = har.log.entries
    expect(echo!.comment).toContain("bodies not kept")
    expect(echo!.response.content).not.toHaveProperty("text")
    for (const entry of [item, blob, gone])
      expect(entry!.comment).toBe(`answer made again from route ${entry!._simnet.route} (not kept)`)
    // Imported back, no answer whose body is missing is served as an empty one: it is skipped, saying why.
    const imported = await Fixture.fromHar(JSON.parse(JSON.stringify(har)))
    expect(imported.routes).toHaveLength(3)
    expect(imported.skipped.map((s) => s.reason)).toEqual([
      "entries[2]: its body was not kept when simnet exported it (export from a network with keepBodies, simnet serve --keep-bodies)"
    ])
    // So is a browser's entry saved without its content.
    const [first] = har.log.entries
    const stripped = {
      ...first,
      _simnet: undefined,
      comment: undefined,
      response: { ...first!.response, content: { size: 12, mimeType: "text/plain" } }
    }
    expect((await Fixture.fromHar({ log: { ...har.log, entries: [stripped] } })).skipped.map((s) => s.reason)).toEqual([
      "entries[0]: its body is not in the file (content.size 12, no content.text)"
    ])
  })

  it("a log restored from a snapshot exports as valid HAR too, each entry saying its bodies are not in the snapshot", async () => {
    const live = await SimulationNetwork.start({ keepBodies: true, routes: routes() })
    await exchanges(live.fetch)
    const state = await Effect.runPromise(live.network.state)
    await live.close()
    const restored = await SimulationNetwork.start({ keepBodies: true, routes: routes() })
    await Effect.runPromise(restored.network.restore(JSON.parse(JSON.stringify(state))))
    const har = restored.har()
    await restored.close()
    expect(await validHar(har)).toBe("valid")
    expect(har.log.entries.map((e) => [e.response.status, e.comment])).toEqual(
      [200, 200, 201, 410].map((status) => [status, "restored from a snapshot: its bodies are not in it"])
    )
  })

  it("keeps at most 1 MiB of a body (and says it was cut), and kept bodies count against logBytes: the oldest records go", async () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(7)
    const live = await SimulationNetwork.start({
      keepBodies: true,
      logBytes: 4 * 1024 * 1024,
      routes: [Route.bytes("GET https://big.example.com/:n", big, { id: "big" })]
    })
    for (let n = 0; n < 12; n++)
      expect((await (await live.fetch(`https://big.example.com/${n}`)).arrayBuffer()).byteLength).toBe(big.length)
    await live.quiescent()
    // The kept copy is read from a tee beside the caller's: wait until the last one is in.
    for (let i = 0; i < 100 && live.har().log.entries.at(-1)?.response.content.size !== 1024 * 1024; i++)
      await new Promise((resolve) => setImmediate(resolve))
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    expect(har.log.entries.length).toBeLessThanOrEqual(4)
    expect(har.log.entries.length).toBeGreaterThan(0)
    const last = har.log.entries.at(-1)!
    expect(last.request.url).toBe("https://big.example.com/11")
    expect(last.response.content.size).toBe(1024 * 1024)
    expect(last.comment).toContain("body cut at 1048576 bytes")
  })

  it("a streamed model answer is kept whole as its SSE body, through the openai SDK", async () => {
    const live = await SimulationNetwork.start({ keepBodies: true, routes: Routes.openai() })
    live.llm.enqueue({ steps: [[{ type: "text", content: "Hello from the HAR" }]] })
    const client = new OpenAI({ apiKey: "sk-live-model-789", fetch: live.fetch, maxRetries: 0, logLevel: "off" })
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      stream: true,
      messages: [{ role: "user", content: "hi" }]
    })
    let said = ""
    for await (const chunk of stream) said += chunk.choices[0]?.delta.content ?? ""
    expect(said).toBe("Hello from the HAR")
    await live.quiescent()
    const har = live.har()
    await live.close()
    expect(await validHar(har)).toBe("valid")
    expect(JSON.stringify(har)).not.toContain("sk-live-model-789")
    const entry = har.log.entries[0]!
    expect(entry.response.content.mimeType).toContain("text/event-stream")
    expect(entry.response.content).toHaveProperty("text")
    expect((entry.response.content as { text: string }).text).toContain("data: [DONE]")
  })

  it("a client that cancels mid-body cancels the route's stream (keeping holds nothing open); the HAR has what it read", async () => {
    let cancelled = false
    let n = 0
    const endless = Route.handler(
      "GET https://stream.example.com/events",
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull: (controller) => controller.enqueue(new TextEncoder().encode(`data: ${n++}\n\n`)),
            cancel: () => void (cancelled = true)
          }),
          { headers: { "content-type": "text/event-stream" } }
        ),
      { id: "endless" }
    )
    const live = await SimulationNetwork.start({ keepBodies: true, routes: [endless] })
    const reader = (await live.fetch("https://stream.example.com/events")).body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe("data: 0\n\n")
    await reader.cancel()
    expect(cancelled).toBe(true)
    const entry = live.har().log.entries[0]!
    await live.close()
    expect(entry.comment).toContain("the body broke before its end")
    expect((entry.response.content as { text: string }).text.startsWith("data: 0\n\n")).toBe(true)
  })

  it("keeps what Effect's HttpClient was answered, as what fetch was", async () => {
    const live = await SimulationNetwork.start({ keepBodies: true, routes: routes() })
    const body = await Effect.runPromise(
      Effect.flatMap(live.network.httpClient.get("https://cdn.example.com/blob"), (response) => response.arrayBuffer)
    )
    expect(new Uint8Array(body)).toEqual(BINARY)
    await live.quiescent()
    for (let i = 0; i < 100 && live.har().log.entries[0]?.response.content.size !== BINARY.length; i++)
      await new Promise((resolve) => setImmediate(resolve))
    const har = live.har()
    await live.close()
    expect(har.log.entries[0]!.response.content).toMatchObject({
      encoding: "base64",
      text: Buffer.from(BINARY).toString("base64")
    })
  })
})

describe("HAR over the control endpoint and in the inspector", () => {
  it(
    "GET network/log?format=har under simnet serve --keep-bodies is a valid HAR file; the inspector's Export HAR saves the same, and a request's detail shows its answer",
    async () => {
      const server = await serve(["--keep-bodies", "--quiet"])
      expect(
        (
          await server.post("network/register", {
            id: "hello",
            match: "GET https://api.example.com/hello",
            respond: { kind: "text", body: "hi there" }
          })
        ).status
      ).toBe(201)
      expect(await (await fetch(`${server.base}/api.example.com/hello?token=tok-live-1`)).text()).toBe("hi there")
      const response = await fetch(`${server.control}/network/log?format=har`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-disposition")).toContain("simnet.har")
      const har = (await response.json()) as {
        log: { entries: Array<{ request: { url: string }; response: { content: { text?: string } } }> }
      }
      expect(await validHar(har)).toBe("valid")
      expect(har.log.entries.map((e) => [e.request.url, e.response.content.text])).toEqual([
        ["https://api.example.com/hello?token=<redacted>", "hi there"]
      ])
      const bad = await fetch(`${server.control}/network/log?format=xml`)
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ error: { path: "format" } })

      const browser = await launchSecureChromium()
      try {
        const page = await browser.newPage()
        await page.goto(`${server.control}/ui`)
        await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 20_000 })
        const file = await download(page, "#har-download", mkdtempSync(join(tmpdir(), "simnet-har-")))
        const saved = JSON.parse(readFileSync(file, "utf8")) as typeof har
        expect(await validHar(saved)).toBe("valid")
        expect(saved.log.entries.map((e) => e.response.content.text)).toEqual(["hi there"])
        // The request's detail shows the answer that was kept.
        await page.waitForSelector("#rows .row", { timeout: 10_000 })
        await page.click("#rows .row")
        await page.waitForSelector("#detail pre.response-body", { timeout: 10_000 })
        expect(await page.$eval("#detail pre.response-body", (e) => e.textContent)).toBe("hi there")
        expect(await page.$eval("#detail", (e) => e.textContent)).toContain("text/plain")
      } finally {
        await browser.close()
      }
    },
    LONG
  )
})

describe("HAR import", () => {
  it(
    "a HAR saved by headless Chromium visiting a page that fetches from a local server is imported and served",
    async () => {
      const binary = Buffer.from([0, 1, 2, 255, 254])
      const server = http.createServer((req, res) => {
        if (req.url === "/") {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
          res.end(
            "<!doctype html><title>loading</title><script>Promise.all([fetch('/api/data?q=1').then((r) => r.json()), fetch('/bin').then((r) => r.arrayBuffer()), fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: 2 }) }).then((r) => r.json())]).then(([d, , s]) => { document.title = d.ok && s.saved === 2 ? 'done' : 'bad' })</script>"
          )
        } else if (req.url === "/bin") {
          res.writeHead(200, { "content-type": "application/octet-stream" })
          res.end(binary)
        } else if (req.url === "/api/save") {
          let body = ""
          req.on("data", (d: Buffer) => (body += d))
          req.on("end", () => {
            res.writeHead(201, { "content-type": "application/json" })
            res.end(JSON.stringify({ saved: (JSON.parse(body) as { n: number }).n }))
          })
        } else {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ ok: true, items: ["a", "b"] }))
        }
      })
      server.listen(0, "127.0.0.1")
      await once(server, "listening")
      const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      const file = join(mkdtempSync(join(tmpdir(), "simnet-chromium-har-")), "page.har")
      const browser = await chromium.launch({
        executablePath: await chromiumBinary.executablePath(),
        args: secureArgs(),
        headless: true
      })
      try {
        const context = await browser.newContext({ recordHar: { path: file, content: "embed" } })
        const page = await context.newPage()
        await page.goto(`${origin}/`)
        await page.waitForFunction(() => document.title === "done", undefined, { timeout: 20_000 })
        await context.close()
      } finally {
        await browser.close()
        server.close()
      }
      const har = JSON.parse(readFileSync(file, "utf8")) as {
        log: { creator: { name: string }; entries: Array<unknown> }
      }
      expect(har.log.creator.name).toBe("Playwright")
      expect(await validHar(har)).toBe("valid")

      // The server is gone: the imported routes answer as it did.
      const fixture = await Fixture.fromHar(har)
      expect(fixture.skipped).toEqual([])
      const replay = await SimulationNetwork.start()
      await replay.registerSpec(fixture.routes)
      const page = await replay.fetch(`${origin}/`)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(await page.text()).toContain("fetch('/api/data?q=1')")
      expect(await (await replay.fetch(`${origin}/api/data?q=1`)).json()).toEqual({ ok: true, items: ["a", "b"] })
      expect(Buffer.from(await (await replay.fetch(`${origin}/bin`)).arrayBuffer())).toEqual(binary)
      const saved = await replay.fetch(`${origin}/api/save`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n: 2 })
      })
      expect([saved.status, await saved.json()]).toEqual([201, { saved: 2 }])
      await replay.close()
    },
    LONG
  )
})
