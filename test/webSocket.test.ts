/**
 * The `webSocket` route kind and the Responses API over a WebSocket, judged by real clients: `ws`
 * (in process through `network.createConnection`, and against `simnet serve` on loopback, also
 * through its proxy's `CONNECT` tunnel with the local CA), and the `openai` SDK's own `ResponsesWS`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { once } from "node:events"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as tls from "node:tls"
import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import WebSocket, { WebSocketServer } from "ws"
import { Route, Routes, SimulationNetwork } from "../src/index.ts"
import { serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const network = (routes: ReadonlyArray<Route.Route>) => Effect.runPromise(SimulationNetwork.make({ seed: 3, routes }))

/** The frames a socket receives until it closes or `count` have come. */
const frames = (socket: WebSocket, count: number): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) => {
    const got: Array<string> = []
    socket.on("message", (data) => {
      got.push(data.toString())
      if (got.length === count) resolve(got)
    })
    socket.once("close", () => resolve(got))
    socket.once("error", reject)
  })

const echo = Route.webSocket("wss://echo.example.com/ws", { open: ["hello"], replies: [{ when: { equals: "bye" }, send: ["so long"], close: { code: 4000, reason: "done" } }], echo: true })

describe("the webSocket kind", () => {
  it("answers ws in process through network.createConnection: open frames, echo, a reply that closes", async () => {
    const net = await network([echo])
    const socket = new WebSocket("wss://echo.example.com/ws", { createConnection: net.createConnection })
    const received = frames(socket, 10)
    await once(socket, "open")
    socket.send("ping")
    socket.send(Buffer.from([1, 2, 3]))
    socket.send("bye")
    const [code, reason] = (await once(socket, "close")) as [number, Buffer]
    expect(await received).toEqual(["hello", "ping", "\u0001\u0002\u0003", "so long"])
    expect([code, reason.toString()]).toEqual([4000, "done"])
    const log = await Effect.runPromise(net.log)
    expect(log.map((r) => [r.method, r.url, r.status, r.route?.id])).toEqual([["GET", "https://echo.example.com/ws", 101, "webSocket GET https://echo.example.com/ws"]])
  })

  it("answers a request that does not ask to upgrade with 426, as a WebSocket server does", async () => {
    const net = await network([echo])
    const response = await net.fetch("https://echo.example.com/ws")
    expect(response.status).toBe(426)
    expect(response.headers.get("upgrade")).toBe("websocket")
  })

  it("is served by simnet serve at /HOST/PATH and through the proxy's CONNECT tunnel with its CA", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-ws-"))
    const fixture = join(dir, "fixture.json")
    writeFileSync(fixture, JSON.stringify({ routes: [{ match: "wss://echo.example.com/ws", respond: { kind: "webSocket", open: ["hello"], echo: true } }] }))
    const served = await serve(["--fixture", fixture], { SIMNET_CA_DIR: join(dir, "ca") })
    const direct = new WebSocket(`ws://127.0.0.1:${served.port}/echo.example.com/ws`)
    const directFrames = frames(direct, 2)
    await once(direct, "open")
    direct.send("over loopback")
    expect(await directFrames).toEqual(["hello", "over loopback"])
    direct.close()
    // Through the proxy: CONNECT, then TLS with the local CA, then the upgrade inside the tunnel.
    const tunnel = await new Promise<import("node:net").Socket>((resolve, reject) => {
      const connect = http.request({ host: "127.0.0.1", port: served.port, method: "CONNECT", path: "echo.example.com:443" })
      connect.once("connect", (_res, socket) => resolve(socket))
      connect.once("error", reject)
      connect.end()
    })
    const ca = readFileSync(join(dir, "ca", "simnet-ca.pem"), "utf8")
    const secure = new WebSocket("wss://echo.example.com/ws", { createConnection: () => tls.connect({ socket: tunnel, servername: "echo.example.com", ca }) })
    const secureFrames = frames(secure, 2)
    await once(secure, "open")
    secure.send("through the tunnel")
    expect(await secureFrames).toEqual(["hello", "through the tunnel"])
    secure.close()
  })

  it("refuses a RouteSpec frame that is not base64 and a close code no server may send, naming the field", async () => {
    const bad = await Effect.runPromise(Effect.flip(SimulationNetwork.make({ routes: [] }).pipe(Effect.flatMap((net) => net.registerSpec([{ match: "wss://x.example.com/", respond: { kind: "webSocket", open: [{ base64: "@@" }] } }])))))
    expect([bad._tag, (bad as { path?: string }).path]).toEqual(["InvalidRouteSpec", "[0].respond.open[0].base64"])
    const code = await Effect.runPromise(Effect.flip(SimulationNetwork.make({ routes: [] }).pipe(Effect.flatMap((net) => net.registerSpec([{ match: "wss://x.example.com/", respond: { kind: "webSocket", replies: [{ close: { code: 1005 } }] } }])))))
    expect(code._tag).toBe("InvalidRouteSpec")
    expect((code as { path?: string }).path).toContain("replies[0].close.code")
  })
})

