/**
 * A program in a pseudo-terminal (`src/terminal/terminal.ts`, the first piece of issue 36): a
 * raw-mode app (`test/fixtures/tty/prompt.mjs`) is typed into and read back as a person sees its
 * screen — text, cursor, size —, keys by name, a resize the app hears, waiting for text or for a
 * still screen, colours, typed errors, and the process killed with its scope; under `simnet run
 * --tty`, the driver socket, the control endpoint and the inspector's live Screen tab.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WebSocket } from "ws"
import { Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { keyBytes, spawnTerminal } from "../src/terminal/terminal.ts"
import { findText } from "../src/terminal/screen.ts"
import { uiCall } from "../src/control/ui.ts"
import { launchSecureChromium } from "./support/chromium.ts"

const app = join(import.meta.dirname, "fixtures", "tty", "prompt.mjs")
const crash = join(import.meta.dirname, "fixtures", "tty", "crash.mjs")
const run = <A, E>(effect: Effect.Effect<A, E, import("effect").Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(effect))

describe("a program in a terminal", () => {
  it("shows what a person sees: typed text, Enter, backspace and arrows as keys, the cursor, colours", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [app], { cols: 40, rows: 10 })
        yield* terminal.wait({ text: "ready" })
        // "hellx", backspace, "o": the screen shows "> hello" only once the backspace is through.
        yield* terminal.type("hellx")
        yield* terminal.press("backspace")
        yield* terminal.type("o")
        const typed = yield* terminal.wait({ text: "> hello" })
        expect(typed.cursor).toEqual({ x: 7, y: 1 })
        yield* terminal.press("enter")
        const answered = yield* terminal.wait({ text: "you typed: hello" })
        expect(answered.lines.slice(0, 4)).toEqual(["ready  bar", "> hello", "you typed: hello", ">"])
        expect(answered).toMatchObject({ cols: 40, rows: 10, cursor: { x: 2, y: 3 } })
        // Colours and attributes, as a person sees them: the true-colour bold banner, the inverse
        // bar (its blanks kept: they are seen), the green prompts (palette 2); plain text unlisted.
        expect(answered.styles).toEqual([
          { y: 0, x: 0, text: "ready", fg: "#ff8800", bold: true },
          { y: 0, x: 6, text: " bar ", inverse: true },
          { y: 1, x: 0, text: ">", fg: 2 },
          { y: 3, x: 0, text: ">", fg: 2 }
        ])
        yield* terminal.press("up")
        yield* terminal.wait({ text: "(up)" })
      })
    )
  })

  it("resizes (the app hears it), waits for a still screen, and ends on Ctrl+C; typing after that fails", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [app], { cols: 40, rows: 10 })
        yield* terminal.wait({ text: "ready" })
        yield* terminal.resize(60, 20)
        const resized = yield* terminal.wait({ text: "size 60x20" })
        expect([resized.cols, resized.rows]).toEqual([60, 20])
        const still = yield* terminal.wait({ quietMs: 100 })
        expect(still.lines.join("\n")).toContain("size 60x20")
        yield* terminal.press("ctrl+c")
        yield* terminal.wait({ text: "bye" })
        expect(yield* terminal.exited).toEqual({ code: 0, signal: undefined })
        expect(terminal.exit()).toEqual({ code: 0, signal: undefined })
        const after = yield* Effect.exit(terminal.type("x"))
        expect(Exit.isFailure(after) && JSON.stringify(after.cause)).toContain("exited")
      })
    )
  })

  it("refuses an unknown key, a bad size and a wait that runs out, each with a typed error that says why", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [app], { cols: 30, rows: 5 })
        yield* terminal.wait({ text: "ready" })
        const key = yield* Effect.flip(terminal.press("hyper+q"))
        expect(key).toMatchObject({ _tag: "TerminalError", reason: "key" })
        expect(key.message).toContain("ctrl+LETTER")
        const size = yield* Effect.flip(terminal.resize(0, 10))
        expect(size).toMatchObject({ _tag: "TerminalError", reason: "size" })
        const waited = yield* Effect.flip(terminal.wait({ text: "never shown", timeoutMs: 150 }))
        expect(waited).toMatchObject({ _tag: "TerminalError", reason: "timeout" })
        expect(waited.message).toContain("ready")
      })
    )
    expect(
      await Effect.runPromise(Effect.flip(Effect.scoped(spawnTerminal(process.execPath, [app], { cols: 5000 }))))
    ).toMatchObject({ reason: "size" })
    const missing = await Effect.runPromise(Effect.flip(Effect.scoped(spawnTerminal("no-such-command-simnet", []))))
    expect(missing).toMatchObject({
      reason: "spawn",
      message: 'simnet: "no-such-command-simnet" was not found on PATH'
    })
  })

  it("kills the program when its scope closes", async () => {
    const terminal = await run(spawnTerminal(process.execPath, ["-e", "setInterval(() => {}, 1000)"]))
    // The scope is closed: the program was killed, and is reaped.
    expect(await Effect.runPromise(terminal.exited)).toMatchObject({ signal: 9 })
    expect(() => process.kill(terminal.pid, 0)).toThrow()
  })

  it("matches a prompt at the end of its line: a text's trailing space is a blank that is there", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [crash], { cols: 40, rows: 6 })
        // The screen's line is "agent>" (trailing blanks are not seen); the cursor sits after the space.
        const shown = yield* terminal.wait({ text: "agent> ", timeoutMs: 20_000 })
        expect(shown.lines[1]).toBe("agent>")
        expect(shown.cursor).toEqual({ x: 7, y: 1 })
        expect(yield* terminal.wait({ text: "ready\nagent> ", timeoutMs: 1_000 })).toMatchObject({ cols: 40 })
        const extra = yield* Effect.flip(terminal.wait({ text: "agent>  x", timeoutMs: 50 }))
        expect(extra.reason).toBe("timeout")
      })
    )
  })

  /**
   * The crashing app under a wait of ten minutes, then the key that ends it (`x`: exit 3; `k`:
   * SIGKILL): the terminal, and what the wait answered (the test's own timeout is far shorter).
   */
  const dying = (key: "x" | "k") =>
    Effect.gen(function* () {
      const terminal = yield* spawnTerminal(process.execPath, [crash], { cols: 40, rows: 6 })
      yield* terminal.wait({ text: "agent> ", timeoutMs: 20_000 })
      const pending = yield* Effect.forkChild(Effect.flip(terminal.wait({ text: "never shown", timeoutMs: 600_000 })))
      yield* terminal.type(key)
      return { terminal, answered: yield* Fiber.join(pending) }
    })

  it("a program that exits while a wait is under way answers it at once, naming the exit and the last screen; every later action is refused the same way", async () => {
    await run(
      Effect.gen(function* () {
        const { terminal, answered } = yield* dying("x")
        expect(answered.reason).toBe("exited")
        expect(answered.message).toBe(
          "simnet: the program exited with code 3; its last screen:\ncrash ready\nagent>\nboom: the agent died"
        )
        expect(terminal.exit()).toEqual({ code: 3, signal: undefined })
        for (const action of [
          terminal.type("y"),
          terminal.press("enter"),
          terminal.resize(50, 10),
          terminal.wait({ quietMs: 10 })
        ]) {
          expect(yield* Effect.flip(action)).toMatchObject({ reason: "exited", message: answered.message })
        }
        // Through the ui.* methods, each call: -32004 with the exit and the last screen in its data.
        for (const [method, params] of [
          ["ui.screen", {}],
          ["ui.type", { text: "y" }],
          ["ui.wait", { text: "boom", quiescent: true }]
        ] as const) {
          const refused = yield* Effect.flip(uiCall(terminal, method, params))
          expect(refused).toMatchObject({
            code: -32004,
            message: answered.message,
            data: {
              reason: "exited",
              exit: { code: 3 },
              screen: { lines: ["crash ready", "agent>", "boom: the agent died", "", "", ""] }
            }
          })
        }
      })
    )
  })

  it("a wait under way when the program dies of a signal sees its last output, and names the signal", async () => {
    await run(
      Effect.gen(function* () {
        const { answered } = yield* dying("k")
        expect(answered.message).toBe(
          "simnet: the program exited with signal 9 (SIGKILL); its last screen:\ncrash ready\nagent>"
        )
      })
    )
  })

  it("names keys as bytes: Enter, arrows, Ctrl+letters", () => {
    expect([keyBytes("enter"), keyBytes("Up"), keyBytes("ctrl+c"), keyBytes("ctrl+d"), keyBytes("nope")]).toEqual([
      "\r",
      "\x1b[A",
      "\x03",
      "\x04",
      undefined
    ])
  })
})

