import { Effect } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import { Route, Routes, SimulationNetwork } from "simnet"
import { describe, expect, it } from "vitest"

const URL_ = "https://mcp.example.com/mcp"
const ACCEPT = "application/json, text/event-stream"

const server = {
  name: "raw",
  version: "1.0.0",
  tools: [{ name: "echo", handler: (args: { text?: string }) => String(args.text) }]
}

const post = (network: { fetch: typeof fetch }, body: unknown, headers: Record<string, string> = {}) =>
  network.fetch(URL_, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

const open = async () => {
  const network = await SimulationNetwork.start({ routes: [Route.mcp(URL_, server, { id: "raw" })] })
  const response = await post(network, initialize)
  const session = response.headers.get("mcp-session-id")!
  return { network, session, headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } }
}

describe("MCP route: what clients never send", () => {
  it("refuses a bad Accept (406) and a non-JSON content type (415)", async () => {
    const { network, headers } = await open()
    const notAcceptable = await post(
      network,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { ...headers, accept: "application/json" }
    )
    expect(notAcceptable.status).toBe(406)
    expect((await notAcceptable.json()).error.message).toMatch(/Not Acceptable/)
    const unsupported = await post(
      network,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { ...headers, "content-type": "text/plain" }
    )
    expect(unsupported.status).toBe(415)
  })

  it("needs a session after initialize: 400 without, 404 for an unknown one", async () => {
    const { network, session } = await open()
    expect(session).toMatch(/^[0-9a-f-]{36}$/)
    const without = await post(network, { jsonrpc: "2.0", id: 2, method: "tools/list" })
    expect(without.status).toBe(400)
    expect(await without.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
      id: null
    })
    const unknown = await post(
      network,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": "00000000-0000-4000-a000-000000000000" }
    )
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error).toEqual({ code: -32001, message: "Session not found" })
  })

  it("checks MCP-Protocol-Version: every revision the SDK speaks, no other", async () => {
    const { network, headers } = await open()
    const older = await post(
      network,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { ...headers, "mcp-protocol-version": "2024-11-05" }
    )
    expect(await older.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} })
    const response = await post(
      network,
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { ...headers, "mcp-protocol-version": "1999-01-01" }
    )
    expect(response.status).toBe(400)
    expect((await response.json()).error.message).toMatch(/Unsupported protocol version: 1999-01-01/)
  })

  it("answers malformed JSON with -32700, a bad message with -32600 or -32700, an unknown method with -32601, bad params with -32602", async () => {
    const { network, headers } = await open()
    const malformed = await post(network, "{not json", headers)
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).error.code).toBe(-32700)
    const invalid = await post(network, { jsonrpc: "1.0", id: 2 }, headers)
    expect(invalid.status).toBe(400)
    expect([-32600, -32700]).toContain((await invalid.json()).error.code)
    const unknown = await (await post(network, { jsonrpc: "2.0", id: 3, method: "tools/destroy" }, headers)).json()
    expect(unknown).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found" } })
    const badParams = await (
      await post(network, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: 7 } }, headers)
    ).json()
    expect(badParams.error.code).toBe(-32602)
  })

  it("answers a notification with 202 and no body, GET with the server's event stream, PUT with 405 and Allow, a foreign Origin with 403", async () => {
    const { network, headers } = await open()
    const notified = await post(network, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    expect(notified.status).toBe(202)
    expect(await notified.text()).toBe("")
    const abort = new AbortController()
    const get = await network.fetch(URL_, {
      headers: { accept: "text/event-stream", ...headers },
      signal: abort.signal
    })
    expect(get.status).toBe(200)
    expect(get.headers.get("content-type")).toBe("text/event-stream")
    expect(get.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"])
    abort.abort()
    const put = await network.fetch(URL_, { method: "PUT", headers })
    expect(put.status).toBe(405)
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE")
    const foreign = await post(
      network,
      { jsonrpc: "2.0", id: 5, method: "ping" },
      { ...headers, origin: "https://evil.example" }
    )
    expect(foreign.status).toBe(403)
    const same = await post(
      network,
      { jsonrpc: "2.0", id: 6, method: "ping" },
      { ...headers, origin: "https://mcp.example.com" }
    )
    expect(await same.json()).toEqual({ jsonrpc: "2.0", id: 6, result: {} })
    // A page on this machine (served by simnet serve or the app under test) is this machine: answered.
    const local = await post(
      network,
      { jsonrpc: "2.0", id: 7, method: "ping" },
      { ...headers, origin: "http://127.0.0.1:4321" }
    )
    expect(local.status).toBe(200)
    expect(local.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"])
  })

  it("DELETE ends the session; later requests with it get 404", async () => {
    const { network, headers } = await open()
    const ended = await network.fetch(URL_, { method: "DELETE", headers })
    expect(ended.status).toBe(200)
    expect((await post(network, { jsonrpc: "2.0", id: 2, method: "ping" }, headers)).status).toBe(404)
    expect((await network.fetch(URL_, { method: "DELETE", headers })).status).toBe(404)
    expect(network.log().map((r) => r.detail?.method)).toEqual(["initialize", "DELETE", "ping", "DELETE"])
  })

  it("a stateless server needs no initialize and issues no session", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.mcp(URL_, { ...server, stateless: true })] })
    const response = await post(network, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" } }
    })
    expect(response.headers.get("mcp-session-id")).toBeNull()
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "hi" }] }
    })
    const del = await network.fetch(URL_, { method: "DELETE" })
    expect(del.status).toBe(405)
    expect(del.headers.get("allow")).toBe("POST")
  })
})

