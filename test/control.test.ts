import { once } from "node:events"
import * as net from "node:net"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { opens, rpc as driver, serve, stopAll } from "./support/serve.ts"

afterEach(stopAll)

const chat = (base: string) => new OpenAI({ apiKey: "sk-test", baseURL: `${base}/api.openai.com/v1`, maxRetries: 0 })

describe("control endpoint over HTTP", () => {
  it("POST mcp/:id changes a simulated MCP server while a client is connected: its subscribed resource is updated, a bad change is refused and changes nothing", async () => {
    const { base, post } = await serve(["--fixture", "fixtures/mcp-everything.json", "--quiet"])
    const client = new Client({ name: "c", version: "1" }, { capabilities: {} })
    const updated: Array<string> = []
    const { ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js")
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri))
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp.everything.example/mcp`)))
    await client.subscribeResource({ uri: "test://watched-resource" })
    const resources = (await client.listResources()).resources.map(({ uri, name, mimeType, description }) => ({
      uri,
      name,
      mimeType,
      description,
      text: "x"
    }))
    const bad = await post("mcp/everything", { resources: [{ uri: "test://watched-resource" }] })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { path: string } }).error.path).toBe("resources[0].name")
    // Each change differs from the last, so one made once the client's GET stream is open is told.
    let attempt = 0
    await expect
      .poll(
        async () => {
          attempt++
          const changed = resources.map((r) =>
            r.uri === "test://watched-resource" ? { ...r, text: `changed ${attempt}` } : { ...r, text: "same" }
          )
          const ok = await post("mcp/everything", { resources: changed })
          expect(ok.status).toBe(200)
          return updated.length > 0
        },
        { timeout: 5_000 }
      )
      .toBe(true)
    expect(updated[0]).toBe("test://watched-resource")
    expect((await client.readResource({ uri: "test://watched-resource" })).contents[0]).toMatchObject({
      text: `changed ${attempt}`
    })
    expect((await post("mcp/nope", { resources: [] })).status).toBe(400)
    await client.close()
  })

  it("queues a second model answer, registers all or nothing, lists, removes, logs, and refuses bad bodies", async () => {
    const { base, control, post } = await serve()
    const openai = chat(base)
    await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "first" }] })
    const queued = await post("llm/enqueue", { steps: [[{ type: "text", content: "second answer" }]] })
    expect(queued.status).toBe(201)
    const second = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "again" }]
    })
    expect(second.choices[0].message.content).toBe("second answer")

    const before = (await (await fetch(`${control}/network/routes`)).json()) as { routes: Array<{ id: string }> }
    const bad = await post("network/register", [
      { id: "ok", match: "GET https://a.example/ok", respond: { kind: "text", body: "ok" } },
      { id: "bad", match: "GET https://a.example/bad", respond: { kind: "nope" } }
    ])
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: { tag: string; path: string } }).error).toMatchObject({
      tag: "InvalidRouteSpec",
      path: "[1].respond.kind"
    })
    const after = (await (await fetch(`${control}/network/routes`)).json()) as { routes: Array<{ id: string }> }
    expect(after.routes.length).toBe(before.routes.length)

    const made = await post("network/register", {
      id: "ok",
      match: "GET https://a.example/ok",
      respond: { kind: "text", body: "ok" }
    })
    expect(made.status).toBe(201)
    expect(await made.json()).toEqual({ ids: ["ok"] })
    expect(await (await fetch(`${base}/a.example/ok`)).text()).toBe("ok")
    const routes = (await (await fetch(`${control}/network/routes`)).json()) as {
      routes: Array<{ id: string; source: string }>
    }
    expect(routes.routes.find((r) => r.id === "ok")?.source).toBe("control")
    const log = (await (await fetch(`${control}/network/log?since=2`)).json()) as {
      records: Array<{ seq: number; url: string }>
    }
    expect(log.records.every((r) => r.seq > 2)).toBe(true)
    expect(log.records.at(-1)?.url).toBe("https://a.example/ok")
    expect((await fetch(`${control}/network/routes/ok`, { method: "DELETE" })).status).toBe(200)
    expect((await fetch(`${control}/network/routes/ok`, { method: "DELETE" })).status).toBe(404)
    expect((await fetch(`${control}/network/log?since=x`)).status).toBe(400)

    expect(
      (await fetch(`${control}/llm/enqueue`, { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }))
        .status
    ).toBe(415)
    expect(
      (
        await fetch(`${control}/llm/enqueue`, {
          method: "POST",
          body: "{not json",
          headers: { "content-type": "application/json" }
        })
      ).status
    ).toBe(400)
    const huge = JSON.stringify({ steps: [[{ type: "text", content: "x".repeat(1024 * 1024 + 10) }]] })
    expect(
      (
        await fetch(`${control}/llm/enqueue`, {
          method: "POST",
          body: huge,
          headers: { "content-type": "application/json" }
        })
      ).status
    ).toBe(413)
    expect(await (await fetch(`${control}/llm/pending`)).json()).toEqual({ pending: [] })
    expect((await fetch(`${control}/reset`, { method: "POST" })).status).toBe(200)
  })

  it("with SIMNET_TOKEN every control call needs the bearer token", async () => {
    const { control } = await serve([], { SIMNET_TOKEN: "s3cret" })
    expect((await fetch(`${control}/network/routes`)).status).toBe(401)
    expect((await fetch(`${control}/network/routes`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
    expect((await fetch(`${control}/network/routes`, { headers: { authorization: "Bearer s3cret" } })).status).toBe(200)
    expect((await fetch(`${control}/network/routes?token=s3cret`)).status).toBe(401)

    // The driver socket takes the token in the Authorization header or, for browsers, in ?token=.
    const ws = control.replace("http", "ws")
    expect(await opens(`${ws}/drive`)).toBe(false)
    expect(await opens(`${ws}/drive?token=wrong`)).toBe(false)
    expect(await opens(`${ws}/drive?token=s3cret`)).toBe(true)
    expect(await opens(`${ws}/drive`, { authorization: "Bearer s3cret" })).toBe(true)
    const d = await driver(`${ws}/drive?token=s3cret`)
    expect((await d.call("llm.pending")).result).toEqual([])
    d.ws.close()
  })
})

describe("MCP through simnet serve", () => {
  it("the default fixture's MCP server answers the MCP SDK's client: tools (static and generated), a resource, a prompt", async () => {
    const { base, control } = await serve(["--quiet"])
    const client = new Client({ name: "control-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp.example.com/mcp`)))
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "docs", version: "1.0.0" })
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search", "get_page"])
      const searched = await client.callTool({ name: "search", arguments: { query: "install" } })
      expect(searched.content).toEqual([{ type: "text", text: "3 pages match (simulated)" }])
      const page = await client.callTool({ name: "get_page", arguments: { slug: "intro" } })
      expect(page.structuredContent).toMatchObject({
        slug: expect.any(String),
        title: expect.any(String),
        words: expect.any(Number)
      })
      const readme = await client.readResource({ uri: "docs://readme" })
      expect(readme.contents[0]).toMatchObject({ uri: "docs://readme", text: "# Docs\nServed by simnet.\n" })
      const prompt = await client.getPrompt({ name: "summarize", arguments: { slug: "intro" } })
      expect(prompt.messages[0].content).toMatchObject({ type: "text", text: "Summarize the page intro" })
    } finally {
      await client.close()
    }
    const log = (await (await fetch(`${control}/network/log?since=0`)).json()) as {
      records: Array<{ url: string; route?: { id: string } }>
    }
    expect(log.records.some((r) => r.route?.id === "docs-mcp")).toBe(true)
  })
})