describe("text on a screen, as a person reads it (findText: ui.wait, explore's ready, its properties)", () => {
  const screen = ["  you> hello", "agent>", "done", "", "a   b"]
  it.each([
    ["agent> ", { line: 1, index: 0 }, "a trailing space matches the end of the line"],
    ["you> ", { line: 0, index: 2 }, "and a space that is there"],
    ["agent>   ", { line: 1, index: 0 }, "however many trailing spaces"],
    ["  you", { line: 0, index: 0 }, "leading spaces are matched as they are"],
    ["agent> \ndone\n", { line: 1, index: 0 }, "each line of the text ends its line, each but the first starts one"],
    ["hello\nagent> ", { line: 0, index: 7 }, "across lines"],
    ["a   ", { line: 4, index: 0 }, "spaces inside a line count"],
    ["   ", { line: 0, index: 12 }, "spaces alone match spaces there, else the end of a line"]
  ])("%j is found at %j: %s", (text, place) => {
    expect(findText(screen, text)).toEqual(place)
  })
  it.each([
    ["agent> x", "the line goes on with something else"],
    ["a    b", "more spaces than there are"],
    ["hell\nagent", "a line of the text that does not end its line"],
    ["you> hello\n agent", "nor start one"],
    ["done\n\n\n\n\n", "more lines than the screen has"]
  ])("%j is not found: %s", (text) => {
    expect(findText(screen, text)).toBeUndefined()
  })
})

