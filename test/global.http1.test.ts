/**
 * `node:http` clients under `installGlobal` go over kept-alive in-memory connections into the
 * Node door: requests share a connection as on a real keep-alive server, a client's own agent
 * keeps a pool of its own, a refusal fails only its request, bodies flow both ways, and a `ws`
 * client with no `createConnection` of its own reaches a WebSocket route.
 */
import { once } from "node:events"
import type * as http from "node:http"
import * as https from "node:https"
import axios from "axios"
import { describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { Route, SimulationNetwork, UnregisteredRequest } from "simnet"

/** A GET through `https.get` with `agent`; its body, and whether it went on a connection used before. */
const get = (url: string, agent?: http.Agent) =>
  new Promise<{ readonly body: string; readonly reused: boolean }>((resolve, reject) => {
    const request = https.get(url, agent === undefined ? {} : { agent }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resolve({ body, reused: request.reusedSocket }))
    })
    request.on("error", reject)
  })

const routes = [
  Route.handler("GET https://api.example.com/n/:n", (req) => Response.json({ n: Number(req.params.n) })),
  Route.handler("POST https://api.example.com/echo", (req) => Response.json({ bytes: req.body?.length ?? 0 })),
  Route.handler(
    "GET https://api.example.com/stream",
    () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (let i = 0; i < 100; i++) controller.enqueue(new TextEncoder().encode(`line ${i}\n`))
            controller.close()
          }
        })
      )
  ),
  Route.webSocket("wss://ws.example.com/chat", { open: ["hello"], echo: true })
]

describe("node:http under installGlobal", () => {
  it("keeps its connection alive: the second request on an agent goes on the first one's connection, and each agent has its own", async () => {
    const network = await SimulationNetwork.start({ routes })
    const restore = await network.installGlobal()
    const own = new https.Agent({ keepAlive: true })
    try {
      const first = await get("https://api.example.com/n/1")
      const second = await get("https://api.example.com/n/2")
      expect([first.body, second.body]).toEqual(['{"n":1}', '{"n":2}'])
      expect([first.reused, second.reused]).toEqual([false, true])
      // A client's own agent: a pool apart from the default one, kept alive too.
      const mine = [await get("https://api.example.com/n/3", own), await get("https://api.example.com/n/4", own)]
      expect(mine.map((r) => r.reused)).toEqual([false, true])
      // axios, many requests in a row, each answered in order.
      for (let i = 0; i < 50; i++) expect((await axios.get(`https://api.example.com/n/${i}`)).data).toEqual({ n: i })
    } finally {
      restore()
      own.destroy()
    }
    expect(network.log().length).toBe(54)
  })

  it("fails a request no route answers with the typed error, and the next request on the agent is answered", async () => {
    const network = await SimulationNetwork.start({ routes })
    const restore = await network.installGlobal()
    try {
      await get("https://api.example.com/n/1")
      const error = await get("https://api.example.com/missing").catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnregisteredRequest)
      expect((error as UnregisteredRequest).message).toContain("GET https://api.example.com/missing")
      const viaAxios = await axios.get("https://api.example.com/missing").catch((e: { cause?: unknown }) => e.cause)
      expect(viaAxios).toBeInstanceOf(UnregisteredRequest)
      expect((await get("https://api.example.com/n/2")).body).toBe('{"n":2}')
    } finally {
      restore()
    }
  })

  it("sends a large body and reads a streamed one", async () => {
    const network = await SimulationNetwork.start({ routes })
    const restore = await network.installGlobal()
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 7)
      expect(
        (
          await axios.post("https://api.example.com/echo", big, {
            headers: { "content-type": "application/octet-stream" }
          })
        ).data
      ).toEqual({ bytes: big.length })
      const streamed = await axios.get("https://api.example.com/stream", { responseType: "text" })
      expect(streamed.data.split("\n").length).toBe(101)
    } finally {
      restore()
    }
  })

  it("answers Expect: 100-continue as Node's server does: 100 Continue, then the body is sent and answered", async () => {
    const network = await SimulationNetwork.start({ routes })
    const restore = await network.installGlobal()
    try {
      const body = Buffer.alloc(2 * 1024 * 1024, 1)
      const answered = await new Promise<{ readonly continued: boolean; readonly text: string }>((resolve, reject) => {
        let continued = false
        const request = https.request(
          "https://api.example.com/echo",
          { method: "POST", headers: { "content-length": body.byteLength, expect: "100-continue" } },
          (response) => {
            let text = ""
            response.setEncoding("utf8")
            response.on("data", (chunk: string) => (text += chunk))
            response.on("end", () => resolve({ continued, text }))
          }
        )
        // The body goes only once the server says to go on, as a careful client sends it.
        request.on("continue", () => {
          continued = true
          request.end(body)
        })
        request.on("error", reject)
        request.flushHeaders()
      })
      expect(answered).toEqual({ continued: true, text: JSON.stringify({ bytes: body.byteLength }) })
    } finally {
      restore()
    }
  })

  it("answers a ws client that brings no createConnection from a WebSocket route", async () => {
    const network = await SimulationNetwork.start({ routes })
    const restore = await network.installGlobal()
    try {
      const socket = new WebSocket("wss://ws.example.com/chat")
      const frames: Array<string> = []
      socket.on("message", (data: Buffer) => frames.push(data.toString()))
      await once(socket, "open")
      socket.send("ping")
      await new Promise<void>((resolve) => {
        const check = () => (frames.length >= 2 ? resolve() : setImmediate(check))
        check()
      })
      expect(frames).toEqual(["hello", "ping"])
      socket.close()
      await once(socket, "close")
    } finally {
      restore()
    }
    expect(network.log().map((r) => [r.method, r.url, r.status])).toEqual([["GET", "https://ws.example.com/chat", 101]])
  })
})
