/**
 * Record mode (issue 23, plain HTTP): `simnet serve --record FILE` forwards what no route answers
 * to a local upstream (`--upstream HOST=URL`), answers with what came back, and writes a fixture
 * when it stops. Replaying that fixture with the upstream gone serves the same statuses and bytes
 * (JSON, text, binary, a POST whose answer depends on its body, a sequence of different answers).
 * Credentials never reach the file; what a route answers is never forwarded; and without record
 * mode nothing is.
 */
import { once } from "node:events"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { serve, stopAll } from "./support/serve.ts"

afterAll(() => stopAll())

const BINARY = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255])

describe("record mode", () => {
  it("records through a local upstream, then replays the same bytes with the upstream gone; no credential is written", async () => {
    const seen: Array<string> = []
    let counter = 0
    const upstream = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      const url = new URL(req.url ?? "/", "http://upstream.local")
      if (url.pathname === "/json") {
        res.writeHead(200, {
          "content-type": "application/json",
          "set-cookie": "session=secret-cookie",
          date: "Tue, 01 Dec 2026 00:00:00 GMT",
          "x-total": "3"
        })
        res.end(JSON.stringify({ items: [1, 2, 3], q: url.searchParams.get("q") }))
      } else if (url.pathname === "/text") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" })
        res.end("plain text, é and 🙂")
      } else if (url.pathname === "/bin") {
        res.writeHead(200, { "content-type": "application/octet-stream" })
        res.end(BINARY)
      } else if (url.pathname === "/price" && req.method === "POST") {
        let body = ""
        req.on("data", (d: Buffer) => (body += d))
        req.on("end", () => {
          const { sku } = JSON.parse(body) as { sku: string }
          res.writeHead(sku === "a" ? 200 : 404, { "content-type": "application/json" })
          res.end(JSON.stringify(sku === "a" ? { sku, price: 10 } : { error: "no such sku" }))
        })
        return
      } else if (url.pathname === "/counter") {
        counter++
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ n: counter }))
      } else {
        res.writeHead(404)
        res.end()
      }
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-"))
    const file = join(dir, "recorded.json")
    const fixture = join(dir, "routes.json")
    writeFileSync(
      fixture,
      JSON.stringify({
        routes: [
          {
            id: "answered",
            match: "GET https://api.example.com/answered",
            respond: { kind: "text", body: "by a route" }
          }
        ]
      })
    )

    const exchanges = async (base: string) => {
      const get = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(`${base}/api.example.com${path}`, init)
        return [response.status, Buffer.from(await response.arrayBuffer()).toString("base64")] as const
      }
      const price = (sku: string) =>
        get("/price", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ sku })
        })
      return [
        await get("/json?q=shoes&api_key=sk-live-123456", { headers: { authorization: "Bearer sk-live-abcdef" } }),
        await get("/text"),
        await get("/bin"),
        await price("a"),
        await price("b"),
        await get("/counter"),
        await get("/counter"),
        await get("/counter"),
        await get("/answered")
      ]
    }

    const recording = await serve([
      "--quiet",
      "--fixture",
      fixture,
      "--record",
      file,
      "--upstream",
      `api.example.com=http://127.0.0.1:${port}`
    ])
    const recorded = await exchanges(recording.base)
    expect(seen).not.toContain("GET /answered") // a route answered it: never forwarded
    expect(seen.length).toBe(8)
    recording.child.kill("SIGTERM")
    await once(recording.child, "exit")
    upstream.close()

    const written = readFileSync(file, "utf8")
    expect(written).not.toMatch(/sk-live|secret-cookie|authorization|Tue, 01 Dec/i)
    const routes = (JSON.parse(written) as { routes: Array<{ id: string; respond: { kind: string } }> }).routes
    expect(routes.find((r) => r.respond?.kind === "bytes")).toBeDefined()

    const replaying = await serve(["--quiet", "--fixture", file])
    const replayed = await exchanges(replaying.base)
    expect(replayed.slice(0, 8)).toEqual(recorded.slice(0, 8))
    expect(JSON.parse(Buffer.from(replayed[7][1], "base64").toString())).toEqual({ n: 3 })
    // The route the recording never saw is not in it: refused, not forwarded.
    expect(replayed[8][0]).toBe(502)
    expect(seen.length).toBe(8)

    // Recording again into the same file merges without duplicates.
    const before = routes.length
    const again = await serve(["--quiet", "--fixture", file, "--record", file])
    await fetch(`${again.base}/api.example.com/text`)
    again.child.kill("SIGTERM")
    await once(again.child, "exit")
    expect((JSON.parse(readFileSync(file, "utf8")) as { routes: Array<unknown> }).routes.length).toBe(before)
  }, 60_000)

  it("in process: record: { upstream, file } keeps what no route answers, network.recording() is it as routes, and close writes the file", async () => {
    const upstream = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ path: req.url }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const file = join(mkdtempSync(join(tmpdir(), "simnet-record-")), "inproc.json")
    const { SimulationNetwork } = await import("simnet")
    const network = await SimulationNetwork.start({
      record: { file, upstream: { "svc.example.com": `http://127.0.0.1:${port}` } }
    })
    const live = await (await network.fetch("https://svc.example.com/a/b?x=1")).text()
    expect(JSON.parse(live)).toEqual({ path: "/a/b?x=1" })
    const { routes } = network.recording()
    expect(routes).toMatchObject([
      {
        match: { method: "GET", url: "https://svc.example.com/a/b", query: { x: "1" } },
        respond: { kind: "text", body: live, status: 200 }
      }
    ])
    await network.close()
    upstream.close()
    const replay = await SimulationNetwork.start()
    await replay.registerSpec((JSON.parse(readFileSync(file, "utf8")) as { routes: Array<unknown> }).routes)
    expect(await (await replay.fetch("https://svc.example.com/a/b?x=1")).text()).toBe(live)
  })

  it("with cookies: true a set-cookie is recorded with its name and attributes, its value redacted, whatever its name", async () => {
    const upstream = http.createServer((_req, res) => {
      res.setHeader("set-cookie", ["session=secret-cookie-value; Path=/; HttpOnly; Max-Age=3600", "theme=dark"])
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ ok: true }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const { SimulationNetwork } = await import("simnet")
    const network = await SimulationNetwork.start({
      record: { cookies: true, upstream: { "svc.example.com": `http://127.0.0.1:${port}` } }
    })
    const live = await network.fetch("https://svc.example.com/login")
    expect(live.headers.getSetCookie()).toEqual([
      "session=secret-cookie-value; Path=/; HttpOnly; Max-Age=3600",
      "theme=dark"
    ])
    await live.text()
    const recording = network.recording()
    await network.close()
    upstream.close()
    expect(JSON.stringify(recording)).not.toContain("secret-cookie-value")
    expect(JSON.stringify(recording)).not.toContain("dark")
    const headers = (recording.routes[0] as { respond: { headers: Record<string, string> } }).respond.headers
    expect(headers["set-cookie"]).toBe("session=<redacted>; Path=/; HttpOnly; Max-Age=3600, theme=<redacted>")
  })
})