type Screen = { lines: Array<string>; cursor: { x: number; y: number }; cols: number; rows: number }
type Reply = {
  result?: Screen
  error?: { code: number; message: string; data?: { reason?: string; exit?: unknown; screen?: Screen } }
}

/** Starts `simnet run ARGS` and connects to its driver socket: JSON-RPC calls, the notifications seen, its standard error so far. */
const driven = async (args: ReadonlyArray<string>) => {
  const root = join(import.meta.dirname, "..")
  const child = spawn(process.execPath, [join(root, "bin", "simnet.js"), "run", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let err = ""
  const driverUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (data: Buffer) => {
      err += data.toString()
      const found = /driver: (ws:\/\/\S+)/.exec(err)
      if (found !== null) resolve(found[1]!)
    })
    child.once("exit", () => reject(new Error(err)))
  })
  const socket = new WebSocket(driverUrl)
  await once(socket, "open")
  const notifications: Array<{ method: string; params: any }> = []
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: unknown }
    if (message.id === undefined && message.method !== undefined) notifications.push(message as never)
  })
  let id = 0
  const call = (method: string, params: unknown = {}) =>
    new Promise<Reply>((resolve) => {
      const mine = ++id
      const listen = (data: Buffer) => {
        const reply = JSON.parse(data.toString()) as { id: number }
        if (reply.id !== mine) return
        socket.off("message", listen)
        resolve(reply as never)
      }
      socket.on("message", listen)
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }))
    })
  return { child, socket, driverUrl, call, notifications, err: () => err }
}

