/**
 * Input as a person gives it (`src/terminal/keys.ts`, `pointer.ts`, `terminal.ts`): keys by name
 * arrive as the bytes tmux sends for the same keys (function keys, the editing pad, modifiers,
 * application cursor keys); a click arrives in the mouse encoding the program turned on, byte for
 * byte what xterm.js itself reports, and decoded by a mouse app; a paste is bracketed when the
 * program asked; `submit` gets a line past an input box that takes a fast Enter as part of a paste.
 * Bad input — an unknown key, a click with no mouse, outside the screen or at a text not on it, a
 * paste over the limit — is a typed error, and nothing reaches the program.
 */
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Emulator } from "../src/terminal/emulator.ts"
import { keyBytes } from "../src/terminal/keys.ts"
import { clickBytes, pasteBytes } from "../src/terminal/pointer.ts"
import { MAX_PASTE, spawnTerminal, type Terminal } from "../src/terminal/terminal.ts"
import { parseNow, xterm } from "../src/terminal/xterm.ts"
import { startTmux, type TmuxPane, tmuxAvailable } from "./support/tmux.ts"

const fixture = (name: string) => join(import.meta.dirname, "fixtures", "tty", name)
const run = <A, E>(effect: Effect.Effect<A, E, import("effect").Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(effect))

/** Each key: the name `press` takes, and tmux's name for it. */
const FAMILIES: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  "function keys": [
    ["f1", "F1"],
    ["f2", "F2"],
    ["f4", "F4"],
    ["f5", "F5"],
    ["f6", "F6"],
    ["f9", "F9"],
    ["f10", "F10"],
    ["f11", "F11"],
    ["f12", "F12"]
  ],
  "editing pad": [
    ["pageup", "PPage"],
    ["pagedown", "NPage"],
    ["insert", "IC"],
    ["delete", "DC"]
  ],
  arrows: [
    ["up", "Up"],
    ["down", "Down"],
    ["left", "Left"],
    ["right", "Right"]
  ],
  "modified arrows": [
    ["ctrl+up", "C-Up"],
    ["alt+left", "M-Left"],
    ["shift+right", "S-Right"],
    ["ctrl+shift+up", "C-S-Up"],
    ["ctrl+alt+down", "C-M-Down"]
  ],
  "modified keys": [
    ["shift+f5", "S-F5"],
    ["ctrl+f1", "C-F1"],
    ["alt+f4", "M-F4"],
    ["ctrl+home", "C-Home"],
    ["shift+end", "S-End"],
    ["ctrl+pageup", "C-PPage"],
    ["alt+delete", "M-DC"],
    ["shift+tab", "BTab"]
  ],
  "control keys": [
    ["enter", "Enter"],
    ["escape", "Escape"],
    ["backspace", "BSpace"],
    ["tab", "Tab"],
    ["space", "Space"],
    ["alt+enter", "M-Enter"],
    ["alt+backspace", "M-BSpace"]
  ],
  characters: [
    ["ctrl+x", "C-x"],
    ["alt+x", "M-x"],
    ["alt+X", "M-X"],
    ["ctrl+alt+x", "C-M-x"],
    ["ctrl+space", "C-Space"],
    ["Q", "Q"],
    ["/", "/"]
  ]
}

