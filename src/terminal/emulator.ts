/**
 * The screen of a program, kept by a headless terminal emulator (`@xterm/headless`) that simnet
 * contains: whatever the program writes cannot take simnet down with it.
 *
 * - Output is parsed as it comes (`xterm.ts`'s `parseNow`), inside a `try`. When the emulator
 *   throws — `@xterm/headless` 6.0.0 does, on a resize storm, xterm.js#6063 — the screen is
 *   serialized, a fresh emulator of the same size is built from it, the output it was parsing is
 *   parsed again there (where it was cut off is not known: a full-screen program's redraw comes
 *   out right, a line of scrolling output before the failure may show twice), and the exception is
 *   kept as a failure of simnet's own (`failures`, and `onFailure`), never thrown at the process.
 *   A resize or a read that throws is contained the same way.
 * - The emulator keeps 1 000 rows of scrollback. Without any, xterm.js loses the rows a shrink
 *   pushes off the top, grows back with blank rows where a real terminal (tmux) pulls them back,
 *   and turns reflow off; that is also where #6063 bites.
 * - The program's queries are answered, as a real terminal answers them: the cursor position
 *   (DSR 6), device attributes (DA1, DA2), modes (DECRQM), the size in characters (XTWINOPS 18),
 *   and the default colours (OSC 10, 11, 12: white on black). A program that waits for an answer
 *   (Codex asks where the cursor is after a resize) is not left waiting. SGR-pixel mouse reports
 *   (DECRQM 1016) are answered as not supported: a headless screen has no pixels.
 * - The modes a program turns on are read from the emulator (mouse tracking, bracketed paste,
 *   application cursor keys); the mouse encoding (SGR, 1006) has no public reading and is tracked
 *   from the mode switches the program writes.
 */
import type * as Xterm from "@xterm/headless"
import type { StyledRun, TerminalScreen } from "./screen.ts"
import { linkOf, parseNow, type SerializeAddon, xterm } from "./xterm.ts"

/** An exception of the emulator's, contained: while it did what (`output` parsed, a `resize`, a `read` of the screen), and its message. */
export interface EmulatorFailure {
  readonly during: "output" | "resize" | "read"
  readonly message: string
}

/** How mouse reports are written: xterm's single-byte form (`default`), SGR (1006), or SGR in pixels (1016). */
export type MouseEncoding = "default" | "sgr" | "sgr-pixels"

/**
 * The input modes a program has turned on: which mouse events it asked for (`none` when it asked
 * for none; `x10`: presses only), their encoding, bracketed paste (2004) and application cursor
 * keys (DECCKM).
 */
export interface TerminalModes {
  readonly mouse: "none" | "x10" | "vt200" | "drag" | "any"
  readonly mouseEncoding: MouseEncoding
  readonly bracketedPaste: boolean
  readonly applicationCursorKeys: boolean
}

/** The rows of scrollback the emulator keeps (see the module's comment). */
const SCROLLBACK = 1_000
/** The failures kept (a program that breaks the emulator on every write must not grow memory). */
const MAX_FAILURES = 100

/** The colours the terminal says it has: white on black, a white cursor (OSC 10, 11, 12). */
const COLOURS: Readonly<Record<number, string>> = {
  10: "rgb:ffff/ffff/ffff",
  11: "rgb:0000/0000/0000",
  12: "rgb:ffff/ffff/ffff"
}

/** A cell's colour: its palette index, `#rrggbb`, or undefined for the default. */
const colourOf = (palette: boolean, rgb: boolean, value: number): number | string | undefined =>
  palette ? value : rgb ? `#${value.toString(16).padStart(6, "0")}` : undefined

type Style = Omit<StyledRun, "x" | "y" | "text">

/** A cell's style as a `StyledRun` without its place and text; undefined when it is all default. */
const styleOf = (terminal: Xterm.Terminal, cell: Xterm.IBufferCell): Style | undefined => {
  if (cell.isAttributeDefault()) return undefined
  const fg = colourOf(cell.isFgPalette(), cell.isFgRGB(), cell.getFgColor())
  const bg = colourOf(cell.isBgPalette(), cell.isBgRGB(), cell.getBgColor())
  const href = linkOf(terminal, cell)
  const style = {
    ...(fg === undefined ? {} : { fg }),
    ...(bg === undefined ? {} : { bg }),
    ...(cell.isBold() ? { bold: true as const } : {}),
    ...(cell.isDim() ? { dim: true as const } : {}),
    ...(cell.isItalic() ? { italic: true as const } : {}),
    ...(cell.isUnderline() ? { underline: true as const } : {}),
    ...(cell.isInverse() ? { inverse: true as const } : {}),
    ...(cell.isStrikethrough() ? { strikethrough: true as const } : {}),
    ...(href === undefined ? {} : { href })
  }
  return Object.keys(style).length === 0 ? undefined : style
}