describe("simnet run --tty", () => {
  it("runs the command in a terminal the driver socket and the inspector see and types into; the run ends with the command", async () => {
    const trace = join(mkdtempSync(join(tmpdir(), "simnet-tty-")), "trace.jsonl")
    const { child, socket, driverUrl, call, err } = await driven([
      "--quiet",
      "--tty",
      "--cols",
      "40",
      "--rows",
      "10",
      "--trace",
      trace,
      "--",
      process.execPath,
      app
    ])
    // Nothing simnet sets prints into the app (Node's NODE_USE_ENV_PROXY warning included): the
    // screen starts with the app's own first line.
    expect((await call("ui.wait", { text: "ready" })).result?.lines[0]).toBe("ready  bar")
    expect((await call("ui.type", { text: "hello" })).result).toMatchObject({ cols: 40, rows: 10 })
    await call("ui.press", { key: "enter" })
    const answered = await call("ui.wait", { text: "you typed: hello", timeoutMs: 5000 })
    expect(answered.result!.lines.slice(0, 4)).toEqual(["ready  bar", "> hello", "you typed: hello", ">"])
    expect((await call("ui.screen")).result?.cursor).toEqual({ x: 2, y: 3 })
    const bad = await call("ui.press", { key: "hyper+q" })
    expect(bad.error).toMatchObject({ code: -32004, data: { reason: "key" } })
    expect((await call("ui.type", { text: 42 })).error).toMatchObject({ code: -32602, data: { path: "text" } })
    // What is on screen to act on; a click the app enabled no mouse for is refused, naming why.
    expect((await call("ui.interactables")).result).toEqual({
      items: [{ kind: "input", text: "", x: 2, y: 3, width: 38 }]
    })
    expect((await call("ui.click", { text: "hello" })).error).toMatchObject({
      code: -32004,
      message: expect.stringContaining("the app enabled no mouse"),
      data: { reason: "no-mouse" }
    })
    expect((await call("ui.click", { x: 1 })).error).toMatchObject({ code: -32602, data: { path: "y" } })
    // The whole app at rest: no request in flight, and the screen still.
    expect((await call("ui.wait", { quiescent: true, quietMs: 50 })).result?.lines).toContain("you typed: hello")
    // The same through the control endpoint.
    const control = driverUrl.replace(/^ws/, "http").replace(/\/drive$/, "")
    const typed = await fetch(`${control}/ui/type`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "again" })
    })
    expect(typed.status).toBe(200)
    expect(((await (await fetch(`${control}/ui/screen`)).json()) as { lines: Array<string> }).lines).toContain(
      "> again"
    )
    expect(
      ((await (await fetch(`${control}/ui/interactables`)).json()) as { items: Array<{ kind: string }> }).items.map(
        (item) => item.kind
      )
    ).toEqual(["input"])
    expect(
      (
        await fetch(`${control}/ui/press`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ key: "nope" })
        })
      ).status
    ).toBe(409)
    // The inspector's Screen tab, in headless Chromium: the live screen, in its colours, beside
    // the requests; reading it is not an action, so the trace below does not grow.
    const browser = await launchSecureChromium()
    try {
      const page = await browser.newPage()
      await page.goto(`${control}/ui`)
      await page.click("#tab-screen")
      await page.waitForFunction(() => (document.getElementById("screen")?.textContent ?? "").includes("> again"), {
        timeout: 20_000
      })
      expect(await page.$eval("#screen-status", (n) => n.textContent)).toBe("Live: 40×10")
      const banner = await page.$$eval("#screen span", (spans) =>
        spans.map((s) => [s.textContent, (s as HTMLElement).style.color, (s as HTMLElement).style.fontWeight])
      )
      expect(banner).toContainEqual(["ready", "rgb(255, 136, 0)", "700"])
      expect(banner).toContainEqual([">", "rgb(0, 205, 0)", ""])
    } finally {
      await browser.close()
    }
    const exit = once(child, "exit")
    await call("ui.press", { key: "ctrl+c" })
    const [code] = await exit
    socket.close()
    expect(code).toBe(0)
    expect(err()).toContain("runs in a 40x10 terminal")
    expect(err()).toContain(`simnet: ${process.execPath} exited with code 0\n`)
    // Every ui call that acted is in the trace, with the screen after it; looking at the screen
    // (ui.screen, ui.interactables, from either door) and refused calls are not.
    const uiLines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; method?: string; screen?: { lines: Array<string> } })
      .filter((line) => line.type === "control.ui")
    expect(uiLines.map((line) => line.method)).toEqual([
      "ui.wait",
      "ui.type",
      "ui.press",
      "ui.wait",
      "ui.wait",
      "ui.type",
      "ui.press"
    ])
    expect(uiLines[3]!.screen!.lines).toContain("you typed: hello")
  }, 30_000)

  it("a program that crashes under a pending ui.wait: the wait answers with the exit and the last screen, the driver is told, the run says so", async () => {
    const trace = join(mkdtempSync(join(tmpdir(), "simnet-tty-")), "trace.jsonl")
    const { child, socket, driverUrl, call, notifications, err } = await driven([
      "--quiet",
      "--tty",
      "--cols",
      "40",
      "--rows",
      "6",
      "--trace",
      trace,
      "--",
      process.execPath,
      crash
    ])
    const exited = once(child, "exit")
    // The docs' own example: a prompt at the end of its line.
    expect((await call("ui.wait", { text: "agent> ", timeoutMs: 20_000 })).result?.lines.slice(0, 2)).toEqual([
      "crash ready",
      "agent>"
    ])
    // A wait of ten minutes on this socket; the key that crashes the app comes through the control endpoint.
    const waiting = call("ui.wait", { text: "never shown", timeoutMs: 600_000 })
    const control = driverUrl.replace(/^ws/, "http").replace(/\/drive$/, "")
    expect(
      (
        await fetch(`${control}/ui/type`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text: "x" })
        })
      ).status
    ).toBe(200)
    const answer = await waiting
    const lastScreen = ["crash ready", "agent>", "boom: the agent died", "", "", ""]
    expect(answer.error).toMatchObject({
      code: -32004,
      message: "simnet: the program exited with code 3; its last screen:\ncrash ready\nagent>\nboom: the agent died",
      data: { reason: "exited", exit: { code: 3 }, screen: { lines: lastScreen } }
    })
    const [code] = await exited
    socket.close()
    expect(code).toBe(3)
    expect(notifications).toContainEqual({
      jsonrpc: "2.0",
      method: "ui.exit",
      params: { code: 3, screen: expect.objectContaining({ lines: lastScreen }) }
    })
    expect(err()).toContain(
      `simnet: ${process.execPath} exited with code 3; its last screen:\n  | crash ready\n  | agent>\n  | boom: the agent died\n`
    )
    const lines = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string })
    expect(lines).toContainEqual({ type: "terminal.exit", code: 3, screen: lastScreen })
  }, 30_000)
})
