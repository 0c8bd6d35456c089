/**
 * One answer, many doors: every door renders the network's answer (`registry/answer.ts`) alike.
 * The same routes are asked the same requests through `fetch`, `HttpClient` and the Node door
 * (`simnet serve`, over a real socket): status, headers and bytes agree; a refusal is the same
 * typed error in each door's own form; a request is dispatched and logged exactly once; a client
 * that goes away is logged as interrupted; the server's watchers see every request.
 */
import * as http from "node:http"
import { Effect, Exit, Fiber, Layer, Schema, Scope } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpServer from "effect/http/HttpServer"
import { describe, expect, it } from "vitest"
import { type DoorRequest, serveLayer } from "../src/serve/serve.ts"
import { Route, SimulationNetwork, type SimulationNetworkApi } from "simnet"

const encoder = new TextEncoder()

/** A body that arrives in three parts, the last after the route's signal is free to abort it. */
const streamedBody = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("data: one\n\n"))
      controller.enqueue(encoder.encode("data: two\n\n"))
      queueMicrotask(() => {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"))
        controller.close()
      })
    }
  })

const routes = () => [
  Route.text("GET https://api.example.com/item", JSON.stringify({ id: "sim-item" }), {
    contentType: "application/json",
    headers: { "x-one": "1" }
  }),
  Route.bytes("GET https://api.example.com/blob", new Uint8Array([0, 1, 2, 255])),
  Route.status("DELETE https://api.example.com/item", 204),
  Route.status("GET https://api.example.com/teapot", 418, { headers: { "set-cookie": "a=1" } }),
  Route.status("GET https://api.example.com/moved", 302, { headers: { location: "https://api.example.com/item" } }),
  Route.text("GET https://api.example.com/once", "only once", { times: 1 }),
  Route.text("GET https://api.example.com/later", "after a while", { delay: "5 millis" }),
  Route.json("GET https://api.example.com/users/:id", Schema.Struct({ id: Schema.String, age: Schema.Number })),
  Route.handler(
    "GET https://api.example.com/handled",
    () => new Response("from a handler", { headers: { "x-handled": "yes" } })
  ),
  Route.handler("GET https://api.example.com/promised", async () => new Response("promised", { status: 201 })),
  Route.handler("GET https://api.example.com/effect", () =>
    Effect.succeed(new Response("from an effect", { status: 202 }))
  ),
  Route.handler(
    "GET https://api.example.com/stream",
    () => new Response(streamedBody(), { headers: { "content-type": "text/event-stream" } })
  ),
  Route.handler("GET https://api.example.com/throws", () => {
    throw new Error("the handler broke")
  }),
  Route.handler(
    "POST https://api.example.com/echo",
    (request) => new Response(`got ${request.text()}`, { headers: { "content-type": "text/plain" } })
  ),
  Route.text("POST https://api.example.com/upload", "stored")
]

const requests: ReadonlyArray<readonly [string, string, string?]> = [
  ["GET", "/item"],
  ["HEAD", "/item"],
  ["GET", "/item?q=1"],
  ["GET", "/blob"],
  ["DELETE", "/item"],
  ["GET", "/teapot"],
  ["GET", "/moved"],
  ["GET", "/once"],
  ["GET", "/once"],
  ["GET", "/later"],
  ["GET", "/users/1"],
  ["GET", "/users/1"],
  ["GET", "/handled"],
  ["GET", "/promised"],
  ["GET", "/effect"],
  ["GET", "/stream"],
  ["GET", "/throws"],
  ["GET", "/nothing?token=secret"],
  ["POST", "/echo", JSON.stringify({ hello: "world" })],
  ["POST", "/upload", "x".repeat(10)]
]

/** What a client sees of one exchange, in a form every door can give: an answer, or a refusal's tag. */
type Seen =
  | { readonly status: number; readonly headers: Record<string, string>; readonly body: Array<number> }
  | { readonly refused: string }

/** Headers a door adds by itself (a socket's framing and date): not the route's. */
const FRAMING = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"])

const headersOf = (entries: Iterable<[string, string]>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of entries) if (!FRAMING.has(name)) out[name] = value
  return out
}

const network = () => Effect.runPromise(SimulationNetwork.make({ seed: 7, routes: routes() }))

const viaFetch = async (
  net: SimulationNetworkApi,
  [method, path, body]: readonly [string, string, string?]
): Promise<Seen> => {
  try {
    const response = await net.fetch(`https://api.example.com${path}`, {
      method,
      body,
      redirect: "manual",
      headers: body === undefined ? {} : { "content-type": "text/plain" }
    })
    return {
      status: response.status,
      headers: headersOf(response.headers),
      body: Array.from(new Uint8Array(await response.arrayBuffer()))
    }
  } catch (error) {
    return { refused: ((error as TypeError).cause as { _tag: string })._tag }
  }
}