/** The screen's lines, trailing blanks trimmed (whether never written or written over: a backspace leaves one), read at the active screen (`baseY`). */
const linesOf = (terminal: Xterm.Terminal): Array<string> => {
  const buffer = terminal.buffer.active
  return Array.from({ length: terminal.rows }, (_, y) =>
    (buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? "").trimEnd()
  )
}

/** The screen's lines and styled runs (see `linesOf`). */
const read = (terminal: Xterm.Terminal): { lines: Array<string>; styles: Array<StyledRun> } => {
  const buffer = terminal.buffer.active
  const styles: Array<StyledRun> = []
  const cell = buffer.getNullCell()
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y)
    if (line === undefined) continue
    let open: { x: number; key: string; style: Style; text: string } | undefined
    const close = () => {
      if (open === undefined) return
      // Blank cells are seen only through a background, a selection or a line under them; else
      // trailing ones go.
      const shaded = open.style.bg !== undefined || open.style.inverse === true || open.style.underline === true
      const text = shaded ? open.text : open.text.trimEnd()
      if (text !== "") styles.push({ y, x: open.x, text, ...open.style })
      open = undefined
    }
    for (let x = 0; x < terminal.cols; x++) {
      if (line.getCell(x, cell) === undefined || cell.getWidth() === 0) continue
      const style = styleOf(terminal, cell)
      const key = style === undefined ? "" : JSON.stringify(style)
      if (open !== undefined && open.key !== key) close()
      if (style === undefined) continue
      open ??= { x, key, style, text: "" }
      open.text += cell.getChars() || " "
    }
    close()
  }
  return { lines: linesOf(terminal), styles }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 500)

/** What an `Emulator` is told: where its answers to the program go, and of each failure it contains. */
export interface EmulatorOptions {
  /** Writes the emulator's answers to the program (a Buffer for X10 mouse bytes, which are not UTF-8). */
  readonly reply: (data: string | Buffer) => void
  readonly onFailure?: ((failure: EmulatorFailure) => void) | undefined
  /** Rows of scrollback (default 1 000); 0 only to reproduce xterm.js#6063 in a test. */
  readonly scrollback?: number | undefined
}

/** A program's screen in a contained emulator (see the module's comment). */
export class Emulator {
  readonly #options: EmulatorOptions
  #terminal: Xterm.Terminal
  #serializer: SerializeAddon
  #encoding: MouseEncoding = "default"
  #failures: Array<EmulatorFailure> = []
  #failed = 0
  #generation = 0
  #disposed = false

  constructor(cols: number, rows: number, options: EmulatorOptions) {
    this.#options = options
    const built = this.#build(cols, rows)
    this.#terminal = built.terminal
    this.#serializer = built.serializer
  }

  /** Grows each time output is parsed: a screen that may have changed. */
  get generation(): number {
    return this.#generation
  }

