/**
 * The Node door's fast path for a model's known frames (`registry/frames.ts`, `doors/relay.ts`'s
 * `writeFrames`) against the frames read as a stream: the same scripted answer, streamed, through
 * `simnet serve`'s Node door (which takes the frames and writes them itself) and through
 * `network.fetch` (which reads the body one event per read), must give the same status, the same
 * headers and the same bytes, small (one write with its length) and large (the head at once, then
 * chunked writes). A client that leaves mid-answer ends the answer: the network goes quiet.
 */
import { Effect, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as http from "node:http"
import { describe, expect, it } from "vitest"
import { serveLayer } from "../../src/serve/serve.ts"
import { Routes, SimulationNetwork } from "../../src/index.ts"

const served = async (words: number) => {
  const content = Array.from({ length: words }, (_, i) => `w${i}`).join(" ")
  const network = await Effect.runPromise(
    SimulationNetwork.make({
      routes: Routes.openai(),
      llmRules: [{ match: {}, behaviour: { type: "respond", steps: [[{ type: "text", content }]] } }]
    })
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(network, 0), scope))
  const address = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
    .address as { readonly port: number }
  return {
    network,
    port: address.port,
    close: () => Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined } as never))
  }
}

const BODY = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] })

/** A raw POST over loopback: status, headers and the body's bytes. */
const overLoopback = (port: number) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api.openai.com/v1/chat/completions",
        headers: { "content-type": "application/json" }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) })
        )
      }
    )
    request.on("error", reject)
    request.end(BODY)
  })

const throughFetch = async (fetch: typeof globalThis.fetch) => {
  const response = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: BODY
  })
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: Buffer.from(await response.arrayBuffer())
  }
}

/** The headers a door chooses for itself (framing, the clock), left out of the comparison. */
const own = (headers: Readonly<Record<string, unknown>>) => {
  const { date: _d, connection: _c, "keep-alive": _k, "content-length": _l, "transfer-encoding": _t, ...rest } = headers
  return rest
}

describe("the Node door writes a model's known frames itself, as the stream would have them", () => {
  it.each([
    ["small, in one write with its length", 20, true],
    ["large, the head at once and then chunks", 4_000, false]
  ] as const)("%s", async (_name, words, whole) => {
    const [a, b] = [await served(words), await served(words)]
    const [wire, streamed] = [await overLoopback(a.port), await throughFetch(b.network.fetch)]
    expect(wire.status).toBe(streamed.status)
    expect(own(wire.headers)).toEqual(own(streamed.headers))
    expect(wire.body.equals(streamed.body)).toBe(true)
    expect(
      wire.body
        .toString()
        .split("\n\n")
        .filter((e) => e.startsWith("data: {")).length
    ).toBe(words + 2)
    expect(wire.headers["content-length"] !== undefined).toBe(whole)
    expect(wire.headers["transfer-encoding"] === "chunked").toBe(!whole)
    await Promise.all([a.close(), b.close()])
  })

  it("a client that leaves mid-answer ends it: nothing stays in flight", async () => {
    const { network, port, close } = await served(200_000)
    await new Promise<void>((resolve, reject) => {
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/api.openai.com/v1/chat/completions",
          headers: { "content-type": "application/json" }
        },
        (response) => {
          response.once("data", () => {
            request.destroy()
            resolve()
          })
        }
      )
      request.on("error", () => undefined)
      request.once("error", reject)
      request.end(BODY)
    })
    await Effect.runPromise(network.quiescent)
    expect((await Effect.runPromise(network.log)).length).toBe(1)
    await close()
  })
})