describe("driver socket", () => {
  it("streams word by word to the openai SDK, which sees partial output before llm.finish; garbage gets JSON-RPC errors and the socket stays up", async () => {
    const { base, control } = await serve(["--quiet"])
    const d = await driver(`${control.replace("http", "ws")}/drive`)
    d.send("{not json")
    expect((await d.take((m) => m.error?.code === -32700)).id).toBeNull()
    expect((await d.call("llm.nope")).error.code).toBe(-32601)
    d.send(JSON.stringify({ jsonrpc: "1.0", id: 7, method: "llm.pending" }))
    expect((await d.take((m) => m.id === 7)).error.code).toBe(-32600)
    // Only the attached driver commands invocations (issue 18): before its attach, -32002.
    expect((await d.call("llm.finish", { id: "inv_99" })).error).toMatchObject({ code: -32002 })
    expect((await d.call("llm.attach")).result).toMatchObject({ attached: true })
    expect((await d.call("llm.chunk", { id: "inv_99", items: [{ type: "bogus" }] })).error).toMatchObject({
      code: -32602,
      data: { path: "items[0]" }
    })
    expect((await d.call("llm.finish", { id: "inv_99" })).error).toMatchObject({ code: -32001, data: { id: "inv_99" } })

    const openai = chat(base)
    await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "uses the fixture script" }]
    })
    // The response opens at the driver's first command, so the SDK's promise settles after it.
    const opened = openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "drive me" }],
      stream: true
    })
    const notice = await d.take((m) => m.method === "llm.request")
    expect(notice.params.body.messages[0].content).toBe("drive me")
    const id = notice.params.id as string
    const words = ["one ", "two ", "three"]
    const seen: Array<string> = []
    let iterator: AsyncIterator<OpenAI.Chat.Completions.ChatCompletionChunk> | undefined
    for (const word of words) {
      expect((await d.call("llm.chunk", { id, items: [{ type: "textDelta", text: word }] })).result).toBe(true)
      iterator ??= (await opened)[Symbol.asyncIterator]()
      for (;;) {
        const next = await iterator.next()
        const text = next.value?.choices[0]?.delta.content
        if (text) {
          seen.push(text)
          break
        }
      }
    }
    expect(seen).toEqual(words)
    await d.call("llm.finish", { id })
    for (let next = await iterator!.next(); !next.done; next = await iterator!.next())
      expect(next.value.choices[0]?.finish_reason ?? "stop").toBe("stop")
    const log = await d.call("network.log", { since: 0 })
    expect(log.result.length).toBeGreaterThan(0)
    d.ws.close()
  })

  it("a late attach picks up a pending call (--drive); a second attach takes over and the first is told; a closed socket releases its calls", async () => {
    const { base, control } = await serve(["--drive", "--quiet", "--fixture", "test/fixtures/openai-only.json"])
    const openai = chat(base)
    const answer = openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "waiting" }] })
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${control}/llm/pending`)).json()) as { pending: Array<unknown> }).pending.length,
        { timeout: 5_000 }
      )
      .toBe(1)
    const first = await driver(`${control.replace("http", "ws")}/drive`)
    await first.call("llm.attach")
    expect((await first.take((m) => m.method === "llm.request")).params.id).toBe("inv_1")
    const second = await driver(`${control.replace("http", "ws")}/drive`)
    await second.call("llm.attach")
    expect((await second.take((m) => m.method === "llm.request")).params.id).toBe("inv_1")
    await first.take((m) => m.method === "llm.replaced")
    await second.call("llm.chunk", { id: "inv_1", items: [{ type: "textDelta", text: "taken over" }] })
    await second.call("llm.finish", { id: "inv_1" })
    expect((await answer).choices[0].message.content).toBe("taken over")

    const orphan = openai.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "orphan" }] })
      .catch((e: unknown) => e)
    await second.take((m) => m.method === "llm.request")
    second.ws.close()
    expect(await orphan).toBeInstanceOf(OpenAI.APIError)
    first.ws.close()
  })
})

/** The model's `created` is the wall-clock second of the answer: the one field two runs may not share. */
const sameSecond = (body: string) => body.replace(/"created":\d+/g, '"created":0')

/** A JSON-RPC post to the default fixture's MCP server behind `base`: its status, session header and body. */
const mcpPost = async (base: string, message: Record<string, unknown>, session?: string) => {
  const response = await fetch(`${base}/mcp.example.com/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" })
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, ...message })
  })
  return { status: response.status, session: response.headers.get("mcp-session-id"), body: await response.text() }
}

