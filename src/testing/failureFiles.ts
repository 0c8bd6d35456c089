/**
 * The files a failing case writes, read back by Schema: `explore-failure/v1` (a run of `simnet
 * explore`, which `simnet explore --replay` runs again) and `property-failure/v1` (a case of
 * `property`); `simnet show` opens either. A file is input like any other, hostile or not: each
 * value is decoded and bounded (`FAILURE_FILE_BOUNDS`: the file's size, the command, the terminal,
 * the waits, the actions and their text, the steps), and one that is not what simnet wrote is
 * refused with `BadFailureFile`, naming the path of the bad value. Values read on (the fixture,
 * the network's end state) are decoded by their own Schemas where they are used.
 */
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs"
import { Data, Result, Schema } from "effect"
import { decodeAt } from "../registry/schemaPath.ts"
import { LlmScript } from "../schemas/llmScript.ts"
import { ChaosData } from "../schemas/options.ts"

/**
 * The bounds of a failure file's values: what a replay waits, types and runs at most, and what a
 * file may hold. A value past one is refused, naming it.
 */
export const FAILURE_FILE_BOUNDS = {
  /** The file's size in bytes. */
  bytes: 64 * 1024 * 1024,
  /** The command: its parts, and the characters of each. */
  commandParts: 256,
  commandPart: 4096,
  /** A terminal's columns and rows (as `spawnTerminal` takes them). */
  side: 1000,
  /** How long a step waits for the screen to be still, in milliseconds. */
  quietMs: 60_000,
  /** How long a step may take to come to rest, in milliseconds. */
  timeoutMs: 600_000,
  /** The actions of a case, and the characters an action types. */
  actions: 1000,
  text: 65_536,
  /** The model scripts queued before a case. */
  scripts: 100,
  /** The steps a file shows, the lines of a screen and the characters of a line, a screen's styled runs. */
  steps: 1001,
  lines: 1000,
  line: 10_000,
  styles: 100_000,
  /** Requests named per step, and trace lines. */
  requests: 100_000,
  /** Characters of a message (a failure's reason, a property's error) and of a name. */
  message: 100_000
} as const

const B = FAILURE_FILE_BOUNDS

/** A bounded string, a whole number in a range. */
const text = (max: number) => Schema.String.check(Schema.isMaxLength(max))
const whole = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))
const list = <S extends Schema.Top>(item: S, max: number) => Schema.Array(item).check(Schema.isMaxLength(max))

/** One action of a case, as `ExploreAction` says. */
const ExploreActionData = Schema.Union([
  Schema.Struct({ type: Schema.Literal("type"), text: text(B.text) }),
  Schema.Struct({ type: Schema.Literal("submit"), text: text(B.text) }),
  Schema.Struct({ type: Schema.Literal("press"), key: text(64) }),
  Schema.Struct({ type: Schema.Literal("resize"), cols: whole(1, B.side), rows: whole(1, B.side) })
])

const ExploreCaseData = Schema.Struct({
  actions: list(ExploreActionData, B.actions),
  scripts: list(LlmScript, B.scripts),
  chaos: Schema.optional(ChaosData)
})

const Colour = Schema.Union([Schema.Finite, text(64)])
const StyledRunData = Schema.Struct({
  y: whole(0, B.side),
  x: whole(0, B.side),
  text: text(B.line),
  fg: Schema.optional(Colour),
  bg: Schema.optional(Colour),
  bold: Schema.optional(Schema.Literal(true)),
  dim: Schema.optional(Schema.Literal(true)),
  italic: Schema.optional(Schema.Literal(true)),
  underline: Schema.optional(Schema.Literal(true)),
  inverse: Schema.optional(Schema.Literal(true)),
  strikethrough: Schema.optional(Schema.Literal(true)),
  href: Schema.optional(text(B.line))
})

const StepData = Schema.Struct({
  step: whole(0, B.steps),
  action: text(B.message),
  screen: Schema.Struct({
    lines: list(text(B.line), B.lines),
    cursor: Schema.Struct({ x: whole(0, B.side), y: whole(0, B.side) }),
    cols: whole(1, B.side),
    rows: whole(1, B.side),
    styles: list(StyledRunData, B.styles)
  }),
  requests: list(whole(0, Number.MAX_SAFE_INTEGER), B.requests),
  settled: Schema.Boolean,
  exit: Schema.optional(Schema.Struct({ code: Schema.Int, signal: Schema.optional(Schema.Int) }))
})

