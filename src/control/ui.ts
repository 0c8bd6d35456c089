/**
 * The `ui.*` methods: the terminal of `simnet run --tty` (or `simnet mcp -- CMD`) seen and acted
 * on, the same table for every door — the driver socket, the control endpoint (`…/ui/ACTION`)
 * and the MCP tools. `ui.screen` → `{ lines, cursor: { x, y }, cols, rows, styles }`;
 * `ui.interactables` → `{ items: [{ kind, text, x, y, width, … }] }`; `ui.type { text }`,
 * `ui.press { key }`, `ui.click { x, y } | { text }`, `ui.paste { text }`, `ui.submit { text,
 * gapMs? }`, `ui.resize { cols, rows }` (each answering with the screen after it); `ui.wait {
 * text?, quietMs?, timeoutMs?, quiescent? }` (until the text is on screen, read as a person reads
 * it, or the screen has been still that long; with `quiescent: true`, the whole app at rest,
 * detected (`terminal/rest.ts`): no request in flight, no model call pending, no delay armed, the
 * program's process tree asleep since it took the input, the screen still for at least `quietMs`
 * (default 0 on Linux) — what a runner waits for after each action).
 * Params are decoded by `UI_PARAMS` (the MCP tools' inputs too): a bad one is `-32602` naming its
 * path. Without a terminal each is `-32003`; a terminal's refusal (an unknown key, a bad size, a
 * wait that ran out, a click the app enabled no mouse for, outside the screen or at a text not on
 * it, a paste over the limit) is `-32004` with its reason in `data.reason`, and nothing reaches the
 * app. Once the program has exited, every call — and a wait under way — is `-32004` with `data: {
 * reason: "exited", exit: { code, signal? }, screen }`, its message naming the exit and the last
 * screen. Every call that succeeds, whichever door it came through, is told to the door's `told`
 * (the trace's `control.ui` line), but the ones that only look (`UI_LOOKS`): polling the screen
 * is not an action, and a replay need not do it again.
 */
import { Effect, Schema } from "effect"
import { decodeAt } from "../registry/schemaPath.ts"
import { exitReport } from "../terminal/screen.ts"
import {
  type Interactable,
  MAX_PASTE,
  type Terminal,
  type TerminalError,
  type TerminalScreen
} from "../terminal/terminal.ts"

/** A JSON-RPC error as the driver socket sends it. */
export interface UiError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** The longest a `ui.wait` may ask to wait. */
const MAX_WAIT_MS = 10 * 60_000
/** The most text one `ui.type` sends, or one `ui.wait` looks for. */
const MAX_TEXT = 64 * 1024

const Milliseconds = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_WAIT_MS }))
const Text = Schema.String.check(Schema.isMaxLength(MAX_TEXT))
/** A cell's column or row: the terminal says when it is off its screen. */
const Cell = Schema.Int.annotate({ description: "0-based" })

/** A click's target: a cell (`x` and `y`), or a text on screen (`text`: its middle is clicked). */
const ClickParams = Schema.Struct({
  x: Schema.optionalKey(Cell),
  y: Schema.optionalKey(Cell),
  text: Schema.optionalKey(Text.check(Schema.isMinLength(1)))
}).check(
  Schema.makeFilter((input: { readonly x?: number; readonly y?: number; readonly text?: string }) => {
    if (input.text !== undefined)
      return input.x === undefined && input.y === undefined
        ? undefined
        : { path: ["text"], issue: "click at a text or at a cell (x and y), not both" }
    if (input.x === undefined) return { path: ["x"], issue: "click needs a cell (x and y) or a text" }
    return input.y === undefined ? { path: ["y"], issue: "click needs a cell (x and y) or a text" } : undefined
  })
)

/**
 * The params of a method that takes none: an object without keys. (An empty `Struct` takes any
 * object, unknown keys and all; this one names the first key given.)
 */
export const NoParams = Schema.Struct({}).check(
  Schema.makeFilter((input: object) => {
    const [key] = Object.keys(input)
    return key === undefined
      ? undefined
      : { path: [key], issue: `unknown key ${JSON.stringify(key.slice(0, 64))}: this takes no arguments` }
  })
)

/** The params of each `ui.*` method, as every door (driver socket, control endpoint, MCP tools) decodes them; unknown keys are refused. */
export const UI_PARAMS = {
  "ui.screen": NoParams,
  "ui.interactables": NoParams,
  "ui.type": Schema.Struct({ text: Text }),
  "ui.press": Schema.Struct({ key: Schema.String.check(Schema.isMaxLength(64)) }),
  "ui.click": ClickParams,
  "ui.paste": Schema.Struct({ text: Schema.String.check(Schema.isMaxLength(MAX_PASTE)) }),
  "ui.submit": Schema.Struct({
    text: Text,
    gapMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })))
  }),
  "ui.resize": Schema.Struct({ cols: Schema.Number, rows: Schema.Number }),
  "ui.wait": Schema.Struct({
    text: Schema.optionalKey(Text),
    quietMs: Schema.optionalKey(Milliseconds),
    timeoutMs: Schema.optionalKey(Milliseconds),
    quiescent: Schema.optionalKey(Schema.Boolean)
  })
} as const

/** The `ui.*` methods, as the driver socket lists them. */
export const UI_METHODS: ReadonlyArray<string> = Object.keys(UI_PARAMS)

/** The methods that only look: not actions, so not told (not traced, not replayed). */
export const UI_LOOKS: ReadonlySet<string> = new Set(["ui.screen", "ui.interactables"])

/** A `ui.*` call that acted, and the screen after it: what a door tells its trace. */
export interface UiCall {
  readonly method: string
  readonly params: unknown
  readonly screen: TerminalScreen
}