describe("snapshots and traces", () => {
  it("a snapshot restored in a fresh process answers the same requests with byte-identical bodies and brings back the logs", async () => {
    const a = await serve(["--quiet", "--seed", "7"])
    await a.post("network/register", {
      id: "gen",
      match: "GET https://gen.example/thing",
      respond: {
        kind: "jsonSchema",
        schema: {
          jsonSchema: {
            type: "object",
            properties: { n: { type: "integer" }, s: { type: "string" } },
            required: ["n", "s"]
          }
        }
      }
    })
    await a.post("llm/enqueue", [
      { steps: [[{ type: "text", content: "queued one" }]] },
      { steps: [[{ type: "text", content: "queued two" }]] }
    ])
    await fetch(`${a.base}/gen.example/thing`).then((r) => r.text())
    // The default fixture's MCP server, through the official client: `get_page` is generated from its output schema.
    const client = new Client({ name: "control-test", version: "1.0.0" })
    const transport = new StreamableHTTPClientTransport(new URL(`${a.base}/mcp.example.com/mcp`))
    await client.connect(transport)
    const session = transport.sessionId!
    for (let i = 0; i < 2; i++) await client.callTool({ name: "get_page", arguments: { slug: "intro" } })
    const snapshot = (await (await fetch(`${a.control}/snapshot`)).json()) as {
      unserializable: Array<unknown>
      seed: number
      log: Array<unknown>
      llmCounts: unknown
      mcp: Array<{ id: string }>
    }
    expect(snapshot.seed).toBe(7)
    expect(snapshot.unserializable).toEqual([])
    expect(snapshot.mcp.map((server) => server.id)).toEqual(["docs-mcp"])
    const sameRequests = async (base: string) => [
      await (await fetch(`${base}/gen.example/thing`)).text(),
      await (await fetch(`${base}/gen.example/thing`)).text(),
      sameSecond(
        await (
          await fetch(`${base}/api.openai.com/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "q" }] })
          })
        ).text()
      ),
      // The session opened before the snapshot, and the third call of a generated tool.
      (
        await mcpPost(
          base,
          { method: "tools/call", params: { name: "get_page", arguments: { slug: "intro" } } },
          session
        )
      ).body,
      (
        await mcpPost(base, {
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
        })
      ).session
    ]
    const b = await serve(["--quiet"])
    expect((await b.post("snapshot", snapshot)).status).toBe(200)
    const restored = (await (await fetch(`${b.control}/snapshot`)).json()) as typeof snapshot
    expect(restored.log).toEqual(snapshot.log)
    expect(restored.llmCounts).toEqual(snapshot.llmCounts)
    const expected = await sameRequests(a.base)
    expect(expected[2]).toContain("Hello from simnet. This answer came from the default fixture's script queue.")
    expect(JSON.parse(expected[3]!).result.structuredContent).toMatchObject({
      slug: expect.any(String),
      words: expect.any(Number)
    })
    expect(expected[4]).not.toBe(session)
    await client.close()
    expect(await sameRequests(b.base)).toEqual(expected)
    const refused = await b.post("snapshot", { seed: "x", routes: [] })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { path: string } }).error.path).toBe("seed")
  }, 60_000)

  it("a trace carries every request with its route, outcome, headers and body (credentials redacted); replayed in a fresh process it gets byte-identical bodies", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-trace-"))
    const traceFile = join(dir, "trace.jsonl")
    const a = await serve(["--quiet", "--seed", "7", "--trace", traceFile])
    const answers: Array<string> = []
    const send = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${a.base}/${path}`, init)
      answers.push(`${response.status} ${sameSecond(await response.text())}`)
    }
    await send("gen.example/thing")
    await a.post("network/register", [
      {
        id: "gen",
        match: "GET https://gen.example/thing",
        respond: {
          kind: "jsonSchema",
          schema: {
            jsonSchema: {
              type: "object",
              properties: { n: { type: "integer" }, s: { type: "string" } },
              required: ["n", "s"]
            }
          }
        }
      },
      {
        id: "search",
        match: "POST https://gen.example/search",
        respond: { kind: "jsonSchema", schema: { jsonSchema: { type: "array", items: { type: "string" } } } }
      },
      { id: "login", match: "POST https://gen.example/login", respond: { kind: "text", body: "welcome" } }
    ])
    await send("gen.example/thing")
    await send("gen.example/thing")
    await send("gen.example/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ q: "shoes", page: 2 })
    })
    await send("gen.example/login?api_key=k-123", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer s3cret" },
      body: JSON.stringify({ user: "ada", password: "hunter2" })
    })
    await a.post("llm/enqueue", { steps: [[{ type: "text", content: "queued over HTTP" }]] })
    const chatBody = JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "q" }] })
    await send("api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
      body: chatBody
    })
    await send("api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
      body: chatBody
    })
    await fetch(`${a.control}/network/routes/search`, { method: "DELETE" })
    await send("gen.example/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ q: "shoes", page: 2 })
    })
    a.child.kill("SIGTERM")
    await once(a.child, "exit")

    const text = readFileSync(traceFile, "utf8")
    for (const secret of ["s3cret", "hunter2", "k-123", "sk-test"]) expect(text).not.toContain(secret)
    const { replayOver, replayTrace } = await import("simnet")
    const replay = replayTrace(text)
    expect(replay.requests.map((r) => [r.method, r.url, r.route, r.outcome, r.status])).toEqual([
      ["GET", "https://gen.example/thing", undefined, "UnregisteredRequest", 502],
      ["GET", "https://gen.example/thing", "gen", "answered", 200],
      ["GET", "https://gen.example/thing", "gen", "answered", 200],
      ["POST", "https://gen.example/search", "search", "answered", 200],
      ["POST", "https://gen.example/login?api_key=<redacted>", "login", "answered", 200],
      ["POST", "https://api.openai.com/v1/chat/completions", "openai.chat", "answered", 200],
      ["POST", "https://api.openai.com/v1/chat/completions", "openai.chat", "answered", 200],
      ["POST", "https://gen.example/search", undefined, "UnregisteredRequest", 502]
    ])
    expect(replay.requests[3].body).toEqual({ text: JSON.stringify({ q: "shoes", page: 2 }) })
    expect(replay.requests[4].body).toEqual({ text: JSON.stringify({ user: "ada", password: "<redacted>" }) })
    expect(replay.requests[4].headers?.["authorization"]).toBe("<redacted>")

    const c = await serve(["--quiet"])
    const replayed = await replayOver(replay, c.base)
    expect(replayed.map((r) => `${r.status} ${sameSecond(r.body)}`)).toEqual(answers)
  }, 60_000)
})

