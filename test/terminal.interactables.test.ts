/**
 * Interactables read from real screens (`src/terminal/interactables.ts`): small programs draw a
 * menu, a dialog with buttons, footers of key hints, links and form fields in a terminal, and what
 * `interactables` finds there is what a person would act on, at the cells they would click (wide
 * characters taking two). Screens that only look interactive — a table with brackets, title and
 * status bars, bullet lists — give nothing, and it is a pure function of the screen.
 */
import { join } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Emulator } from "../src/terminal/emulator.ts"
import { type Interactable, interactables, selectKeys } from "../src/terminal/interactables.ts"
import { spawnTerminal } from "../src/terminal/terminal.ts"

const screens = join(import.meta.dirname, "fixtures", "tty", "screens.mjs")

/** A text on each screen: once it is shown, all of the screen is (each is drawn in one write). */
const SHOWS: Readonly<Record<string, string>> = {
  themed: "Commands",
  menu: "Settings",
  dialog: "Delete 3 files?",
  footer: "some output",
  links: "Docs:",
  form: "Sign up",
  table: "ID   NAME",
  status: "main.ts — simnet"
}

/** What `interactables` finds on the screen `screens.mjs NAME` draws in a 60×16 terminal. */
const found = (name: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [screens, name], { cols: 60, rows: 16 })
        const screen = yield* terminal.wait({ text: SHOWS[name]! })
        const { items } = terminal.interactables()
        // A pure function of the screen: the screen's value alone gives the same items.
        expect(interactables(screen).items).toEqual(items)
        return items
      })
    )
  )

const kinds = (items: ReadonlyArray<Interactable>, kind: Interactable["kind"]) =>
  items.filter((item) => item.kind === kind)