/** The way coding agents read a hosted search answer: the first SSE `data:` line's `result.content[0].text`. */
const hostedCall = async (network: { fetch: typeof fetch }, name: string, args: Record<string, unknown>) => {
  const response = await network.fetch("https://mcp.exa.ai/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
  })
  expect(response.headers.get("content-type")).toBe("text/event-stream")
  const text = await response.text()
  for (const line of text.split("\n")) {
    if (line.startsWith("data: "))
      return { raw: text, text: JSON.parse(line.substring(6)).result.content[0].text as string }
  }
  throw new Error(`no data line in ${text}`)
}

describe("hosted search (Routes.websearch, Routes.codesearch)", () => {
  it("answers one tools/call without a session over SSE, seeded and pinnable", async () => {
    const network = await SimulationNetwork.start({
      seed: 1,
      routes: [
        ...Routes.websearch({
          results: { "pinned query": [{ title: "Pinned", url: "https://example.com/pinned", text: "Exactly this." }] }
        }),
        ...Routes.codesearch()
      ]
    })
    const web = await hostedCall(network, "web_search_exa", { query: "effect layers", numResults: 3 })
    expect(web.text.split("\n\n")).toHaveLength(3)
    expect(web.text).toMatch(/^Title: .*effect layers.*\nURL: https:\/\/[a-z.]+\/.*effect-layers\nText: /)
    expect((await hostedCall(network, "web_search_exa", { query: "pinned query" })).text).toBe(
      "Title: Pinned\nURL: https://example.com/pinned\nText: Exactly this."
    )
    const code = await hostedCall(network, "get_code_context_exa", { query: "Schema.Struct", tokensNum: 5000 })
    expect(code.text).toMatch(/^## Code context for: Schema.Struct/)
    expect(code.text).toMatch(/Source: https:\/\//)
    expect(network.mcp.counts("websearch")).toEqual({ web_search_exa: 2 })
    expect(network.mcp.counts("codesearch")).toEqual({ get_code_context_exa: 1 })
    expect(network.log().map((r) => r.detail?.tool)).toEqual([
      "web_search_exa",
      "web_search_exa",
      "get_code_context_exa"
    ])
  })

  it("is deterministic: same seed, same bytes; another seed, other results", async () => {
    const run = async (seed: number) => {
      const network = await SimulationNetwork.start({ seed, routes: Routes.websearch() })
      const out: Array<string> = []
      for (const query of ["effect", "vitest", "effect"])
        out.push((await hostedCall(network, "web_search_exa", { query })).raw)
      return out
    }
    const [a, b, c] = await Promise.all([run(5), run(5), run(6)])
    expect(a).toEqual(b)
    expect(a[0]).not.toEqual(a[2]) // the second call of a query is its own occurrence
    expect(c).not.toEqual(a)
  })
})

describe("MCP route: the fast path behaves as the wire", () => {
  const call = (id: number | string, extra: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "hi" } },
    ...extra
  })

  it("a plain request and one the SDK's schema must judge answer alike; a bad id or an extra field is refused as the SDK refuses it", async () => {
    const { network, headers } = await open()
    const plain = await (await post(network, call(2), headers)).json()
    const withMeta = await (
      await post(
        network,
        { ...call(3), params: { name: "echo", arguments: { text: "hi" }, _meta: { note: 1 } } },
        headers
      )
    ).json()
    expect(plain).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "hi" }] } })
    expect(withMeta).toEqual({ ...plain, id: 3 })
    for (const bad of [
      call(1.5),
      call(4, { extra: true }),
      { ...call(5), jsonrpc: "1.0" },
      { ...call(6), params: [] }
    ]) {
      const response = await post(network, bad, headers)
      expect(response.status).toBe(400)
      expect([-32600, -32700]).toContain((await response.json()).error.code)
    }
    expect(network.mcp.counts("raw")).toEqual({ echo: 2 })
  })

  it("a plain tools/call (answered without the SDK's Protocol round) answers byte for byte as the SDK's Server does", async () => {
    const tools = [
      ...server.tools,
      { name: "image", handler: () => ({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] }) },
      { name: "bogus", handler: () => ({ content: [{ type: "bogus" }] }) },
      { name: "structured", handler: () => ({ structuredContent: { a: 1 } }) },
      {
        name: "thrown",
        handler: () => {
          throw new Error("no")
        }
      },
      {
        name: "fixed",
        result: { content: [{ type: "text", text: "fixed", annotations: { priority: 1 } }], isError: true }
      }
    ]
    const network = await SimulationNetwork.start({ routes: [Route.mcp(URL_, { ...server, tools }, { id: "raw" })] })
    const session = (await post(network, initialize)).headers.get("mcp-session-id")!
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    for (const [i, name] of ["echo", "image", "bogus", "structured", "thrown", "fixed", "missing"].entries()) {
      const params = { name, arguments: { text: "hi" } }
      const fast = await (await post(network, { jsonrpc: "2.0", id: i, method: "tools/call", params }, headers)).text()
      // A `_meta` the fast path leaves to the SDK's schema: the same call through the SDK's Protocol.
      const sdk = await (
        await post(network, { jsonrpc: "2.0", id: i, method: "tools/call", params: { ...params, _meta: {} } }, headers)
      ).text()
      expect(fast).toBe(sdk)
    }
    expect(
      JSON.parse(
        await (
          await post(
            network,
            { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "bogus", arguments: {} } },
            headers
          )
        ).text()
      ).error
    ).toMatchObject({ code: -32602, message: expect.stringMatching(/Invalid tools\/call result/) })
  })

  it("an abort after the answer's headers errors its body with the abort reason; an abort while it is answered rejects and is logged Interrupted", async () => {
    let release: () => void = () => {}
    let called: () => void = () => {}
    const handling = new Promise<void>((resolve) => (called = resolve))
    const slow = {
      name: "slow",
      handler: () =>
        new Promise<string>((resolve) => {
          release = () => resolve("late")
          called()
        })
    }
    const network = await SimulationNetwork.start({
      routes: [Route.mcp(URL_, { ...server, stateless: true, tools: [...server.tools, slow] }, { id: "raw" })]
    })
    const send = (body: unknown, signal: AbortSignal) =>
      network.fetch(URL_, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT },
        body: JSON.stringify(body),
        signal
      })
    const reads: ReadonlyArray<(response: Response) => Promise<unknown>> = [
      (response) => response.text(),
      (response) => response.json(),
      (response) => response.arrayBuffer(),
      (response) => response.body!.getReader().read()
    ]
    for (const read of reads) {
      const first = new AbortController()
      const response = await send(call(1), first.signal)
      expect(response.status).toBe(200)
      first.abort()
      await expect(read(response)).rejects.toMatchObject({ name: "AbortError" })
    }
    // Read before the abort, the body is whole.
    const kept = new AbortController()
    const whole = await (await send(call(1), kept.signal)).json()
    kept.abort()
    expect(whole).toMatchObject({ jsonrpc: "2.0", id: 1 })

    const second = new AbortController()
    const pending = send({ ...call(2), params: { name: "slow", arguments: {} } }, second.signal)
    await handling
    second.abort()
    await expect(pending).rejects.toMatchObject({ name: "AbortError" })
    release()
    await network.quiescent()
    expect(network.log().map((r) => [r.status, r.denial])).toEqual([
      ...reads.map(() => [200, undefined]),
      [200, undefined],
      [undefined, "Interrupted"]
    ])
  })

  it("a notification's 202 reaches Effect's HttpClient with an empty body it can read (as simnet serve relays it)", async () => {
    const { network, headers } = await open()
    const request = HttpClientRequest.post(URL_).pipe(
      HttpClientRequest.setHeaders({ accept: ACCEPT, ...headers }),
      HttpClientRequest.bodyJsonUnsafe({ jsonrpc: "2.0", method: "notifications/initialized" })
    )
    const response = await Effect.runPromise(
      HttpClient.execute(request).pipe(Effect.provideService(HttpClient.HttpClient, network.network.httpClient))
    )
    expect(response.status).toBe(202)
    expect(await Effect.runPromise(response.text)).toBe("")
  })
})
