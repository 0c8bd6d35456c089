import { once } from "node:events"
import * as http from "node:http"
import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { serve, serveToExit, stopAll } from "./support/serve.ts"

describe("simnet serve", () => {
  it("serves the default fixture over loopback, maps /HOST/PATH, reports unmatched requests, exits cleanly on SIGTERM", async () => {
    const { child, base, output } = await serve([])
    expect(output()).toMatch(/18 routes from \S*fixtures\/default\.json \(seed 0\)/)
    const item = await fetch(`${base}/api.example.com/items/42`)
    expect(item.status).toBe(200)
    expect(await item.json()).toEqual({ id: "sim-item", name: "Simulated item" })
    const removed = await fetch(`${base}/api.example.com/items/42`, { method: "DELETE" })
    expect(removed.status).toBe(204)
    const missing = await fetch(`${base}/api.example.com/nothing?x=1`, { method: "POST", body: "{}" })
    expect(missing.status).toBe(502)
    const body = (await missing.json()) as {
      error: { tag: string; url: string; method: string; candidates: Array<unknown> }
    }
    expect(body.error).toMatchObject({
      tag: "UnregisteredRequest",
      method: "POST",
      url: "https://api.example.com/nothing?x=1"
    })
    expect(body.error.candidates.length).toBeGreaterThan(0)
    // A refusal will not go away on a retry: the SDKs are told so.
    expect([missing.headers.get("x-should-retry"), missing.headers.get("retry-after-ms")]).toEqual(["false", "0"])
    const lost = new OpenAI({ apiKey: "sk-test", baseURL: `${base}/api.nowhere.example/v1` })
    const unrouted = await lost.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(unrouted).toBeInstanceOf(OpenAI.APIError)
    expect((unrouted as InstanceType<typeof OpenAI.APIError>).status).toBe(502)
    expect(String((unrouted as Error).message)).toContain(
      "no route for POST https://api.nowhere.example/v1/chat/completions"
    )
    const log = (await (await fetch(`${base}/experimental/simulation/network/log?since=0`)).json()) as {
      records: Array<{ url: string }>
    }
    expect(log.records.filter((record) => record.url.includes("api.nowhere.example")).length).toBe(1)
    const noHost = await fetch(`${base}/`)
    expect(noHost.status).toBe(400)

    const catalog = (await (await fetch(`${base}/models.dev/api.json`)).json()) as Record<string, { id: string }>
    expect(Object.values(catalog).length).toBeGreaterThan(0)
    for (const [key, provider] of Object.entries(catalog)) expect(provider.id).toBe(key)

    const client = new OpenAI({ apiKey: "sk-test", baseURL: `${base}/api.openai.com/v1`, maxRetries: 0 })
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      stream: true
    })
    let text = ""
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    expect(text).toBe("Hello from simnet. This answer came from the default fixture's script queue.")
    const refused = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "again" }] })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(OpenAI.UnprocessableEntityError)
    expect((refused as InstanceType<typeof OpenAI.UnprocessableEntityError>).code).toBe("NoScriptQueued")
    expect(String((refused as Error).message)).toContain("no LLM script queued")
    child.kill("SIGTERM")
    const [code] = await once(child, "exit")
    expect(code).toBe(0)
  })

  it("an OpenAPI operation that cannot be served: the banner names it and why, registering over control lists it, the rest is served", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const document = (odd: string) => ({
      openapi: "3.1.0",
      info: { title: "odd", version: "1" },
      paths: {
        [`/${odd}`]: {
          get: {
            operationId: odd,
            responses: {
              "200": {
                description: "x",
                content: { "application/json": { schema: { type: "string", pattern: "((" } } }
              }
            }
          }
        },
        "/fine": {
          get: {
            operationId: "fine",
            responses: { "200": { description: "y", content: { "application/json": { schema: { type: "string" } } } } }
          }
        }
      }
    })
    const file = join(mkdtempSync(join(tmpdir(), "simnet-")), "openapi.json")
    writeFileSync(
      file,
      JSON.stringify({ routes: [{ family: "openapi", document: document("odd"), baseUrl: "https://odd.example.com" }] })
    )
    const { base, output, post } = await serve(["--fixture", file])
    expect(output()).toMatch(
      /not served: +odd\.example\.com:odd: openapi#\/paths\/~1odd\/get\/responses\/200\/content\/application~1json\/schema\/pattern: /
    )
    expect((await fetch(`${base}/odd.example.com/odd`)).status).toBe(501)
    expect((await fetch(`${base}/odd.example.com/fine`)).status).toBe(200)
    const registered = await post("network/register", {
      family: "openapi",
      document: document("weird"),
      baseUrl: "https://weird.example.com"
    })
    expect(registered.status).toBe(201)
    expect(await registered.json()).toEqual({
      ids: ["weird.example.com:weird", "weird.example.com:fine"],
      refused: [{ id: "weird.example.com:weird", reason: expect.stringContaining("pattern") }]
    })
    stopAll()
  })

  it("--chaos RATE over the fixture's chaos options: every request hit as they say, the line per request and the trace say so", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const dir = mkdtempSync(join(tmpdir(), "simnet-"))
    const file = join(dir, "chaos.json")
    const trace = join(dir, "trace.jsonl")
    writeFileSync(
      file,
      JSON.stringify({
        chaos: { rate: 0, faults: [{ status: 503 }] },
        routes: [{ id: "hello", match: "GET https://api.example.com/hello", respond: { kind: "text", body: "hi" } }]
      })
    )
    const { base, output } = await serve(["--fixture", file, "--chaos", "1", "--trace", trace])
    expect((await fetch(`${base}/api.example.com/hello`)).status).toBe(503)
    await expect.poll(() => output()).toMatch(/GET https:\/\/api\.example\.com\/hello -> hello 503/)
    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines.find((l) => l.type === "request")).toMatchObject({ chaos: { effect: "status", status: 503 } })
    stopAll()
  })

  it("a broken fixture names the field and exits non-zero", async () => {
    const { writeFileSync, mkdtempSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const file = join(mkdtempSync(join(tmpdir(), "simnet-")), "bad.json")
    writeFileSync(
      file,
      JSON.stringify({
        routes: [
          { match: "GET https://a.example.com/", respond: { kind: "text", body: "x" } },
          { match: "GET https://a.example.com/b", respond: { kind: "nope" } }
        ]
      })
    )
    const { code, out } = await serveToExit(["--fixture", file])
    expect(code).not.toBe(0)
    expect(out).toContain("routes[1].respond.kind")
  })

  it("a missing fixture file is one line saying the file was not found", async () => {
    const { code, out } = await serveToExit(["--fixture", "missing.json"])
    expect(code).not.toBe(0)
    expect(out.trim()).toMatch(/^simnet: cannot read fixture \S*\/missing\.json: file not found$/)
  })

  it("a fixture that is not JSON names line and column", async () => {
    const { writeFileSync, mkdtempSync } = await import("node:fs")
    const { join } = await import("node:path")
    const { tmpdir } = await import("node:os")
    const file = join(mkdtempSync(join(tmpdir(), "simnet-")), "broken.json")
    writeFileSync(file, '{\n  "routes": [,]\n}\n')
    const { code, out } = await serveToExit(["--fixture", file])
    expect(code).not.toBe(0)
    expect(out).toContain(`simnet: fixture ${file} is not JSON at line 2, column 14`)
  })
})

