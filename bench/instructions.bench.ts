/**
 * A model call's own work as CPU instructions, which this shared machine's load does not move
 * (seconds here drift by a third between runs; `serveCpu`'s ratios by a tenth): valgrind's
 * callgrind counts what `bench/servers/modelCalls.ts` executes, non-streamed OpenAI and Anthropic
 * calls dispatched in process as `simnet serve`'s Node door dispatches them, against the same
 * request answered by a static route (the network's own floor: the request, its route, its answer).
 * Each figure is the count of a run of `FEW + MORE` calls less a run of `FEW`, over `MORE`: what
 * start-up, compiling and warming up cost falls out. V8 runs single-threaded (`--single-threaded`:
 * no compiler or GC thread racing the main one): a model call's count repeats to within about 4%
 * (2 000 instructions a call), the static route's to within about a tenth of its small count.
 *
 * Then the same calls served (`serveCpu`'s measure counted rather than timed): each server of
 * `bench/servers/modelServer.ts` (simnet serve, aimock, and a bare `node:http` server writing
 * simnet's bytes: Node's own share) runs under callgrind with instrumentation off while the
 * official SDK clients warm it up over one pool of 8 kept-alive connections; callgrind then
 * counts the server's user-space instructions over a window of calls (the kernel's share, the
 * same for the three, is not counted: the reason these ratios are wider than `serveCpu`'s). The
 * pool stays open through the window: a connection closed in it (idle past a keep-alive timeout
 * under valgrind's slowness) ran teardown code and its compiles, and read 80 000 instructions a
 * call high. Needs valgrind (`apt-get install valgrind`); without it, says so.
 * `npm run bench -- instructions` (`--quick`: fewer calls).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Agent, fetch as undiciFetch } from "undici"
import { callsAtOnce, sdkCall } from "./servers/sdkCall.ts"

const quick = process.argv.includes("--quick")
const FEW = quick ? 2_000 : 10_000
const MORE = quick ? 8_000 : 20_000

if (spawnSync("valgrind", ["--version"]).status !== 0) {
  console.log("\nmodel call instructions: valgrind is not installed (apt-get install valgrind); nothing measured")
  process.exit(0)
}

/** The instructions callgrind counts for `calls` calls of `kind` (after the loop's own warm-up). */
const count = (kind: string, calls: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      "valgrind",
      [
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        process.execPath,
        "--single-threaded",
        join(import.meta.dirname, "servers", "modelCalls.ts"),
        kind,
        String(calls)
      ],
      { stdio: ["ignore", "ignore", "pipe"] }
    )
    let err = ""
    child.stderr.on("data", (data: Buffer) => (err += data.toString()))
    child.once("error", reject)
    child.once("exit", (code) => {
      const collected = /Collected\s*:\s*(\d+)/.exec(err)?.[1]
      if (code !== 0 || collected === undefined)
        reject(new Error(`callgrind on ${kind} ${calls} exited ${code}: ${err.slice(-400)}`))
      else resolve(Number(collected))
    })
  })

/** Instructions a call: the two runs side by side, one on each core. */
const perCall = async (kind: string): Promise<number> => {
  const [few, more] = await Promise.all([count(kind, FEW), count(kind, FEW + MORE)])
  return (more - few) / MORE
}

console.log(
  `\nmodel call instructions, in process (valgrind callgrind; runs of ${FEW + MORE} calls less runs of ${FEW}, over ${MORE})`
)
const floor = await perCall("static")
console.log(
  `  ${"static route, the same answer".padEnd(34)} ${Math.round(floor).toLocaleString("en-US").padStart(8)} instructions/call`
)
for (const kind of ["openai", "anthropic"]) {
  const own = await perCall(kind)
  console.log(
    `  ${`${kind}, non-streamed model call`.padEnd(34)} ${Math.round(own).toLocaleString("en-US").padStart(8)} instructions/call  ${(own / floor).toFixed(2)}x the static route`
  )
}

/**
 * Served calls: how many warm a server up (uncounted calls are cheap: valgrind runs them without
 * instrumenting; fewer left V8 compiling in the window, 90 000 instructions a call high), and how
 * many the window counts.
 */
const SERVED_WARM = 8_000
const SERVED_CALLS = quick ? 1_000 : 2_000

/** `calls` non-streamed calls of `kind` to `server` at `base`, 8 at a time over `agent`'s connections. */
const sdkCalls = (kind: "openai" | "anthropic", server: string, base: string, agent: Agent) => {
  const fetch = ((input: string, init: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof globalThis.fetch
  const call = sdkCall(kind, server, base, fetch)
  return (calls: number) => callsAtOnce(call, calls, 8)
}

/** The user-space instructions a served call of `kind` costs `server`, counted over a window after the warm-up. */
const servedPerCall = async (server: "simnet" | "aimock" | "bare", kind: "openai" | "anthropic"): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), "simnet-served-"))
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(dir, "cg.out")}`,
      process.execPath,
      "--single-threaded",
      join(import.meta.dirname, "servers", "modelServer.ts"),
      server,
      "200"
    ],
    { stdio: ["ignore", "pipe", "pipe"] }
  )
  let err = ""
  child.stderr.on("data", (data: Buffer) => (err += data.toString()))
  const agent = new Agent({
    connections: 8,
    keepAliveTimeout: 600_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 0,
    bodyTimeout: 0
  })
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = ""
      child.stdout.on("data", (data: Buffer) => {
        out += data.toString()
        const found = /PORT (\d+)/.exec(out)?.[1]
        if (found !== undefined) resolve(found)
      })
      child.once("exit", (code) => reject(new Error(`${server} under callgrind exited ${code}: ${err.slice(-400)}`)))
    })
    const run = sdkCalls(kind, server, `http://127.0.0.1:${port}`, agent)
    const control = (...args: Array<string>) =>
      execFileSync("callgrind_control", [...args, String(child.pid)], { stdio: "ignore" })
    await run(SERVED_WARM)
    control("--instr=on")
    await run(300)
    control("--zero")
    await run(SERVED_CALLS)
    control("--dump=measured")
    const dump = readdirSync(dir)
      .map((name) => readFileSync(join(dir, name), "utf8"))
      .find((text) => /^desc: Trigger: .*measured/m.test(text))
    const total = dump === undefined ? undefined : /^(?:summary|totals): (\d+)/m.exec(dump)?.[1]
    if (total === undefined) throw new Error(`callgrind wrote no count for ${server} ${kind}`)
    return Number(total) / SERVED_CALLS
  } finally {
    child.kill("SIGKILL")
    await agent.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

console.log(
  `\nmodel calls served, server instructions (valgrind callgrind, user space; official SDKs, 8 kept-alive connections; ${SERVED_CALLS} calls counted after ${SERVED_WARM + 300} to warm up)`
)
for (const kind of ["openai", "anthropic"] as const) {
  const [bare, simnet, aimock] = [
    await servedPerCall("bare", kind),
    await servedPerCall("simnet", kind),
    await servedPerCall("aimock", kind)
  ]
  const row = (name: string, n: number) =>
    `  ${`${kind}, ${name}`.padEnd(42)} ${Math.round(n).toLocaleString("en-US").padStart(8)} instructions/call`
  console.log(row("bare node:http, simnet's bytes", bare))
  console.log(
    `${row("simnet serve", simnet)}  ${(aimock / simnet).toFixed(2)}x fewer than aimock; ${Math.round(simnet - bare).toLocaleString("en-US")} above bare`
  )
  console.log(`${row("aimock", aimock)}  ${Math.round(aimock - bare).toLocaleString("en-US")} above bare`)
}
