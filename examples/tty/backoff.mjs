// An app that backs off: each key it is given waits 30 s of timers before it is done — 15 s by
// `setTimeout`, then 15 s by `node:timers/promises` — as an agent waits after a 429. Its last line
// says how many waits are pending and done, and how long the last one took by `Date.now()`. On
// real time each key costs 30 s; under `simnet explore --clock virtual` it costs what the app's
// own work does (`examples/tty/clock.test.ts`).
import { setTimeout as sleep } from "node:timers/promises"

let pending = 0
let done = 0
let took = 0
const status = () => process.stdout.write(`\r\x1b[Kpending ${pending}, done ${done}, last took ${took} ms`)
process.stdin.setRawMode(true)
process.stdin.on("data", async (data) => {
  if (data.includes(3)) process.exit(0)
  pending += 1
  status()
  const start = Date.now()
  await new Promise((resolve) => setTimeout(resolve, 15_000))
  await sleep(15_000)
  took = Date.now() - start
  pending -= 1
  done += 1
  status()
})
process.stdout.write("backoff ready\r\n")
status()