describe.skipIf(!tmuxAvailable)(`keys by name, as tmux sends them${tmuxAvailable ? "" : " (skipped: no tmux)"}`, () => {
  const panes: Array<TmuxPane> = []
  afterAll(async () => {
    for (const pane of panes) await pane.kill()
  })

  /** The bytes (hex) each key arrives as at `keys.mjs`, pressed by simnet and sent by tmux, one key at a time (each read before the next is sent). */
  const arrivals = (keys: ReadonlyArray<readonly [string, string]>, args: ReadonlyArray<string> = []) =>
    run(
      Effect.gen(function* () {
        const pane = yield* Effect.promise(() => startTmux([process.execPath, fixture("keys.mjs"), ...args], 80, 60))
        panes.push(pane)
        const terminal: Terminal = yield* spawnTerminal(process.execPath, [fixture("keys.mjs"), ...args], {
          cols: 80,
          rows: 60
        })
        yield* Effect.promise(() => pane.until((lines) => lines.includes("keys ready")))
        yield* terminal.wait({ text: "keys ready" })
        const read = (lines: ReadonlyArray<string>, n: number) =>
          lines.find((line) => line.startsWith(`${n} got `))?.slice(`${n} got `.length)
        const seen: Array<{ key: string; simnet: string | undefined; tmux: string | undefined }> = []
        for (const [n, [ours, theirs]] of keys.entries()) {
          yield* terminal.press(ours)
          const simnet = read((yield* terminal.wait({ text: `${n + 1} got ` })).lines, n + 1)
          yield* Effect.promise(() => pane.sendKey(theirs))
          const tmux = read(yield* Effect.promise(() => pane.until((lines) => read(lines, n + 1) !== undefined)), n + 1)
          seen.push({ key: ours, simnet, tmux })
        }
        return seen
      })
    )

  it.each(Object.entries(FAMILIES))(
    "%s",
    async (_, keys) => {
      for (const { key, simnet, tmux } of await arrivals(keys))
        expect({ key, bytes: simnet }).toEqual({ key, bytes: tmux })
    },
    120_000
  )

  it("arrows in application cursor keys mode (DECCKM), as SS3 forms", async () => {
    for (const { key, simnet, tmux } of await arrivals(FAMILIES["arrows"]!, ["--decckm"]))
      expect({ key, bytes: simnet }).toEqual({ key, bytes: tmux })
  }, 120_000)
})

describe("keys tmux sends otherwise", () => {
  it("home and end are xterm's CSI H and CSI F (SS3 under DECCKM; tmux sends CSI 1 ~ and CSI 4 ~); ctrl+backspace is BS, as xterm.js sends it", () => {
    expect([
      keyBytes("home"),
      keyBytes("end"),
      keyBytes("home", true),
      keyBytes("end", true),
      keyBytes("ctrl+backspace")
    ]).toEqual(["\x1b[H", "\x1b[F", "\x1bOH", "\x1bOF", "\b"])
  })

  it("an unknown key name is refused, the error listing the keys and modifiers; nothing is sent", async () => {
    for (const name of ["hyper+q", "ctrl+ctrl+x", "f13", "ctrl+1", "shift+"]) expect(keyBytes(name)).toBeUndefined()
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [fixture("keys.mjs")], { cols: 80, rows: 10 })
        yield* terminal.wait({ text: "keys ready" })
        const refused = yield* Effect.flip(terminal.press("hyper+q"))
        expect(refused).toMatchObject({ _tag: "TerminalError", reason: "key" })
        expect(refused.message).toContain("f1-f12")
        expect(refused.message).toContain("ctrl+, alt+ or shift+")
        yield* terminal.press("x")
        expect((yield* terminal.wait({ text: "got" })).lines.filter((line) => line.includes("got"))).toEqual([
          "1 got 78"
        ])
      })
    )
  }, 30_000)
})

/** xterm.js's own report of a left press and release at (x, y) after the program wrote `modes` (its private mouse service). */
const xtermReports = (modes: string, x: number, y: number): Array<string> => {
  const { Terminal } = xterm()
  const terminal = new Terminal({ cols: 300, rows: 300, allowProposedApi: true, logLevel: "off" })
  parseNow(terminal, modes)
  const sent: Array<string> = []
  terminal.onData((data) => sent.push(Buffer.from(data).toString("hex")))
  terminal.onBinary((data) => sent.push(Buffer.from(data, "latin1").toString("hex")))
  const mouse = (terminal as unknown as { _core: { coreMouseService: { triggerMouseEvent: (e: object) => boolean } } })
    ._core.coreMouseService
  for (const action of [1, 0])
    mouse.triggerMouseEvent({ col: x, row: y, button: 0, action, ctrl: false, alt: false, shift: false })
  terminal.dispose()
  return sent
}