describe("simnet serve answers Expect: 100-continue as Node's own server does", () => {
  /** A POST that asks `Expect: 100-continue` and sends its body only once told to, as Node's client does: what came back. */
  const expecting = (port: number, path: string, body: Buffer) =>
    new Promise<{ status: number; text: string; continued: boolean; closed: boolean }>((resolve, reject) => {
      let continued = false
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path,
          agent: false,
          headers: {
            "content-type": "application/json",
            "content-length": body.byteLength,
            connection: "keep-alive",
            expect: "100-continue"
          }
        },
        (response) => {
          let text = ""
          response.setEncoding("utf8")
          response.on("data", (chunk: string) => (text += chunk))
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              text,
              continued,
              closed: response.headers.connection === "close"
            })
          )
        }
      )
      request.on("continue", () => {
        continued = true
        request.end(body)
      })
      request.on("error", reject)
      request.flushHeaders()
    })

  it("100 Continue, then the route's answer, on the plain door and the control paths; a body declared over --body-limit gets its 413 at once, unsent; each is logged", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const dir = mkdtempSync(join(tmpdir(), "simnet-continue-"))
    writeFileSync(
      join(dir, "fixture.json"),
      JSON.stringify({
        routes: [
          {
            id: "upload",
            match: { method: "POST", url: "https://api.example.com/upload", json: { kind: "upload" } },
            respond: { kind: "text", body: "stored" }
          }
        ]
      })
    )
    try {
      const { port, output } = await serve(["--fixture", join(dir, "fixture.json"), "--body-limit", "3000000"])
      const taken = await expecting(
        port,
        "/api.example.com/upload",
        Buffer.from(JSON.stringify({ kind: "upload", pad: "x".repeat(2_000_000) }))
      )
      expect(taken).toEqual({ status: 200, text: "stored", continued: true, closed: false })
      const refused = await expecting(port, "/api.example.com/upload", Buffer.alloc(4_000_000, 32))
      expect(refused).toMatchObject({ status: 413, continued: false, closed: true })
      expect(JSON.parse(refused.text).error).toMatchObject({ tag: "PayloadTooLarge", limit: 3_000_000 })
      const control = await expecting(
        port,
        "/experimental/simulation/llm/enqueue",
        Buffer.from(JSON.stringify({ steps: [[{ type: "text", content: "hi" }]] }))
      )
      expect(control).toMatchObject({ status: 201, continued: true })
      await expect.poll(output, { timeout: 10_000 }).toMatch(/POST https:\/\/api\.example\.com\/upload -> upload 200/)
      expect(output()).toMatch(/POST https:\/\/api\.example\.com\/upload -> refused 413/)
    } finally {
      stopAll()
    }
  }, 60_000)
})

describe("simnet serve sends a stream's head at once", () => {
  it("an MCP GET event stream with no event yet gets its 200 text/event-stream, as the SDK's own transport sends it", async () => {
    const served = await serve(["--quiet"])
    try {
      const url = `${served.base}/mcp.example.com/mcp`
      const accept = "application/json, text/event-stream"
      const init = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      })
      const session = init.headers.get("mcp-session-id")!
      expect(session).toBeTruthy()
      await init.text()
      await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept,
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-06-18"
        },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
      })
      const abort = new AbortController()
      // No event is sent on this stream: only its head can resolve the fetch.
      const stream = await fetch(url, {
        headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
        signal: abort.signal
      })
      expect([stream.status, stream.headers.get("content-type")]).toEqual([200, "text/event-stream"])
      abort.abort()
    } finally {
      stopAll()
    }
  })
})
