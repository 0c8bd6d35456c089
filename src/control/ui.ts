/**
 * The driver socket's `ui.*` methods: the terminal of `simnet run --tty` seen and typed into —
 * `ui.screen` → `{ lines, cursor: { x, y }, cols, rows }`; `ui.type { text }`, `ui.press { key }`,
 * `ui.resize { cols, rows }` (each answering with the screen after it); `ui.wait { text?,
 * quietMs?, timeoutMs?, quiescent? }` (until the text is on screen, read as a person reads it, or
 * the screen has been still that long; with `quiescent: true`, the whole app at rest: no request
 * in flight, no model call pending, no delay armed, and the screen still for `quietMs` — what a
 * runner waits for after each action).
 * Params are decoded by `UI_PARAMS` (the MCP tools' inputs too): a bad one is `-32602` naming its
 * path. Without a terminal each is `-32003`; a terminal's refusal (an unknown key, a bad size, a
 * wait that ran out) is `-32004` with its reason in `data.reason`. Once the program has exited,
 * every call — and a wait under way — is `-32004` with `data: { reason: "exited", exit: { code,
 * signal? }, screen }`, its message naming the exit and the last screen.
 */
import { Effect, Schema } from "effect"
import { decodeAt } from "../registry/schemaPath.ts"
import { exitReport } from "../terminal/screen.ts"
import type { Terminal, TerminalError, TerminalScreen } from "../terminal/terminal.ts"

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

/**
 * The params of a method that takes none: an object without keys. (An empty `Struct` takes any
 * object, unknown keys and all; this one names the first key given.)
 */
export const NoParams = Schema.Struct({}).check(
  Schema.makeFilter((input: object) => {
    const [key] = Object.keys(input)
    return key === undefined ? undefined : { path: [key], issue: `unknown key ${JSON.stringify(key.slice(0, 64))}: this takes no arguments` }
  })
)

/** The params of each `ui.*` method, as every door (driver socket, control endpoint, MCP tools) decodes them; unknown keys are refused. */
export const UI_PARAMS = {
  "ui.screen": NoParams,
  "ui.type": Schema.Struct({ text: Text }),
  "ui.press": Schema.Struct({ key: Schema.String }),
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

const isUiMethod = (method: string): method is keyof typeof UI_PARAMS => Object.hasOwn(UI_PARAMS, method)

/** `params` decoded for `method`, or the `-32602` naming the bad field. */
const paramsOf = <M extends keyof typeof UI_PARAMS>(method: M, params: unknown): Effect.Effect<(typeof UI_PARAMS)[M]["Type"], UiError> => {
  const decoded = decodeAt(UI_PARAMS[method], params, "", { onExcessProperty: "error" })
  return decoded._tag === "Success"
    ? Effect.succeed(decoded.success)
    : Effect.fail({ code: -32602, message: `Invalid params: ${decoded.failure.path === "" ? "" : `${decoded.failure.path}: `}${decoded.failure.message}`, data: { path: decoded.failure.path } })
}

/** A terminal's refusal as the driver sends it; an exit carries how the program ended and its last screen. */
const refusal = (terminal: Terminal) => (error: TerminalError): UiError => {
  const ended = error.reason === "exited" ? terminal.exit() : undefined
  return { code: -32004, message: error.message, data: ended === undefined ? { reason: error.reason } : { reason: error.reason, exit: ended, screen: terminal.screen() } }
}

/** Answers one `ui.*` call on `terminal`: the screen (after the action). `quiescent` is the network's (`ui.wait`'s `quiescent: true`). */
export const uiCall = (terminal: Terminal | undefined, method: string, params: unknown, quiescent: Effect.Effect<void> = Effect.void): Effect.Effect<TerminalScreen, UiError> => {
  if (terminal === undefined) return Effect.fail({ code: -32003, message: `No terminal: ${method} needs a command run with simnet run --tty` })
  if (!isUiMethod(method)) return Effect.fail({ code: -32601, message: `Method not found: ${JSON.stringify(method)}; ui methods: ${UI_METHODS.join(", ")}` })
  // Once the program has exited, every call is the same answer: the exit and the last screen.
  const ended = terminal.exit()
  if (ended !== undefined) {
    const screen = terminal.screen()
    return Effect.fail({ code: -32004, message: `simnet: ${exitReport(ended, screen.lines)}`, data: { reason: "exited", exit: ended, screen } })
  }
  const refused = refusal(terminal)
  const then = (action: Effect.Effect<void, TerminalError>) => Effect.map(Effect.mapError(action, refused), () => terminal.screen())
  return Effect.suspend((): Effect.Effect<TerminalScreen, UiError> => {
    switch (method) {
      case "ui.screen":
        return Effect.map(paramsOf(method, params), () => terminal.screen())
      case "ui.type":
        return Effect.flatMap(paramsOf(method, params), ({ text }) => then(terminal.type(text)))
      case "ui.press":
        return Effect.flatMap(paramsOf(method, params), ({ key }) => then(terminal.press(key)))
      case "ui.resize":
        return Effect.flatMap(paramsOf(method, params), ({ cols, rows }) => then(terminal.resize(cols, rows)))
      case "ui.wait":
        return Effect.flatMap(paramsOf(method, params), ({ text, quietMs, timeoutMs, quiescent: whole }) => {
          if (whole !== true) return Effect.mapError(terminal.wait({ text, quietMs, timeoutMs }), refused)
          // The network at rest (or the program gone), then the screen still; once more if a
          // request started meanwhile.
          const limit = timeoutMs ?? 10_000
          const settle = Effect.andThen(Effect.raceFirst(quiescent, Effect.asVoid(terminal.exited)), Effect.mapError(terminal.wait({ quietMs, timeoutMs: limit }), refused))
          return Effect.gen(function*() {
            for (let round = 0; round < 10; round++) {
              const screen = yield* settle
              if (yield* Effect.map(Effect.timeoutOption(quiescent, 0), (done) => done._tag === "Some")) return screen
            }
            return terminal.screen()
          }).pipe(
            Effect.timeoutOrElse({ duration: limit, orElse: () => Effect.fail<UiError>({ code: -32004, message: `simnet: the app was not at rest within ${limit} ms`, data: { reason: "timeout" } }) })
          )
        })
    }
  })
}
