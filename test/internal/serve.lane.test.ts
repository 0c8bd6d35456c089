/**
 * `simnet serve`'s lane: requests with no body are dispatched as soon as Node has parsed them,
 * and an answer the network holds whole is written without the router. Whatever the lane does,
 * the client must see what the router alone would have sent (status, headers, bytes), each
 * request must be dispatched and logged exactly once, and the per-request report must still see
 * it.
 */
import * as http from "node:http"
import { Effect, Exit, Layer, Schema, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { describe, expect, it } from "vitest"
import { serveLayer, type LaneReport } from "../../src/control/serve.ts"
import { Route, SimulationNetwork, type SimulationNetworkApi } from "simnet"

const routes = () => [
  Route.text("GET https://api.example.com/item", JSON.stringify({ id: "sim-item" }), { contentType: "application/json", headers: { "x-one": "1" } }),
  Route.bytes("GET https://api.example.com/blob", new Uint8Array([0, 1, 2, 255])),
  Route.status("DELETE https://api.example.com/item", 204),
  Route.status("GET https://api.example.com/teapot", 418, { headers: { "set-cookie": "a=1" } }),
  Route.status("GET https://api.example.com/moved", 302, { headers: { location: "https://api.example.com/item" } }),
  Route.text("GET https://api.example.com/once", "only once", { times: 1 }),
  Route.text("GET https://api.example.com/later", "after a while", { delay: "5 millis" }),
  Route.json("GET https://api.example.com/users/:id", Schema.Struct({ id: Schema.String, age: Schema.Number })),
  Route.handler("GET https://api.example.com/handled", () => new Response("from a handler", { headers: { "x-handled": "yes" } })),
  Route.text("POST https://api.example.com/upload", "stored")
]

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

const send = (base: string, path: string, method = "GET", body?: string) =>
  new Promise<Raw>((resolve, reject) => {
    const request = http.request(`${base}${path}`, { method, agent: false, headers: { "x-test": "lane" } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const { date: _date, ...headers } = response.headers
        resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks).toString("latin1") })
      })
    })
    request.on("error", reject)
    request.end(body)
  })

const serve = async (options: { lane: boolean; report?: LaneReport }) => {
  const network: SimulationNetworkApi = await Effect.runPromise(SimulationNetwork.make({ seed: 7, routes: routes() }))
  const scope = Effect.runSync(Scope.make())
  const layer = serveLayer(network, 0, Layer.empty, { watched: options.lane ? undefined : () => true, report: options.report })
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const server = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
  return { network, base: HttpServer.formatAddress(server.address), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const requests: ReadonlyArray<readonly [string, string, string?]> = [
  ["GET", "/api.example.com/item"],
  ["HEAD", "/api.example.com/item"],
  ["GET", "/api.example.com/item?q=1"],
  ["GET", "/api.example.com/blob"],
  ["DELETE", "/api.example.com/item"],
  ["GET", "/api.example.com/teapot"],
  ["GET", "/api.example.com/moved"],
  ["GET", "/api.example.com/once"],
  ["GET", "/api.example.com/once"],
  ["GET", "/api.example.com/later"],
  ["GET", "/api.example.com/users/1"],
  ["GET", "/api.example.com/users/1"],
  ["GET", "/api.example.com/handled"],
  ["GET", "/api.example.com/nothing?token=secret"],
  ["TRACE", "/api.example.com/item"],
  ["POST", "/api.example.com/upload", "x".repeat(10)],
  ["GET", "/not a host/"]
]

describe("simnet serve's lane", () => {
  it("answers every request with the same status, headers and bytes as the router alone, and logs each once", async () => {
    const lane = await serve({ lane: true })
    const router = await serve({ lane: false })
    try {
      for (const [method, path, body] of requests) {
        const [a, b] = [await send(lane.base, path, method, body), await send(router.base, path, method, body)]
        expect({ method, path, ...a }).toEqual({ method, path, ...b })
      }
      const [laneLog, routerLog] = await Promise.all([Effect.runPromise(lane.network.log), Effect.runPromise(router.network.log)])
      const shape = (log: typeof laneLog) => log.map((r) => [r.method, r.url, r.route?.id ?? r.route?.kind, r.status, r.denial, r.seed])
      expect(shape(laneLog)).toEqual(shape(routerLog))
      // Nothing was dispatched twice: one record per request, but for the path that names no host
      // and the TRACE that undici's rules refuse before any dispatch.
      expect(laneLog.length).toBe(requests.length - 2)
      expect(await Effect.runPromise(lane.network.counters)).toEqual(await Effect.runPromise(router.network.counters))
    } finally {
      await lane.close()
      await router.close()
    }
  })

  it("reports each request it answers itself, with its route; those it hands over are the router's to report", async () => {
    const reported: Array<[string, string, number]> = []
    const { network, base, close } = await serve({ lane: true, report: (request, status) => void reported.push([request.method, request.url, status]) })
    try {
      await send(base, "/api.example.com/item")
      await send(base, "/api.example.com/later")
      await send(base, "/api.example.com/nothing")
      expect(reported).toEqual([["GET", "https://api.example.com/item", 200]])
      expect((await Effect.runPromise(network.log)).map((r) => r.status ?? r.denial)).toEqual([200, 200, "UnregisteredRequest"])
    } finally {
      await close()
    }
  })
})
