/**
 * The provider's behaviours as data, and how each becomes a plan for one request: rule matchers,
 * script steps turned into wire parts, failures, faults and raw bytes.
 */
import { Result, Schema } from "effect"
import type { Duration } from "effect"
import { LinearRegExp } from "../../registry/linearRegExp.ts"
import { type LlmPace, LlmScript, RetryAfterMs } from "../../schemas/llmScript.ts"
import type { TokenUsage } from "./parts.ts"
import type { NoScriptQueued, UnmatchedLlmRequest } from "../../SimnetError.ts"
import type { LlmRequest } from "./conversation.ts"
import type { DrivenInvocation } from "./invocation.ts"
import type { Finish, Part } from "./parts.ts"
import { naturalFinish, splitArguments, splitWords, StreamFault, wireFinish } from "./parts.ts"
import { jsonAnswer } from "./structuredValue.ts"

/**
 * A text matcher: a string (exact, or a substring for `contains` and `system`), a `RegExp` (code
 * only: the author's own), or `{ "regex": "…" }`, the JSON form, which runs on RE2 (linear time:
 * a pattern from a fixture or the control endpoint cannot block the event loop).
 */
const TextPattern = Schema.Union([Schema.String, Schema.instanceOf(RegExp), Schema.Struct({ regex: Schema.String })])
type TextPattern = typeof TextPattern.Type

const isPredicate = (u: unknown): u is (request: LlmRequest) => boolean => typeof u === "function"

/**
 * Which requests a rule takes: `"any"`, or an object whose given fields must all hold. Each text
 * field is a `TextPattern` (a string, a `RegExp`, or `{ regex }` on RE2):
 * - `model`: the requested model (a string matches exactly);
 * - `contains`: the request material, every message's text and tool calls (a string matches as
 *   a substring);
 * - `lastUserMessage`: the text of the last user message (a string matches exactly);
 * - `system`: the system or developer instructions, whatever the API (Chat Completions' system
 *   and developer messages, the Responses API's `instructions`, Anthropic's `system`, Gemini's
 *   `systemInstruction`), joined by newlines (a string matches as a substring);
 * - `api`: the API the request came through, as drivers see it (`openai.chat`,
 *   `openai.responses`, `anthropic.messages`, `gemini`; a string matches exactly);
 * - `tool`: a tool the request offers (a string matches a name exactly);
 * - `toolResult`: whether tool results follow the last user message;
 * - `structured`: whether the call asks for structured output (JSON mode or a JSON Schema);
 * - `where`: a predicate (code only).
 */
export const LlmMatch = Schema.Union([
  Schema.Literal("any"),
  Schema.Struct({
    model: Schema.optional(TextPattern),
    contains: Schema.optional(TextPattern),
    lastUserMessage: Schema.optional(TextPattern),
    system: Schema.optional(TextPattern),
    api: Schema.optional(TextPattern),
    tool: Schema.optional(TextPattern),
    toolResult: Schema.optional(Schema.Boolean),
    structured: Schema.optional(Schema.Boolean),
    where: Schema.optional(Schema.declare(isPredicate, { expected: "a function (request) => boolean" }))
  })
]).annotate({
  expected:
    '"any" or a matcher object { model, contains, lastUserMessage, system, api, tool, toolResult, structured, where }'
})
export type LlmMatch = typeof LlmMatch.Type

const RateLimit = Schema.Struct({
  type: Schema.Literal("rateLimit"),
  retryAfterMs: Schema.optional(RetryAfterMs),
  message: Schema.optional(Schema.String)
})
const ServerError = Schema.Struct({
  type: Schema.Literal("serverError"),
  status: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 500, maximum: 599 }))),
  retryAfterMs: Schema.optional(RetryAfterMs),
  message: Schema.optional(Schema.String)
})
const Timeout = Schema.Struct({ type: Schema.Literal("timeout") })

/**
 * A failing behaviour: a rate limit (429 with `retry-after-ms` and `retry-after`, both 0 unless
 * given, so a client's retries cost no wall time), a server error (5xx, 500 unless given) or a
 * timeout (no answer until the client gives up).
 */
export const LlmFailure = Schema.Union([RateLimit, ServerError, Timeout]).annotate({
  expected: 'a failure of type "rateLimit", "serverError" or "timeout"'
})
export type LlmFailure = typeof LlmFailure.Type

const Respond = Schema.Struct({ type: Schema.Literal("respond"), ...LlmScript.fields })
const Raw = Schema.Struct({
  type: Schema.Literal("raw"),
  body: Schema.Union([Schema.String, Schema.Uint8Array]),
  status: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 200, maximum: 599 }))),
  contentType: Schema.optional(Schema.String)
})
const Fault = Schema.Struct({
  type: Schema.Literal("fault"),
  fault: StreamFault,
  steps: Schema.optional(LlmScript.fields.steps)
})
const Drive = Schema.Struct({ type: Schema.Literal("drive") })