const viaHttpClient = (
  net: SimulationNetworkApi,
  [method, path, body]: readonly [string, string, string?]
): Promise<Seen> =>
  Effect.runPromise(
    Effect.gen(function* () {
      let request = HttpClientRequest.make(method as "GET")(`https://api.example.com${path}`)
      if (body !== undefined) request = HttpClientRequest.bodyText(request, body, "text/plain")
      const response = yield* net.httpClient.execute(request)
      const bytes = method === "HEAD" ? new ArrayBuffer(0) : yield* response.arrayBuffer
      return {
        status: response.status,
        headers: headersOf(Object.entries(response.headers)),
        body: Array.from(new Uint8Array(bytes))
      } as Seen
    }).pipe(
      Effect.catchTag("HttpClientError", (error) =>
        Effect.succeed({
          refused: (error.reason as { cause?: { _tag?: string } }).cause?._tag ?? error.reason._tag
        } as Seen)
      ),
      Effect.provideService(HttpClient.TracerDisabledWhen, () => true)
    )
  )

const viaNode = (base: string, [method, path, body]: readonly [string, string, string?]) =>
  new Promise<Seen>((resolve, reject) => {
    const request = http.request(
      `${base}/api.example.com${path}`,
      { method, agent: false, headers: body === undefined ? {} : { "content-type": "text/plain" } },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const bytes = Buffer.concat(chunks)
          const refusal = response.headers["x-simnet-refusal"]
          if (response.statusCode === 502 && typeof refusal === "string") {
            // The tag is in the body too, but for a HEAD, whose answer has none.
            if (method !== "HEAD")
              expect((JSON.parse(bytes.toString()) as { error: { tag: string } }).error.tag).toBe(refusal)
            return resolve({ refused: refusal })
          }
          const headers: Array<[string, string]> = []
          for (let i = 0; i < response.rawHeaders.length; i += 2)
            headers.push([response.rawHeaders[i].toLowerCase(), response.rawHeaders[i + 1]])
          resolve({ status: response.statusCode!, headers: headersOf(headers), body: Array.from(bytes) })
        })
      }
    )
    request.on("error", reject)
    request.end(body)
  })

