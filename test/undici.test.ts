/**
 * Side by side with undici: every case runs undici's own `fetch` against a local `node:http`
 * server for the reference behaviour, then the same request through simnet, and compares.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpMethod from "effect/http/HttpMethod"
import OpenAI from "openai"
import { fetch as undiciFetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Route, Routes, SimulationNetwork } from "simnet"

let server: http.Server
let base: string
/** Requests to `/hang-body` whose connection has closed, by the server's count. */
let closedHangs = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/v1/chat/completions") {
      // 500 chunks of SSE, one per turn of the event loop, as a model streams.
      res.writeHead(200, { "content-type": "text/event-stream" })
      let i = 0
      const tick = () => {
        if (res.destroyed) return
        if (i === 500) return void res.end("data: [DONE]\n\n")
        const chunk = {
          id: "x",
          object: "chat.completion.chunk",
          created: 1,
          model: "m",
          choices: [{ index: 0, delta: { content: `w${i++} ` }, finish_reason: null }]
        }
        res.write(`data: ${JSON.stringify(chunk)}\n\n`)
        setImmediate(tick)
      }
      return tick()
    }
    if (req.url === "/hang-body") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.write("first chunk")
      res.on("close", () => closedHangs++)
      return
    }
    req.resume()
    req.on("end", () => res.end("ok"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const reference = (path: string, init?: RequestInit) =>
  undiciFetch(`${base}${path}`, init as never) as unknown as Promise<Response>

/** What a rejection looks like, for comparing two of them. */
const shape = (error: unknown) => {
  const e = error as { name?: string; message?: string; cause?: { name?: string; message?: string } }
  return {
    name: e.name,
    message: e.message,
    cause: e.cause === undefined ? undefined : { name: e.cause.name, message: e.cause.message }
  }
}

const settle = <A>(promise: Promise<A>) => promise.then(() => "resolved", shape)

const network = () =>
  SimulationNetwork.start({
    routes: [
      Route.text("https://api.example.com/{*path}", "ok"),
      Route.handler({ method: "POST", url: "https://api.example.com/upload" }, () => new Response("ok")),
      Route.loopback()
    ]
  })

const REFUSED_METHODS = ["", "G ET", "GET\r\n", "GE\nT", "CONNECT", "TRACE", "TRACK", "trace"]

describe("simnet's fetch refuses what undici's refuses, the same way", () => {
  it.each(REFUSED_METHODS)("method %j", async (method) => {
    const sim = await network()
    const expected = await settle(reference("/", { method }))
    expect(expected).not.toBe("resolved")
    expect(await settle(sim.fetch("https://api.example.com/", { method }))).toEqual(expected)
    expect(sim.log()).toEqual([])
  })

  it.each(["GET", "HEAD", "get"])("a body with %s", async (method) => {
    const sim = await network()
    const expected = await settle(reference("/", { method, body: "x" }))
    expect(expected).toMatchObject({ name: "TypeError" })
    expect(await settle(sim.fetch("https://api.example.com/", { method, body: "x" }))).toEqual(expected)
  })
})

describe("simnet's HttpClient refuses them as Effect's FetchHttpClient over undici does", () => {
  const viaClient = (client: HttpClient.HttpClient, url: string, method: string, body?: string) => {
    const request = HttpClientRequest.make(method as HttpMethod.HttpMethod)(url)
    return Effect.runPromise(
      client.execute(body === undefined ? request : HttpClientRequest.bodyText(request, body)).pipe(
        Effect.match({
          onSuccess: (response) => ({ status: response.status, method: response.request.method }),
          onFailure: (error) => ({
            tag: error._tag,
            reason: error.reason._tag,
            cause: shape((error.reason as { cause?: unknown }).cause)
          })
        })
      )
    )
  }
  const realClient = Effect.runSync(
    Effect.provide(
      Effect.service(HttpClient.HttpClient),
      FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch, undiciFetch as never)))
    )
  )

  it.each([...REFUSED_METHODS.map((m) => [m, undefined] as const), ["GET", "x"] as const, ["HEAD", "x"] as const])(
    "method %j with body %j",
    async (method, body) => {
      const sim = await network()
      const expected = await viaClient(realClient, `${base}/`, method, body)
      expect(await viaClient(sim.network.httpClient, "https://api.example.com/", method, body)).toEqual(expected)
    }
  )
})