describe("HAR import", () => {
  /** A HAR 1.2 log as browsers' devtools write it (fields beyond the few read are ignored). */
  const har = {
    log: {
      version: "1.2",
      creator: { name: "WebInspector", version: "537.36" },
      pages: [
        { startedDateTime: "2026-12-01T00:00:00.000Z", id: "page_1", title: "http://localhost/", pageTimings: {} }
      ],
      entries: [
        {
          startedDateTime: "2026-12-01T00:00:00.100Z",
          time: 12,
          pageref: "page_1",
          _initiator: { type: "script" },
          request: {
            method: "GET",
            url: "https://api.example.com/items?page=2&access_token=tok-secret",
            httpVersion: "h2",
            headers: [{ name: "authorization", value: "Bearer sk-live-zzz" }],
            queryString: [],
            cookies: [],
            headersSize: -1,
            bodySize: 0
          },
          response: {
            status: 200,
            statusText: "",
            httpVersion: "h2",
            headers: [
              { name: "content-type", value: "application/json" },
              { name: "set-cookie", value: "s=1" },
              { name: "date", value: "x" }
            ],
            cookies: [],
            content: { size: 22, mimeType: "application/json", text: '{"items":[1,2],"page":2}' },
            redirectURL: "",
            headersSize: -1,
            bodySize: -1
          },
          cache: {},
          timings: { send: 0, wait: 10, receive: 2 }
        },
        {
          startedDateTime: "2026-12-01T00:00:00.200Z",
          time: 5,
          request: {
            method: "POST",
            url: "https://api.example.com/cart",
            httpVersion: "h2",
            headers: [],
            queryString: [],
            cookies: [],
            headersSize: -1,
            bodySize: 12,
            postData: { mimeType: "application/json", text: '{"sku":"a"}' }
          },
          response: {
            status: 201,
            statusText: "",
            httpVersion: "h2",
            headers: [{ name: "content-type", value: "application/json" }],
            cookies: [],
            content: { size: 11, mimeType: "application/json", text: '{"ok":true}' },
            redirectURL: "",
            headersSize: -1,
            bodySize: -1
          },
          cache: {},
          timings: { send: 0, wait: 5, receive: 0 }
        },
        {
          startedDateTime: "2026-12-01T00:00:00.300Z",
          time: 1,
          request: {
            method: "GET",
            url: "https://cdn.example.com/logo.png",
            httpVersion: "h2",
            headers: [],
            queryString: [],
            cookies: [],
            headersSize: -1,
            bodySize: 0
          },
          response: {
            status: 200,
            statusText: "",
            httpVersion: "h2",
            headers: [],
            cookies: [],
            content: { size: 4, mimeType: "image/png", text: "iVBORw==", encoding: "base64" },
            redirectURL: "",
            headersSize: -1,
            bodySize: -1
          },
          cache: {},
          timings: { send: 0, wait: 1, receive: 0 }
        },
        {
          startedDateTime: "2026-12-01T00:00:00.400Z",
          time: 0,
          request: {
            method: "GET",
            url: "https://blocked.example.com/x",
            httpVersion: "",
            headers: [],
            queryString: [],
            cookies: [],
            headersSize: -1,
            bodySize: 0
          },
          response: {
            status: 0,
            statusText: "",
            httpVersion: "",
            headers: [],
            cookies: [],
            content: { size: 0, mimeType: "x-unknown" },
            redirectURL: "",
            headersSize: -1,
            bodySize: -1,
            _error: "net::ERR_BLOCKED_BY_CLIENT"
          },
          cache: {},
          timings: { send: 0, wait: 0, receive: 0 }
        }
      ]
    }
  }

  it("Fixture.fromHar and simnet har import turn a HAR into routes that serve its answers; credentials and blocked entries left out", async () => {
    const { Fixture, SimulationNetwork } = await import("simnet")
    const fixture = await Fixture.fromHar(har)
    expect(fixture.routes).toHaveLength(3)
    expect(JSON.stringify(fixture)).not.toMatch(/tok-secret|sk-live|set-cookie/)
    const network = await SimulationNetwork.start()
    await network.registerSpec(fixture.routes)
    const items = await network.fetch("https://api.example.com/items?page=2&access_token=anything")
    expect([items.status, await items.text()]).toEqual([200, '{"items":[1,2],"page":2}'])
    const cart = await network.fetch("https://api.example.com/cart", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"sku":"a"}'
    })
    expect([cart.status, await cart.json()]).toEqual([201, { ok: true }])
    expect(
      Buffer.from(await (await network.fetch("https://cdn.example.com/logo.png")).arrayBuffer()).toString("base64")
    ).toBe("iVBORw==")
    // The CLI prints the same fixture.
    const file = join(mkdtempSync(join(tmpdir(), "simnet-har-")), "page.har")
    writeFileSync(file, JSON.stringify(har))
    const { execFileSync } = await import("node:child_process")
    const printed = JSON.parse(
      execFileSync(process.execPath, [join(import.meta.dirname, "..", "bin/simnet.js"), "har", "import", file], {
        encoding: "utf8"
      })
    )
    expect(printed).toEqual(JSON.parse(JSON.stringify({ routes: fixture.routes })))
    await expect(Fixture.fromHar({ nope: true })).rejects.toThrow(/log\.entries/)
  })
})

