/**
 * A program in a pseudo-terminal, seen as a person would see it (issue 36's first piece): the
 * command runs in a PTY (`@lydell/node-pty`, prebuilt) whose output a headless terminal emulator
 * (`@xterm/headless`) reads, so `screen()` is the visible screen — its lines, the cursor, the size —
 * after every escape sequence the program wrote. `type` sends text, `press` a named key
 * (`enter`, `tab`, `escape`, arrows, `ctrl+c`, …), `resize` the window; `wait` waits until a text is
 * on screen (read as a person reads it: `screen.ts`) or the screen has been still for a while, on
 * Effect's `Clock`. When the program ends, its exit is known once the screen shows all it wrote:
 * a `wait` under way answers at once (with the screen, when its text came in that last output)
 * and every later action is refused naming the exit and the last screen. The process belongs to
 * the `Scope` that spawned it: closing the scope kills it, and every process it started with it
 * (it is held in a PID namespace of its own: `holder.ts`). Both packages load on first use.
 */
import { createRequire } from "node:module"
import { Clock, Data, Effect, Scope } from "effect"
import type * as Pty from "@lydell/node-pty"
import type * as Xterm from "@xterm/headless"
import { findable, heldExit, hold } from "./holder.ts"
import { exitReport, findText, screenText, type TerminalExit } from "./screen.ts"

export type { TerminalExit } from "./screen.ts"

/**
 * A run of cells drawn alike other than in the terminal's default style: where it starts (row
 * `y`, column `x`), its text, and its colours — a palette index (0–255: the 16 ANSI colours, the
 * 256-colour cube and greys) or `#rrggbb` — and attributes; what is default is left out.
 */
export interface StyledRun {
  readonly y: number
  readonly x: number
  readonly text: string
  readonly fg?: number | string
  readonly bg?: number | string
  readonly bold?: true
  readonly dim?: true
  readonly italic?: true
  readonly underline?: true
  readonly inverse?: true
  readonly strikethrough?: true
}

/**
 * What the terminal shows: its lines (trailing blanks trimmed), the cursor, its size, and the
 * styled runs (`styles`: colours and attributes, in reading order; what is plain is not listed).
 */
export interface TerminalScreen {
  readonly lines: ReadonlyArray<string>
  readonly cursor: { readonly x: number; readonly y: number }
  readonly cols: number
  readonly rows: number
  readonly styles: ReadonlyArray<StyledRun>
}

/** A key `press` knows, by name. */
export const KEYS: Readonly<Record<string, string>> = {
  enter: "\r",
  return: "\r",
  tab: "\t",
  "shift+tab": "\x1b[Z",
  escape: "\x1b",
  esc: "\x1b",
  backspace: "\x7f",
  delete: "\x1b[3~",
  space: " ",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~"
}

/** The bytes of a named key: one of `KEYS`, or `ctrl+LETTER`; undefined for a name it does not know. */
export const keyBytes = (name: string): string | undefined => {
  const key = name.trim().toLowerCase()
  const known = KEYS[key]
  if (known !== undefined) return known
  const ctrl = /^ctrl\+([a-z@[\\\]^_])$/.exec(key)
  return ctrl === null ? undefined : String.fromCharCode(ctrl[1]!.toUpperCase().charCodeAt(0) & 0x1f)
}

/** A terminal that could not start, a key it does not know, a bad size, a `wait` that ran out of time, or a program that has exited. */
export class TerminalError extends Data.TaggedError("TerminalError")<{
  readonly reason: "spawn" | "key" | "size" | "timeout" | "exited"
  readonly message: string
}> {}