const served = async (watched: Array<DoorRequest & { status?: number; ended?: boolean }> = []) => {
  const net = await network()
  const scope = Effect.runSync(Scope.make())
  const layer = serveLayer(net, 0, Layer.empty, {
    watch: [
      (request) => {
        const seen: DoorRequest & { status?: number; ended?: boolean } = { ...request }
        watched.push(seen)
        return { head: (status) => void (seen.status = status), end: () => void (seen.ended = true) }
      }
    ]
  })
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const server = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
  return {
    net,
    base: HttpServer.formatAddress(server.address),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const shape = (
  log: ReadonlyArray<{
    method: string
    url: string
    route?: { id?: string; kind: string } | undefined
    status?: number | undefined
    denial?: string | undefined
    seed?: number | undefined
  }>
) => log.map((r) => [r.method, r.url, r.route?.id ?? r.route?.kind, r.status, r.denial, r.seed])

describe("one answer, many doors", () => {
  it("fetch, HttpClient and the Node door render every answer alike: status, headers, bytes, refusals; each request logged once", async () => {
    const [viaF, viaC] = [await network(), await network()]
    const node = await served()
    try {
      for (const request of requests) {
        const [f, c, n] = [
          await viaFetch(viaF, request),
          await viaHttpClient(viaC, request),
          await viaNode(node.base, request)
        ]
        const label = request.slice(0, 2).join(" ")
        expect({ label, ...c }).toEqual({ label, ...f })
        expect({ label, ...n }).toEqual({ label, ...f })
      }
      const logs = await Promise.all([viaF, viaC, node.net].map((net) => Effect.runPromise(net.log)))
      expect(logs[0].length).toBe(requests.length)
      expect(shape(logs[1])).toEqual(shape(logs[0]))
      expect(shape(logs[2])).toEqual(shape(logs[0]))
      expect(logs[0].find((r) => r.url.includes("/throws"))?.denial).toBe("RouteFailed")
    } finally {
      await node.close()
    }
  })

  it("the Node door hands the client's headers (less host, repeats joined) to whatever reads them: a header matcher, a handler, the log, a watcher", async () => {
    const watched: Array<DoorRequest> = []
    const node = await served(watched)
    try {
      await Effect.runPromise(
        node.net.register(
          Route.handler(
            { method: "POST", url: "https://api.example.com/team", headers: { "x-team": "blue" } },
            (request) =>
              new Response(
                JSON.stringify({
                  team: request.headers.get("x-team"),
                  host: request.headers.get("host"),
                  tags: request.headers.get("x-tag")
                }),
                { headers: { "content-type": "application/json" } }
              )
          )
        )
      )
      const ask = (team: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = http.request(
            `${node.base}/api.example.com/team`,
            {
              method: "POST",
              agent: false,
              headers: ["host", "127.0.0.1", "x-team", team, "x-tag", "a", "x-tag", "b", "content-type", "text/plain"]
            },
            (response) => {
              let body = ""
              response.on("data", (chunk: Buffer) => (body += chunk.toString()))
              response.on("end", () => resolve({ status: response.statusCode!, body }))
            }
          )
          request.on("error", reject)
          request.end("x")
        })
      const blue = await ask("blue")
      expect(blue.status).toBe(200)
      expect(JSON.parse(blue.body)).toEqual({ team: "blue", host: null, tags: "a, b" })
      expect((await ask("red")).status).toBe(502)
      const log = await Effect.runPromise(node.net.log)
      const logged = log
        .filter((record) => record.url === "https://api.example.com/team")
        .map((record) => record.headers)
      expect(logged.map((headers) => [headers["x-team"], headers["x-tag"], headers.host])).toEqual([
        ["blue", "a, b", undefined],
        ["red", "a, b", undefined]
      ])
      expect(
        watched
          .filter((request) => request.url === "https://api.example.com/team")
          .map((request) => [request.headers["x-team"], request.headers.host])
      ).toEqual([
        ["blue", undefined],
        ["red", undefined]
      ])
    } finally {
      await node.close()
    }
  })

  it("a client that goes away while its answer is pending is logged as interrupted, by every door", async () => {
    const hanging = () => Route.text("GET https://api.example.com/hang", "never", { delay: "1 hour" })
    const interrupted = async (net: SimulationNetworkApi) => {
      for (let i = 0; i < 100; i++) {
        const log = await Effect.runPromise(net.log)
        if (log[0]?.denial !== undefined) return log[0].denial
        await new Promise((resolve) => setImmediate(resolve))
      }
      return "still pending"
    }
    const f = await Effect.runPromise(SimulationNetwork.make({ routes: [hanging()] }))
    const controller = new AbortController()
    const fetched = f.fetch("https://api.example.com/hang", { signal: controller.signal })
    controller.abort()
    await expect(fetched).rejects.toMatchObject({ name: "AbortError" })
    expect(await interrupted(f)).toBe("Interrupted")

    const c = await Effect.runPromise(SimulationNetwork.make({ routes: [hanging()] }))
    const fiber = Effect.runFork(c.httpClient.get("https://api.example.com/hang"))
    await new Promise((resolve) => setImmediate(resolve))
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await interrupted(c)).toBe("Interrupted")

    const node = await served()
    try {
      await Effect.runPromise(node.net.register(hanging()))
      const request = http.request(`${node.base}/api.example.com/hang`, { agent: false })
      request.on("error", () => undefined)
      request.end()
      for (let i = 0; i < 100 && (await Effect.runPromise(node.net.log)).length === 0; i++)
        await new Promise((resolve) => setImmediate(resolve))
      request.destroy()
      expect(await interrupted(node.net)).toBe("Interrupted")
    } finally {
      await node.close()
    }
  })

  it("tells its watchers of every request, refused or answered, with the body it was sent", async () => {
    const watched: Array<DoorRequest & { status?: number; ended?: boolean }> = []
    const node = await served(watched)
    try {
      await viaNode(node.base, ["GET", "/item"])
      await viaNode(node.base, ["GET", "/later"])
      await viaNode(node.base, ["GET", "/nothing"])
      await viaNode(node.base, ["POST", "/echo", "hi"])
      await viaNode(node.base, ["GET", "/stream"])
      expect(
        watched.map((w) => [
          w.method,
          w.url,
          w.status,
          w.ended,
          w.body === undefined ? undefined : new TextDecoder().decode(w.body)
        ])
      ).toEqual([
        ["GET", "https://api.example.com/item", 200, true, undefined],
        ["GET", "https://api.example.com/later", 200, true, undefined],
        ["GET", "https://api.example.com/nothing", 502, true, undefined],
        ["POST", "https://api.example.com/echo", 200, true, "hi"],
        ["GET", "https://api.example.com/stream", 200, true, undefined]
      ])
    } finally {
      await node.close()
    }
  })
})
