/**
 * `simnet serve` always stops: a client that goes away interrupts its request, closing the
 * server's scope never waits on requests in flight, SIGTERM and SIGINT exit 0 promptly, and big
 * uploads are not kept.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { Effect, Exit, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { describe, expect, it } from "vitest"
import { serveLayer } from "../../src/serve/serve.ts"
import { Route, SimulationNetwork } from "simnet"

const routes = [
  Route.fault("GET https://api.example.com/hang", "timeout"),
  Route.text("GET https://api.example.com/slow", "late", { delay: "60 seconds" }),
  Route.text("POST https://api.example.com/upload", "stored")
]

const fixture = () => {
  const file = join(mkdtempSync(join(tmpdir(), "simnet-stop-")), "fixture.json")
  writeFileSync(
    file,
    JSON.stringify({
      routes: [
        { match: "GET https://api.example.com/hang", respond: { kind: "fault", fault: "timeout" } },
        { match: "GET https://api.example.com/slow", respond: { kind: "text", body: "late" }, delayMs: 60_000 },
        { match: "POST https://api.example.com/upload", respond: { kind: "text", body: "stored" } }
      ]
    })
  )
  return file
}

/** Starts a request and leaves it in flight; returns a function that drops its connection. */
const inFlight = (base: string, path: string, options: { method?: string; stall?: boolean } = {}) => {
  const request = http.request(`${base}${path}`, {
    method: options.method ?? "GET",
    agent: false,
    headers: options.stall ? { "content-type": "application/json", "content-length": "1000000" } : {}
  })
  request.on("error", () => undefined)
  if (options.stall) request.write('{"partial": ')
  else request.end()
  return () => request.destroy()
}

/** A full collection on demand (vitest runs without --expose-gc), so the heap figures below do not depend on when V8 chose to collect. */
v8.setFlagsFromString("--expose-gc")
const collect = vm.runInNewContext("gc") as () => void

const serveInProcess = async () => {
  const network = await Effect.runPromise(SimulationNetwork.make({ routes }))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(network, 0), scope))
  const server = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
  const base = HttpServer.formatAddress(server.address)
  return { network, base, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("simnet serve in process", () => {
  it("a client that gives up interrupts its request: hanging, delayed and stalled uploads are logged as Interrupted", async () => {
    const { network, base, close } = await serveInProcess()
    const drops = [
      inFlight(base, "/api.example.com/hang"),
      inFlight(base, "/api.example.com/slow"),
      inFlight(base, "/api.example.com/upload", { method: "POST", stall: true })
    ]
    await expect.poll(async () => (await Effect.runPromise(network.log)).length, { timeout: 3_000 }).toBe(2)
    for (const drop of drops) drop()
    await expect
      .poll(async () => (await Effect.runPromise(network.log)).map((r) => r.denial), { timeout: 3_000 })
      .toEqual(["Interrupted", "Interrupted"])
    // The stalled upload never reached the network: its body never ended. The hang is a timeout
    // fault (what its client saw), the delayed answer a request denied by its interruption.
    const counters = await Effect.runPromise(network.counters)
    expect(counters).toMatchObject({ requests: 2, answered: 0, denied: 1, faulted: 1 })
    expect((await Effect.runPromise(network.log)).map((r) => r.fault)).toEqual(["timeout", undefined])
    await close()
  })

  it("closing the scope with requests in flight finishes promptly", async () => {
    const { network, base, close } = await serveInProcess()
    inFlight(base, "/api.example.com/hang")
    inFlight(base, "/api.example.com/slow")
    inFlight(base, "/api.example.com/upload", { method: "POST", stall: true })
    // In flight: the network has the two whose heads it read (the upload's body never ends).
    await expect.poll(async () => (await Effect.runPromise(network.log)).length, { timeout: 3_000 }).toBe(2)
    // Closing does not wait for them: a 60 s delay and a hang would outlast the test's timeout.
    await close()
  })

  it("fifteen 20 MB uploads leave no body in the log and the heap comes back", async () => {
    const { network, base, close } = await serveInProcess()
    const body = Buffer.alloc(20 * 1024 * 1024, 97)
    collect()
    const before = process.memoryUsage()
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${base}/api.example.com/upload`, { method: "POST", body })
      expect(await response.text()).toBe("stored")
    }
    const log = await Effect.runPromise(network.log)
    expect(log.map((r) => r.body?.size)).toEqual(Array(15).fill(body.length))
    expect(log.every((r) => r.body!.preview.length <= 256)).toBe(true)
    // One body kept would be 20 MB, fifteen 300 MB; after full collections the heap is back within
    // slack. On a loaded machine the last connection's buffers take a few turns to be released, so
    // the heap is read again (after a collection) until it is back, for at most 3 s.
    const grown = async () => {
      collect()
      await new Promise((resolve) => setImmediate(resolve))
      collect()
      const after = process.memoryUsage()
      return after.arrayBuffers + after.heapUsed - before.arrayBuffers - before.heapUsed
    }
    await expect.poll(grown, { timeout: 3_000, interval: 100 }).toBeLessThan(15 * 1024 * 1024)
    await close()
  }, 60_000)
})

describe("simnet serve as a process", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s exits 0 promptly with a hanging, a delayed and a stalled-upload request in flight",
    async (signal) => {
      const child = spawn(process.execPath, ["bin/simnet.js", "serve", "--port", "0", "--fixture", fixture()], {
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
      child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d))
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", () => {
          const m = /network:\s+(http:\/\/127\.0\.0\.1:\d+)\/HOST\/PATH/.exec(out)
          if (m) resolve(m[1])
        })
        child.on("exit", (code) => reject(new Error(`simnet serve exited with ${code}: ${out}`)))
      })
      inFlight(base, "/api.example.com/hang")
      inFlight(base, "/api.example.com/slow")
      inFlight(base, "/api.example.com/upload", { method: "POST", stall: true })
      // A client that gave up earlier must not leave the process deaf to signals either.
      inFlight(base, "/api.example.com/hang")()
      // In flight: the network's log has the hang and the delayed request.
      const logged = async () =>
        (
          (await (await fetch(`${base}/experimental/simulation/network/log`)).json()) as {
            records: ReadonlyArray<{ url: string }>
          }
        ).records.map((r) => r.url)
      await expect
        .poll(logged, { timeout: 5_000 })
        .toEqual(expect.arrayContaining(["https://api.example.com/hang", "https://api.example.com/slow"]))
      // The exit does not wait for them: a 60 s delay would outlast the test's timeout.
      child.kill(signal)
      const [code] = await once(child, "exit")
      expect({ code, out: code === 0 ? "" : out }).toEqual({ code: 0, out: "" })
    },
    20_000
  )
})