/**
 * An answering behaviour: `respond` with script steps (step N answers the call after N
 * tool-result rounds; the last step answers any later round), `raw` response bytes served
 * verbatim with `status` 200–599 (their sha256 is logged), a stream `fault` after the steps'
 * content, or `drive` (hand the request to a driver).
 */
export const LlmAnswer = Schema.Union([Respond, Raw, Fault, Drive]).annotate({
  expected: 'an answer of type "respond", "raw", "fault" or "drive"'
})
export type LlmAnswer = typeof LlmAnswer.Type

const FailThenRespond = Schema.Struct({
  type: Schema.Literal("failThenRespond"),
  times: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  failure: LlmFailure,
  then: LlmAnswer
})

/**
 * What a rule does with the requests it takes: an answer, a failure, or `failThenRespond` (the
 * failure for the first `times` requests, a whole number of at least 1, then the answer).
 */
export const LlmBehaviour = Schema.Union([
  Respond,
  Raw,
  Fault,
  Drive,
  RateLimit,
  ServerError,
  Timeout,
  FailThenRespond
]).annotate({
  expected:
    'a behaviour of type "respond", "raw", "fault", "drive", "rateLimit", "serverError", "timeout" or "failThenRespond"'
})
export type LlmBehaviour = typeof LlmBehaviour.Type

/**
 * The provider's decision for one request, ready to be rendered on the wire.
 */
export type LlmReply =
  | {
      readonly _tag: "Reply"
      readonly parts: ReadonlyArray<Part>
      /** `null` for a finish the client cannot name (a script's `finish: "unknown"`). */
      readonly finish: Finish
      readonly usage: TokenUsage | undefined
      readonly fault: StreamFault | undefined
      /** How fast it streams; undefined to send it at once. */
      readonly pace?: LlmPace | undefined
    }
  | {
      readonly _tag: "HttpError"
      readonly status: number
      readonly message: string
      readonly retryAfterMs: number | undefined
    }
  | {
      readonly _tag: "Raw"
      readonly bytes: Uint8Array
      readonly status: number
      readonly contentType: string
    }
  | { readonly _tag: "Hang" }
  | { readonly _tag: "Driven"; readonly invocation: DrivenInvocation }

/**
 * What the provider decided for a request before anything is sent: a reply, a hand-over to a
 * driver, or a refusal.
 */
export type Plan =
  | Exclude<LlmReply, { readonly _tag: "Driven" }>
  | { readonly _tag: "Drive"; readonly viaAttach: boolean }
  | { readonly _tag: "Refuse"; readonly error: NoScriptQueued | UnmatchedLlmRequest }

/**
 * What served a request and the plan it chose. `rule` is the rule that took it, if any.
 */
export interface Decision {
  readonly source: "script" | "rule" | "driver" | "none"
  readonly rule: { readonly id: string; readonly latency: Duration.Duration | undefined } | undefined
  readonly step: number | undefined
  readonly plan: Plan
}

/**
 * How a request is recorded in the log's `outcome`; `invalid-request` is a body that is not a
 * request of its API.
 */
export type Outcome = "answer" | "http_error" | "fault" | "timeout" | "raw" | "driven" | "refused" | "invalid-request"

const encoder = new TextEncoder()

const toUsage = (usage: LlmScript["usage"]): TokenUsage | undefined =>
  usage === undefined
    ? undefined
    : { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens }

/**
 * The parts of a script's text or thinking action, split once per action: a rule answers every
 * call from the same action, and its words are the same each time. No reader changes the list or
 * a part (not frozen: V8 reads a frozen array's elements several times slower).
 */
const wordParts = new WeakMap<object, ReadonlyArray<Part>>()
const wordsOf = (action: { readonly content: string }, kind: "text" | "reasoning"): ReadonlyArray<Part> => {
  let parts = wordParts.get(action)
  if (parts === undefined) {
    parts = splitWords(action.content).map((text): Part => ({ kind, text }))
    wordParts.set(action, parts)
  }
  return parts
}

/**
 * A step's parts and how they end when nothing says otherwise. The common step, one text, is its
 * words as split once, which hold no tool call: it ends with `stop` without a scan of its words on
 * every call. A step built part by part is scanned (`naturalFinish`) as it was built.
 */