describe("a click in the encoding the program turned on", () => {
  it.each([
    ["X10 (9)", "\x1b[?9h"],
    ["normal (1000)", "\x1b[?1000h"],
    ["button motion (1002)", "\x1b[?1002h"],
    ["any motion (1003)", "\x1b[?1003h"],
    ["SGR (1000 + 1006)", "\x1b[?1000h\x1b[?1006h"],
    ["crossterm's set (1000 1002 1003 1015 1006)", "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1015h\x1b[?1006h"],
    ["urxvt (1015, which xterm.js does not do)", "\x1b[?1000h\x1b[?1015h"],
    ["SGR, then 1006 off", "\x1b[?1000h\x1b[?1006h\x1b[?1006l"],
    ["SGR, then a reset (RIS) and 1000 again", "\x1b[?1000h\x1b[?1006h\x1bc\x1b[?1000h"]
  ])("%s: byte for byte what xterm.js reports", (_, modes) => {
    for (const [x, y] of [
      [0, 0],
      [9, 4],
      [150, 200],
      [222, 222],
      [223, 5]
    ] as const) {
      // The modes as simnet's emulator reads them, from a screen the same bytes were written to.
      const emulator = new Emulator(300, 300, { reply: () => {} })
      emulator.feed(modes)
      const ours = clickBytes(emulator.modes(), x, y)
      const theirs = xtermReports(modes, x, y)
      emulator.dispose()
      if (typeof ours === "string") expect({ x, y, theirs }).toEqual({ x, y, theirs: [] })
      else
        expect({
          x,
          y,
          ours: ours.map((bytes) =>
            Buffer.from(bytes as string, typeof bytes === "string" ? "utf8" : undefined).toString("hex")
          )
        }).toEqual({ x, y, ours: theirs })
    }
  })

  it("is decoded by a mouse app in SGR, in xterm's normal form and in X10 (a press only); a click at a text clicks its middle", async () => {
    const expected = {
      sgr: [
        "press left at 6,3 (sgr)",
        "OK clicked",
        "release left at 6,3 (sgr)",
        "press left at 31,11 (sgr)",
        "release left at 31,11 (sgr)"
      ],
      normal: [
        "press left at 6,3 (default)",
        "OK clicked",
        "release at 6,3 (default)",
        "press left at 31,11 (default)",
        "release at 31,11 (default)"
      ],
      x10: ["press left at 6,3 (default)", "OK clicked", "press left at 31,11 (default)"]
    }
    for (const [mode, reports] of Object.entries(expected)) {
      await run(
        Effect.gen(function* () {
          const terminal = yield* spawnTerminal(process.execPath, [fixture("mouse.mjs"), mode], { cols: 40, rows: 12 })
          yield* terminal.wait({ text: `mouse ${mode}` })
          // "[ OK ]" is at columns 3-8 of row 2: its middle is column 5, reported 1-based as 6,3.
          yield* terminal.click({ text: "[ OK ]" })
          yield* terminal.wait({ text: "OK clicked" })
          yield* terminal.click({ x: 30, y: 10 })
          const shown = yield* terminal.wait({ text: reports.at(-1)! })
          expect(shown.lines.filter((line) => /^(press|release|OK)/.test(line))).toEqual(reports)
        })
      )
    }
  }, 60_000)

  it("is refused, with nothing sent, when the app enabled no mouse, outside the screen, past the reach of xterm's normal form, and at a text not on screen", async () => {
    await run(
      Effect.gen(function* () {
        const none = yield* spawnTerminal(process.execPath, [fixture("mouse.mjs"), "none"], { cols: 40, rows: 12 })
        yield* none.wait({ text: "mouse none" })
        const noMouse = yield* Effect.flip(none.click({ text: "[ OK ]" }))
        expect(noMouse).toMatchObject({
          reason: "no-mouse",
          message: expect.stringContaining("the app enabled no mouse")
        })
        const normal = yield* spawnTerminal(process.execPath, [fixture("mouse.mjs"), "normal"], { cols: 300, rows: 12 })
        yield* normal.wait({ text: "mouse normal" })
        expect(yield* Effect.flip(normal.click({ x: 300, y: 0 }))).toMatchObject({
          reason: "outside",
          message: "simnet: (300, 0) is outside the 300x12 screen (columns 0-299, rows 0-11)"
        })
        expect(yield* Effect.flip(normal.click({ x: -1, y: 0 }))).toMatchObject({ reason: "outside" })
        expect(yield* Effect.flip(normal.click({ x: 250, y: 0 }))).toMatchObject({
          reason: "outside",
          message: expect.stringContaining("up to 223")
        })
        expect(yield* Effect.flip(normal.click({ text: "[ Cancel ]" }))).toMatchObject({
          reason: "not-found",
          message: expect.stringContaining('"[ Cancel ]" is not on the screen')
        })
        // Nothing reached either app: their screens show no input.
        yield* normal.type("z")
        expect(
          (yield* normal.wait({ text: "input" })).lines.filter((line) => /press|release|input/.test(line))
        ).toEqual(['input: "z"'])
        yield* none.type("z")
        expect((yield* none.wait({ text: "input" })).lines.filter((line) => /press|release|input/.test(line))).toEqual([
          'input: "z"'
        ])
      })
    )
  }, 60_000)
})