describe("the log tells what the client saw", () => {
  it("a fault route's requests are traced, logged and counted as the fault, not as answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-trace-"))
    const traceFile = join(dir, "trace.jsonl")
    const a = await serve(["--quiet", "--trace", traceFile])
    await a.post("network/register", [
      { id: "reset", match: "GET https://faults.example/reset", respond: { kind: "fault", fault: "reset" } },
      { id: "cut", match: "GET https://faults.example/cut", respond: { kind: "fault", fault: "malformed-body" } }
    ])
    const reset = await fetch(`${a.base}/faults.example/reset`)
      .then((r) => r.text())
      .then(
        () => "read",
        (e: unknown) => String(e)
      )
    expect(reset).not.toBe("read")
    expect(await (await fetch(`${a.base}/faults.example/cut`)).text()).not.toMatch(/}$/)
    const log = (await (await fetch(`${a.control}/network/log?since=0`)).json()) as {
      records: Array<{ route?: { id: string }; fault?: string }>
    }
    expect(log.records.map((record) => [record.route?.id, record.fault])).toEqual([
      ["reset", "reset"],
      ["cut", "malformed"]
    ])
    a.child.kill("SIGTERM")
    await once(a.child, "exit")
    const lines = readFileSync(traceFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; route?: string; outcome?: string })
    expect(
      lines
        .filter((line) => line.type === "request" && line.route !== "control")
        .map((line) => [line.route, line.outcome])
    ).toEqual([
      ["reset", "reset"],
      ["cut", "malformed"]
    ])
  }, 60_000)
})

