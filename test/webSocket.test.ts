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
import { SOCKET_SEND_LIMIT } from "../src/registry/socket.ts"
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

const echo = Route.webSocket("wss://echo.example.com/ws", {
  open: ["hello"],
  replies: [{ when: { equals: "bye" }, send: ["so long"], close: { code: 4000, reason: "done" } }],
  echo: true
})

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
    expect(log.map((r) => [r.method, r.url, r.status, r.route?.id])).toEqual([
      ["GET", "https://echo.example.com/ws", 101, "webSocket GET https://echo.example.com/ws"]
    ])
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
    writeFileSync(
      fixture,
      JSON.stringify({
        routes: [{ match: "wss://echo.example.com/ws", respond: { kind: "webSocket", open: ["hello"], echo: true } }]
      })
    )
    const served = await serve(["--fixture", fixture], { SIMNET_CA_DIR: join(dir, "ca") })
    const direct = new WebSocket(`ws://127.0.0.1:${served.port}/echo.example.com/ws`)
    const directFrames = frames(direct, 2)
    await once(direct, "open")
    direct.send("over loopback")
    expect(await directFrames).toEqual(["hello", "over loopback"])
    direct.close()
    // Through the proxy: CONNECT, then TLS with the local CA, then the upgrade inside the tunnel.
    const tunnel = await new Promise<import("node:net").Socket>((resolve, reject) => {
      const connect = http.request({
        host: "127.0.0.1",
        port: served.port,
        method: "CONNECT",
        path: "echo.example.com:443"
      })
      connect.once("connect", (_res, socket) => resolve(socket))
      connect.once("error", reject)
      connect.end()
    })
    const ca = readFileSync(join(dir, "ca", "simnet-ca.pem"), "utf8")
    const secure = new WebSocket("wss://echo.example.com/ws", {
      createConnection: () => tls.connect({ socket: tunnel, servername: "echo.example.com", ca })
    })
    const secureFrames = frames(secure, 2)
    await once(secure, "open")
    secure.send("through the tunnel")
    expect(await secureFrames).toEqual(["hello", "through the tunnel"])
    secure.close()
  })

  it("refuses a RouteSpec frame that is not base64 and a close code no server may send, naming the field", async () => {
    const bad = await Effect.runPromise(
      Effect.flip(
        SimulationNetwork.make({ routes: [] }).pipe(
          Effect.flatMap((net) =>
            net.registerSpec([
              { match: "wss://x.example.com/", respond: { kind: "webSocket", open: [{ base64: "@@" }] } }
            ])
          )
        )
      )
    )
    expect([bad._tag, (bad as { path?: string }).path]).toEqual(["InvalidRouteSpec", "[0].respond.open[0].base64"])
    const code = await Effect.runPromise(
      Effect.flip(
        SimulationNetwork.make({ routes: [] }).pipe(
          Effect.flatMap((net) =>
            net.registerSpec([
              { match: "wss://x.example.com/", respond: { kind: "webSocket", replies: [{ close: { code: 1005 } }] } }
            ])
          )
        )
      )
    )
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
    const recording = await SimulationNetwork.start({
      record: { upstream: { "live.example.com": `http://127.0.0.1:${port}` } }
    })
    const talk = async (createConnection: typeof recording.createConnection) => {
      const socket = new WebSocket("wss://live.example.com/feed", {
        createConnection,
        headers: { authorization: "Bearer sk-live-secret" }
      })
      // A conversation: each frame sent once the answer to the one before came.
      const received: Array<string> = []
      const next = () =>
        new Promise<void>((resolve) => socket.once("message", (data) => resolve(void received.push(data.toString()))))
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
    expect(routes[0]).toMatchObject({
      match: { method: "GET", url: "https://live.example.com/feed" },
      respond: {
        kind: "webSocket",
        open: ["welcome"],
        replies: [
          { when: { equals: "ping" }, send: ["pong: ping"] },
          { when: { equals: "again" }, send: ["pong: again"] }
        ]
      }
    })
    upstream.close()
    const replay = await SimulationNetwork.start({ routes: [] })
    await replay.registerSpec(routes)
    expect(await talk(replay.createConnection)).toEqual(["welcome", "pong: ping", "pong: again"])
  })
})

