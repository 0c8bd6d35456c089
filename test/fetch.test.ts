import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici"
import { LoopbackDenied, Route, SimulationNetwork, UnregisteredRequest } from "simnet"

interface Listener {
  readonly url: string
  readonly connections: () => number
  readonly requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>
  readonly close: () => Promise<void>
}

const listen = async (): Promise<Listener> => {
  let connections = 0
  const requests: Listener["requests"] = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString()
      })
      res.writeHead(201, { "content-type": "text/plain", "x-echo": req.headers["x-custom"] ?? "" })
      res.write("part one, ")
      setImmediate(() => res.end(`${req.method} ${req.url}`))
    })
  })
  server.on("connection", () => connections++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

describe("SimulationNetwork.start and its fetch", () => {
  let listener: Listener
  beforeAll(async () => {
    listener = await listen()
  })
  afterAll(() => listener.close())

  it("answers a plain fetch and rejects an unregistered one with TypeError('fetch failed') caused by UnregisteredRequest", async () => {
    const net = await SimulationNetwork.start({
      routes: [Route.text("GET https://api.example.com/items/:id", '{"ok":true}', { contentType: "application/json" })]
    })
    const response = await net.fetch("https://api.example.com/items/1")
    expect(await response.json()).toEqual({ ok: true })
    const error = await net.fetch("https://api.example.com/orders/1", { method: "DELETE" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe("fetch failed")
    const cause = (error as TypeError).cause as UnregisteredRequest
    expect(cause).toBeInstanceOf(UnregisteredRequest)
    expect(cause).toMatchObject({
      _tag: "UnregisteredRequest",
      method: "DELETE",
      url: "https://api.example.com/orders/1"
    })
    expect(cause.candidates[0]).toMatchObject({ reason: "path" })
    await net.close()
  })

  it("nothing reaches the real network: no connection to a real listener, global fetch and undici dispatcher untouched", async () => {
    const originalFetch = globalThis.fetch
    const originalDispatcher = getGlobalDispatcher()
    let fetchCalls = 0
    let dispatches = 0
    globalThis.fetch = (() => {
      fetchCalls++
      return Promise.reject(new Error("global fetch must not be called"))
    }) as typeof fetch
    class RecordingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        dispatches++
        return super.dispatch(options, handler)
      }
    }
    setGlobalDispatcher(new RecordingAgent())
    try {
      const net = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/x", "x")] })
      const viaFetch = await net
        .fetch(`${listener.url}/secret`, { method: "POST", body: "data" })
        .catch((e: unknown) => e)
      expect(((viaFetch as TypeError).cause as UnregisteredRequest)._tag).toBe("UnregisteredRequest")
      const viaClient = await Effect.runPromise(
        Effect.flip(HttpClient.get(`${listener.url}/secret`)).pipe(
          Effect.provideService(HttpClient.HttpClient, net.network.httpClient)
        )
      )
      expect(viaClient.cause).toBeInstanceOf(UnregisteredRequest)
      // A stray connection to loopback would have been accepted within these turns of the event loop.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(listener.connections()).toBe(0)
      expect(fetchCalls).toBe(0)
      expect(dispatches).toBe(0)
    } finally {
      globalThis.fetch = originalFetch
      setGlobalDispatcher(originalDispatcher)
    }
  })

  it("a loopback route forwards method, headers and body to the local server and streams its answer back", async () => {
    const net = await SimulationNetwork.start({ routes: [Route.loopback(`${listener.url}/{*path}`)] })
    const response = await net.fetch(`${listener.url}/echo?q=1`, {
      method: "PUT",
      headers: { "x-custom": "yes", "content-type": "application/json" },
      body: JSON.stringify({ a: 1 })
    })
    expect(response.status).toBe(201)
    expect(response.headers.get("x-echo")).toBe("yes")
    expect(await response.text()).toBe("part one, PUT /echo?q=1")
    const seen = listener.requests.at(-1)!
    expect(seen).toMatchObject({ method: "PUT", url: "/echo?q=1", body: '{"a":1}' })
    expect(seen.headers["content-type"]).toBe("application/json")
    expect(net.log()[0]).toMatchObject({ route: { kind: "loopback" }, status: 201 })
  })

  it("Route.loopback() with no matcher reaches any loopback address, and only those", async () => {
    const net = await SimulationNetwork.start({ routes: [Route.loopback()] })
    const response = await net.fetch(`${listener.url.replace("127.0.0.1", "localhost")}/any`)
    expect(await response.text()).toContain("GET /any")
    const error = await net.fetch("https://example.com/").catch((e: unknown) => e)
    expect((error as TypeError).cause).toBeInstanceOf(UnregisteredRequest)
    const denied = await SimulationNetwork.start({ routes: [Route.loopback("http://10.0.0.1/{*path}")] }).catch(
      (e: unknown) => e
    )
    expect(denied).toBeInstanceOf(LoopbackDenied)
  })

  it("a reset fault errors the body mid-stream the way undici does", async () => {
    const net = await SimulationNetwork.start({ routes: [Route.fault("GET https://api.example.com/reset", "reset")] })
    const response = await net.fetch("https://api.example.com/reset")
    expect(response.status).toBe(200)
    const error = await response.json().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe("terminated")
    expect(((error as TypeError).cause as { code: string }).code).toBe("ECONNRESET")
  })

  it("an aborted request rejects with the abort reason, also while a route is still answering", async () => {
    const net = await SimulationNetwork.start({ routes: [Route.fault("GET https://api.example.com/hang", "timeout")] })
    const controller = new AbortController()
    const pending = net.fetch("https://api.example.com/hang", { signal: controller.signal }).catch((e: unknown) => e)
    controller.abort()
    const error = await pending
    expect((error as DOMException).name).toBe("AbortError")
  })

  it("accepts Request objects and streamed bodies", async () => {
    const net = await SimulationNetwork.start({
      routes: [
        Route.handler("POST https://api.example.com/upload", (req) =>
          Response.json({ got: req.text(), type: req.headers.get("content-type") })
        )
      ]
    })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("chunk1,"))
        controller.enqueue(new TextEncoder().encode("chunk2"))
        controller.close()
      }
    })
    const streamed = await net.fetch("https://api.example.com/upload", {
      method: "POST",
      body: stream,
      duplex: "half"
    } as RequestInit)
    expect(await streamed.json()).toEqual({ got: "chunk1,chunk2", type: null })
    const request = new Request("https://api.example.com/upload", {
      method: "POST",
      body: new URLSearchParams({ a: "1" })
    })
    expect(await (await net.fetch(request)).json()).toEqual({
      got: "a=1",
      type: "application/x-www-form-urlencoded;charset=UTF-8"
    })
  })

  it("a string body reaches the route as undici's Request reads it (text, bytes, JSON; a lone surrogate as U+FFFD), and the log counts its UTF-8 bytes", async () => {
    const net = await SimulationNetwork.start({
      routes: [
        Route.handler("POST https://api.example.com/text", (req) =>
          Response.json({ text: req.text(), json: req.json() ?? null })
        ),
        Route.handler("POST https://api.example.com/bytes", (req) =>
          Response.json({ bytes: Array.from(req.body ?? []), text: req.text() })
        )
      ]
    })
    for (const body of ["plain", '{"a": "é☕"}', "lone \ud800 surrogate", "x".repeat(5_000)]) {
      const reference = new Request("https://api.example.com/", { method: "POST", body })
      const expectedText = await reference.clone().text()
      const expectedBytes = Array.from(new Uint8Array(await reference.arrayBuffer()))
      const viaText = await (await net.fetch("https://api.example.com/text", { method: "POST", body })).json()
      expect(viaText.text).toBe(expectedText)
      const viaBytes = await (await net.fetch("https://api.example.com/bytes", { method: "POST", body })).json()
      expect(viaBytes).toEqual({ bytes: expectedBytes, text: expectedText })
      const [first, second] = net.log().slice(-2)
      expect([first.body?.size, second.body?.size]).toEqual([expectedBytes.length, expectedBytes.length])
      expect(first.body?.preview).toBe(expectedText.slice(0, 256))
    }
    expect(
      (await (await net.fetch("https://api.example.com/text", { method: "POST", body: '{"a": 1}' })).json()).json
    ).toEqual({ a: 1 })
  })

  it("follows redirects like undici: 302 after POST becomes GET, 307 keeps method and body, authorization stays on its origin", async () => {
    const echo = (req: { method: string; text: () => string; headers: Headers; url: URL }) =>
      Response.json({ method: req.method, body: req.text(), auth: req.headers.get("authorization"), url: req.url.href })
    const net = await SimulationNetwork.start({
      routes: [
        Route.status("POST https://a.example.com/login", 302, { headers: { location: "/home" } }),
        Route.status("PUT https://a.example.com/move", 307, { headers: { location: "https://a.example.com/moved" } }),
        Route.status("GET https://a.example.com/away", 301, { headers: { location: "https://b.example.com/there" } }),
        Route.status("GET https://a.example.com/loop", 302, { headers: { location: "/loop" } }),
        Route.handler("GET https://a.example.com/home", echo),
        Route.handler("PUT https://a.example.com/moved", echo),
        Route.handler("GET https://b.example.com/there", echo)
      ]
    })
    const home = await net.fetch("https://a.example.com/login", {
      method: "POST",
      body: "user=ada",
      headers: { authorization: "Bearer t" }
    })
    expect(home.status).toBe(200)
    expect(home.redirected).toBe(true)
    expect(home.url).toBe("https://a.example.com/home")
    expect(await home.json()).toEqual({ method: "GET", body: "", auth: "Bearer t", url: "https://a.example.com/home" })

    const moved = await net.fetch("https://a.example.com/move", { method: "PUT", body: "payload" })
    expect(await moved.json()).toMatchObject({ method: "PUT", body: "payload" })

    const away = await net.fetch("https://a.example.com/away", { headers: { authorization: "Bearer t" } })
    expect(await away.json()).toMatchObject({ auth: null, url: "https://b.example.com/there" })

    const manual = await net.fetch("https://a.example.com/away", { redirect: "manual" })
    expect(manual.status).toBe(301)
    expect(manual.redirected).toBe(false)
    expect(manual.url).toBe("https://a.example.com/away")

    const refused = await net.fetch("https://a.example.com/away", { redirect: "error" }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(TypeError)
    const looping = await net.fetch("https://a.example.com/loop").catch((e: unknown) => e)
    expect(((looping as TypeError).cause as Error).message).toBe("redirect count exceeded")
  })
})
