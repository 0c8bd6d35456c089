/**
 * A program in a pseudo-terminal, seen as a person would see it (issue 36's first piece, issue 56's
 * input): the command runs in a PTY (`@lydell/node-pty`, prebuilt) whose output a contained
 * headless terminal emulator reads (`emulator.ts`), so `screen()` is the visible screen — its
 * lines, the cursor, the size, the styles — after every escape sequence the program wrote, and
 * `interactables()` what a person would act on there (`interactables.ts`). The emulator answers
 * the program's queries (cursor position, device attributes, colours) as a real terminal does.
 *
 * Input is what a person does: `type` sends text, `press` a named key (`keys.ts`: function keys,
 * the editing pad, modifiers), `click` a cell or a text on screen in the mouse encoding the program
 * turned on (an error when it turned on none), `paste` text (bracketed when the program asked),
 * `submit` a line (typed, taken, then Enter after a pause, so that an app that takes a fast Enter
 * as part of a paste still submits), `resize` the window; `wait` waits until a text is on screen
 * (read as a person reads it: `screen.ts`) or the screen has been still for a while, on Effect's
 * `Clock`; `rest` until the whole app is at rest, read from its processes (`rest.ts`; each
 * program in a cgroup of its own where one can be made, `cgroup.ts`). When the program ends, its exit is known once the screen shows all it wrote: a `wait`
 * under way answers at once (with the screen, when its text came in that last output) and every
 * later action is refused naming the exit and the last screen. An exception of the emulator's is
 * contained and kept (`failures`, `onFailure`), never thrown. The process belongs to the `Scope`
 * that spawned it: closing the scope kills it, and every process it started with it (it is held
 * in a PID namespace of its own: `holder.ts`). The packages load on first use.
 */
import { Clock, Data, Effect, type Scope } from "effect"
import type * as Pty from "@lydell/node-pty"
import { createRequire } from "node:module"
import { Emulator, type EmulatorFailure, type TerminalModes } from "./emulator.ts"
import { joining, makeCgroup } from "./cgroup.ts"
import { findable, heldExit, hold } from "./holder.ts"
import { type Interactable, interactables } from "./interactables.ts"
import { KEY_FAMILIES, keyBytes } from "./keys.ts"
import { clickBytes, MAX_DEFAULT_MOUSE, pasteBytes } from "./pointer.ts"
import { cgroupProbe, DEFAULT_QUIET_MS, type InputMark, type RestSubject, untilRest, walkProbe } from "./rest.ts"
import { restOnClock, type VirtualClock } from "./virtualClock.ts"
import { exitReport, findText, screenText, type TerminalExit, type TerminalScreen } from "./screen.ts"
import { cellWidth, columnOf } from "./xterm.ts"

export type { EmulatorFailure, TerminalModes } from "./emulator.ts"
export type { Interactable, InteractableKind } from "./interactables.ts"
export type { StyledRun, TerminalExit, TerminalScreen } from "./screen.ts"
export { keyBytes } from "./keys.ts"

/**
 * Why a terminal refused: it could not start (`spawn`), a key it does not know (`key`), a bad size
 * (`size`), a `wait` that ran out of time (`timeout`), a program that has exited (`exited`); a
 * click at a program that turned on no mouse (`no-mouse`), outside the screen or past what its
 * mouse encoding can say (`outside`), at a text not on screen (`not-found`); a paste over the
 * limit (`too-large`). Nothing was sent to the program.
 */
export class TerminalError extends Data.TaggedError("TerminalError")<{
  readonly reason: "spawn" | "key" | "size" | "timeout" | "exited" | "no-mouse" | "outside" | "not-found" | "too-large"
  readonly message: string
}> {}

/** Options of `spawnTerminal`; `onFailure` is told of each exception of the emulator's it contained. */
export interface TerminalOptions {
  readonly cols?: number | undefined
  readonly rows?: number | undefined
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  readonly onFailure?: ((failure: EmulatorFailure) => void) | undefined
  /**
   * Whether the program is held in a PID namespace of its own (`holder.ts`; default true), so
   * every process it starts ends with it; false for a program that is held already (a sealed
   * run's, in its room).
   */
  readonly held?: boolean | undefined
  /**
   * The virtual clock the program runs on (`virtualClock.ts`; its `env` is the caller's to give):
   * rest jumps it to the next timer, and `wait`'s and `rest`'s timeouts count its time.
   */
  readonly clock?: VirtualClock | undefined
}

