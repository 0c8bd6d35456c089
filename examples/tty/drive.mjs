// A driver for a terminal agent, as a test runner (or an agent) would write one: it starts
// `simnet run --tty` on a fixture with the agent as its command (the REPL beside this file unless
// one is given after --), waits for the driver socket's URL on standard error, waits for READY on
// screen, types a question through ui.type and ui.press, waits for the answer with ui.wait and the
// whole app at rest, quits with Ctrl+C (a SIGTERM to simnet if the agent stays), and prints what
// it saw as one JSON line. Run it where the agent runs (examples/tty/repl.test.ts and
// test/opencode.tui.test.ts run both in a network namespace with loopback only).
//   node examples/tty/drive.mjs FIXTURE TRACE QUESTION EXPECTED [READY [COLSxROWS]] [-- COMMAND ARGS...]
import { spawn } from "node:child_process"
import { once } from "node:events"
import { join } from "node:path"
import WebSocket from "ws"

const dash = process.argv.indexOf("--")
const [fixture, trace, question, expected, ready = "repl ready", size = "60x12"] = process.argv.slice(
  2,
  dash < 0 ? undefined : dash
)
const command = dash < 0 ? [process.execPath, join(import.meta.dirname, "repl.mjs")] : process.argv.slice(dash + 1)
const [cols, rows] = size.split("x")
const root = join(import.meta.dirname, "..", "..")
const simnet = spawn(
  process.execPath,
  [
    join(root, "bin", "simnet.js"),
    "run",
    "--quiet",
    "--tty",
    "--cols",
    cols,
    "--rows",
    rows,
    "--fixture",
    fixture,
    "--trace",
    trace,
    "--",
    ...command
  ],
  { stdio: ["ignore", "ignore", "pipe"] }
)
let err = ""
const driverUrl = await new Promise((resolve, reject) => {
  simnet.stderr.on("data", (data) => {
    err += data.toString()
    const found = /driver: (ws:\/\/\S+)/.exec(err)
    if (found !== null) resolve(found[1])
  })
  simnet.once("exit", () => reject(new Error(err)))
})
const socket = new WebSocket(driverUrl)
await once(socket, "open")
let id = 0
const call = (method, params = {}) =>
  new Promise((resolve) => {
    const mine = ++id
    const listen = (data) => {
      const reply = JSON.parse(data.toString())
      if (reply.id !== mine) return
      socket.off("message", listen)
      resolve(reply)
    }
    socket.on("message", listen)
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }))
  })
const started = await call("ui.wait", { text: ready, timeoutMs: 30000 })
await call("ui.type", { text: question })
await call("ui.press", { key: "enter" })
const answered = await call("ui.wait", { text: expected, timeoutMs: 30000 })
const rest = await call("ui.wait", { quiescent: true, quietMs: 300, timeoutMs: 10000 })
const exit = once(simnet, "exit")
await call("ui.press", { key: "ctrl+c" })
// An agent that asks for a second Ctrl+C gets it; one that stays after that is ended through simnet.
const second = setTimeout(() => void call("ui.press", { key: "ctrl+c" }), 1000)
const stop = setTimeout(() => simnet.kill("SIGTERM"), 5000)
const [code, signal] = await exit
clearTimeout(second)
clearTimeout(stop)
socket.close()
process.stdout.write(`${JSON.stringify({ started, answered, rest, code, signal, stderr: err })}\n`)