  /** The failures contained so far (the first `MAX_FAILURES`), and how many there were in all. */
  get failures(): { readonly kept: ReadonlyArray<EmulatorFailure>; readonly count: number } {
    return { kept: this.#failures, count: this.#failed }
  }

  get cols(): number {
    return this.#terminal.cols
  }

  get rows(): number {
    return this.#terminal.rows
  }

  /** The emulator itself, for a test that plants a failure in it. */
  get terminal(): Xterm.Terminal {
    return this.#terminal
  }

  /** Parses the program's output. */
  feed(data: string): void {
    // Output that comes after the terminal was closed has no screen to go to.
    if (this.#disposed) return
    this.#generation++
    try {
      parseNow(this.#terminal, data)
    } catch (error) {
      this.#contain("output", error, this.cols, this.rows, data)
    }
  }

  /** Resizes the screen (the program is told by its PTY, not here). */
  resize(cols: number, rows: number): void {
    if (this.#disposed) return
    this.#generation++
    try {
      this.#terminal.resize(cols, rows)
    } catch (error) {
      this.#contain("resize", error, cols, rows)
    }
  }

  /** The screen as a person sees it. */
  screen(): TerminalScreen {
    let shown: ReturnType<typeof read>
    try {
      shown = read(this.#terminal)
    } catch (error) {
      this.#contain("read", error, this.cols, this.rows)
      try {
        shown = read(this.#terminal)
      } catch {
        shown = { lines: Array.from({ length: this.rows }, () => ""), styles: [] }
      }
    }
    const buffer = this.#terminal.buffer.active
    return {
      lines: shown.lines,
      cursor: { x: buffer.cursorX, y: buffer.cursorY },
      cols: this.cols,
      rows: this.rows,
      styles: shown.styles
    }
  }

  /** The screen's lines alone: what a wait polls, cheaper than the whole screen. */
  lines(): ReadonlyArray<string> {
    try {
      return linesOf(this.#terminal)
    } catch {
      return this.screen().lines
    }
  }

  /** The input modes the program has turned on. */
  modes(): TerminalModes {
    const modes = this.#terminal.modes
    return {
      mouse: modes.mouseTrackingMode,
      mouseEncoding: this.#encoding,
      bracketedPaste: modes.bracketedPasteMode,
      applicationCursorKeys: modes.applicationCursorKeysMode
    }
  }

  dispose(): void {
    this.#disposed = true
    this.#terminal.dispose()
  }

  /** A fresh emulator of `cols`×`rows`, answering the program's queries and tracking its mouse encoding. */
  #build(cols: number, rows: number): { terminal: Xterm.Terminal; serializer: SerializeAddon } {
    const { Terminal, SerializeAddon } = xterm()
    const terminal = new Terminal({
      cols,
      rows,
      allowProposedApi: true,
      scrollback: this.#options.scrollback ?? SCROLLBACK,
      logLevel: "off",
      windowOptions: { getWinSizeChars: true }
    })
    const serializer = new SerializeAddon()
    terminal.loadAddon(serializer)
    const reply = (data: string | Buffer) => {
      try {
        this.#options.reply(data)
      } catch {
        // The program is gone: no one to answer.
      }
    }
    terminal.onData((data) => reply(data))
    terminal.onBinary((data) => reply(Buffer.from(data, "latin1")))
    for (const first of [10, 11, 12]) {
      terminal.parser.registerOscHandler(first, (data) => {
        // `OSC 10 ; ? ; ?` asks for 10 and then 11: each `?` is the next colour's question.
        const asked = data.split(";")
        asked.forEach((part, i) => {
          const colour = COLOURS[first + i]
          if (part === "?" && colour !== undefined) reply(`\x1b]${first + i};${colour}\x1b\\`)
        })
        return asked.every((part) => part === "?")
      })
    }
    terminal.parser.registerCsiHandler({ prefix: "?", intermediates: "$", final: "p" }, (params) => {
      if (params[0] !== 1016) return false
      reply("\x1b[?1016;0$y")
      return true
    })
    const switched = (on: boolean) => (params: ReadonlyArray<number | ReadonlyArray<number>>) => {
      for (const param of params) {
        // As xterm.js does: 1006 and 1016 set their encoding; turning either off goes back to the default.
        if (param === 1006) this.#encoding = on ? "sgr" : "default"
        if (param === 1016) this.#encoding = on ? "sgr-pixels" : "default"
      }
      return false
    }
    terminal.parser.registerCsiHandler({ prefix: "?", final: "h" }, switched(true))
    terminal.parser.registerCsiHandler({ prefix: "?", final: "l" }, switched(false))
    terminal.parser.registerEscHandler({ final: "c" }, () => {
      this.#encoding = "default"
      return false
    })
    return { terminal, serializer }
  }

  /**
   * Keeps `error` as a failure and carries on with a fresh emulator of `cols`×`rows` holding what
   * the broken one showed. An emulator that threw in the middle of a parse cannot parse again
   * (xterm.js leaves it marked as parsing), so it is always replaced.
   */
  #contain(during: EmulatorFailure["during"], error: unknown, cols: number, rows: number, again = ""): void {
    const failure: EmulatorFailure = { during, message: messageOf(error) }
    this.#failed++
    if (this.#failures.length < MAX_FAILURES) this.#failures.push(failure)
    let snapshot = ""
    try {
      snapshot = this.#serializer.serialize()
    } catch {
      // Nothing could be read back: the fresh screen starts blank.
    }
    const old = this.#terminal
    const encoding = this.#encoding
    const modes = encoding === "sgr" ? "\x1b[?1006h" : encoding === "sgr-pixels" ? "\x1b[?1016h" : ""
    /** A fresh emulator of `width`×`height` that has parsed `steps` in turn (a pair: resized to it), or undefined if it threw. */
    const rebuilt = (width: number, height: number, steps: ReadonlyArray<string | readonly [number, number]>) => {
      const made = this.#build(width, height)
      try {
        for (const step of steps)
          typeof step === "string" ? parseNow(made.terminal, step) : made.terminal.resize(step[0], step[1])
        return made
      } catch {
        made.terminal.dispose()
        return undefined
      }
    }
    // The screen with the output parsed again; else without it (what it drew before is kept, the
    // rest dropped); else blank.
    const built =
      rebuilt(old.cols, old.rows, [snapshot + modes, [cols, rows], again]) ??
      rebuilt(cols, rows, [snapshot + modes]) ??
      this.#build(cols, rows)
    try {
      old.dispose()
    } catch {
      // Already broken: it is dropped either way.
    }
    this.#terminal = built.terminal
    this.#serializer = built.serializer
    this.#encoding = encoding
    this.#options.onFailure?.(failure)
  }
}