/** What `wait` waits for: `text` on screen (as `findText` reads it), or the screen still for `quietMs`; at most `timeoutMs`. */
export interface WaitOptions {
  readonly text?: string | undefined
  readonly quietMs?: number | undefined
  readonly timeoutMs?: number | undefined
}

/**
 * What `rest` waits for: the whole app at rest (`rest.ts`): simnet idle by `quiescent` (the
 * network's; default: nothing to wait for), the program's tree asleep, the screen still for at
 * least `quietMs` (default `DEFAULT_QUIET_MS`); at most `timeoutMs`.
 */
export interface RestOptions {
  readonly quietMs?: number | undefined
  readonly timeoutMs?: number | undefined
  readonly quiescent?: Effect.Effect<void> | undefined
}

/** Where `click` clicks: a cell (0-based column and row), or the middle of a text's first place on screen (as `findText` finds it). */
export type ClickTarget = { readonly x: number; readonly y: number } | { readonly text: string }

/**
 * How `submit` lets the app take the text before Enter: it waits for the text's echo (or the
 * screen at rest), at most `timeoutMs` (default 2 000), then `gapMs` more (default 150: longer than
 * Codex's 120 ms paste-burst window and Gemini CLI's 30 ms fast-return window).
 */
export interface SubmitOptions {
  readonly gapMs?: number | undefined
  readonly timeoutMs?: number | undefined
}

/** A program in a terminal (see the module's comment). */
export interface Terminal {
  readonly pid: number
  readonly screen: () => TerminalScreen
  /** What a person would act on, on the screen now. */
  readonly interactables: () => { readonly items: ReadonlyArray<Interactable> }
  /** The input modes the program has turned on (mouse, bracketed paste, application cursor keys). */
  readonly modes: () => TerminalModes
  readonly type: (text: string) => Effect.Effect<void, TerminalError>
  readonly press: (key: string) => Effect.Effect<void, TerminalError>
  readonly click: (target: ClickTarget) => Effect.Effect<void, TerminalError>
  readonly paste: (text: string) => Effect.Effect<void, TerminalError>
  readonly submit: (text: string, options?: SubmitOptions) => Effect.Effect<void, TerminalError>
  readonly resize: (cols: number, rows: number) => Effect.Effect<void, TerminalError>
  readonly wait: (options: WaitOptions) => Effect.Effect<TerminalScreen, TerminalError>
  /** Waits until the whole app is at rest (`RestOptions`): the screen then. */
  readonly rest: (options: RestOptions) => Effect.Effect<TerminalScreen, TerminalError>
  /** The emulator's exceptions contained so far (the first 100), and how many there were. */
  readonly failures: () => { readonly kept: ReadonlyArray<EmulatorFailure>; readonly count: number }
  /** How the program ended, once it has and the screen shows all it wrote. */
  readonly exit: () => TerminalExit | undefined
  /** Waits for the program to end (its last output on the screen): how it ended. */
  readonly exited: Effect.Effect<TerminalExit>
}

/** The longest text one `paste` sends. */
export const MAX_PASTE = 256 * 1024
/** How long `submit` waits after the text was taken before Enter, unless told. */
export const SUBMIT_GAP_MS = 150
/** How long a screen unchanged after typing counts as the app at rest, for `submit`. */
const TYPED_REST_MS = 100

const MAX_SIDE = 1_000
const DEFAULT_TIMEOUT_MS = 10_000
const POLL_MS = 10

const checkSize = (cols: number, rows: number): TerminalError | undefined =>
  Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0 && cols <= MAX_SIDE && rows <= MAX_SIDE
    ? undefined
    : new TerminalError({
        reason: "size",
        message: `simnet: a terminal is 1-${MAX_SIDE} columns by 1-${MAX_SIDE} rows, got ${String(cols)}x${String(rows)}`
      })

let pty: typeof Pty | undefined
const loadPty = (): typeof Pty => (pty ??= createRequire(import.meta.url)("@lydell/node-pty") as typeof Pty)

/** A quoted text for a message, cut short. */
const quoted = (text: string, max = 80): string => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text)