describe("recording model calls", () => {
  it("a tool-calling turn recorded through the openai SDK (streamed and not) replays through the openai SDK, @anthropic-ai/sdk and @google/genai", async () => {
    // A local OpenAI-compatible upstream: a tool call first, then the answer quoting the tool's result.
    const upstream = http.createServer((req, res) => {
      let raw = ""
      req.on("data", (d: Buffer) => (raw += d))
      req.on("end", () => {
        const body = JSON.parse(raw) as { stream?: boolean; messages: Array<{ role: string }> }
        const toolRound = body.messages.some((m) => m.role === "tool")
        if (body.stream === true) {
          res.writeHead(200, { "content-type": "text/event-stream" })
          const chunk = (delta: unknown, finish: string | null = null) =>
            `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "gpt-4o", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
          res.write(chunk({ role: "assistant", content: "" }))
          res.write(chunk({ content: "It is sunny" }))
          res.write(chunk({ content: " in Paris." }))
          res.write(chunk({}, "stop"))
          res.end("data: [DONE]\n\n")
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id: "c0",
            object: "chat.completion",
            created: 0,
            model: "gpt-4o",
            choices: [
              {
                index: 0,
                finish_reason: toolRound ? "stop" : "tool_calls",
                message: toolRound
                  ? { role: "assistant", content: "It is sunny in Paris." }
                  : {
                      role: "assistant",
                      content: null,
                      tool_calls: [
                        {
                          id: "call_1",
                          type: "function",
                          function: { name: "get_weather", arguments: '{"city":"Paris"}' }
                        }
                      ]
                    }
              }
            ],
            usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 }
          })
        )
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const file = join(mkdtempSync(join(tmpdir(), "simnet-record-model-")), "calls.json")
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
        }
      }
    ]
    const prompt = "What's the weather in Paris?"

    const { default: OpenAI } = await import("openai")
    // An empty fixture: the default one's model would answer these calls, and nothing would be forwarded.
    const empty = join(mkdtempSync(join(tmpdir(), "simnet-empty-")), "empty.json")
    writeFileSync(empty, JSON.stringify({ routes: [] }))
    const recording = await serve([
      "--quiet",
      "--fixture",
      empty,
      "--record",
      file,
      "--upstream",
      `api.openai.com=http://127.0.0.1:${port}`
    ])
    const live = new OpenAI({
      apiKey: "sk-live-do-not-write-me",
      baseURL: `${recording.base}/api.openai.com/v1`,
      maxRetries: 0
    })
    const first = await live.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: prompt }],
      tools
    })
    const call = first.choices[0].message.tool_calls![0]
    expect(call.type === "function" && call.function.name).toBe("get_weather")
    const stream = await live.chat.completions.create({
      model: "gpt-4o",
      stream: true,
      tools,
      messages: [
        { role: "user", content: prompt },
        first.choices[0].message,
        { role: "tool", tool_call_id: call.id, content: "sunny" }
      ]
    })
    let streamed = ""
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? ""
    expect(streamed).toBe("It is sunny in Paris.")
    recording.child.kill("SIGTERM")
    await once(recording.child, "exit")
    upstream.close()

    const written = readFileSync(file, "utf8")
    expect(written).not.toContain("sk-live")
    const fixture = JSON.parse(written) as {
      routes: Array<Record<string, unknown>>
      llm: { rules: Array<Record<string, any>> }
    }
    expect(fixture.routes).toEqual([{ family: "openai" }])
    expect(fixture.llm.rules.map((r) => [r.match, r.behaviour.steps])).toEqual([
      [
        { lastUserMessage: prompt, toolResult: false },
        [[{ type: "tool_call", name: "get_weather", input: { city: "Paris" } }]]
      ],
      [{ lastUserMessage: prompt, toolResult: true }, [[{ type: "text", content: "It is sunny in Paris." }]]]
    ])
    expect(fixture.llm.rules[1].behaviour.pace).toMatchObject({ ttftMs: expect.any(Number) })

    // Replay: the recorded rules answer every API simnet speaks (with their families beside).
    const replayFile = join(mkdtempSync(join(tmpdir(), "simnet-replay-")), "replay.json")
    const noPace = fixture.llm.rules.map((rule) => ({ ...rule, behaviour: { ...rule.behaviour, pace: undefined } }))
    writeFileSync(
      replayFile,
      JSON.stringify({
        routes: [...fixture.routes, { family: "anthropic" }, { family: "gemini" }],
        llm: { rules: noPace }
      })
    )
    const replay = await serve(["--quiet", "--fixture", replayFile])
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${replay.base}/api.openai.com/v1`, maxRetries: 0 })
    const again = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: prompt }],
      tools
    })
    expect(again.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: "get_weather", arguments: '{"city":"Paris"}' }
    })

    const { default: Anthropic } = await import("@anthropic-ai/sdk")
    const anthropic = new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: `${replay.base}/api.anthropic.com`,
      maxRetries: 0
    })
    const aTools = [
      {
        name: "get_weather",
        input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] }
      }
    ]
    const asked = await anthropic.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      tools: aTools,
      messages: [{ role: "user", content: prompt }]
    })
    const use = asked.content.find((b) => b.type === "tool_use")
    expect(use).toMatchObject({ name: "get_weather", input: { city: "Paris" } })
    const answered = await anthropic.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      tools: aTools,
      messages: [
        { role: "user", content: prompt },
        { role: "assistant", content: asked.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: (use as { id: string }).id, content: "sunny" }] }
      ]
    })
    expect(
      answered.content
        .filter((b) => b.type === "text")
        .map((b) => (b as { text: string }).text)
        .join("")
    ).toBe("It is sunny in Paris.")

    const { GoogleGenAI } = await import("@google/genai")
    const gemini = new GoogleGenAI({
      apiKey: "gemini-test",
      httpOptions: { baseUrl: `${replay.base}/generativelanguage.googleapis.com` }
    })
    const g = await gemini.models.generateContent({
      model: "gemini-2.5-flash",
      contents: prompt,
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: "get_weather",
                parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } }
              }
            ]
          }
        ]
      }
    })
    expect(g.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } })
  }, 60_000)
})

describe("recording every model API", () => {
  it("Responses, Anthropic Messages and Gemini calls are recorded as rules too, and each replays through Chat Completions", async () => {
    const upstream = http.createServer((req, res) => {
      let raw = ""
      req.on("data", (d: Buffer) => (raw += d))
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        if (req.url?.startsWith("/v1/responses")) {
          res.end(
            JSON.stringify({
              id: "resp_1",
              object: "response",
              status: "completed",
              model: "gpt-4o",
              output: [
                {
                  type: "message",
                  id: "m1",
                  role: "assistant",
                  status: "completed",
                  content: [{ type: "output_text", text: "from responses", annotations: [] }]
                }
              ],
              usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 }
            })
          )
        } else if (req.url?.startsWith("/v1/messages")) {
          res.end(
            JSON.stringify({
              id: "msg_1",
              type: "message",
              role: "assistant",
              model: "claude-sonnet-4-5",
              content: [{ type: "text", text: "from anthropic" }],
              stop_reason: "end_turn",
              usage: { input_tokens: 3, output_tokens: 2 }
            })
          )
        } else {
          res.end(
            JSON.stringify({
              candidates: [{ content: { role: "model", parts: [{ text: "from gemini" }] }, finishReason: "STOP" }],
              usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 }
            })
          )
        }
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-apis-"))
    const file = join(dir, "calls.json")
    const empty = join(dir, "empty.json")
    writeFileSync(empty, JSON.stringify({ routes: [] }))
    const recording = await serve([
      "--quiet",
      "--fixture",
      empty,
      "--record",
      file,
      "--upstream",
      `api.openai.com=${origin}`,
      "--upstream",
      `api.anthropic.com=${origin}`,
      "--upstream",
      `generativelanguage.googleapis.com=${origin}`
    ])
    const { default: OpenAI } = await import("openai")
    const { default: Anthropic } = await import("@anthropic-ai/sdk")
    const { GoogleGenAI } = await import("@google/genai")
    const responses = await new OpenAI({
      apiKey: "sk-test",
      baseURL: `${recording.base}/api.openai.com/v1`,
      maxRetries: 0
    }).responses.create({ model: "gpt-4o", input: "ask responses" })
    expect(responses.output_text).toBe("from responses")
    const message = await new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: `${recording.base}/api.anthropic.com`,
      maxRetries: 0
    }).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 10,
      messages: [{ role: "user", content: "ask anthropic" }]
    })
    expect(message.content[0]).toMatchObject({ text: "from anthropic" })
    const gemini = await new GoogleGenAI({
      apiKey: "g-test",
      httpOptions: { baseUrl: `${recording.base}/generativelanguage.googleapis.com` }
    }).models.generateContent({ model: "gemini-2.5-flash", contents: "ask gemini" })
    expect(gemini.text).toBe("from gemini")
    recording.child.kill("SIGTERM")
    await once(recording.child, "exit")
    upstream.close()

    const fixture = JSON.parse(readFileSync(file, "utf8")) as {
      routes: Array<Record<string, unknown>>
      llm: { rules: Array<Record<string, any>> }
    }
    expect(fixture.routes).toEqual([{ family: "openai" }, { family: "anthropic" }, { family: "gemini" }])
    expect(fixture.llm.rules.map((r) => [r.match.lastUserMessage, r.behaviour.steps[0][0].content])).toEqual([
      ["ask responses", "from responses"],
      ["ask anthropic", "from anthropic"],
      ["ask gemini", "from gemini"]
    ])
    const replay = await serve(["--quiet", "--fixture", file])
    const chat = new OpenAI({ apiKey: "sk-test", baseURL: `${replay.base}/api.openai.com/v1`, maxRetries: 0 })
    for (const [prompt, text] of [
      ["ask responses", "from responses"],
      ["ask anthropic", "from anthropic"],
      ["ask gemini", "from gemini"]
    ]) {
      const answer = await chat.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: prompt }]
      })
      expect(answer.choices[0].message.content).toBe(text)
    }
  }, 60_000)
})

describe("a recorded model call is matched as the model routes read it", () => {
  it("an Anthropic message of two text blocks replays: its rule holds the last user message as the route reads it (blocks joined by a newline)", async () => {
    const upstream = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id: "msg_1",
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-6",
            content: [{ type: "text", text: "two blocks read" }],
            stop_reason: "end_turn",
            usage: { input_tokens: 3, output_tokens: 3 }
          })
        )
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const { SimulationNetwork } = await import("simnet")
    const { default: Anthropic } = await import("@anthropic-ai/sdk")
    const ask = (fetch: typeof globalThis.fetch) =>
      new Anthropic({ apiKey: "sk-ant-test", fetch, maxRetries: 0 }).messages.create({
        model: "claude-sonnet-4-6",
        max_tokens: 10,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "first block" },
              { type: "text", text: "second block" }
            ]
          }
        ]
      })
    const network = await SimulationNetwork.start({
      record: { upstream: { "api.anthropic.com": `http://127.0.0.1:${(upstream.address() as { port: number }).port}` } }
    })
    expect((await ask(network.fetch)).content[0]).toMatchObject({ text: "two blocks read" })
    const recording = network.recording()
    await network.close()
    upstream.close()
    expect(recording.llm?.rules.map((rule) => rule["match"])).toEqual([
      { lastUserMessage: "first block\nsecond block", toolResult: false }
    ])
    const replay = await SimulationNetwork.start({ llmRules: recording.llm?.rules })
    await replay.registerSpec(recording.routes)
    expect((await ask(replay.fetch)).content[0]).toMatchObject({ text: "two blocks read" })
  })
})