const stepParts = (
  actions: LlmScript["steps"][number],
  seq: number,
  request: LlmRequest | undefined
): { readonly parts: ReadonlyArray<Part>; readonly finish: Finish } => {
  if (actions.length === 1 && actions[0].type === "text") return { parts: wordsOf(actions[0], "text"), finish: "stop" }
  const parts: Array<Part> = []
  let calls = 0
  for (const action of actions) {
    switch (action.type) {
      case "text":
        for (const part of wordsOf(action, "text")) parts.push(part)
        break
      case "thinking":
        for (const part of wordsOf(action, "reasoning")) parts.push(part)
        break
      case "tool_call":
        parts.push({
          kind: "toolCall",
          id: `call_${seq}_${calls++}`,
          name: action.name,
          fragments: splitArguments(JSON.stringify(action.input)),
          // A string input is a custom (freeform) tool's: its text as given, not a JSON object.
          ...(typeof action.input === "string" ? { custom: action.input } : {})
        })
        break
      case "list_tools":
        for (const text of splitWords((request?.tools ?? []).join("\n"))) parts.push({ kind: "text", text })
        break
      case "json": {
        const answer = jsonAnswer(action.value, request, seq)
        if (Result.isFailure(answer)) parts.push({ kind: "error", message: answer.failure })
        else for (const text of splitWords(answer.success)) parts.push({ kind: "text", text })
        break
      }
      case "error":
        parts.push({ kind: "error", message: action.message })
        break
      case "http_error":
        break
    }
  }
  return { parts, finish: naturalFinish(parts) }
}

/**
 * The plan for step `index` of a script: its first `http_error`, or its parts with the finish
 * reason (the script's `finish` on its last step) and usage. `request` is the call it answers
 * (`list_tools` names the tools it offered, read from its API's own format).
 */
export const stepPlan = (
  script: LlmScript,
  index: number,
  seq: number,
  request: LlmRequest | undefined,
  fault?: StreamFault
): Plan => {
  const actions = script.steps[index]
  for (const action of actions) {
    if (action.type === "http_error") {
      return { _tag: "HttpError", status: action.status, message: action.message, retryAfterMs: action.retryAfterMs }
    }
  }
  const step = stepParts(actions, seq, request)
  let parts = step.parts
  let finish = step.finish
  const last = index === script.steps.length - 1
  if (last && script.finish !== undefined) {
    if (script.finish === "error") parts = [...parts, { kind: "error", message: "The model stopped with an error." }]
    else finish = wireFinish(script.finish)
  }
  return { _tag: "Reply", parts, finish, usage: toUsage(script.usage), fault, pace: script.pace }
}

/**
 * The plan of a failing behaviour.
 */
export const failurePlan = (failure: LlmFailure): Plan => {
  switch (failure.type) {
    case "rateLimit":
      return {
        _tag: "HttpError",
        status: 429,
        message: failure.message ?? "Rate limit reached for requests (simulated).",
        retryAfterMs: failure.retryAfterMs ?? 0
      }
    case "serverError":
      return {
        _tag: "HttpError",
        status: failure.status ?? 500,
        message: failure.message ?? "The server had an error while processing your request (simulated).",
        retryAfterMs: failure.retryAfterMs
      }
    case "timeout":
      return { _tag: "Hang" }
  }
}

const DEFAULT_FAULT_STEPS: LlmScript["steps"] = [[{ type: "text", content: "This answer is cut short" }]]

/**
 * The plan of an answering behaviour for a request, and the script step it used.
 */
export const answerPlan = (
  answer: LlmAnswer,
  request: LlmRequest,
  seq: number
): { plan: Plan; step: number | undefined } => {
  switch (answer.type) {
    case "respond": {
      const step = Math.min(request.toolResultRounds, answer.steps.length - 1)
      if (step < 0)
        return {
          plan: { _tag: "Reply", parts: [], finish: "stop", usage: toUsage(answer.usage), fault: undefined },
          step
        }
      return { plan: stepPlan(answer, step, seq, request), step }
    }
    case "fault": {
      const steps = answer.steps ?? DEFAULT_FAULT_STEPS
      const step = Math.max(0, Math.min(request.toolResultRounds, steps.length - 1))
      return { plan: stepPlan({ steps }, step, seq, request, answer.fault), step }
    }
    case "raw": {
      const bytes = typeof answer.body === "string" ? encoder.encode(answer.body) : answer.body
      return {
        plan: {
          _tag: "Raw",
          bytes,
          status: answer.status ?? 200,
          contentType: answer.contentType ?? "text/event-stream"
        },
        step: undefined
      }
    }
    case "drive":
      return { plan: { _tag: "Drive", viaAttach: false }, step: undefined }
  }
}

/** A compiled text matcher: whether it takes a value. */
type TextTest = (value: string) => boolean

/**
 * Compiles a text matcher: a string exactly (or as a substring when `substring`), a `RegExp` as
 * it is, `{ regex }` on RE2; the compiler's message when RE2 refuses the pattern.
 */
const compileText = (pattern: TextPattern, substring: boolean): TextTest | string => {
  if (typeof pattern === "string") return substring ? (value) => value.includes(pattern) : (value) => value === pattern
  if (pattern instanceof RegExp) {
    return (value) => {
      pattern.lastIndex = 0
      return pattern.test(value)
    }
  }
  const compiled = LinearRegExp.compile(pattern.regex)
  return typeof compiled === "string" ? compiled : (value) => compiled.test(value)
}