describe("a driven session in a trace", () => {
  it("records the driver's commands; replayed in a fresh process with no driver, each driven call gets the same answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-trace-"))
    const traceFile = join(dir, "trace.jsonl")
    const a = await serve(["--quiet", "--trace", traceFile])
    const d = await driver(`${a.control.replace("http", "ws")}/drive`)
    expect((await d.call("llm.attach")).result).toMatchObject({ attached: true })
    const openai = chat(a.base)
    // The default fixture's script answers the first call; the next two are driven.
    const first = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "scripted" }]
    })
    const drive = async (content: string, items: ReadonlyArray<unknown>, reason?: string) => {
      const answer = openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content }] })
      const notice = await d.take((m) => m.method === "llm.request")
      expect((await d.call("llm.chunk", { id: notice.params.id, items })).result).toBe(true)
      expect(
        (await d.call("llm.finish", reason === undefined ? { id: notice.params.id } : { id: notice.params.id, reason }))
          .result
      ).toBe(true)
      return (await answer).choices[0].message
    }
    const text = await drive("drive me", [
      { type: "textDelta", text: "Driven " },
      { type: "textDelta", text: "answer." }
    ])
    const tool = await drive(
      "call a tool",
      [{ type: "toolCall", name: "read", input: { path: "notes.txt" } }],
      "tool_calls"
    )
    a.child.kill("SIGTERM")
    await once(a.child, "exit")

    const { replayOver, replayTrace } = await import("simnet")
    const trace = readFileSync(traceFile, "utf8")
    expect(trace).toContain('"type":"control.drive"')
    const replay = replayTrace(trace)
    expect(replay.steps.map((step) => (step.kind === "control" ? step.path : "request"))).toEqual([
      "request",
      "llm/rules",
      "request",
      "llm/rules",
      "request"
    ])
    const c = await serve(["--quiet"])
    const replayed = await replayOver(replay, c.base)
    const messages = replayed.map(
      (answer) =>
        (
          JSON.parse(answer.body) as {
            choices: Array<{
              message: { content: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> }
            }>
          }
        ).choices[0].message
    )
    expect(messages.map((message) => message.content)).toEqual([
      first.choices[0].message.content,
      text.content,
      tool.content
    ])
    expect(messages[2].tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ["read", { path: "notes.txt" }]
    ])
    expect(replayed.every((answer) => answer.status === 200)).toBe(true)
  }, 60_000)
})

