import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import axios from "axios"
import { Effect, Layer } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import OpenAI from "openai"
import { request as undiciRequest, fetch as undiciFetch, getGlobalDispatcher } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { GlobalInstallConflict, Route, Routes, SimulationNetwork, UnregisteredRequest } from "simnet"

const ITEM = "GET https://api.example.com/items/:id"
const itemRoute = Route.handler(ITEM, (req) => Response.json({ id: req.params.id }))

const httpsGet = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    https
      .get(url, (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (body += chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
      })
      .on("error", reject)
  })

const globals = () => ({
  fetch: globalThis.fetch,
  dispatcher: getGlobalDispatcher(),
  request: http.request,
  get: https.get
})

/** A real local server standing in for "the rest of the world" and for the app's own server. */
let local: http.Server
let localUrl = ""
const localHits: Array<string> = []
beforeAll(async () => {
  local = http.createServer((req, res) => {
    localHits.push(`${req.method} ${req.url}`)
    res.setHeader("content-type", "text/plain")
    res.end(`local ${req.method} ${req.url}`)
  })
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve))
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => local.close(() => resolve())))

/** A minimal MCP server (Streamable HTTP, JSON responses) as a handler route. */
const mcpRoutes = [
  Route.status("GET https://mcp.example.com/mcp", 405),
  Route.handler("POST https://mcp.example.com/mcp", (req) => {
    const message = req.json() as {
      id?: number
      method: string
      params?: { protocolVersion?: string; arguments?: { text?: string } }
    }
    if (message.id === undefined) return new Response(null, { status: 202 })
    const result =
      message.method === "initialize"
        ? {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "echo", version: "1.0.0" }
          }
        : message.method === "tools/list"
          ? { tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }
          : message.method === "tools/call"
            ? { content: [{ type: "text", text: `echo: ${message.params?.arguments?.text}` }] }
            : undefined
    return Response.json(
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no method ${message.method}` } }
        : { jsonrpc: "2.0", id: message.id, result }
    )
  })
]

describe("installGlobal", () => {
  it("answers the global fetch, undici.request, undici.fetch, axios and https.get from the network, and logs each", async () => {
    const network = await SimulationNetwork.start({ routes: [itemRoute] })
    const restore = await network.installGlobal()
    try {
      expect(await (await fetch("https://api.example.com/items/1")).json()).toEqual({ id: "1" })
      expect(await (await undiciRequest("https://api.example.com/items/2")).body.json()).toEqual({ id: "2" })
      expect(await (await undiciFetch("https://api.example.com/items/3")).json()).toEqual({ id: "3" })
      expect((await axios.get("https://api.example.com/items/4")).data).toEqual({ id: "4" })
      expect(await httpsGet("https://api.example.com/items/5")).toEqual({
        status: 200,
        body: JSON.stringify({ id: "5" })
      })
      const posted = await axios.post("https://api.example.com/items/6", { a: 1 }).catch((e: unknown) => e)
      expect((posted as { cause?: unknown }).cause).toBeInstanceOf(UnregisteredRequest)
    } finally {
      restore()
    }
    expect(network.log().map((r) => `${r.method} ${r.url} ${r.status ?? r.denial}`)).toEqual([
      "GET https://api.example.com/items/1 200",
      "GET https://api.example.com/items/2 200",
      "GET https://api.example.com/items/3 200",
      "GET https://api.example.com/items/4 200",
      "GET https://api.example.com/items/5 200",
      "POST https://api.example.com/items/6 UnregisteredRequest"
    ])
  })

  it("unmatched requests fail closed with the typed UnregisteredRequest and its candidates, through every client", async () => {
    const network = await SimulationNetwork.start({ routes: [itemRoute] })
    const restore = await network.installGlobal()
    try {
      const viaAxios = await axios.get("https://api.example.com/orders/9").catch((e: unknown) => e)
      expect(axios.isAxiosError(viaAxios)).toBe(true)
      const cause = (viaAxios as { cause?: unknown }).cause
      expect(cause).toBeInstanceOf(UnregisteredRequest)
      expect((cause as UnregisteredRequest).url).toBe("https://api.example.com/orders/9")
      expect((cause as UnregisteredRequest).candidates[0]).toMatchObject({ reason: "path" })

      const viaFetch = await fetch("https://api.example.com/orders/9").catch((e: unknown) => e)
      expect(viaFetch).toBeInstanceOf(TypeError)
      expect((viaFetch as TypeError).message).toBe("fetch failed")
      expect((viaFetch as TypeError).cause).toBeInstanceOf(UnregisteredRequest)

      expect(await undiciRequest("https://api.example.com/orders/9").catch((e: unknown) => e)).toBeInstanceOf(
        UnregisteredRequest
      )
      expect(
        ((await undiciFetch("https://api.example.com/orders/9").catch((e: unknown) => e)) as TypeError).cause
      ).toBeInstanceOf(UnregisteredRequest)
      expect(await httpsGet("https://api.example.com/orders/9").catch((e: unknown) => e)).toBeInstanceOf(
        UnregisteredRequest
      )
    } finally {
      restore()
    }
    expect(network.log().every((r) => r.denial === "UnregisteredRequest")).toBe(true)
    expect(localHits.length).toBe(0)
  })

  it("the openai SDK built without a fetch option is answered by the simulated model", async () => {
    const network = await SimulationNetwork.start({ routes: Routes.openai() })
    const restore = await network.installGlobal()
    try {
      network.llm.enqueue({ steps: [[{ type: "text", content: "Answered without a custom fetch." }]] })
      const client = new OpenAI({ apiKey: "sk-test", maxRetries: 0 })
      const completion = await client.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }]
      })
      expect(completion.choices[0].message.content).toBe("Answered without a custom fetch.")
      expect(network.llm.callCount).toBe(1)
    } finally {
      restore()
    }
  })

  it("the MCP SDK client built without a custom fetch talks to a route", async () => {
    const network = await SimulationNetwork.start({ routes: mcpRoutes })
    const restore = await network.installGlobal()
    try {
      const client = new Client({ name: "test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL("https://mcp.example.com/mcp")))
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"])
      const result = await client.callTool({ name: "echo", arguments: { text: "hello" } })
      expect(result.content).toEqual([{ type: "text", text: "echo: hello" }])
      await client.close()
    } finally {
      restore()
    }
    expect(network.log().filter((r) => r.method === "POST").length).toBeGreaterThanOrEqual(4)
  })

  it("loopback routes reach the real local server through fetch, axios and http, without dispatching their forward again", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.loopback(`${localUrl}/app/*rest`)] })
    const restore = await network.installGlobal()
    const before = localHits.length
    try {
      expect(await (await fetch(`${localUrl}/app/a`)).text()).toBe("local GET /app/a")
      expect((await axios.post(`${localUrl}/app/b`, "x")).data).toBe("local POST /app/b")
      const viaHttp = await new Promise<string>((resolve, reject) =>
        http
          .get(`${localUrl}/app/c`, (r) => {
            let body = ""
            r.on("data", (c) => (body += c))
            r.on("end", () => resolve(body))
          })
          .on("error", reject)
      )
      expect(viaHttp).toBe("local GET /app/c")
      // The local server is not a route: outside the loopback route's pattern it fails closed.
      expect(((await fetch(`${localUrl}/other`).catch((e: unknown) => e)) as TypeError).cause).toBeInstanceOf(
        UnregisteredRequest
      )
    } finally {
      restore()
    }
    expect(localHits.slice(before)).toEqual(["GET /app/a", "POST /app/b", "GET /app/c"])
    expect(network.log().map((r) => r.status ?? r.denial)).toEqual([200, 200, 200, "UnregisteredRequest"])
  })

  it("onUnmatched: passthrough lets only the listed hosts reach the real network", async () => {
    const network = await SimulationNetwork.start({ routes: [itemRoute] })
    const restore = await network.installGlobal({ onUnmatched: "passthrough", passthroughHosts: ["127.0.0.1"] })
    const before = localHits.length
    try {
      expect(await (await fetch("https://api.example.com/items/1")).json()).toEqual({ id: "1" })
      expect(await (await fetch(`${localUrl}/real`)).text()).toBe("local GET /real")
      expect((await axios.get(`${localUrl}/real-axios`)).data).toBe("local GET /real-axios")
      expect(await (await undiciRequest(`${localUrl}/real-undici`)).body.text()).toBe("local GET /real-undici")
      expect(
        ((await fetch("https://elsewhere.example.com/").catch((e: unknown) => e)) as TypeError).cause
      ).toBeInstanceOf(UnregisteredRequest)
    } finally {
      restore()
    }
    expect(localHits.slice(before)).toEqual(["GET /real", "GET /real-axios", "GET /real-undici"])
  })

  it("restore leaves globalThis.fetch, undici's dispatcher and node:http identical to before", async () => {
    const before = globals()
    const network = await SimulationNetwork.start({ routes: [itemRoute] })
    const restore = await network.installGlobal()
    const during = globals()
    expect(during.fetch).not.toBe(before.fetch)
    expect(during.dispatcher).not.toBe(before.dispatcher)
    expect(during.request).not.toBe(before.request)
    restore()
    restore()
    expect(globals()).toEqual(before)
    const after = globals()
    expect(after.fetch).toBe(before.fetch)
    expect(after.dispatcher).toBe(before.dispatcher)
    expect(after.request).toBe(before.request)
    expect(after.get).toBe(before.get)
  })

  it("two sequential installs do not leak into each other", async () => {
    const first = await SimulationNetwork.start({ routes: [itemRoute] })
    const restoreFirst = await first.installGlobal()
    expect((await axios.get("https://api.example.com/items/1")).data).toEqual({ id: "1" })
    restoreFirst()
    const second = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/health", "ok")] })
    const restoreSecond = await second.installGlobal()
    try {
      expect(await (await fetch("https://api.example.com/health")).text()).toBe("ok")
      expect(
        ((await axios.get("https://api.example.com/items/2").catch((e: unknown) => e)) as { cause?: unknown }).cause
      ).toBeInstanceOf(UnregisteredRequest)
      expect(await undiciRequest("https://api.example.com/items/3").catch((e: unknown) => e)).toBeInstanceOf(
        UnregisteredRequest
      )
    } finally {
      restoreSecond()
    }
    expect(first.log().map((r) => r.url)).toEqual(["https://api.example.com/items/1"])
    expect(second.log().map((r) => r.url)).toEqual([
      "https://api.example.com/health",
      "https://api.example.com/items/2",
      "https://api.example.com/items/3"
    ])
  })

  it("a second install while one is active is refused with GlobalInstallConflict, and the first stays in place", async () => {
    const first = await SimulationNetwork.start({ routes: [itemRoute] })
    const second = await SimulationNetwork.start()
    const restore = await first.installGlobal()
    try {
      await expect(second.installGlobal()).rejects.toBeInstanceOf(GlobalInstallConflict)
      expect(await (await fetch("https://api.example.com/items/1")).json()).toEqual({ id: "1" })
    } finally {
      restore()
    }
  })
})

describe("SimulationNetwork.layerGlobal", () => {
  it("routes the process through the network for the scope's lifetime and restores exactly when it closes", async () => {
    const before = globals()
    const program = Effect.gen(function* () {
      const viaGlobal = yield* Effect.promise(() => fetch("https://api.example.com/items/7").then((r) => r.json()))
      const viaClient = yield* HttpClient.get("https://api.example.com/items/8").pipe(Effect.flatMap((r) => r.json))
      const network = yield* SimulationNetwork
      return { viaGlobal, viaClient, log: yield* network.log }
    })
    const result = await Effect.runPromise(
      program.pipe(Effect.provide(SimulationNetwork.layerGlobal({ routes: [itemRoute] })))
    )
    expect(result.viaGlobal).toEqual({ id: "7" })
    expect(result.viaClient).toEqual({ id: "8" })
    expect(result.log.length).toBe(2)
    expect(globals()).toEqual(before)
    expect(getGlobalDispatcher()).toBe(before.dispatcher)
  })

  it("restores exactly after the program fails", async () => {
    const before = globals()
    const failing = Effect.gen(function* () {
      yield* Effect.promise(() => fetch("https://api.example.com/items/1"))
      return yield* Effect.fail("boom" as const)
    })
    const exit = await Effect.runPromiseExit(
      failing.pipe(Effect.provide(SimulationNetwork.layerGlobal({ routes: [itemRoute] })))
    )
    expect(exit._tag).toBe("Failure")
    expect(globalThis.fetch).toBe(before.fetch)
    expect(getGlobalDispatcher()).toBe(before.dispatcher)
    expect(http.request).toBe(before.request)
  })

  it("fails with GlobalInstallConflict inside an active installation, and leaves it in place", async () => {
    const outer = await SimulationNetwork.start({ routes: [itemRoute] })
    const restore = await outer.installGlobal()
    try {
      const error = await Effect.runPromise(
        Effect.flip(Layer.build(SimulationNetwork.layerGlobal()).pipe(Effect.scoped))
      )
      expect(error).toBeInstanceOf(GlobalInstallConflict)
      expect(await (await fetch("https://api.example.com/items/3")).json()).toEqual({ id: "3" })
    } finally {
      restore()
    }
  })
})