describe("aborts and uploads behave as in undici's fetch", () => {
  it("an abort after the headers errors the body with the abort reason, and the loopback upstream is closed", async () => {
    const sim = await network()
    const controller = new AbortController()
    const ref = new AbortController()
    const expectedResponse = await reference("/hang-body", { signal: ref.signal })
    ref.abort()
    const expected = await settle(expectedResponse.text())
    const response = await sim.fetch(`${base}/hang-body`, { signal: controller.signal })
    controller.abort()
    expect(await settle(response.text())).toEqual({ ...(expected as object), message: "This operation was aborted" })
    expect(expected).toMatchObject({ name: "AbortError" })
    await expect.poll(() => closedHangs, { timeout: 2_000 }).toBe(2)
    expect(sim.log().map((r) => r.route?.kind)).toEqual(["loopback"])
  })

  it.each([
    ["text", (response: Response) => response.text()],
    ["json", (response: Response) => response.json()],
    ["arrayBuffer", (response: Response) => response.arrayBuffer()],
    ["body reader", (response: Response) => response.body!.getReader().read()]
  ] as const)(
    "an abort after the headers of a whole answer errors its body read by %s, as in undici",
    async (_, read) => {
      const sim = await network()
      const ref = new AbortController()
      const expectedResponse = await reference("/whole", { signal: ref.signal })
      ref.abort()
      const expected = await settle(read(expectedResponse))
      const controller = new AbortController()
      const response = await sim.fetch("https://api.example.com/whole", { signal: controller.signal })
      controller.abort()
      expect(await settle(read(response))).toEqual(expected)
      expect(expected).toMatchObject({ name: "AbortError" })
      // Read before the abort, the body is whole on both.
      const kept = new AbortController()
      const whole = await (await sim.fetch("https://api.example.com/whole", { signal: kept.signal })).text()
      kept.abort()
      expect(whole).toBe(await (await reference("/whole")).text())
    }
  )

  it("an aborted openai SDK stream stops where the abort fell, as over undici (the SDK ends its loop on AbortError)", async () => {
    const consume = async (client: OpenAI) => {
      const controller = new AbortController()
      const stream = await client.chat.completions.create(
        { model: "gpt-4o", messages: [{ role: "user", content: "talk" }], stream: true },
        { signal: controller.signal }
      )
      let chunks = 0
      const outcome = await (async () => {
        for await (const _ of stream) if (++chunks === 3) controller.abort()
        return "loop ended"
      })().catch(shape)
      return { chunks, outcome }
    }
    const expected = await consume(
      new OpenAI({ apiKey: "sk-test", baseURL: `${base}/v1`, fetch: undiciFetch as never, maxRetries: 0 })
    )
    expect(expected.chunks).toBe(3)

    const sim = await SimulationNetwork.start({ routes: Routes.openai() })
    sim.llm.enqueue({ steps: [[{ type: "text", content: Array.from({ length: 500 }, (_, i) => `w${i}`).join(" ") }]] })
    expect(await consume(new OpenAI({ apiKey: "sk-test", fetch: sim.fetch, maxRetries: 0 }))).toEqual(expected)
  })

  it("the raw body of an aborted model stream errors with AbortError", async () => {
    const sim = await SimulationNetwork.start({ routes: Routes.openai() })
    sim.llm.enqueue({ steps: [[{ type: "text", content: "many words ".repeat(200) }]] })
    const controller = new AbortController()
    const response = await sim.fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] }),
      signal: controller.signal
    })
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort()
    expect(await reader.read().then(() => "read", shape)).toMatchObject({ name: "AbortError" })
  })

  it("an abort while a streamed upload is pending rejects with AbortError", async () => {
    const stalled = () => new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) })
    const ref = new AbortController()
    const expectedPromise = settle(
      reference("/upload", { method: "POST", body: stalled(), duplex: "half", signal: ref.signal } as RequestInit)
    )
    setTimeout(() => ref.abort(), 20)
    const expected = await expectedPromise
    expect(expected).toMatchObject({ name: "AbortError" })

    const sim = await network()
    const controller = new AbortController()
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull: () => new Promise<void>(() => undefined),
      cancel: () => void (cancelled = true)
    })
    const pending = settle(
      sim.fetch("https://api.example.com/upload", {
        method: "POST",
        body,
        duplex: "half",
        signal: controller.signal
      } as RequestInit)
    )
    setTimeout(() => controller.abort(), 20)
    expect(await pending).toEqual(expected)
    expect(cancelled).toBe(true)
  })

  it.each([
    [
      "errors after a chunk",
      () =>
        new ReadableStream<Uint8Array>({
          start: (c) => {
            c.enqueue(new Uint8Array([120]))
            c.error(new Error("disk on fire"))
          }
        })
    ],
    ["errors when pulled", () => new ReadableStream<Uint8Array>({ pull: (c) => c.error(new RangeError("late")) })]
  ])("an upload stream that %s rejects TypeError('fetch failed') with the cause", async (_, make) => {
    const expected = await settle(reference("/upload", { method: "POST", body: make(), duplex: "half" } as RequestInit))
    expect(expected).toMatchObject({ name: "TypeError", message: "fetch failed" })
    const sim = await network()
    expect(
      await settle(
        sim.fetch("https://api.example.com/upload", { method: "POST", body: make(), duplex: "half" } as RequestInit)
      )
    ).toEqual(expected)
  })
})
