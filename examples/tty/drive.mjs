// A driver for the terminal agent, as a test runner (or an agent) would write one: it starts
// `simnet run --tty` on a fixture with the REPL as its command, waits for the driver socket's URL
// on standard error, types a question through ui.type and ui.press, waits for the answer with
// ui.wait, quits with Ctrl+C and prints what it saw as one JSON line. Run it where the REPL runs
// (examples/tty/repl.test.ts runs both in a network namespace with loopback only).
//   node examples/tty/drive.mjs FIXTURE TRACE QUESTION EXPECTED
import { spawn } from "node:child_process"
import { once } from "node:events"
import { join } from "node:path"
import WebSocket from "ws"

const [fixture, trace, question, expected] = process.argv.slice(2)
const root = join(import.meta.dirname, "..", "..")
const simnet = spawn(process.execPath, [join(root, "bin", "simnet.js"), "run", "--quiet", "--tty", "--cols", "60", "--rows", "12", "--fixture", fixture, "--trace", trace, "--", process.execPath, join(import.meta.dirname, "repl.mjs")], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
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
await call("ui.wait", { text: "repl ready" })
await call("ui.type", { text: question })
await call("ui.press", { key: "enter" })
const answered = await call("ui.wait", { text: expected, timeoutMs: 10000 })
const exit = once(simnet, "exit")
await call("ui.press", { key: "ctrl+c" })
const [code] = await exit
socket.close()
process.stdout.write(`${JSON.stringify({ answered, code, stderr: err })}\n`)