describe("record mode and WebSockets", () => {
  it("relays a WebSocket no route answers to its upstream, keeps what was said as a webSocket script, and the script replays it with the upstream gone", async () => {
    const upstream = new WebSocketServer({ host: "127.0.0.1", port: 0 })
    await once(upstream, "listening")
    const seen: Array<string | undefined> = []
    upstream.on("connection", (socket, request) => {
      seen.push(request.headers.authorization)
      socket.send("welcome")
      socket.on("message", (data) => socket.send(`pong: ${data.toString()}`))
    })
    const port = (upstream.address() as { port: number }).port
    const recording = await SimulationNetwork.start({ record: { upstream: { "live.example.com": `http://127.0.0.1:${port}` } } })
    const talk = async (createConnection: typeof recording.createConnection) => {
      const socket = new WebSocket("wss://live.example.com/feed", { createConnection, headers: { authorization: "Bearer sk-live-secret" } })
      // A conversation: each frame sent once the answer to the one before came.
      const received: Array<string> = []
      const next = () => new Promise<void>((resolve) => socket.once("message", (data) => resolve(void received.push(data.toString()))))
      const welcome = next()
      await once(socket, "open")
      await welcome
      for (const frame of ["ping", "again"]) {
        const answered = next()
        socket.send(frame)
        await answered
      }
      socket.close()
      await once(socket, "close")
      return received
    }
    expect(await talk(recording.createConnection)).toEqual(["welcome", "pong: ping", "pong: again"])
    // The client's credentials reach the upstream, and are in no recording.
    expect(seen).toEqual(["Bearer sk-live-secret"])
    await expect.poll(() => recording.recording().routes.length).toBe(1)
    const { routes } = recording.recording()
    expect(JSON.stringify(routes)).not.toContain("sk-live-secret")
    expect(routes[0]).toMatchObject({ match: { method: "GET", url: "https://live.example.com/feed" }, respond: { kind: "webSocket", open: ["welcome"], replies: [{ when: { equals: "ping" }, send: ["pong: ping"] }, { when: { equals: "again" }, send: ["pong: again"] }] } })
    upstream.close()
    const replay = await SimulationNetwork.start({ routes: [] })
    await replay.registerSpec(routes)
    expect(await talk(replay.createConnection)).toEqual(["welcome", "pong: ping", "pong: again"])
  })
})

describe("the Responses API over a WebSocket", () => {
  it("answers the openai SDK's ResponsesWS from the script, one event per frame, continuing a response by previous_response_id", async () => {
    const net = await network(Routes.openai())
    net.llm.enqueue({ steps: [[{ type: "tool_call", name: "lookup", input: { q: "x" } }], [{ type: "text", content: "done over the socket" }]] })
    const client = new OpenAI({ apiKey: "sk-test", baseURL: "https://api.openai.com/v1" })
    const socket = new ResponsesWS(client, { createConnection: net.createConnection })
    const events: Array<{ type: string; response?: { id: string; output: ReadonlyArray<{ type: string }> } }> = []
    const completed = () => new Promise<{ id: string; output: ReadonlyArray<{ type: string; call_id?: string }> }>((resolve, reject) => {
      socket.on("event", (event) => {
        events.push(event as never)
        if (event.type === "response.completed") resolve(event.response as never)
      })
      socket.on("error", reject)
    })
    const first = completed()
    socket.send({ type: "response.create", model: "gpt-5", input: "look it up", tools: [{ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } }, strict: false }] })
    const call = await first
    expect(call.output.map((item) => item.type)).toEqual(["function_call"])
    const second = completed()
    socket.send({ type: "response.create", model: "gpt-5", previous_response_id: call.id, input: [{ type: "function_call_output", call_id: call.output[0]!.call_id!, output: "42" }] })
    const answer = await second
    expect(JSON.stringify(answer.output)).toContain("done over the socket")
    expect(events[0]!.type).toBe("response.created")
    socket.close()
    const calls = net.llm.log
    expect(calls).toHaveLength(2)
    // The continued call carries the whole conversation: the first call's input, its tool call and the result.
    expect(JSON.stringify(calls[1]!.body)).toContain("look it up")
    expect(JSON.stringify(calls[1]!.body)).toContain("42")
  })

  it("answers an unknown previous_response_id with an error event and stays open", async () => {
    const net = await network(Routes.openai())
    const socket = new WebSocket("wss://api.openai.com/v1/responses", { createConnection: net.createConnection })
    const received = frames(socket, 2)
    await once(socket, "open")
    socket.send(JSON.stringify({ type: "response.create", model: "gpt-5", previous_response_id: "resp_nope", input: "hi" }))
    socket.send("not json")
    const [unknown, notJson] = (await received).map((frame) => JSON.parse(frame))
    expect(unknown).toMatchObject({ type: "error", status: 400, error: { code: "previous_response_not_found" } })
    expect(notJson).toMatchObject({ type: "error", status: 400, error: { code: "invalid_json" } })
    expect(socket.readyState).toBe(WebSocket.OPEN)
    socket.close()
  })
})