/** The system or developer instructions of a request, joined by newlines. */
const systemText = (request: LlmRequest): string => {
  let text: string | undefined
  for (const turn of request.messages)
    if (turn.role === "system") text = text === undefined ? turn.text : `${text}\n${turn.text}`
  return text ?? ""
}

/** A text matcher as a miss shows it: a string quoted, a pattern as written. */
const shown = (pattern: TextPattern): string =>
  typeof pattern === "string"
    ? JSON.stringify(short(pattern))
    : pattern instanceof RegExp
      ? String(pattern)
      : `/${pattern.regex}/`

/** A value of the request as a miss shows it, cut short. */
const short = (text: string, n = 60): string => (text.length > n ? `${text.slice(0, n - 1)}…` : text)

/**
 * A rule's matcher compiled once: `test`, whether a request passes (the hot path), and `misses`,
 * why one does not, a line per field that missed (`lastUserMessage expects "hello", got "hi"`), for
 * the nearest rules an unmatched call names. Or the field whose pattern RE2 refuses and why
 * (`["system", "…"]`).
 */
export interface CompiledMatch {
  readonly test: (request: LlmRequest) => boolean
  readonly misses: (request: LlmRequest) => ReadonlyArray<string>
}

export const compileMatch = (match: LlmMatch): CompiledMatch | readonly [string, string] => {
  if (match === "any") return { test: () => true, misses: () => [] }
  const checks: Array<{
    readonly test: (request: LlmRequest) => boolean
    readonly miss: (request: LlmRequest) => string
  }> = []
  const text = (
    field: "model" | "contains" | "lastUserMessage" | "system" | "api" | "tool",
    substring: boolean,
    read: (request: LlmRequest, test: TextTest) => boolean,
    got: (request: LlmRequest) => string
  ) => {
    const pattern = match[field]
    if (pattern === undefined) return undefined
    const compiled = compileText(pattern, substring)
    if (typeof compiled === "string")
      return [typeof pattern === "object" && !(pattern instanceof RegExp) ? `${field}.regex` : field, compiled] as const
    checks.push({
      test: (request) => read(request, compiled),
      miss: (request) => `${field} expects ${shown(pattern)}, ${got(request)}`
    })
    return undefined
  }
  const quoted = (value: string | undefined) => (value === undefined ? "none" : JSON.stringify(short(value)))
  const refused =
    text(
      "model",
      false,
      (request, test) => test(request.model),
      (request) => `got ${quoted(request.model)}`
    ) ??
    text(
      "contains",
      true,
      (request, test) => test(request.material),
      () => "not in the request"
    ) ??
    text(
      "lastUserMessage",
      false,
      (request, test) => request.lastUserMessage !== undefined && test(request.lastUserMessage),
      (request) => `got ${quoted(request.lastUserMessage)}`
    ) ??
    text(
      "system",
      true,
      (request, test) => test(systemText(request)),
      (request) => `got ${quoted(systemText(request) || undefined)}`
    ) ??
    text(
      "api",
      false,
      (request, test) => test(request.api),
      (request) => `got ${quoted(request.api)}`
    ) ??
    text(
      "tool",
      false,
      (request, test) => request.tools.some(test),
      (request) => `offered ${request.tools.length === 0 ? "none" : short(request.tools.join(", "))}`
    )
  if (refused !== undefined) return refused
  const toolResult = match.toolResult
  if (toolResult !== undefined) {
    checks.push({
      test: (request) => toolResult === request.toolResultRounds > 0,
      miss: (request) =>
        `toolResult expects ${toolResult}, got ${request.toolResultRounds > 0} (${request.toolResultRounds} tool-result rounds)`
    })
  }
  const structured = match.structured
  if (structured !== undefined) {
    checks.push({
      test: (request) => structured === (request.structured !== undefined),
      miss: (request) => `structured expects ${structured}, got ${request.structured !== undefined}`
    })
  }
  const where = match.where
  if (where !== undefined) checks.push({ test: where, miss: () => "where returned false" })
  return {
    test: (request) => checks.every((check) => check.test(request)),
    misses: (request) => checks.filter((check) => !check.test(request)).map((check) => check.miss(request))
  }
}

/**
 * How a plan is logged.
 */
export const outcomeOf = (plan: Plan): Outcome => {
  switch (plan._tag) {
    case "Reply":
      return plan.fault === undefined ? "answer" : "fault"
    case "HttpError":
      return "http_error"
    case "Raw":
      return "raw"
    case "Hang":
      return "timeout"
    case "Drive":
      return "driven"
    case "Refuse":
      return "refused"
  }
}