/** Options of `spawnTerminal`. */
export interface TerminalOptions {
  readonly cols?: number | undefined
  readonly rows?: number | undefined
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Whether the program is held in a PID namespace of its own (`holder.ts`; default true), so
   * every process it starts ends with it; false for a program that is held already (a sealed
   * run's, in its room).
   */
  readonly held?: boolean | undefined
}

/** What `wait` waits for: `text` on screen (as `findText` reads it), or the screen still for `quietMs`; at most `timeoutMs`. */
export interface WaitOptions {
  readonly text?: string | undefined
  readonly quietMs?: number | undefined
  readonly timeoutMs?: number | undefined
}

/** A program in a terminal (see the module's comment). */
export interface Terminal {
  readonly pid: number
  readonly screen: () => TerminalScreen
  readonly type: (text: string) => Effect.Effect<void, TerminalError>
  readonly press: (key: string) => Effect.Effect<void, TerminalError>
  readonly resize: (cols: number, rows: number) => Effect.Effect<void, TerminalError>
  readonly wait: (options: WaitOptions) => Effect.Effect<TerminalScreen, TerminalError>
  /** How the program ended, once it has and the screen shows all it wrote. */
  readonly exit: () => TerminalExit | undefined
  /** Waits for the program to end (its last output on the screen): how it ended. */
  readonly exited: Effect.Effect<TerminalExit>
}

const MAX_SIDE = 1_000
const DEFAULT_TIMEOUT_MS = 10_000
const POLL_MS = 10

const checkSize = (cols: number, rows: number): TerminalError | undefined =>
  Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0 && cols <= MAX_SIDE && rows <= MAX_SIDE
    ? undefined
    : new TerminalError({ reason: "size", message: `simnet: a terminal is 1-${MAX_SIDE} columns by 1-${MAX_SIDE} rows, got ${String(cols)}x${String(rows)}` })

/** A cell's colour: its palette index, `#rrggbb`, or undefined for the default. */
const colourOf = (palette: boolean, rgb: boolean, value: number): number | string | undefined =>
  palette ? value : rgb ? `#${value.toString(16).padStart(6, "0")}` : undefined

/** A cell's style as a `StyledRun` without its place and text; undefined when it is all default. */
const styleOf = (cell: Xterm.IBufferCell): Omit<StyledRun, "x" | "y" | "text"> | undefined => {
  if (cell.isAttributeDefault()) return undefined
  const fg = colourOf(cell.isFgPalette(), cell.isFgRGB(), cell.getFgColor())
  const bg = colourOf(cell.isBgPalette(), cell.isBgRGB(), cell.getBgColor())
  const style = {
    ...(fg === undefined ? {} : { fg }),
    ...(bg === undefined ? {} : { bg }),
    ...(cell.isBold() ? { bold: true as const } : {}),
    ...(cell.isDim() ? { dim: true as const } : {}),
    ...(cell.isItalic() ? { italic: true as const } : {}),
    ...(cell.isUnderline() ? { underline: true as const } : {}),
    ...(cell.isInverse() ? { inverse: true as const } : {}),
    ...(cell.isStrikethrough() ? { strikethrough: true as const } : {})
  }
  return Object.keys(style).length === 0 ? undefined : style
}

/** The styled runs of the visible screen, in reading order; runs of one style on a row are one. */
const stylesOf = (terminal: Xterm.Terminal): Array<StyledRun> => {
  const buffer = terminal.buffer.active
  const runs: Array<StyledRun> = []
  const cell = buffer.getNullCell()
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y)
    if (line === undefined) continue
    let open: { x: number; key: string; style: Omit<StyledRun, "x" | "y" | "text">; text: string } | undefined
    const close = () => {
      if (open === undefined) return
      // Blank cells are seen only through a background (a bar, a selection); else trailing ones go.
      const shaded = open.style.bg !== undefined || open.style.inverse === true
      const text = shaded ? open.text : open.text.trimEnd()
      if (text !== "") runs.push({ y, x: open.x, text, ...open.style })
      open = undefined
    }
    for (let x = 0; x < terminal.cols; x++) {
      if (line.getCell(x, cell) === undefined || cell.getWidth() === 0) continue
      const style = styleOf(cell)
      const key = style === undefined ? "" : JSON.stringify(style)
      if (open !== undefined && open.key !== key) close()
      if (style === undefined) continue
      open ??= { x, key, style, text: "" }
      open.text += cell.getChars() || " "
    }
    close()
  }
  return runs
}

let loaded: { readonly pty: typeof Pty; readonly xterm: typeof Xterm } | undefined
const load = () => {
  if (loaded !== undefined) return loaded
  const require = createRequire(import.meta.url)
  return (loaded = { pty: require("@lydell/node-pty") as typeof Pty, xterm: require("@xterm/headless") as typeof Xterm })
}

/** SIGKILL to a process (or with a negative id, a process group), if it is still there. */
const kill = (target: number): void => {
  try {
    process.kill(target, "SIGKILL")
  } catch {
    // already gone
  }
}

/**
 * Runs `command` with `args` in a pseudo-terminal of `cols`×`rows` (default 100×30), read by a
 * headless terminal. The process is killed when the scope closes.
 */