/** A network's state as a file holds it: checked by `restore` where it is used. */
const StateData = Schema.Record(Schema.String, Schema.Unknown)
const TraceData = list(Schema.Record(Schema.String, Schema.Unknown), B.requests)

/** `explore-failure/v1`, as `explore` writes it (`ExploreFile`). */
export const ExploreFileData = Schema.Struct({
  simnet: Schema.Literal("explore-failure/v1"),
  command: list(text(B.commandPart), B.commandParts).check(Schema.isMinLength(1)),
  seed: Schema.Union([Schema.Finite, text(256)]),
  cols: whole(1, B.side),
  rows: whole(1, B.side),
  quietMs: whole(0, B.quietMs),
  timeoutMs: whole(1, B.timeoutMs),
  ready: Schema.optional(text(B.commandPart)),
  clock: Schema.optional(Schema.Literal("virtual")),
  fixture: Schema.Unknown,
  case: ExploreCaseData,
  failure: Schema.Struct({ step: whole(0, B.steps), action: text(B.message), reason: text(B.message) }),
  steps: list(StepData, B.steps),
  trace: TraceData,
  end: StateData
})

/**
 * `property-failure/v1`, as `property` writes it (`FailureFile`); what `simnet show` does without
 * (the seed, the case's start and trace) may be left out.
 */
export const PropertyFileData = Schema.Struct({
  simnet: Schema.Literal("property-failure/v1"),
  name: text(B.message),
  seed: Schema.optional(Schema.Finite),
  path: Schema.optional(text(B.message)),
  counterexample: Schema.optional(Schema.Unknown),
  error: text(B.message),
  start: Schema.optional(StateData),
  end: StateData,
  trace: Schema.optional(TraceData)
})

/** A failure file as decoded: either kind. */
export type FailureFileData = typeof ExploreFileData.Type | typeof PropertyFileData.Type

/** A file that is not a failure file simnet wrote, or holds a value past its bounds: where, and why. */
export class BadFailureFile extends Data.TaggedError("BadFailureFile")<{
  readonly file: string
  readonly path: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.file}${this.path === "" ? "" : ` at ${this.path}`}: ${this.reason}`
  }
}

/** The file's JSON, read whole when it is within its bound. */
const readJson = (file: string): unknown => {
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch (cause) {
    throw new BadFailureFile({
      file,
      path: "",
      reason: `cannot be read (${cause instanceof Error ? cause.message : String(cause)})`
    })
  }
  try {
    const size = fstatSync(fd).size
    if (size > B.bytes)
      throw new BadFailureFile({
        file,
        path: "",
        reason: `is ${size} bytes, over the ${B.bytes} a failure file may hold`
      })
    return JSON.parse(readFileSync(fd, "utf8")) as unknown
  } catch (cause) {
    if (cause instanceof BadFailureFile) throw cause
    throw new BadFailureFile({
      file,
      path: "",
      reason: `is not JSON (${cause instanceof Error ? cause.message : String(cause)})`
    })
  } finally {
    closeSync(fd)
  }
}

const KINDS = { "explore-failure/v1": ExploreFileData, "property-failure/v1": PropertyFileData } as const

/**
 * Reads a failure file of one of `kinds` (default both), decoded and bounded; `BadFailureFile`
 * naming the bad value's path otherwise.
 */
export const readFailureFile = <K extends keyof typeof KINDS = keyof typeof KINDS>(
  file: string,
  kinds: ReadonlyArray<K> = Object.keys(KINDS) as Array<K>
): (typeof KINDS)[K]["Type"] => {
  const json = readJson(file)
  const tag = typeof json === "object" && json !== null ? (json as { readonly simnet?: unknown }).simnet : undefined
  const kind = kinds.find((k) => k === tag)
  if (kind === undefined) {
    const wrote = kinds.map((k) => (k === "explore-failure/v1" ? "simnet explore" : "simnet/testing's property"))
    throw new BadFailureFile({
      file,
      path: "simnet",
      reason: `is not a failing run ${wrote.join(" or ")} wrote (simnet: ${kinds.map((k) => JSON.stringify(k)).join(" or ")})`
    })
  }
  const decoded = decodeAt(KINDS[kind] as Schema.Codec<unknown, unknown>, json, "")
  if (Result.isFailure(decoded))
    throw new BadFailureFile({ file, path: decoded.failure.path, reason: decoded.failure.message })
  return decoded.success as (typeof KINDS)[K]["Type"]
}