describe("recording an MCP server", () => {
  it("a session with an SDK-built server is recorded as an mcp route (tools with results per arguments, a resource, a prompt) and replayed to the SDK client", async () => {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js")
    const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js")
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    const { z } = await import("zod")
    const build = () => {
      const server = new McpServer({ name: "calc", version: "2.1.0" }, { instructions: "A calculator." })
      server.registerTool(
        "add",
        { description: "Adds", inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] })
      )
      server.registerTool(
        "account",
        { description: "Reads an account", inputSchema: { id: z.string(), api_key: z.string() } },
        async ({ id }) => ({ content: [{ type: "text", text: `account ${id}` }] })
      )
      server.registerResource("readme", "calc://readme", { mimeType: "text/plain" }, async () => ({
        contents: [{ uri: "calc://readme", mimeType: "text/plain", text: "How to add." }]
      }))
      server.registerPrompt(
        "explain",
        { description: "Explains a sum", argsSchema: { sum: z.string() } },
        ({ sum }) => ({ messages: [{ role: "user", content: { type: "text", text: `Explain ${sum}` } }] })
      )
      return server
    }
    const upstream = http.createServer(async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      await build().connect(transport)
      await transport.handleRequest(req, res)
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-mcp-"))
    const file = join(dir, "mcp.json")
    const empty = join(dir, "empty.json")
    writeFileSync(empty, JSON.stringify({ routes: [] }))

    const recording = await serve([
      "--quiet",
      "--fixture",
      empty,
      "--record",
      file,
      "--upstream",
      `mcp.calc.example=${origin}`
    ])
    const live = new Client({ name: "judge", version: "1" })
    await live.connect(new StreamableHTTPClientTransport(new URL(`${recording.base}/mcp.calc.example/mcp`)))
    expect((await live.callTool({ name: "add", arguments: { a: 1, b: 2 } })).content).toEqual([
      { type: "text", text: "3" }
    ])
    expect(
      (await live.callTool({ name: "account", arguments: { id: "a1", api_key: "sk-live-mcp-arg-31" } })).content
    ).toEqual([{ type: "text", text: "account a1" }])
    await live.listTools()
    await live.readResource({ uri: "calc://readme" })
    await live.getPrompt({ name: "explain", arguments: { sum: "1 + 2" } })
    await live.close()
    recording.child.kill("SIGTERM")
    await once(recording.child, "exit")
    upstream.close()

    const written = readFileSync(file, "utf8")
    // A credential-named argument is kept by name, its value not: "<redacted>" matches any value on replay.
    expect(written).not.toContain("sk-live-mcp-arg-31")
    const fixture = JSON.parse(written) as { routes: Array<Record<string, any>> }
    expect(fixture.routes).toHaveLength(1)
    expect(fixture.routes[0]).toMatchObject({
      match: "https://mcp.calc.example/mcp",
      respond: { kind: "mcp", server: { name: "calc", version: "2.1.0", instructions: "A calculator." } }
    })

    const replay = await serve(["--quiet", "--fixture", file])
    const client = new Client({ name: "judge", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${replay.base}/mcp.calc.example/mcp`)))
    expect(client.getServerVersion()).toMatchObject({ name: "calc", version: "2.1.0" })
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add", "account"])
    expect(
      (await client.callTool({ name: "account", arguments: { id: "a1", api_key: "sk-test-other" } })).content
    ).toEqual([{ type: "text", text: "account a1" }])
    expect(
      (await client.callTool({ name: "account", arguments: { id: "a2", api_key: "sk-test-other" } })).isError
    ).toBe(true)
    expect((await client.callTool({ name: "add", arguments: { b: 2, a: 1 } })).content).toEqual([
      { type: "text", text: "3" }
    ])
    expect((await client.callTool({ name: "add", arguments: { a: 5, b: 5 } })).isError).toBe(true)
    expect((await client.readResource({ uri: "calc://readme" })).contents).toEqual([
      { uri: "calc://readme", mimeType: "text/plain", text: "How to add." }
    ])
    expect((await client.getPrompt({ name: "explain", arguments: { sum: "1 + 2" } })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Explain 1 + 2" } }
    ])
    await client.close()
  }, 60_000)
})

describe("recording embeddings", () => {
  it("an embeddings call is recorded as a route for its input and replays the upstream's vector, beside the model family its chat call brought", async () => {
    const vector = Float32Array.from([0.6, -0.8, 0])
    const upstream = http.createServer((req, res) => {
      let raw = ""
      req.on("data", (d: Buffer) => (raw += d))
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        if (req.url === "/v1/embeddings") {
          const body = JSON.parse(raw) as { input: string; encoding_format?: string }
          const embedding =
            body.encoding_format === "base64" ? Buffer.from(vector.buffer).toString("base64") : Array.from(vector)
          res.end(
            JSON.stringify({
              object: "list",
              model: "text-embedding-3-small",
              data: [{ object: "embedding", index: 0, embedding }],
              usage: { prompt_tokens: 2, total_tokens: 2 }
            })
          )
          return
        }
        res.end(
          JSON.stringify({
            id: "c0",
            object: "chat.completion",
            created: 0,
            model: "gpt-4o",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Recorded." } }],
            usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
          })
        )
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const { SimulationNetwork } = await import("simnet")
    const { default: OpenAI } = await import("openai")
    const network = await SimulationNetwork.start({
      record: { upstream: { "api.openai.com": `http://127.0.0.1:${port}` } }
    })
    const live = new OpenAI({ apiKey: "sk-live-embeddings", fetch: network.fetch, maxRetries: 0 })
    const recorded = await live.embeddings.create({ model: "text-embedding-3-small", input: "red shoes" })
    expect(recorded.data[0]!.embedding.map((x) => Math.round(x * 10) / 10)).toEqual([0.6, -0.8, 0])
    expect(
      (await live.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })).choices[0]!
        .message.content
    ).toBe("Recorded.")
    const recording = network.recording()
    await network.close()
    upstream.close()
    expect(JSON.stringify(recording)).not.toContain("sk-live")
    expect(recording.routes).toContainEqual({ family: "openai" })
    expect(recording.routes).toContainEqual(
      expect.objectContaining({
        match: expect.objectContaining({
          method: "POST",
          url: "https://api.openai.com/v1/embeddings",
          json: expect.objectContaining({ input: "red shoes" })
        })
      })
    )

    // Replayed with the upstream gone: the recorded vector for the recorded input, simnet's own
    // seeded vectors for any other, and the chat call from its rule.
    const replay = await SimulationNetwork.start({ llmRules: recording.llm?.rules })
    await replay.registerSpec(recording.routes)
    const client = new OpenAI({ apiKey: "sk-test", fetch: replay.fetch, maxRetries: 0 })
    expect(
      (await client.embeddings.create({ model: "text-embedding-3-small", input: "red shoes" })).data[0]!.embedding
    ).toEqual(recorded.data[0]!.embedding)
    expect(
      (await client.embeddings.create({ model: "text-embedding-3-small", input: "blue hats" })).data[0]!.embedding
    ).toHaveLength(1536)
    expect(
      (await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }))
        .choices[0]!.message.content
    ).toBe("Recorded.")
    await replay.close()
  })
})