export const spawnTerminal = (command: string, args: ReadonlyArray<string>, options: TerminalOptions = {}): Effect.Effect<Terminal, TerminalError, Scope.Scope> => {
  const cols = options.cols ?? 100
  const rows = options.rows ?? 30
  const bad = checkSize(cols, rows)
  if (bad !== undefined) return Effect.fail(bad)
  // A PTY starts a program it cannot find as a child that exits at once: say so instead.
  const path = options.env?.["PATH"] ?? process.env["PATH"]
  if (process.platform !== "win32" && !findable(command, path)) {
    return Effect.fail(new TerminalError({ reason: "spawn", message: `simnet: ${JSON.stringify(command).slice(0, 200)} was not found${command.includes("/") ? " (or is not an executable file)" : " on PATH"}` }))
  }
  return Effect.acquireRelease(
    Effect.try({
      try: () => {
        const { pty, xterm } = load()
        const screenOf = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 })
        const env = Object.fromEntries(Object.entries({ ...process.env, TERM: "xterm-256color", ...options.env }).filter((entry): entry is [string, string] => entry[1] !== undefined))
        const program = options.held === false ? { command, args, held: false } : hold(command, args)
        const child = pty.spawn(program.command, [...program.args], { name: "xterm-256color", cols, rows, cwd: options.cwd ?? process.cwd(), env })
        let exited: TerminalExit | undefined
        let disposed = false
        let ended: (exit: TerminalExit) => void = () => undefined
        const ending = new Promise<TerminalExit>((resolve) => (ended = resolve))
        let generation = 0
        let writes = 0
        child.onData((data) => {
          writes++
          screenOf.write(data, () => {
            writes--
          })
        })
        screenOf.onWriteParsed(() => {
          generation++
        })
        // The PTY reports the exit after its last output was read; the exit is known once the
        // emulator has parsed that output too (a write's callback runs after every earlier write's),
        // so whoever sees the exit sees the last screen. A terminal disposed meanwhile parses no
        // more: the exit is known at once.
        let draining: (() => void) | undefined
        child.onExit(({ exitCode, signal }) => {
          // What an unheld program put in the background (its process group, the terminal's session:
          // all that can be found of what it started) goes with it, as a held one's namespace does.
          if (!program.held) kill(-child.pid)
          const known = () => {
            draining = undefined
            if (exited !== undefined) return
            // A held program's signal comes back through its holder's exit code (`heldExit`).
            exited = program.held ? heldExit(exitCode, signal === 0 ? undefined : signal) : { code: exitCode, signal: signal === 0 ? undefined : signal }
            ended(exited)
          }
          if (disposed) return known()
          draining = known
          screenOf.write("", known)
        })
        const dispose = () => {
          disposed = true
          screenOf.dispose()
          draining?.()
        }
        return { child, screenOf, exit: () => exited, ending, generation: () => generation, pending: () => writes, dispose, held: program.held }
      },
      catch: (cause) => new TerminalError({ reason: "spawn", message: `simnet: could not start ${command} in a terminal: ${cause instanceof Error ? cause.message : String(cause)}` })
    }),
    ({ child, dispose, exit, held }) =>
      Effect.sync(() => {
        // A held program's namespace, and every process in it, ends with its holder.
        if (exit() === undefined) for (const target of held ? [child.pid] : [-child.pid, child.pid]) kill(target)
        dispose()
      })
  ).pipe(Effect.map(({ child, screenOf, exit, ending, generation, pending }): Terminal => {
    const linesOf = (): Array<string> => {
      const buffer = screenOf.buffer.active
      const lines: Array<string> = []
      // Trailing spaces are not seen, whether never written or written over (a backspace leaves one).
      for (let y = 0; y < screenOf.rows; y++) lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "").trimEnd())
      return lines
    }
    const screen = (): TerminalScreen => {
      const buffer = screenOf.buffer.active
      return { lines: linesOf(), cursor: { x: buffer.cursorX, y: buffer.cursorY }, cols: screenOf.cols, rows: screenOf.rows, styles: stylesOf(screenOf) }
    }
    const exitedError = (ended: TerminalExit) => new TerminalError({ reason: "exited", message: `simnet: ${exitReport(ended, linesOf())}` })
    /** `action`, unless the program has exited: then the error naming the exit and the last screen. */
    const alive = (action: () => void) =>
      Effect.suspend(() => {
        const ended = exit()
        return ended !== undefined ? Effect.fail(exitedError(ended)) : Effect.sync(action)
      })
    const write = (data: string) => alive(() => child.write(data))
    const wait = (options: WaitOptions): Effect.Effect<TerminalScreen, TerminalError> =>
      Effect.gen(function*() {
        const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
        const quiet = options.quietMs ?? 200
        const started = yield* Clock.currentTimeMillis
        // The screen is still while no output is being parsed and none was since `stillSince`.
        let seen = -1
        let stillSince = started
        for (;;) {
          // The exit is read before the screen: once it is known, the screen is the last one.
          const ended = exit()
          const shown = linesOf()
          const now = yield* Clock.currentTimeMillis
          if (options.text !== undefined && findText(shown, options.text) !== undefined) return screen()
          if (ended !== undefined) return yield* Effect.fail(exitedError(ended))
          if (generation() !== seen || pending() > 0) {
            seen = generation()
            stillSince = now
          } else if (options.text === undefined && now - stillSince >= quiet) {
            return screen()
          }
          if (now - started >= timeoutMs) {
            const what = options.text === undefined ? `the screen to be still for ${options.quietMs ?? 200} ms` : JSON.stringify(options.text)
            return yield* Effect.fail(new TerminalError({ reason: "timeout", message: `simnet: waited ${timeoutMs} ms for ${what}; the screen shows:\n${screenText(shown)}` }))
          }
          yield* Effect.sleep(POLL_MS)
        }
      })
    return {
      pid: child.pid,
      screen,
      type: (text) => write(text),
      press: (key) => {
        const bytes = keyBytes(key)
        return bytes === undefined
          ? Effect.fail(new TerminalError({ reason: "key", message: `simnet: no key named ${JSON.stringify(key).slice(0, 40)}; known: ${Object.keys(KEYS).join(", ")}, ctrl+LETTER` }))
          : write(bytes)
      },
      resize: (newCols, newRows) => {
        const invalid = checkSize(newCols, newRows)
        return invalid !== undefined ? Effect.fail(invalid) : alive(() => {
          child.resize(newCols, newRows)
          screenOf.resize(newCols, newRows)
        })
      },
      wait,
      exit,
      exited: Effect.promise(() => ending)
    }
  }))
}
