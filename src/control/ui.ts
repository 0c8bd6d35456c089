/**
 * The driver socket's `ui.*` methods: the terminal of `simnet run --tty` seen and typed into —
 * `ui.screen` → `{ lines, cursor: { x, y }, cols, rows }`; `ui.type { text }`, `ui.press { key }`,
 * `ui.resize { cols, rows }` (each answering with the screen after it); `ui.wait { text?,
 * quietMs?, timeoutMs?, quiescent? }` (until the text is on screen, or the screen has been still
 * that long; with `quiescent: true`, the whole app at rest: no request in flight, no model call
 * pending, no delay armed, and the screen still for `quietMs` — what a runner waits for after
 * each action).
 * Without a terminal each is `-32003`; a terminal's refusal (an unknown key, a bad size, a wait
 * that ran out, a program that has exited) is `-32004` with its reason in `data.reason`.
 */
import { Effect } from "effect"
import { isJsonObject } from "../core/util.ts"
import type { Terminal, TerminalError, TerminalScreen } from "../terminal/terminal.ts"

/** A JSON-RPC error as the driver socket sends it. */
export interface UiError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** The `ui.*` methods, as the driver socket lists them. */
export const UI_METHODS: ReadonlyArray<string> = ["ui.screen", "ui.type", "ui.press", "ui.resize", "ui.wait"]

/** The longest a `ui.wait` may ask to wait. */
const MAX_WAIT_MS = 10 * 60_000
/** The most text one `ui.type` sends. */
const MAX_TYPED = 64 * 1024

const invalid = (path: string, what: string): UiError => ({ code: -32602, message: `Invalid params: ${path} ${what}`, data: { path } })
const refused = (error: TerminalError): UiError => ({ code: -32004, message: error.message, data: { reason: error.reason } })

const field = (params: unknown, name: string): unknown => (isJsonObject(params) ? params[name] : undefined)

const optionalMs = (params: unknown, name: string): number | undefined | UiError => {
  const value = field(params, name)
  if (value === undefined) return undefined
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_WAIT_MS ? value : invalid(name, `must be a whole number of milliseconds from 0 to ${MAX_WAIT_MS}`)
}

const isError = (value: unknown): value is UiError => isJsonObject(value) && typeof value["code"] === "number"

/** Answers one `ui.*` call on `terminal`: the screen (after the action). `quiescent` is the network's (`ui.wait`'s `quiescent: true`). */
export const uiCall = (terminal: Terminal | undefined, method: string, params: unknown, quiescent: Effect.Effect<void> = Effect.void): Effect.Effect<TerminalScreen, UiError> => {
  if (terminal === undefined) return Effect.fail({ code: -32003, message: `No terminal: ${method} needs a command run with simnet run --tty` })
  const then = (action: Effect.Effect<void, TerminalError>) => Effect.map(Effect.mapError(action, refused), () => terminal.screen())
  switch (method) {
    case "ui.screen":
      return Effect.sync(() => terminal.screen())
    case "ui.type": {
      const text = field(params, "text")
      if (typeof text !== "string" || text.length > MAX_TYPED) return Effect.fail(invalid("text", `must be a string of at most ${MAX_TYPED} characters`))
      return then(terminal.type(text))
    }
    case "ui.press": {
      const key = field(params, "key")
      if (typeof key !== "string") return Effect.fail(invalid("key", "must be a key name such as \"enter\" or \"ctrl+c\""))
      return then(terminal.press(key))
    }
    case "ui.resize": {
      const cols = field(params, "cols")
      const rows = field(params, "rows")
      if (typeof cols !== "number" || typeof rows !== "number") return Effect.fail(invalid(typeof cols !== "number" ? "cols" : "rows", "must be a number"))
      return then(terminal.resize(cols, rows))
    }
    case "ui.wait": {
      const text = field(params, "text")
      if (text !== undefined && typeof text !== "string") return Effect.fail(invalid("text", "must be a string"))
      const quietMs = optionalMs(params, "quietMs")
      const timeoutMs = optionalMs(params, "timeoutMs")
      if (isError(quietMs)) return Effect.fail(quietMs)
      if (isError(timeoutMs)) return Effect.fail(timeoutMs)
      const whole = field(params, "quiescent")
      if (whole !== undefined && typeof whole !== "boolean") return Effect.fail(invalid("quiescent", "must be true or false"))
      if (whole !== true) return Effect.mapError(terminal.wait({ text, quietMs, timeoutMs }), refused)
      // The network at rest, then the screen still; once more if a request started meanwhile.
      const limit = timeoutMs ?? 10_000
      const settle = Effect.andThen(quiescent, Effect.mapError(terminal.wait({ quietMs, timeoutMs: limit }), refused))
      return Effect.gen(function*() {
        for (let round = 0; round < 10; round++) {
          const screen = yield* settle
          if (yield* Effect.map(Effect.timeoutOption(quiescent, 0), (done) => done._tag === "Some")) return screen
        }
        return terminal.screen()
      }).pipe(
        Effect.timeoutOrElse({ duration: limit, orElse: () => Effect.fail<UiError>({ code: -32004, message: `simnet: the app was not at rest within ${limit} ms`, data: { reason: "timeout" } }) })
      )
    }
    default:
      return Effect.fail({ code: -32601, message: `Method not found: ${JSON.stringify(method)}; ui methods: ${UI_METHODS.join(", ")}` })
  }
}