describe("recording loses nothing", () => {
  it("a --record file that cannot be merged into is refused before anything is recorded, in process and by simnet serve, and left as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-target-"))
    const garbage = join(dir, "not-a-fixture.json")
    writeFileSync(garbage, "{ this is not json")
    const { Effect } = await import("effect")
    const { SimulationNetwork } = await import("simnet")
    const refused = await Effect.runPromise(Effect.flip(SimulationNetwork.make({ record: { file: garbage } })))
    expect(refused).toMatchObject({ _tag: "InvalidNetworkOption", option: "record.file" })
    expect(String((refused as { detail: string }).detail)).toContain("cannot be read as JSON")
    const wrongRoutes = join(dir, "routes-object.json")
    writeFileSync(wrongRoutes, JSON.stringify({ routes: { a: 1 } }))
    expect(
      await Effect.runPromise(Effect.flip(SimulationNetwork.make({ record: { file: wrongRoutes } })))
    ).toMatchObject({ option: "record.file", detail: `${wrongRoutes}: routes is not an array` })

    const { spawnSync } = await import("node:child_process")
    const cli = spawnSync(process.execPath, ["bin/simnet.js", "serve", "--port", "0", "--record", garbage], {
      encoding: "utf8",
      timeout: 30_000
    })
    expect(cli.status).not.toBe(0)
    expect(cli.stderr).toContain(`cannot record into --record ${garbage}`)
    expect(readFileSync(garbage, "utf8")).toBe("{ this is not json")
  })

  it("a file spoiled while recording gets the recording beside it (FILE.PID.recording.json), not lost", async () => {
    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("from upstream")
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-spoiled-"))
    const file = join(dir, "recording.json")
    const { SimulationNetwork } = await import("simnet")
    const network = await SimulationNetwork.start({
      record: { file, upstream: { "svc.example.com": `http://127.0.0.1:${port}` } }
    })
    expect(await (await network.fetch("https://svc.example.com/x")).text()).toBe("from upstream")
    writeFileSync(file, "spoiled")
    await network.close()
    upstream.close()
    expect(readFileSync(file, "utf8")).toBe("spoiled")
    const aside = JSON.parse(readFileSync(`${file}.${process.pid}.recording.json`, "utf8")) as {
      routes: Array<{ respond: { body: string } }>
    }
    expect(aside.routes.map((r) => r.respond.body)).toEqual(["from upstream"])
  })

  it("an exchange nested too deep is kept within the bounds, and said: the rest is written, and the file loads, replays and is recorded into again", async () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 1
      for (let i = 0; i < depth; i++) value = { a: value }
      return value
    }
    const converse = (content: ReadonlyArray<unknown>) =>
      JSON.stringify({
        output: { message: { role: "assistant", content } },
        stopReason: content.some((c) => "toolUse" in (c as object)) ? "tool_use" : "end_turn",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
      })
    const upstream = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.writeHead(req.url!.startsWith("/items") ? 201 : 200, { "content-type": "application/json" })
        // A tool call whose input nests 505 deep: deeper than a model rule in a fixture may.
        if (req.url!.includes("/deep/"))
          res.end(converse([{ toolUse: { toolUseId: "t1", name: "lookup", input: nested(505) } }]))
        else if (req.url!.startsWith("/items")) res.end('{"stored":true}')
        else res.end(converse([{ text: "plain answer" }]))
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-deep-"))
    const file = join(dir, "recording.json")
    const { SimulationNetwork } = await import("simnet")
    const calls = [
      [
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/plain/converse",
        JSON.stringify({ messages: [{ role: "user", content: [{ text: "first" }] }] })
      ],
      [
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/deep/converse",
        JSON.stringify({ messages: [{ role: "user", content: [{ text: "deep" }] }] })
      ],
      // A request whose body nests 100 deep: deeper than a body matcher may (64).
      ["https://api.example.com/items", JSON.stringify({ kind: "item", tree: nested(100) })]
    ] as const
    const answers: Array<string> = []
    const recorder = await SimulationNetwork.start({
      record: { file, upstream: { "bedrock-runtime.us-east-1.amazonaws.com": origin, "api.example.com": origin } }
    })
    for (const [url, body] of calls)
      answers.push(
        await (
          await recorder.fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
        ).text()
      )
    const { warnings } = recorder.recording() as { warnings?: ReadonlyArray<string> }
    expect(warnings).toEqual([
      expect.stringMatching(
        /^POST https:\/\/bedrock-runtime\.us-east-1\.amazonaws\.com\/model\/deep\/converse: its answer nests deeper than a model rule in a fixture may \(\d+ levels\): it is kept as the HTTP answer it was$/
      ),
      expect.stringMatching(
        /^POST https:\/\/api\.example\.com\/items: its request body nests deeper than a body matcher may \(64 levels\): it is matched on what lies above$/
      )
    ])
    await recorder.close()
    upstream.close()
    // The file loads as a fixture and answers each call as the upstream did, the upstream gone.
    const replay = await SimulationNetwork.start({ fixture: file })
    const replayed: Array<string> = []
    for (const [url, body] of calls)
      replayed.push(
        await (
          await replay.fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
        ).text()
      )
    // The first as a model rule, answered in simnet's own rendering; the other two as they came.
    expect(JSON.parse(replayed[0]!).output).toEqual(JSON.parse(answers[0]!).output)
    expect(replayed.slice(1)).toEqual(answers.slice(1))
    await replay.close()
    // And a later session records into it again.
    const again = await SimulationNetwork.start({ record: { file } })
    await again.close()
  }, 60_000)

  it("a HAR whose request bodies nest 50 000 deep is imported (those routes match without a body matcher) and registers", async () => {
    const entry = (i: number, text: string) => ({
      startedDateTime: "2026-12-01T00:00:00Z",
      time: 0,
      cache: {},
      timings: { send: 0, wait: 0, receive: 0 },
      request: {
        method: "POST",
        url: `https://deep.example.com/x${i}`,
        httpVersion: "",
        headers: [],
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: 0,
        postData: { mimeType: "application/json", text }
      },
      response: {
        status: 200,
        statusText: "",
        httpVersion: "",
        headers: [],
        cookies: [],
        content: { size: 1, mimeType: "text/plain", text: `answer ${i}` },
        redirectURL: "",
        headersSize: -1,
        bodySize: 1
      }
    })
    const { Fixture, SimulationNetwork } = await import("simnet")
    const { routes } = await Fixture.fromHar({
      log: { entries: [entry(1, "[".repeat(50_000) + "]".repeat(50_000)), entry(2, '{"a":1}')] }
    })
    expect(routes.map((r) => (r["match"] as Record<string, unknown>)["json"])).toEqual([undefined, { a: 1 }])
    const network = await SimulationNetwork.start()
    await network.registerSpec(routes)
    expect(await (await network.fetch("https://deep.example.com/x1", { method: "POST", body: "[[]]" })).text()).toBe(
      "answer 1"
    )
    await network.close()
  })
})

