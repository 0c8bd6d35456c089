/**
 * `simnet serve` requests/second for a static JSON route over loopback, 32 keep-alive
 * connections, against a bare `node:http` server in its own process writing the same bytes (the
 * floor) and, when installed, `mockttp` serving the same route. The load generator is written
 * here: a bounded number of requests (`--quick`: fewer), 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as http from "node:http"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const quick = process.argv.includes("--quick")
const REQUESTS = quick ? 5_000 : 40_000
const CONNECTIONS = 32
const BODY = JSON.stringify({ id: "sim-item", name: "Simulated item" })

const load = async (port: number, path: string): Promise<number> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const one = () =>
    new Promise<void>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path, agent }, (res) => {
        res.resume()
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))))
      }).on("error", reject)
    })
  let next = 0
  const worker = async () => {
    while (next < REQUESTS) {
      next++
      await one()
    }
  }
  for (let i = 0; i < 500; i++) await one()
  next = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  const rate = (REQUESTS * 1000) / (performance.now() - start)
  agent.destroy()
  return rate
}

const started = (child: ChildProcess, pattern: RegExp) =>
  new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = pattern.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)))
  })

const dir = mkdtempSync(join(tmpdir(), "simnet-bench-"))
const fixture = join(dir, "static.json")
writeFileSync(fixture, JSON.stringify({ routes: [{ id: "item", match: "GET https://api.example.com/item", respond: { kind: "text", body: BODY, contentType: "application/json" } }] }))

const floorSource = `const http = require("node:http"); const body = Buffer.from(${JSON.stringify(BODY)});
const s = http.createServer((q, r) => { r.writeHead(200, { "content-type": "application/json", "content-length": body.length }); r.end(body) });
s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port))`

const results: Array<{ name: string; rate: number }> = []
const simnet = spawn(process.execPath, ["bin/simnet.js", "serve", "--port", "0", "--quiet", "--fixture", fixture], { stdio: ["ignore", "pipe", "inherit"] })
const floor = spawn(process.execPath, ["-e", floorSource], { stdio: ["ignore", "pipe", "inherit"] })
try {
  const simnetPort = await started(simnet, /127\.0\.0\.1:(\d+)\/HOST/)
  const floorPort = await started(floor, /port (\d+)/)
  results.push({ name: "node:http floor (own process)", rate: await load(floorPort, "/item") })
  results.push({ name: "simnet serve", rate: await load(simnetPort, "/api.example.com/item") })
  try {
    const mockttp = await import("mockttp" as string)
    const server = mockttp.getLocal()
    await server.start()
    await server.forGet("/item").thenReply(200, BODY, { "content-type": "application/json" })
    results.push({ name: "mockttp (same process as the load)", rate: await load(server.port, "/item") })
    await server.stop()
  } catch {
    console.log("mockttp: not installed here (no registry access); not measured")
  }
  console.log("@mockoon/cli: not installed here (no registry access); not measured")
} finally {
  simnet.kill("SIGTERM")
  floor.kill("SIGTERM")
}
const simnetRate = results.find((r) => r.name === "simnet serve")!.rate
console.log(`\nserve bench: ${REQUESTS} GETs of a static JSON route, ${CONNECTIONS} keep-alive connections over 127.0.0.1`)
for (const r of results) console.log(`  ${r.name.padEnd(38)} ${r.rate.toFixed(0).padStart(8)} req/s   simnet/this ${(simnetRate / r.rate).toFixed(2)}x`)
