/**
 * The headers a route sees through the Node door, judged against Node itself: the same raw
 * request, repeated headers and odd casing included, is sent to a plain `node:http` server and to
 * `simnet serve`; what the route sees must be what Node's `req.headers` holds, less `host`, with
 * repeated `set-cookie`s joined.
 */
import { Effect, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as http from "node:http"
import * as net from "node:net"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { serveLayer } from "../../src/serve/serve.ts"
import { Route, SimulationNetwork } from "../../src/index.ts"

const HEAD = [
  "Content-Type: application/json",
  "content-type: text/plain",
  "Cookie: a=1",
  "cookie: b=2",
  "Accept: text/html",
  "accept: application/json",
  "X-Custom: one",
  "x-custom: two",
  "User-Agent: first",
  "User-Agent: second",
  "Authorization: Bearer sk-test",
  "Set-Cookie: s=1",
  "Set-Cookie: t=2",
  "Content-Length: 2"
]

/** Sends the raw request to `port` and resolves when the answer's head is back. */
const send = (port: number, path: string) =>
  new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () =>
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: api.example.com\r\n${HEAD.join("\r\n")}\r\nConnection: close\r\n\r\n{}`
      )
    )
    socket.on("data", () => resolve())
    socket.on("error", reject)
  })

describe("the Node door's request headers", () => {
  it("are what Node's req.headers holds for the same raw request, less host", async () => {
    let nodeSees: http.IncomingHttpHeaders = {}
    const plain = http.createServer((req, res) => {
      nodeSees = req.headers
      res.end()
    })
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve))
    await send((plain.address() as AddressInfo).port, "/")
    plain.close()

    let routeSees: Record<string, string> = {}
    const network = await Effect.runPromise(
      SimulationNetwork.make({
        routes: [
          Route.handler("POST https://api.example.com/echo", (req) => {
            routeSees = Object.fromEntries(req.headers)
            return new Response("ok")
          })
        ]
      })
    )
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(network, 0), scope))
    const { port } = Effect.runSync(
      Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))
    ).address as { readonly port: number }
    await send(port, "/api.example.com/echo")
    await Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined } as never))

    const expected: Record<string, string> = {}
    for (const [name, value] of Object.entries(nodeSees)) {
      if (name !== "host" && value !== undefined) expected[name] = Array.isArray(value) ? value.join(", ") : value
    }
    expect(expected["cookie"]).toBe("a=1; b=2")
    expect(expected["content-type"]).toBe("application/json")
    expect(routeSees).toEqual(expected)
  })
})