describe("a recording's memory is bounded", () => {
  it("repeated identical exchanges are kept once; an answer too large to record is still answered, and counted", async () => {
    let n = 0
    const big = Buffer.alloc(33 * 1024 * 1024, 7)
    const upstream = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": req.url === "/big" ? "application/octet-stream" : "text/plain" })
      res.end(req.url === "/big" ? big : req.url === "/changing" ? `answer ${++n}` : "same")
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const { recorder } = await import("../src/network/record/record.ts")
    const { SimulationNetwork } = await import("simnet")
    const kept = recorder({ upstream: { "svc.example.com": `http://127.0.0.1:${port}` } })
    const network = await SimulationNetwork.start({ routes: [kept.route] })
    for (let i = 0; i < 50; i++) expect(await (await network.fetch("https://svc.example.com/same")).text()).toBe("same")
    expect(kept.recorded()).toHaveLength(1)
    for (let i = 0; i < 3; i++) await (await network.fetch("https://svc.example.com/changing")).text()
    expect(kept.recorded()).toHaveLength(4)
    expect((await (await network.fetch("https://svc.example.com/big")).arrayBuffer()).byteLength).toBe(big.length)
    expect(kept.recorded()).toHaveLength(4)
    expect(kept.overflow()).toBe(1)
    await network.close()
    upstream.close()
  })
})

