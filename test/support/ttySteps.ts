/**
 * Drives a terminal app through fixed steps, as a person at its keyboard would: starts
 * `simnet run --tty` with the arguments after `--`, reads the driver socket's URL from its standard
 * error, sends the driver calls of STEPS (a JSON array of `{ method, params }`, in order, stopping
 * at the first error), then says whether the app still ran, ends it with Ctrl+C (twice, then a
 * SIGTERM to simnet if it stays) and prints one JSON line: each step's reply, the exit (if the app
 * ended before the steps did), and simnet's standard error. Run it where the app runs (inside the
 * test's network namespace).
 *   node test/support/ttySteps.ts STEPS_JSON -- SIMNET_RUN_ARGS...
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { join } from "node:path"
import WebSocket from "ws"

const dash = process.argv.indexOf("--")
const steps = JSON.parse(process.argv[2]) as ReadonlyArray<{ readonly method: string; readonly params?: unknown }>
const simnet = spawn(
  process.execPath,
  [join(import.meta.dirname, "..", "..", "bin", "simnet.js"), "run", "--tty", ...process.argv.slice(dash + 1)],
  { stdio: ["ignore", "ignore", "pipe"] }
)
let stderr = ""
let exited: { readonly code: number | null; readonly signal: string | null } | undefined
const ended = once(simnet, "exit").then(([code, signal]) => {
  exited = { code: code as number | null, signal: signal as string | null }
})
const url = await new Promise<string>((resolve, reject) => {
  simnet.stderr.on("data", (data: Buffer) => {
    stderr += data.toString()
    const found = /driver: (ws:\/\/\S+)/.exec(stderr)
    if (found !== null) resolve(found[1])
  })
  void ended.then(() => reject(new Error(`simnet run ended before its driver was up: ${stderr}`)))
})
const socket = new WebSocket(url)
await once(socket, "open")
let id = 0
/** One driver call; an app that ends first answers it with that. */
const call = (method: string, params: unknown = {}) =>
  Promise.race([
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const mine = ++id
      const listen = (data: Buffer) => {
        const reply = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: unknown }
        if (reply.id !== mine) return
        socket.off("message", listen)
        resolve(reply)
      }
      socket.on("message", listen)
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }))
    }),
    ended.then(() => ({ error: { message: "the app ended", exit: exited } }))
  ])
const replies: Array<{
  readonly method: string
  readonly params?: unknown
  readonly result?: unknown
  readonly error?: unknown
}> = []
for (const step of steps) {
  const reply = await call(step.method, step.params)
  replies.push({ ...step, ...reply })
  if (reply.error !== undefined) break
}
const running = exited === undefined
if (running) {
  await call("ui.press", { key: "ctrl+c" })
  const second = setTimeout(() => void call("ui.press", { key: "ctrl+c" }), 1_000)
  const stop = setTimeout(() => simnet.kill("SIGTERM"), 5_000)
  await ended
  clearTimeout(second)
  clearTimeout(stop)
}
socket.close()
process.stdout.write(`${JSON.stringify({ replies, running, stderr })}\n`)