describe("a paste", () => {
  it("is bracketed when the app turned bracketed paste on, line ends as carriage returns, its end marker taken out", async () => {
    expect(pasteBytes("a\nb\r\nc", false)).toBe("a\rb\rc")
    expect(pasteBytes("x\x1b[201~y", true)).toBe("\x1b[200~xy\x1b[201~")
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [fixture("mouse.mjs"), "none"], { cols: 60, rows: 12 })
        yield* terminal.wait({ text: "mouse none" })
        expect(terminal.modes()).toMatchObject({ bracketedPaste: true, mouse: "none" })
        yield* terminal.paste("two\nlines")
        yield* terminal.wait({ text: 'paste: "two\\rlines"' })
      })
    )
  }, 30_000)

  it("is typed when the app did not ask for bracketed paste; one over the limit is refused with nothing sent", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [fixture("mouse.mjs"), "none", "--no-paste"], {
          cols: 60,
          rows: 12
        })
        yield* terminal.wait({ text: "mouse none" })
        expect(terminal.modes().bracketedPaste).toBe(false)
        const refused = yield* Effect.flip(terminal.paste("x".repeat(MAX_PASTE + 1)))
        expect(refused).toMatchObject({
          reason: "too-large",
          message: `simnet: a paste of ${MAX_PASTE + 1} characters is over the limit of ${MAX_PASTE}; nothing was sent`
        })
        yield* terminal.paste("plain")
        expect(
          (yield* terminal.wait({ text: "input" })).lines.filter(
            (line) => line.startsWith("input") || line.startsWith("paste")
          )
        ).toEqual(['input: "plain"'])
      })
    )
  }, 30_000)
})

describe("submit", () => {
  it("submits a line to an input box that takes a fast Enter as part of a paste, where a line and Enter written together do not", async () => {
    await run(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [fixture("burst.mjs")], { cols: 60, rows: 12 })
        yield* terminal.wait({ text: "burst ready" })
        // Written in one go, the Enter comes with the text: the box takes it as a new line.
        yield* terminal.type("fast\r")
        yield* terminal.wait({ text: "> fast⏎" })
        yield* terminal.press("ctrl+u")
        yield* terminal.submit("What is the capital of France?")
        const shown = yield* terminal.wait({ text: "submitted:" })
        expect(shown.lines).toContain("submitted: What is the capital of France?")
      })
    )
  }, 30_000)
})