describe("credentials in request bodies", () => {
  it("a JSON body's credential members are left out of the recorded matcher (which still matches), and a HAR export with them redacted imports to routes that match", async () => {
    const upstream = http.createServer((req, res) => {
      let raw = ""
      req.on("data", (d: Buffer) => (raw += d))
      req.on("end", () => {
        const body = JSON.parse(raw) as { user: string }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ welcome: body.user }))
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const { Fixture, SimulationNetwork } = await import("simnet")
    const login = (user: string) => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        user,
        password: "hunter2-secret",
        auth: { api_key: "sk-live-body-777" },
        items: [{ token: "tok-in-array-9", n: 1 }]
      })
    })
    const network = await SimulationNetwork.start({
      keepBodies: true,
      record: { upstream: { "auth.example.com": `http://127.0.0.1:${port}` } }
    })
    expect(await (await network.fetch("https://auth.example.com/login", login("ada"))).json()).toEqual({
      welcome: "ada"
    })
    expect(await (await network.fetch("https://auth.example.com/login", login("bob"))).json()).toEqual({
      welcome: "bob"
    })
    const recording = network.recording()
    const har = network.har()
    await network.close()
    upstream.close()
    for (const text of [JSON.stringify(recording), JSON.stringify(har)]) {
      for (const secret of ["hunter2-secret", "sk-live-body-777", "tok-in-array-9"]) expect(text).not.toContain(secret)
    }
    // `auth` is a credential name too: the whole member goes.
    expect((recording.routes[0] as { match: { json: unknown } }).match.json).toEqual({ user: "ada", items: [{ n: 1 }] })

    for (const routes of [recording.routes, (await Fixture.fromHar(har)).routes]) {
      const replay = await SimulationNetwork.start()
      await replay.registerSpec(routes)
      expect(await (await replay.fetch("https://auth.example.com/login", login("bob"))).json()).toEqual({
        welcome: "bob"
      })
      expect(await (await replay.fetch("https://auth.example.com/login", login("ada"))).json()).toEqual({
        welcome: "ada"
      })
      await replay.close()
    }
  })
})

