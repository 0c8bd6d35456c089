/**
 * A long soak (issue 31): 100 000 requests through `simnet serve`'s server (control endpoint,
 * inspector and lane as the command line mounts them), a third answered by a route, a third model
 * calls, a third refused, every URL new. With the log capped, the heap after a full GC stays
 * within a few MB between 20 000 and 100 000 requests: nothing grows per request but the
 * occurrence counts determinism needs (`registry/keyCounts.ts`, at most 24 bytes a distinct key).
 */
import * as http from "node:http"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Effect, Exit, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { describe, expect, it } from "vitest"
import { Route, SimulationNetwork } from "simnet"
import { serveLayer } from "../src/serve/serve.ts"
import { controlRuntime } from "../src/control/runtime.ts"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

/** The heap after full collections, in MB. */
const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

describe("a soak of 100 000 requests", () => {
  it("keeps the heap after GC within a few MB between 20 000 and 100 000 requests", async () => {
    const network = await Effect.runPromise(
      SimulationNetwork.make({
        routes: [
          Route.text("GET https://api.example.com/items/:id", "item"),
          ...(await import("simnet")).Routes.openai()
        ],
        llmRules: [
          { id: "any", match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: "hello" }]] } }
        ],
        logLimit: 1_000
      })
    )
    const scope = Effect.runSync(Scope.make())
    const control = await Effect.runPromise(Scope.provide(controlRuntime(network, { quiet: true }), scope))
    const layer = serveLayer(network, 0, control.routes, { watch: control.watch })
    const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
    const server = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
    const port = (server.address as { port: number }).port
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
    const one = (i: number) =>
      new Promise<number>((resolve, reject) => {
        const kind = i % 3
        const request = http.request(
          {
            agent,
            host: "127.0.0.1",
            port,
            method: kind === 1 ? "POST" : "GET",
            path:
              kind === 0
                ? `/api.example.com/items/${i}`
                : kind === 1
                  ? "/api.openai.com/v1/chat/completions"
                  : `/api.example.com/missing/${i}`,
            headers: kind === 1 ? { "content-type": "application/json" } : {}
          },
          (response) => {
            response.resume()
            response.on("end", () => resolve(response.statusCode!))
          }
        )
        request.on("error", reject)
        request.end(
          kind === 1
            ? JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: `hello ${i}` }] })
            : undefined
        )
      })
    const heap: Array<number> = []
    const statuses = new Map<number, number>()
    try {
      for (let i = 0; i < 100_000; i += 16) {
        for (const status of await Promise.all(Array.from({ length: 16 }, (_, k) => one(i + k))))
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if ((i + 16) % 20_000 === 0) heap.push(heapAfterGc())
      }
    } finally {
      agent.destroy()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 66_667, 502: 33_333 })
    expect((await Effect.runPromise(network.counters)).answered).toBe(66_667)
    expect(heap).toHaveLength(5)
    console.log(`soak: heap after GC at 20k..100k requests: ${heap.map((mb) => mb.toFixed(1)).join(", ")} MB`)
    expect(heap[4]! - heap[0]!).toBeLessThan(4)
  }, 180_000)
})