describe("the Responses API over a WebSocket", () => {
  it("answers the openai SDK's ResponsesWS from the script, one event per frame, continuing a response by previous_response_id", async () => {
    const net = await network(Routes.openai())
    net.llm.enqueue({
      steps: [
        [{ type: "tool_call", name: "lookup", input: { q: "x" } }],
        [{ type: "text", content: "done over the socket" }]
      ]
    })
    const client = new OpenAI({ apiKey: "sk-test", baseURL: "https://api.openai.com/v1" })
    const socket = new ResponsesWS(client, { createConnection: net.createConnection })
    const events: Array<{ type: string; response?: { id: string; output: ReadonlyArray<{ type: string }> } }> = []
    const completed = () =>
      new Promise<{ id: string; output: ReadonlyArray<{ type: string; call_id?: string }> }>((resolve, reject) => {
        socket.on("event", (event) => {
          events.push(event as never)
          if (event.type === "response.completed") resolve(event.response as never)
        })
        socket.on("error", reject)
      })
    const first = completed()
    socket.send({
      type: "response.create",
      model: "gpt-5",
      input: "look it up",
      tools: [
        {
          type: "function",
          name: "lookup",
          parameters: { type: "object", properties: { q: { type: "string" } } },
          strict: false
        }
      ]
    })
    const call = await first
    expect(call.output.map((item) => item.type)).toEqual(["function_call"])
    const second = completed()
    socket.send({
      type: "response.create",
      model: "gpt-5",
      previous_response_id: call.id,
      input: [{ type: "function_call_output", call_id: call.output[0]!.call_id!, output: "42" }]
    })
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
    socket.send(
      JSON.stringify({ type: "response.create", model: "gpt-5", previous_response_id: "resp_nope", input: "hi" })
    )
    socket.send("not json")
    const [unknown, notJson] = (await received).map((frame) => JSON.parse(frame))
    expect(unknown).toMatchObject({ type: "error", status: 400, error: { code: "previous_response_not_found" } })
    expect(notJson).toMatchObject({ type: "error", status: 400, error: { code: "invalid_json" } })
    expect(socket.readyState).toBe(WebSocket.OPEN)
    socket.close()
  })
})