describe("load and faults", () => {
  it("1 000 concurrent requests while routes are registered and removed: every one answered or denied and logged", async () => {
    const { base, control, post } = await serve(["--quiet"])
    await post("network/register", {
      id: "static",
      match: "GET https://load.example/static",
      respond: { kind: "text", body: "ok" }
    })
    const churn = (async () => {
      for (let i = 0; i < 50; i++) {
        await post("network/register", {
          id: `tmp${i}`,
          match: `GET https://load.example/tmp/${i}`,
          respond: { kind: "text", body: "tmp" }
        })
        await fetch(`${control}/network/routes/tmp${i}`, { method: "DELETE" })
      }
    })()
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        fetch(`${base}/load.example/${i % 2 === 0 ? "static" : `tmp/${i % 50}`}`).then((r) =>
          r.arrayBuffer().then(() => r.status)
        )
      )
    )
    await churn
    expect(statuses.every((s) => s === 200 || s === 502)).toBe(true)
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(500)
    const log = (await (await fetch(`${control}/network/log?since=0`)).json()) as {
      records: Array<{ url: string; status?: number; denial?: string }>
    }
    const load = log.records.filter((r) => r.url.startsWith("https://load.example/"))
    expect(load.length).toBe(1000)
    expect(load.every((r) => r.status !== undefined || r.denial !== undefined)).toBe(true)
  }, 60_000)

  it("slow clients (headers and a body trickled byte by byte), garbage and oversized headers on raw sockets do not harm other clients", async () => {
    const { base, control } = await serve(["--quiet"])
    const port = Number(new URL(base).port)
    const connect = () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(socket))
        socket.on("error", reject)
      })
    const answerOf = (socket: net.Socket) =>
      new Promise<string>((resolve) => {
        let text = ""
        socket.setEncoding("latin1")
        socket.on("data", (d: string) => (text += d))
        socket.on("close", () => resolve(text))
        socket.on("error", () => undefined)
      })
    // Slowloris: headers that never end, and a declared body that arrives a byte at a time.
    const slow = await Promise.all(Array.from({ length: 40 }, () => connect()))
    slow.forEach((socket, i) => {
      socket.on("error", () => undefined)
      socket.write(
        i % 2 === 0
          ? "GET /api.example.com/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          : "POST /api.example.com/items/1 HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"
      )
    })
    const trickle = setInterval(
      () =>
        slow.forEach((socket, i) => {
          socket.write(i % 2 === 0 ? "x-slow: 1\r\n" : " ")
        }),
      50
    )
    try {
      // Garbage and a header block past Node's limit are refused, each on its own socket.
      const garbage = await connect()
      const garbageAnswer = answerOf(garbage)
      garbage.end(Buffer.from([0, 1, 2, 255, 13, 10, 13, 10]))
      expect(await garbageAnswer).toMatch(/^HTTP\/1\.1 400/)
      const huge = await connect()
      const hugeAnswer = answerOf(huge)
      huge.write(`GET /api.example.com/health HTTP/1.1\r\nHost: 127.0.0.1\r\nx-big: ${"a".repeat(64 * 1024)}\r\n\r\n`)
      expect(await hugeAnswer).toMatch(/^HTTP\/1\.1 431/)

      // Meanwhile every other client is served (the test's timeout bounds how long that may take).
      const statuses = await Promise.all(
        Array.from({ length: 100 }, () =>
          fetch(`${base}/api.example.com/health`).then((r) => r.arrayBuffer().then(() => r.status))
        )
      )
      expect(statuses.every((s) => s === 200)).toBe(true)
      expect((await fetch(`${control}/llm/pending`)).status).toBe(200)
    } finally {
      clearInterval(trickle)
      slow.forEach((socket) => {
        socket.destroy()
      })
    }
    // The slow clients never reached the network: no half-read request was dispatched.
    const log = (await (await fetch(`${control}/network/log?since=0`)).json()) as {
      records: Array<{ method: string; url: string }>
    }
    expect(log.records.filter((r) => r.method === "POST").length).toBe(0)
    expect((await fetch(`${base}/api.example.com/health`)).status).toBe(200)
  }, 60_000)

  it("a client that disconnects mid-SSE releases its invocation; SIGTERM exits 0", async () => {
    const { child, base, control } = await serve(["--quiet", "--drive", "--fixture", "test/fixtures/openai-only.json"])
    const d = await driver(`${control.replace("http", "ws")}/drive`)
    await d.call("llm.attach")
    const abort = new AbortController()
    const response = fetch(`${base}/api.openai.com/v1/chat/completions`, {
      method: "POST",
      signal: abort.signal,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x" }], stream: true })
    })
    const notice = await d.take((m) => m.method === "llm.request")
    await d.call("llm.chunk", { id: notice.params.id, items: [{ type: "textDelta", text: "partial" }] })
    const body = (await response).body!.getReader()
    await body.read()
    abort.abort()
    await expect
      .poll(
        async () => ((await (await fetch(`${control}/llm/pending`)).json()) as { pending: Array<unknown> }).pending,
        { timeout: 5_000 }
      )
      .toEqual([])
    expect((await d.call("llm.finish", { id: notice.params.id })).error.code).toBe(-32001)
    d.ws.close()
    child.kill("SIGTERM")
    const [code] = await once(child, "exit")
    expect(code).toBe(0)
  })
})