describe("record in one flag", () => {
  it("--record F alone replays what F holds and records what it lacks; with the upstream down nothing is lost and no empty file is made", async () => {
    let hits = 0
    const upstream = http.createServer((req, res) => {
      hits++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ path: req.url, n: hits }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-one-flag-"))
    const file = join(dir, "cassette.json")
    const first = await serve(["--record", file, "--upstream", `api.example.com=http://127.0.0.1:${port}`, "--quiet"])
    expect(await (await fetch(`${first.base}/api.example.com/a`)).json()).toEqual({ path: "/a", n: 1 })
    first.child.kill("SIGTERM")
    await once(first.child, "exit")
    upstream.close()
    await once(upstream, "close")

    // The upstream is gone: what the cassette holds is replayed, what it lacks is refused by name.
    const second = await serve(["--record", file, "--upstream", `api.example.com=http://127.0.0.1:${port}`, "--quiet"])
    expect(await (await fetch(`${second.base}/api.example.com/a`)).json()).toEqual({ path: "/a", n: 1 })
    const lacking = await fetch(`${second.base}/api.example.com/b`)
    expect(lacking.status).toBe(502)
    const refusal = (await lacking.json()) as { error: { tag: string; message: string; reason: string } }
    expect(refusal.error.tag).toBe("RouteFailed")
    expect(refusal.error.reason).toBe("upstream")
    // The upstream that is down is named.
    expect(refusal.error.message).toContain(`record GET http://127.0.0.1:${port}/b failed`)
    expect(refusal.error.message).toMatch(/ECONNREFUSED/)
    second.child.kill("SIGTERM")
    await once(second.child, "exit")
    expect(hits).toBe(1)
    const kept = JSON.parse(readFileSync(file, "utf8")) as { routes: Array<{ match: { url: string } }> }
    expect(kept.routes.map((route) => route.match.url)).toEqual(["https://api.example.com/a"])

    // Nothing forwarded, no file before: none is made, and the summary says so.
    const never = join(dir, "never.json")
    const third = await serve(["--record", never, "--upstream", `api.example.com=http://127.0.0.1:${port}`])
    expect((await fetch(`${third.base}/api.example.com/c`)).status).toBe(502)
    third.child.kill("SIGTERM")
    await once(third.child, "exit")
    expect(existsSync(never)).toBe(false)
    expect(third.output()).toContain(`recorded nothing (no request was forwarded); ${never} was not written`)
  }, 60_000)

  it("--record-mode all records everything afresh and replaces F; none replays F and forwards nothing; a new F starts empty, so model calls are recorded, not answered by simnet's own fixture", async () => {
    let hits = 0
    const upstream = http.createServer((req, res) => {
      hits++
      res.writeHead(200, { "content-type": "application/json" })
      if (req.url === "/v1/chat/completions") {
        res.end(
          JSON.stringify({
            id: "c1",
            object: "chat.completion",
            created: 0,
            model: "gpt-4o",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "From upstream." } }],
            usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 }
          })
        )
        return
      }
      res.end(JSON.stringify({ path: req.url, n: hits }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const file = join(mkdtempSync(join(tmpdir(), "simnet-record-modes-")), "cassette.json")
    const routesOf = () =>
      JSON.parse(readFileSync(file, "utf8")) as {
        routes: Array<Record<string, any>>
        llm?: { rules: Array<Record<string, any>> }
      }
    const run = async (mode: string, paths: ReadonlyArray<string>) => {
      const server = await serve([
        "--record",
        file,
        "--record-mode",
        mode,
        "--upstream",
        `api.example.com=http://127.0.0.1:${port}`,
        "--upstream",
        `api.openai.com=http://127.0.0.1:${port}`,
        "--quiet"
      ])
      const answers = []
      for (const p of paths) {
        const answer = await fetch(`${server.base}/api.example.com${p}`)
        answers.push(answer.status === 200 ? await answer.json() : answer.status)
      }
      return {
        server,
        answers,
        stop: async () => {
          server.child.kill("SIGTERM")
          await once(server.child, "exit")
        }
      }
    }

    // new (the default), on no file: a model call is forwarded and recorded, not answered by simnet's openai family.
    const first = await run("new", ["/a"])
    const { default: OpenAI } = await import("openai")
    const client = new OpenAI({
      apiKey: "sk-live-modes",
      baseURL: `${first.server.base}/api.openai.com/v1`,
      maxRetries: 0
    })
    expect(
      (await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }))
        .choices[0]!.message.content
    ).toBe("From upstream.")
    await first.stop()
    expect(first.answers).toEqual([{ path: "/a", n: 1 }])
    expect(routesOf().routes).toContainEqual({ family: "openai" })
    expect(routesOf().llm?.rules).toMatchObject([{ match: { lastUserMessage: "hello" } }])

    // all: nothing replayed (the upstream answers /a again), and F holds only this session.
    const second = await run("all", ["/a", "/b"])
    await second.stop()
    expect(second.answers).toEqual([
      { path: "/a", n: 3 },
      { path: "/b", n: 4 }
    ])
    expect(
      routesOf().routes.map((route) => [route["match"]?.url, JSON.parse(route["respond"]?.body ?? "null")?.n])
    ).toEqual([
      ["https://api.example.com/a", 3],
      ["https://api.example.com/b", 4]
    ])
    expect(routesOf().llm).toBeUndefined()

    // none: F replayed, and what it lacks refused, never forwarded; F untouched.
    const before = readFileSync(file, "utf8")
    const third = await run("none", ["/a", "/c"])
    await third.stop()
    expect(third.answers).toEqual([{ path: "/a", n: 3 }, 502])
    expect(hits).toBe(4)
    expect(readFileSync(file, "utf8")).toBe(before)
    upstream.close()
  }, 60_000)
})

describe("credentials in upstream answers", () => {
  it("a token in a JSON answer is redacted in what is written, by meaning (max_tokens stays); the client got the real one", async () => {
    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ access_token: "sk-live-123", refresh_token: "rt-456", user: "ann", max_tokens: 4096 }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const file = join(mkdtempSync(join(tmpdir(), "simnet-record-secrets-")), "login.json")
    const { SimulationNetwork } = await import("simnet")
    const network = await SimulationNetwork.start({
      record: { file, upstream: { "auth.example.com": `http://127.0.0.1:${port}` } }
    })
    expect(await (await network.fetch("https://auth.example.com/login", { method: "POST" })).json()).toMatchObject({
      access_token: "sk-live-123"
    })
    await network.close()
    upstream.close()
    const written = readFileSync(file, "utf8")
    expect(written).not.toContain("sk-live-123")
    expect(written).not.toContain("rt-456")
    const replay = await SimulationNetwork.start({ fixture: file })
    expect(await (await replay.fetch("https://auth.example.com/login", { method: "POST" })).json()).toEqual({
      access_token: "<redacted>",
      refresh_token: "<redacted>",
      user: "ann",
      max_tokens: 4096
    })
  })
})