describe("a WebSocket client that does not read", () => {
  /** A masked frame as a client sends it (the mask key zero: XOR leaves the payload as it is). */
  const clientFrame = (opcode: number, payload: Buffer): Buffer => {
    const length = payload.byteLength
    const head =
      length < 126
        ? Buffer.from([0x80 | opcode, 0x80 | length])
        : Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
    return Buffer.concat([head, Buffer.alloc(4), payload])
  }

  /** A server's frames parsed off a byte stream: each frame's opcode and payload size, and text payloads. */
  const frameReader = (onFrame: (opcode: number, payload: Buffer) => void) => {
    let pending: Buffer = Buffer.alloc(0)
    return (chunk: Buffer) => {
      pending = pending.byteLength === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (pending.byteLength < 2) return
        const short = pending[1]! & 0x7f
        const headLength = short === 126 ? 4 : short === 127 ? 10 : 2
        if (pending.byteLength < headLength) return
        const length =
          short === 126 ? pending.readUInt16BE(2) : short === 127 ? Number(pending.readBigUInt64BE(2)) : short
        if (pending.byteLength < headLength + length) return
        onFrame(pending[0]! & 0x0f, pending.subarray(headLength, headLength + length))
        pending = pending.subarray(headLength + length)
      }
    }
  }

  /** The upgrade's record in simnet serve's log: what the door logged of the socket. */
  const socketLog = async (base: string) => {
    const { records } = (await (await fetch(`${base}/experimental/simulation/network/log`)).json()) as {
      records: ReadonlyArray<{
        status?: number
        detail?: { webSocket?: { paused?: number; closed?: { code: number; by: string } } }
      }>
    }
    return records.find((record) => record.status === 101)?.detail?.webSocket
  }

  it("an echo route stops reading a raw client that writes 64 MB and reads nothing, says so in the log, and echoes everything once it reads", async () => {
    const { connect } = await import("node:net")
    const dir = mkdtempSync(join(tmpdir(), "simnet-ws-"))
    const fixture = join(dir, "fixture.json")
    writeFileSync(
      fixture,
      JSON.stringify({ routes: [{ match: "wss://echo.example.com/ws", respond: { kind: "webSocket", echo: true } }] })
    )
    const served = await serve(["--fixture", fixture])
    const socket = connect(served.port, "127.0.0.1")
    await once(socket, "connect")
    socket.write(
      "GET /echo.example.com/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    let head = ""
    let rest: Buffer = Buffer.alloc(0)
    while (!head.includes("\r\n\r\n")) {
      const [chunk] = (await once(socket, "data")) as [Buffer]
      const at = Buffer.concat([Buffer.from(head, "latin1"), chunk])
      const end = at.indexOf("\r\n\r\n")
      head = at.toString("latin1", 0, end === -1 ? at.byteLength : end + 4)
      if (end !== -1) rest = at.subarray(end + 4)
    }
    expect(head).toMatch(/^HTTP\/1\.1 101 /)
    // From here on the client reads nothing: 1100 binary frames of 60 000 bytes (66 MB), then "done".
    socket.pause()
    const payload = Buffer.alloc(60_000, 7)
    const frames = 1100
    for (let i = 0; i < frames; i++) socket.write(clientFrame(2, payload))
    socket.write(clientFrame(1, Buffer.from("done")))
    await expect
      .poll(async () => (await socketLog(served.base))?.paused ?? 0, { timeout: 30_000, interval: 100 })
      .toBeGreaterThanOrEqual(1)
    expect((await socketLog(served.base))?.closed).toBeUndefined()
    // Now it reads: everything comes back, in order, the socket never closed on it.
    let echoed = 0
    let text = ""
    const read = frameReader((opcode, data) => {
      if (opcode === 2) echoed += data.byteLength
      if (opcode === 1) text = data.toString()
      if (opcode === 8) text = `closed ${data.readUInt16BE(0)}`
    })
    const done = new Promise<void>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        read(chunk)
        if (text !== "") resolve()
      })
      socket.on("close", () => resolve())
    })
    if (rest.byteLength > 0) read(rest)
    socket.resume()
    await done
    expect([echoed, text]).toEqual([frames * payload.byteLength, "done"])
    socket.destroy()
    await expect.poll(async () => (await socketLog(served.base))?.closed?.by, { timeout: 10_000 }).toBe("client")
    stopAll()
  }, 120_000)

  it("a session that sends unasked to a client that reads nothing is closed at the bound (1008), and the close is logged", async () => {
    const chunk = new Uint8Array(64 * 1024)
    let ended: (value: { code: number; reason: string; sent: number }) => void = () => undefined
    const closed = new Promise<{ code: number; reason: string; sent: number }>((resolve) => (ended = resolve))
    const net = await network([
      Route.webSocket("wss://firehose.example.com/", (socket) => {
        // A session that never looks at `writable`: at most 256 MiB, so a door without the bound fails here.
        let sent = 0
        while (!socket.closed() && sent < 256 * 1024 * 1024) {
          socket.send(chunk)
          sent += chunk.byteLength
        }
        socket.onClose((code, reason) => ended({ code, reason, sent }))
      })
    ])
    const client = new WebSocket("wss://firehose.example.com/", { createConnection: net.createConnection })
    client.once("open", () => client.pause())
    const clientClosed = once(client, "close")
    const { code, reason, sent } = await closed
    expect(code).toBe(1008)
    expect(reason).toMatch(/^simnet: the client read nothing while \d+ bytes waited for it$/)
    expect(sent).toBeLessThanOrEqual(SOCKET_SEND_LIMIT + 2 * chunk.byteLength)
    await clientClosed
    const [record] = await Effect.runPromise(net.log)
    expect(record?.detail).toMatchObject({ webSocket: { paused: 1, closed: { code: 1008, by: "simnet", reason } } })
  })

  it("record mode's relay reads its upstream no faster than its client reads: a client that takes a frame a turn gets every frame", async () => {
    const upstream = new WebSocketServer({ host: "127.0.0.1", port: 0 })
    await once(upstream, "listening")
    const total = 64 * 1024 * 1024
    const frame = Buffer.alloc(64 * 1024, 1)
    upstream.on("connection", (socket) => {
      // The upstream sends as fast as it is read: up to 4 MiB waiting, more as each batch is taken.
      let sent = 0
      const pump = () => {
        while (sent < total && socket.bufferedAmount < 4 * 1024 * 1024) {
          sent += frame.byteLength
          socket.send(
            frame,
            sent === total || socket.bufferedAmount + frame.byteLength >= 4 * 1024 * 1024 ? () => pump() : undefined
          )
        }
        if (sent === total) socket.send("done")
      }
      pump()
    })
    const port = (upstream.address() as { port: number }).port
    const recording = await SimulationNetwork.start({
      record: { upstream: { "live.example.com": `http://127.0.0.1:${port}` } }
    })
    const client = new WebSocket("wss://live.example.com/feed", { createConnection: recording.createConnection })
    let received = 0
    let last = ""
    const closed = once(client, "close")
    const done = new Promise<void>((resolve) => {
      // A slow reader: one frame, then nothing until the event loop has turned.
      client.on("message", (data, isBinary) => {
        if (isBinary) received += (data as Buffer).byteLength
        else last = data.toString()
        if (last === "done") return resolve()
        client.pause()
        setImmediate(() => client.resume())
      })
      void closed.then(() => resolve())
    })
    await done
    expect([received, last]).toEqual([total, "done"])
    client.close()
    await closed
    upstream.close()
  }, 120_000)
})
