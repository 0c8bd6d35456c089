/**
 * Model calls over loopback, server CPU per call (issue 38): `simnet serve` against aimock
 * (`@copilotkit/aimock`), each in a process of its own, driven by the official `openai` and
 * `@anthropic-ai/sdk` clients from this process (keep-alive, 8 concurrent), non-streamed and
 * streamed (a 200-word answer, pacing off). The measure is calls per server CPU-second, read from
 * each server process (on two cores the SDK client is the bottleneck, so wall rates of two fast
 * servers come out near 1×); wall calls per second are printed too. Rounds interleave the two
 * servers; the spread over rounds is printed. `npm run bench -- serveCpu` (`--quick`: fewer calls).
 */
import { fork, type ChildProcess } from "node:child_process"
import { join } from "node:path"
import { callsAtOnce, type Kind, sdkCall } from "./servers/sdkCall.ts"

const quick = process.argv.includes("--quick")
/**
 * Short rounds, many of them: this shared machine's speed drifts over seconds, and a ratio of two
 * rounds run far apart measured the drift (rounds of 2 000 calls gave ratios from 0.5× to 2× for
 * one pair of servers). Rounds of 500 calls, alternating, give each ratio two rounds run side by
 * side; the total work is what it was (9 rounds of 2 000 calls, 4 of them to warm up).
 */
const CALLS = quick ? 250 : 500
const ROUNDS = quick ? 20 : 36
/** Rounds run and dropped first: a server's JIT and heap settle over several thousand calls. */
const WARMUP_ROUNDS = quick ? 12 : 16
const CONCURRENCY = 8

interface Server {
  readonly name: string
  readonly child: ChildProcess
  readonly base: string
  readonly cpu: () => Promise<number>
}

const start = (name: "simnet" | "aimock"): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = fork(join(import.meta.dirname, "servers", "modelServer.ts"), [name, "200"], {
      stdio: ["ignore", "pipe", "inherit", "ipc"]
    })
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)))
    let out = ""
    child.stdout!.on("data", (data: Buffer) => {
      out += data.toString()
      const port = /PORT (\d+)/.exec(out)?.[1]
      if (port === undefined) return
      const cpu = () =>
        new Promise<number>((done) => {
          child.once("message", (message) => done((message as { readonly cpu: number }).cpu))
          child.send("cpu")
        })
      resolve({ name, child, base: `http://127.0.0.1:${port}`, cpu })
    })
  })

const KINDS: ReadonlyArray<Kind> = ["openai", "openai stream", "anthropic", "anthropic stream"]

/** One round: `CALLS` calls, 8 at a time; the server's CPU microseconds and the wall milliseconds it took. */
const round = async (server: Server, call: () => Promise<void>) => {
  const cpu = await server.cpu()
  const started = performance.now()
  await callsAtOnce(call, CALLS, CONCURRENCY)
  const wall = performance.now() - started
  return { cpuUs: (await server.cpu()) - cpu, wallMs: wall }
}

const servers = [await start("simnet"), await start("aimock")]
console.log(
  `\nmodel calls over loopback, server CPU per call (${CALLS} calls a round, ${CONCURRENCY} concurrent, ${ROUNDS} rounds interleaved after ${WARMUP_ROUNDS} to warm up; medians, and the median of the rounds' ratios with their spread)`
)
console.log(
  `  ${"call".padEnd(17)} ${"server".padEnd(7)} ${"calls/server-CPU-s".padStart(19)} ${"µs CPU/call".padStart(12)} ${"wall calls/s".padStart(13)}`
)
for (const kind of KINDS) {
  const calls = servers.map((server) => sdkCall(kind, server.name, server.base))
  for (let w = 0; w < WARMUP_ROUNDS; w++) for (const [i, server] of servers.entries()) await round(server, calls[i]!)
  const rates: Array<Array<number>> = servers.map(() => [])
  const walls: Array<Array<number>> = servers.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const { cpuUs, wallMs } = await round(servers[i]!, calls[i]!)
      rates[i]!.push(CALLS / (cpuUs / 1e6))
      walls[i]!.push(CALLS / (wallMs / 1e3))
    }
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const [i, server] of servers.entries()) {
    const rate = median(rates[i]!)
    console.log(
      `  ${kind.padEnd(17)} ${server.name.padEnd(7)} ${rate.toFixed(0).padStart(19)} ${(1e6 / rate).toFixed(0).padStart(12)} ${median(walls[i]!).toFixed(0).padStart(13)}`
    )
  }
  const ratios = rates[0]!.map((rate, r) => rate / rates[1]![r]!).sort((a, b) => a - b)
  const quartile = (q: number) => ratios[Math.round(q * (ratios.length - 1))]!.toFixed(2)
  console.log(
    `  ${kind.padEnd(17)} simnet/aimock per server CPU-s: ${median(ratios).toFixed(2)}x (middle half of rounds ${quartile(0.25)}–${quartile(0.75)}x, all ${quartile(0)}–${quartile(1)}x); wall ${(median(walls[0]!) / median(walls[1]!)).toFixed(2)}x`
  )
}
for (const server of servers) server.child.kill()
