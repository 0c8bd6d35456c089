// simnet's virtual clock inside a Node process (`simnet explore --clock virtual`; the driver is
// `virtualClock.ts`). Loaded before the app with `--import` through NODE_OPTIONS, so every Node
// process of the command (children inherit NODE_OPTIONS) and every worker thread (given the hook
// in its execArgv, below) runs on simnet's clock:
//
// - `Date`, `setTimeout`/`setInterval` and their clears (global, `node:timers` and
//   `node:timers/promises`), `process.hrtime`, `performance.now` and `AbortSignal.timeout` run on
//   one @sinonjs/fake-timers clock; `setImmediate`, `process.nextTick` and microtasks stay real,
//   since libraries yield to I/O with them and a faked one would never run.
// - Time moves only when simnet says so (`{ advanceTo }`), which it does when the whole app is at
//   rest: the timers due run in order, as if that much time had passed.
// - After every timer set or cleared (one report per turn of the loop), and after every advance,
//   the process tells simnet `{ id, now, next }`: its time and its next timer's.
// - A fake timer holds no handle of the event loop's, so while one that is referenced is pending
//   a real one is held, and the process does not exit with timers still armed.
// - A process started late reads the current virtual time from the file simnet keeps
//   (SIMNET_CLOCK_NOW), so it joins at the time the others are at.
//
// Nothing is printed: the app's terminal is the app's. Without SIMNET_CLOCK, it does nothing.
import { createRequire, syncBuiltinESMExports } from "node:module"
import * as net from "node:net"
import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { threadId } from "node:worker_threads"

const socketPath = process.env.SIMNET_CLOCK
if (socketPath !== undefined && socketPath !== "") install(socketPath)

function install(path) {
  const require = createRequire(import.meta.url)
  const FakeTimers = require("@sinonjs/fake-timers")
  const real = {
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
    setImmediate: globalThis.setImmediate
  }
  let start = 0
  try {
    start = Number(readFileSync(process.env.SIMNET_CLOCK_NOW ?? "", "latin1")) || 0
  } catch {
    // No file: the clock's start, as the driver sets it (0 is as good as any for a lone process).
  }
  const clock = FakeTimers.withGlobal(globalThis).install({
    now: start,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "hrtime"],
    // An app's many timers in one advance are not an infinite loop; clearing a timer made before
    // the hook (Node's own) goes to the real clear, without a warning printed into the app.
    loopLimit: 10_000_000,
    shouldClearNativeTimers: true
  })
  // performance.now alone: faking the whole `performance` would replace marks and measures.
  const origin = performance.now()
  performance.now = () => origin + (clock.now - start)
  AbortSignal.timeout = (ms) => {
    const controller = new AbortController()
    clock.setTimeout(
      () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      ms
    )
    return controller.signal
  }

  // Which timers are referenced: fake-timers keeps it on the handle it returns, not on the timer.
  const handles = new Map()
  let keeper
  let reported = false
  const socket = net.connect(path)
  socket.unref()
  socket.on("error", () => {})
  const id = `${process.pid}:${threadId}`
  const next = () => {
    let at = null
    for (const timer of clock.timers?.values() ?? []) if (at === null || timer.callAt < at) at = timer.callAt
    return at
  }
  const report = () => {
    if (reported) return
    reported = true
    real.setImmediate(() => {
      reported = false
      for (const key of handles.keys()) if (!clock.timers?.has(key)) handles.delete(key)
      const held = [...handles.values()].some((handle) => handle.hasRef?.() !== false)
      if (held && keeper === undefined) keeper = real.setInterval(() => {}, 2 ** 31 - 1)
      if (!held && keeper !== undefined) {
        real.clearInterval(keeper)
        keeper = undefined
      }
      if (!socket.destroyed) socket.write(`${JSON.stringify({ id, now: clock.now, next: next() })}\n`)
    })
  }
  // The clock's own methods: the globals, node:timers and node:timers/promises all call them.
  for (const name of ["setTimeout", "setInterval"]) {
    const fake = clock[name]
    clock[name] = (...args) => {
      const handle = fake.apply(clock, args)
      handles.set(Number(handle), handle)
      report()
      return handle
    }
  }
  for (const name of ["clearTimeout", "clearInterval"]) {
    const fake = clock[name]
    clock[name] = (...args) => {
      const done = fake.apply(clock, args)
      report()
      return done
    }
  }

  // A worker thread runs neither NODE_OPTIONS' --import nor one in its execArgv: its code is run
  // after the hook (loaded by require, which takes this module), and it is a participant too.
  const workers = require("node:worker_threads")
  const Worker = workers.Worker
  const hook = JSON.stringify(fileURLToPath(import.meta.url))
  workers.Worker = class extends Worker {
    constructor(file, options = {}) {
      if (options.eval === true) super(`require(${hook});\n${String(file)}`, options)
      else
        super(
          `require(${hook}); import(${JSON.stringify(String(file instanceof URL ? file.href : pathToFileURL(Path.resolve(String(file))).href))})`,
          { ...options, eval: true }
        )
    }
  }
  syncBuiltinESMExports()

  let buffered = ""
  socket.on("connect", report)
  socket.on("data", (data) => {
    buffered += data.toString("latin1")
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      let to
      try {
        to = JSON.parse(line).advanceTo
      } catch {
        continue
      }
      if (typeof to !== "number") continue
      // An exception a timer throws is the app's, uncaught, as it would be on a real clock.
      clock.tickAsync(Math.max(0, to - clock.now)).then(report, (error) => {
        report()
        process.nextTick(() => {
          throw error
        })
      })
    }
  })
}
