/**
 * A flood of CONNECTs to new hosts beside plain requests (issue 54): `simnet serve` answers a
 * plain route (`/api.example.com/ping`, one request at a time on a kept-alive connection) while
 * another process opens tunnels to host names it never saw (`h1.flood.test:443`, `h2…`), each
 * a certificate to sign and a TLS handshake to make. The plain route's latency percentiles are
 * printed without the flood and with it, side by side with a bare Node server in a process of its
 * own answering the same request at the same time (what the machine gives any server under that
 * load), and the ratios between them. simnet, the bare server, the flood and this prober are four
 * processes, so no one's work is counted in another's latency but through the machine.
 *
 * Run: npm run bench -- connectFlood [--quick] [--simnet DIR] (`--simnet`: another checkout's
 * `bin/simnet.js` to measure, with this one's dependencies: how a before figure is taken)
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

const QUICK = process.argv.includes("--quick")
const PROBES = QUICK ? 1_500 : 5_000
const CONCURRENCY = 32
const root = join(import.meta.dirname, "..")
const at = process.argv.indexOf("--simnet")
const simnetBin = at === -1 ? join(root, "bin", "simnet.js") : join(process.argv[at + 1]!, "bin", "simnet.js")
const dir = mkdtempSync(join(tmpdir(), "simnet-connect-flood-"))
const fixture = join(dir, "fixture.json")
writeFileSync(
  fixture,
  JSON.stringify({ routes: [{ match: "GET https://api.example.com/ping", respond: { kind: "text", body: "pong" } }] })
)

const children: Array<ChildProcess> = []
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

/** Starts a Node child and resolves with the first match of `ready` in its output. */
const start = async (
  args: ReadonlyArray<string>,
  ready: RegExp,
  env: Record<string, string> = {}
): Promise<{ readonly child: ChildProcess; readonly found: RegExpExecArray }> => {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let out = ""
  const found = await new Promise<RegExpExecArray>((resolve, reject) => {
    const look = (data: Buffer) => {
      out += data.toString()
      const match = ready.exec(out)
      if (match !== null) resolve(match)
    }
    child.stdout!.on("data", look)
    child.stderr!.on("data", look)
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  return { child, found }
}

/** The bare server: Node's own, answering every request with `pong`. */
const BARE = `require("node:http").createServer((req, res) => res.end("pong")).listen(0, "127.0.0.1", function () { console.log("port " + this.address().port) })`

/**
 * The flood: CONNECT to a new host name, a TLS handshake inside the tunnel (any certificate
 * taken), closed; `CONCURRENCY` at once, until killed; the count of handshakes on SIGTERM.
 */
const FLOOD = `
const http = require("node:http"), tls = require("node:tls")
const port = Number(process.argv[1]); let n = 0, done = 0
const one = () => {
  const host = "h" + (++n) + ".flood.test"
  const req = http.request({ host: "127.0.0.1", port, method: "CONNECT", path: host + ":443", agent: false })
  req.once("connect", (_res, socket) => {
    const secure = tls.connect({ socket, servername: host, rejectUnauthorized: false })
    secure.once("secureConnect", () => { done++; secure.destroy(); one() })
    secure.once("error", () => { secure.destroy(); one() })
  })
  req.once("error", () => one())
  req.end()
}
for (let i = 0; i < ${CONCURRENCY}; i++) one()
process.on("SIGTERM", () => { console.log("handshakes " + done); process.exit(0) })
console.log("flooding")
`

const simnet = await start(
  [simnetBin, "serve", "--port", "0", "--quiet", "--fixture", fixture],
  /driver:\s+ws:\/\/127\.0\.0\.1:(\d+)/,
  { SIMNET_CA_DIR: join(dir, "ca") }
)
const simnetPort = Number(simnet.found[1])
const bare = await start(["-e", BARE], /port (\d+)/)
const barePort = Number(bare.found[1])

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = (port: number, path: string) =>
  new Promise<void>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent }, (res) => {
        res.resume()
        res.once("end", resolve)
      })
      .once("error", reject)
  })

/** The latencies of `count` requests, one at a time, to each of `ports`, interleaved: milliseconds, per port. */
const probe = async (
  targets: ReadonlyArray<readonly [number, string]>,
  count: number
): Promise<Array<Array<number>>> => {
  const times = targets.map(() => [] as Array<number>)
  for (let i = 0; i < count; i++) {
    for (let t = 0; t < targets.length; t++) {
      const [port, path] = targets[t]!
      const begun = performance.now()
      await get(port, path)
      times[t]!.push(performance.now() - begun)
    }
  }
  return times
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
const summary = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! }
}
const ms = (n: number) => n.toFixed(2).padStart(8)

const targets = [
  [simnetPort, "/api.example.com/ping"],
  [barePort, "/ping"]
] as const
// Warm-up: connections made, code compiled, the CA made (its first host signed).
await probe(targets, 300)
const quiet = await probe(targets, PROBES)
const flood = await start(["-e", FLOOD, String(simnetPort)], /flooding/)
const floodStarted = performance.now()
// The flood under way before the probes count.
await probe(targets, 100)
const flooded = await probe(targets, PROBES)
flood.child.kill("SIGTERM")
const [said] = (await once(flood.child.stdout!, "data")) as [Buffer]
const handshakes = Number(/handshakes (\d+)/.exec(said.toString())?.[1] ?? 0)
const floodSeconds = (performance.now() - floodStarted) / 1000

const rows = [
  ["simnet, no flood", summary(quiet[0]!)],
  ["bare Node, no flood", summary(quiet[1]!)],
  ["simnet, flood", summary(flooded[0]!)],
  ["bare Node, beside the flood", summary(flooded[1]!)]
] as const
console.log(
  `a plain route's latency beside a flood of CONNECTs to new hosts (node ${process.version}; ${PROBES} requests each, one at a time, simnet and a bare Node server interleaved; the flood ${CONCURRENCY} tunnels at once: ${handshakes} handshakes in ${floodSeconds.toFixed(1)} s, ${Math.round(handshakes / floodSeconds)}/s)`
)
console.log(`  ${"".padEnd(28)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)}`)
for (const [name, s] of rows) console.log(`  ${name.padEnd(28)} ${ms(s.p50)} ${ms(s.p99)} ${ms(s.max)}`)
const [, , simnetFlood, bareFlood] = rows.map(([, s]) => s)
const simnetQuiet = rows[0][1]
console.log(
  `  simnet p99 with the flood / without: ${(simnetFlood!.p99 / simnetQuiet.p99).toFixed(2)}x; simnet / bare Node beside the flood: p50 ${(simnetFlood!.p50 / bareFlood!.p50).toFixed(2)}x, p99 ${(simnetFlood!.p99 / bareFlood!.p99).toFixed(2)}x, max ${(simnetFlood!.max / bareFlood!.max).toFixed(2)}x`
)
agent.destroy()
for (const child of children) child.kill("SIGTERM")