/** The cell `click` clicks for `target` on `screen`: the given one, or the middle of the text's first place; or why there is none. */
const cellOf = (screen: TerminalScreen, target: ClickTarget): { x: number; y: number } | TerminalError => {
  if (!("text" in target)) return target
  const place = findText(screen.lines, target.text)
  if (place === undefined) {
    return new TerminalError({
      reason: "not-found",
      message: `simnet: ${quoted(target.text)} is not on the screen, so there is nothing to click; the screen shows:\n${screenText(screen.lines)}`
    })
  }
  const line = screen.lines[place.line]!
  const shown = target.text.split("\n")[0]!.trimEnd() || target.text.split("\n")[0]!
  const width = Math.max(1, cellWidth(shown))
  return { x: Math.min(screen.cols - 1, columnOf(line, place.index) + Math.floor((width - 1) / 2)), y: place.line }
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
export const spawnTerminal = (
  command: string,
  args: ReadonlyArray<string>,
  options: TerminalOptions = {}
): Effect.Effect<Terminal, TerminalError, Scope.Scope> => {
  const cols = options.cols ?? 100
  const rows = options.rows ?? 30
  const bad = checkSize(cols, rows)
  if (bad !== undefined) return Effect.fail(bad)
  // A PTY starts a program it cannot find as a child that exits at once: say so instead.
  const path = options.env?.["PATH"] ?? process.env["PATH"]
  if (process.platform !== "win32" && !findable(command, path)) {
    return Effect.fail(
      new TerminalError({
        reason: "spawn",
        message: `simnet: ${JSON.stringify(command).slice(0, 200)} was not found${command.includes("/") ? " (or is not an executable file)" : " on PATH"}`
      })
    )
  }
  return Effect.acquireRelease(
    Effect.try({
      try: () => {
        const env = Object.fromEntries(
          Object.entries({ ...process.env, TERM: "xterm-256color", ...options.env }).filter(
            (entry): entry is [string, string] => entry[1] !== undefined
          )
        )
        // The emulator answers the program's queries on the PTY it is reading.
        let reply: (data: string | Buffer) => void = () => {}
        const emulator = new Emulator(cols, rows, { reply: (data) => reply(data), onFailure: options.onFailure })
        const program = options.held === false ? { command, args, held: false } : hold(command, args)
        // The program's tree in a cgroup of its own where one can be made (`cgroup.ts`): what rest reads.
        let group = makeCgroup()
        const started = group === undefined ? program : joining(group, program.command, program.args)
        let child: Pty.IPty
        try {
          child = loadPty().spawn(started.command, [...started.args], {
            name: "xterm-256color",
            cols,
            rows,
            cwd: options.cwd ?? process.cwd(),
            env
          })
        } catch (error) {
          if (group !== undefined) Effect.runFork(group.end)
          throw error
        }
        if (group !== undefined && !group.adopt(child.pid)) {
          Effect.runFork(group.end)
          group = undefined
        }
        // node-pty's socket takes a Buffer as it takes a string (its typings say string only).
        reply = (data) => child.write(data as string)
        let exited: TerminalExit | undefined
        let ended: (exit: TerminalExit) => void = () => undefined
        const ending = new Promise<TerminalExit>((resolve) => (ended = resolve))
        // Output is parsed as it comes, so the screen shows all of it when the PTY reports the
        // exit (which it does after its last output was read): whoever sees the exit sees the last screen.
        child.onData((data) => emulator.feed(data))
        child.onExit(({ exitCode, signal }) => {
          // What an unheld program put in the background (its process group, the terminal's session:
          // all that can be found of what it started) goes with it, as a held one's namespace does.
          if (!program.held) kill(-child.pid)
          if (exited !== undefined) return
          // A held program's signal comes back through its holder's exit code (`heldExit`).
          exited = program.held
            ? heldExit(exitCode, signal === 0 ? undefined : signal)
            : { code: exitCode, signal: signal === 0 ? undefined : signal }
          ended(exited)
        })
        return { child, emulator, exit: () => exited, ending, held: program.held, group }
      },
      catch: (cause) =>
        new TerminalError({
          reason: "spawn",
          message: `simnet: could not start ${command} in a terminal: ${cause instanceof Error ? cause.message : String(cause)}`
        })
    }),
    ({ child, emulator, exit, held, group }) =>
      Effect.andThen(
        Effect.sync(() => {
          // A held program's namespace, and every process in it, ends with its holder.
          if (exit() === undefined) for (const target of held ? [child.pid] : [-child.pid, child.pid]) kill(target)
          emulator.dispose()
        }),
        // And every process of its cgroup, wherever it went: the run leaves nothing behind.
        group === undefined ? Effect.void : group.end
      )
  ).pipe(
    Effect.map(({ child, emulator, exit, ending, group }): Terminal => {
      const screen = () => emulator.screen()
      const exitedError = (ended: TerminalExit) =>
        new TerminalError({ reason: "exited", message: `simnet: ${exitReport(ended, emulator.lines())}` })
      /** `action`, unless the program has exited: then the error naming the exit and the last screen. */
      const alive = <A>(action: () => A | TerminalError): Effect.Effect<A, TerminalError> =>
        Effect.suspend(() => {
          const ended = exit()
          if (ended !== undefined) return Effect.fail(exitedError(ended))
          const done = action()
          return done instanceof TerminalError ? Effect.fail(done) : Effect.succeed(done)
        })
      const probe = group === undefined ? walkProbe(child.pid) : cgroupProbe(group)
      let input: InputMark | undefined
      /** Marks the app's side as it stood before an input (what rest reads back). */
      const mark = () =>
        void (input = { seq: (input?.seq ?? 0) + 1, usage: probe.usage(), generation: emulator.generation })
      /** Writes input to the program, marked. */
      const send = (data: string | Buffer) => {
        mark()
        child.write(data as string)
      }
      const subject: RestSubject = {
        probe,
        generation: () => emulator.generation,
        input: () => input,
        exit,
        exited: Effect.promise(() => ending)
      }
      const write = (data: string | Buffer) => alive(() => send(data))
      const clock = options.clock
      const timedOut = (timeoutMs: number, what: string) =>
        new TerminalError({
          reason: "timeout",
          message: `simnet: waited ${timeoutMs} ms${clock === undefined ? "" : " of virtual time"} for ${what}; the screen shows:\n${screenText(emulator.lines())}`
        })
      /** A text wait on a virtual clock: the clock moved at each rest, until the text shows or no timer is due in time. */
      const wait = (options: WaitOptions): Effect.Effect<TerminalScreen, TerminalError> =>
        clock === undefined || options.text === undefined
          ? waitReal(options)
          : Effect.raceFirst(
              waitReal(options),
              Effect.andThen(
                restOnClock(subject, Effect.void, 0, clock, options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
                Effect.fail(timedOut(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, JSON.stringify(options.text)))
              )
            )
      const waitReal = (options: WaitOptions): Effect.Effect<TerminalScreen, TerminalError> =>
        Effect.gen(function* () {
          const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
          const quiet = options.quietMs ?? 200
          const started = yield* Clock.currentTimeMillis
          // The screen is still while no output was parsed since `stillSince`.
          let seen = -1
          let stillSince = started
          for (;;) {
            // The exit is read before the screen: once it is known, the screen is the last one.
            const ended = exit()
            const shown = emulator.lines()
            const now = yield* Clock.currentTimeMillis
            if (options.text !== undefined && findText(shown, options.text) !== undefined) return screen()
            if (ended !== undefined) return yield* Effect.fail(exitedError(ended))
            if (emulator.generation !== seen) {
              seen = emulator.generation
              stillSince = now
            } else if (options.text === undefined && now - stillSince >= quiet) {
              return screen()
            }
            if (now - started >= timeoutMs) {
              const what =
                options.text === undefined
                  ? `the screen to be still for ${options.quietMs ?? 200} ms`
                  : JSON.stringify(options.text)
              return yield* Effect.fail(
                new TerminalError({
                  reason: "timeout",
                  message: `simnet: waited ${timeoutMs} ms for ${what}; the screen shows:\n${screenText(shown)}`
                })
              )
            }
            yield* Effect.sleep(POLL_MS)
          }
        })
      /**
       * Until the app has taken what was typed after `since` (the screen's generation then): `tail`
       * drawn since, or the screen at rest; at most `timeoutMs`, and never past the program's exit.
       */
      const taken = (since: number, tail: string, timeoutMs: number): Effect.Effect<void> =>
        Effect.gen(function* () {
          const started = yield* Clock.currentTimeMillis
          let seen = since
          let stillSince = started
          for (;;) {
            const now = yield* Clock.currentTimeMillis
            const generation = emulator.generation
            if (exit() !== undefined || now - started >= timeoutMs) return
            if (generation !== since && (tail === "" || findText(emulator.lines(), tail) !== undefined)) return
            if (generation !== seen) {
              seen = generation
              stillSince = now
            } else if (now - stillSince >= TYPED_REST_MS) return
            yield* Effect.sleep(POLL_MS)
          }
        })
      const press = (key: string) =>
        alive(() => {
          const bytes = keyBytes(key, emulator.modes().applicationCursorKeys)
          if (bytes === undefined)
            return new TerminalError({
              reason: "key",
              message: `simnet: no key named ${quoted(key, 40)}; keys: ${KEY_FAMILIES}`
            })
          send(bytes)
        })
      return {
        pid: child.pid,
        screen,
        interactables: () => interactables(screen()),
        modes: () => emulator.modes(),
        type: (text) => write(text),
        press,
        click: (target) =>
          alive(() => {
            const shown = screen()
            const cell = cellOf(shown, target)
            if (cell instanceof TerminalError) return cell
            const { x, y } = cell
            if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= shown.cols || y >= shown.rows) {
              return new TerminalError({
                reason: "outside",
                message: `simnet: (${x}, ${y}) is outside the ${shown.cols}x${shown.rows} screen (columns 0-${shown.cols - 1}, rows 0-${shown.rows - 1})`
              })
            }
            const bytes = clickBytes(emulator.modes(), x, y)
            if (bytes === "no-mouse") {
              return new TerminalError({
                reason: "no-mouse",
                message:
                  "simnet: the app enabled no mouse (it turned on no mouse reporting, such as CSI ? 1000 h), so a click would not reach it"
              })
            }
            if (bytes === "unreportable") {
              return new TerminalError({
                reason: "outside",
                message: `simnet: (${x}, ${y}) cannot be reported in the app's mouse encoding (xterm's default, without SGR 1006), which reaches columns and rows up to ${MAX_DEFAULT_MOUSE}`
              })
            }
            for (const chunk of bytes) send(chunk)
          }),
        paste: (text) =>
          text.length > MAX_PASTE
            ? Effect.fail(
                new TerminalError({
                  reason: "too-large",
                  message: `simnet: a paste of ${text.length} characters is over the limit of ${MAX_PASTE}; nothing was sent`
                })
              )
            : alive(() => send(pasteBytes(text, emulator.modes().bracketedPaste))),
        submit: (text, options = {}) =>
          Effect.gen(function* () {
            if (text !== "") {
              const since = emulator.generation
              yield* write(text)
              // The last line typed, its end: what the app's echo shows once it has taken the text.
              const tail = text
                .split(/\r?\n|\r/)
                .at(-1)!
                .trim()
                .slice(-20)
              yield* taken(since, tail, options.timeoutMs ?? 2_000)
              yield* Effect.sleep(options.gapMs ?? SUBMIT_GAP_MS)
            }
            yield* press("enter")
          }),
        resize: (newCols, newRows) => {
          const invalid = checkSize(newCols, newRows)
          return invalid !== undefined
            ? Effect.fail(invalid)
            : alive(() => {
                mark()
                child.resize(newCols, newRows)
                emulator.resize(newCols, newRows)
              })
        },
        wait,
        rest: ({ quietMs = DEFAULT_QUIET_MS, timeoutMs = DEFAULT_TIMEOUT_MS, quiescent = Effect.void }) =>
          (clock === undefined
            ? untilRest(subject, quiescent, quietMs)
            : restOnClock(subject, quiescent, quietMs, clock, timeoutMs)
          ).pipe(
            Effect.timeoutOrElse({
              duration: timeoutMs,
              orElse: () =>
                Effect.fail(
                  new TerminalError({
                    reason: "timeout",
                    message: `simnet: the app was not at rest within ${timeoutMs} ms; the screen shows:\n${screenText(emulator.lines())}`
                  })
                )
            }),
            Effect.andThen(() => {
              const ended = exit()
              return ended === undefined ? Effect.succeed(screen()) : Effect.fail(exitedError(ended))
            })
          ),
        failures: () => emulator.failures,
        exit,
        exited: Effect.promise(() => ending)
      }
    })
  )
}