describe("interactables on real screens", () => {
  it("menus: a highlighted row in a list, and a row led by a pointer its neighbours lack; a bullet list is not one", async () => {
    const items = await found("menu")
    expect(items).toEqual([
      { kind: "menu-item", text: "Theme", x: 2, y: 1, width: 5, selected: false },
      { kind: "menu-item", text: "Model", x: 3, y: 2, width: 5, selected: true },
      { kind: "menu-item", text: "Permissions", x: 2, y: 3, width: 11, selected: false },
      { kind: "menu-item", text: "Logout", x: 2, y: 4, width: 6, selected: false },
      { kind: "menu-item", text: "1. Yes, allow once", x: 2, y: 7, width: 18, selected: true },
      { kind: "menu-item", text: "2. No, and tell me what to do", x: 2, y: 8, width: 29, selected: false }
    ])
    // Selecting by keys: from the selected row to the target, then Enter.
    expect(selectKeys(items, items[3]!)).toEqual(["down", "down", "enter"])
    expect(selectKeys(items, items[0]!)).toEqual(["up", "enter"])
    expect(selectKeys(items, items[5]!)).toEqual(["down", "enter"])
  }, 30_000)

  it("a themed app that paints every cell: its selection is the row on another background; chords, a dialog's esc, a composer with a bar down its side; its footer is no button bar", async () => {
    expect(await found("themed")).toEqual([
      { kind: "key-hint", text: "esc", x: 57, y: 0, width: 3, key: "escape" },
      { kind: "menu-item", text: "Share session", x: 2, y: 2, width: 13, selected: true },
      { kind: "key-hint", text: "ctrl+x s", x: 29, y: 2, width: 8, key: "ctrl+x s" },
      { kind: "menu-item", text: "Switch session", x: 2, y: 3, width: 14, selected: false },
      { kind: "key-hint", text: "ctrl+x l", x: 29, y: 3, width: 8, key: "ctrl+x l" },
      { kind: "menu-item", text: "New session", x: 2, y: 4, width: 11, selected: false },
      { kind: "key-hint", text: "ctrl+x n", x: 29, y: 4, width: 8, key: "ctrl+x n" },
      { kind: "input", text: "Ask anything…", x: 5, y: 6, width: 55 },
      { kind: "key-hint", text: "tab agents", x: 5, y: 7, width: 10, key: "tab" },
      { kind: "key-hint", text: "ctrl+p commands", x: 17, y: 7, width: 15, key: "ctrl+p" }
    ])
  }, 30_000)

  it("a dialog: bracketed, angled and padded buttons, radios and a check box with their labels, a bar of labels with one lit, a button after wide characters", async () => {
    expect(await found("dialog")).toEqual([
      { kind: "button", text: "[ OK ]", x: 4, y: 3, width: 6 },
      { kind: "button", text: "< Cancel >", x: 13, y: 3, width: 10 },
      { kind: "button", text: "(•) Always", x: 4, y: 4, width: 10 },
      { kind: "button", text: "( ) Never", x: 17, y: 4, width: 9 },
      { kind: "button", text: "[x] Keep a backup", x: 4, y: 5, width: 17 },
      { kind: "button", text: "Yes", x: 6, y: 8, width: 3, selected: true },
      { kind: "button", text: "No", x: 15, y: 8, width: 2, selected: false },
      { kind: "button", text: "Maybe", x: 22, y: 8, width: 5, selected: false },
      // "日本 " takes five cells: the button starts at column 5, and its own wide text takes four.
      { kind: "button", text: "[ 確認 ]", x: 5, y: 10, width: 8 }
    ])
  }, 30_000)

  it("key hints in footers, each with the key press takes: ctrl+, ^X, M-U, ⌃T, ⇧⏎, F-keys, and esc or enter where set apart; a word in prose is not one", async () => {
    const hints = kinds(await found("footer"), "key-hint").map(({ text, key, x, y }) => ({ text, key, x, y }))
    expect(hints).toEqual([
      { text: "enter to continue", key: "enter", x: 6, y: 2 },
      { text: "⏎ send", key: "enter", x: 0, y: 4 },
      { text: "⇧⏎ newline", key: "shift+enter", x: 9, y: 4 },
      { text: "⌃T transcript", key: "ctrl+t", x: 22, y: 4 },
      { text: "ctrl-c quit", key: "ctrl+c", x: 38, y: 4 },
      { text: "^G Help", key: "ctrl+g", x: 0, y: 5 },
      { text: "^O Write Out", key: "ctrl+o", x: 9, y: 5 },
      { text: "^X Exit", key: "ctrl+x", x: 23, y: 5 },
      { text: "M-U Undo", key: "alt+u", x: 32, y: 5 },
      { text: "F1Help", key: "f1", x: 0, y: 13 },
      { text: "F2Setup", key: "f2", x: 8, y: 13 },
      { text: "F10Quit", key: "f10", x: 17, y: 13 },
      { text: "ctrl+p commands", key: "ctrl+p", x: 18, y: 14 },
      { text: "esc to cancel", key: "escape", x: 36, y: 14 },
      { text: "tab complete", key: "tab", x: 0, y: 15 },
      { text: "enter", key: "enter", x: 17, y: 15 },
      { text: "end", key: "end", x: 27, y: 15 }
    ])
  }, 30_000)

  it("links: OSC 8 hyperlinks (one link across two styles) with their targets, bare URLs without the sentence's punctuation", async () => {
    expect(kinds(await found("links"), "link")).toEqual([
      { kind: "link", text: "the manual", x: 6, y: 0, width: 10, href: "https://example.com/docs" },
      { kind: "link", text: "https://example.org/help", x: 20, y: 0, width: 24, href: "https://example.org/help" },
      {
        kind: "link",
        text: "https://en.wikipedia.org/wiki/Foo_(bar)",
        x: 5,
        y: 1,
        width: 39,
        href: "https://en.wikipedia.org/wiki/Foo_(bar)"
      },
      { kind: "link", text: "http://localhost:8080/x", x: 0, y: 2, width: 23, href: "http://localhost:8080/x" },
      { kind: "link", text: "styled file", x: 2, y: 3, width: 11, href: "file:///tmp/a.txt" }
    ])
  }, 30_000)

  it("inputs: the cursor's field after a prompt, an underlined field, a field of underscores", async () => {
    expect(await found("form")).toEqual([
      { kind: "input", text: "", x: 7, y: 1, width: 12 },
      { kind: "input", text: "", x: 7, y: 2, width: 14 },
      { kind: "input", text: "hel", x: 7, y: 4, width: 53 }
    ])
  }, 30_000)

  it("nothing where nothing is to act on: a table with brackets and log lines (only the shell prompt's field), title and status bars", async () => {
    expect(await found("table")).toEqual([{ kind: "input", text: "", x: 2, y: 9, width: 58 }])
    expect(await found("status")).toEqual([])
  }, 30_000)

  it("a hostile screen (1 000×200 of brackets, links, hints, styles on every other cell, wide characters) gives a bounded list of items inside the screen", () => {
    const emulator = new Emulator(1_000, 200, { reply: () => {} })
    const pieces = [
      "[ OK ] ",
      "<x> ",
      "(•) a ",
      "\x1b[7m y \x1b[0m",
      "\x1b[44mz\x1b[0m",
      "https://e.x/(a) ",
      "\x1b]8;;https://l.x\x1b\\l\x1b]8;;\x1b\\ ",
      "ctrl+p go · ",
      "^X Exit ",
      "❯ ",
      "日本 ",
      "____ ",
      "\x1b[4m   \x1b[0m",
      "│ "
    ]
    let seed = 7
    let text = ""
    for (let i = 0; i < 40_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      text += pieces[seed % pieces.length]
    }
    emulator.feed(text)
    const screen = emulator.screen()
    const { items } = interactables(screen)
    expect(items.length).toBeGreaterThan(0)
    expect(items.length).toBeLessThanOrEqual(500)
    for (const item of items) {
      expect(item.x + item.width <= screen.cols && item.y < screen.rows && item.x >= 0, JSON.stringify(item)).toBe(true)
    }
    emulator.dispose()
  }, 60_000)
})