/** What a `ui.*` method answers: the screen, but for `ui.interactables` (what is on it to act on). */
export type UiAnswer<M extends string> = M extends "ui.interactables"
  ? { readonly items: ReadonlyArray<Interactable> }
  : string extends M
    ? TerminalScreen | { readonly items: ReadonlyArray<Interactable> }
    : TerminalScreen

const isUiMethod = (method: string): method is keyof typeof UI_PARAMS => Object.hasOwn(UI_PARAMS, method)

/** `params` decoded for `method`, or the `-32602` naming the bad field. */
const paramsOf = <M extends keyof typeof UI_PARAMS>(
  method: M,
  params: unknown
): Effect.Effect<(typeof UI_PARAMS)[M]["Type"], UiError> => {
  const decoded = decodeAt(UI_PARAMS[method], params, "", { onExcessProperty: "error" })
  return decoded._tag === "Success"
    ? Effect.succeed(decoded.success)
    : Effect.fail({
        code: -32602,
        message: `Invalid params: ${decoded.failure.path === "" ? "" : `${decoded.failure.path}: `}${decoded.failure.message}`,
        data: { path: decoded.failure.path }
      })
}

/** A terminal's refusal as the driver sends it; an exit carries how the program ended and its last screen. */
const refusal =
  (terminal: Terminal) =>
  (error: TerminalError): UiError => {
    const ended = error.reason === "exited" ? terminal.exit() : undefined
    return {
      code: -32004,
      message: error.message,
      data:
        ended === undefined
          ? { reason: error.reason }
          : { reason: error.reason, exit: ended, screen: terminal.screen() }
    }
  }

/**
 * Answers one `ui.*` call on `terminal`: the screen (after the action), or for `ui.interactables`
 * its items. `quiescent` is the network's (`ui.wait`'s `quiescent: true`); `told` is told of each
 * call that acted (see the module's comment), with the params as decoded.
 */
export const uiCall = <M extends string>(
  terminal: Terminal | undefined,
  method: M,
  params: unknown,
  quiescent: Effect.Effect<void> = Effect.void,
  told?: (call: UiCall) => void
): Effect.Effect<UiAnswer<M>, UiError> =>
  Effect.map(answer(terminal, method, params, quiescent, told), (result) => result as UiAnswer<M>)

const answer = (
  terminal: Terminal | undefined,
  method: string,
  params: unknown,
  quiescent: Effect.Effect<void>,
  told: ((call: UiCall) => void) | undefined
): Effect.Effect<TerminalScreen | { readonly items: ReadonlyArray<Interactable> }, UiError> => {
  if (terminal === undefined)
    return Effect.fail({
      code: -32003,
      message: `No terminal: ${method} needs a command run in a terminal (simnet run --tty, or simnet mcp -- COMMAND)`
    })
  if (!isUiMethod(method))
    return Effect.fail({
      code: -32601,
      message: `Method not found: ${JSON.stringify(method)}; ui methods: ${UI_METHODS.join(", ")}`
    })
  // Once the program has exited, every call is the same answer: the exit and the last screen.
  const ended = terminal.exit()
  if (ended !== undefined) {
    const screen = terminal.screen()
    return Effect.fail({
      code: -32004,
      message: `simnet: ${exitReport(ended, screen.lines)}`,
      data: { reason: "exited", exit: ended, screen }
    })
  }
  const refused = refusal(terminal)
  const then = (action: Effect.Effect<void, TerminalError>) =>
    Effect.map(Effect.mapError(action, refused), () => terminal.screen())
  // Every call that acted is told, with its params as decoded and the screen it answered.
  const tell = (decoded: unknown, screen: TerminalScreen): TerminalScreen => {
    if (!UI_LOOKS.has(method)) told?.({ method, params: decoded, screen })
    return screen
  }
  const act = <M extends Exclude<keyof typeof UI_PARAMS, "ui.interactables">>(
    m: M,
    run: (decoded: (typeof UI_PARAMS)[M]["Type"]) => Effect.Effect<TerminalScreen, UiError>
  ) => Effect.flatMap(paramsOf(m, params), (decoded) => Effect.map(run(decoded), (screen) => tell(decoded, screen)))
  return Effect.suspend(
    (): Effect.Effect<TerminalScreen | { readonly items: ReadonlyArray<Interactable> }, UiError> => {
      switch (method) {
        case "ui.screen":
          return Effect.map(paramsOf(method, params), () => terminal.screen())
        case "ui.interactables":
          return Effect.map(paramsOf(method, params), () => terminal.interactables())
        case "ui.type":
          return act(method, ({ text }) => then(terminal.type(text)))
        case "ui.press":
          return act(method, ({ key }) => then(terminal.press(key)))
        case "ui.click":
          return act(method, (target) =>
            then(terminal.click(target.text !== undefined ? { text: target.text } : { x: target.x!, y: target.y! }))
          )
        case "ui.paste":
          return act(method, ({ text }) => then(terminal.paste(text)))
        case "ui.submit":
          return act(method, ({ text, gapMs }) => then(terminal.submit(text, { gapMs })))
        case "ui.resize":
          return act(method, ({ cols, rows }) => then(terminal.resize(cols, rows)))
        case "ui.wait":
          return act(method, ({ text, quietMs, timeoutMs, quiescent: whole }) => {
            if (whole !== true) return Effect.mapError(terminal.wait({ text, quietMs, timeoutMs }), refused)
            // The whole app at rest, detected (`terminal/rest.ts`): simnet idle, the program's tree asleep.
            return Effect.mapError(terminal.rest({ quietMs, timeoutMs, quiescent }), refused)
          })
      }
    }
  )
}
