/**
 * The LLM script of the contract (what `SimulatedProvider.enqueue`, fixture files' `llm` entries
 * and `POST llm/enqueue` take) and the items a driver feeds into an open invocation
 * (`llm.chunk {id, items}`). One Schema decodes code, fixtures and control bodies alike.
 */
import { Schema } from "effect"

/**
 * Text the model says; streamed as `delta.content` in word-sized fragments.
 */
export const TextAction = Schema.Struct({ type: Schema.Literal("text"), content: Schema.String })

/**
 * Reasoning text; streamed as `delta.reasoning_content` before the answer.
 */
export const ThinkingAction = Schema.Struct({ type: Schema.Literal("thinking"), content: Schema.String })

/**
 * A tool call; its `input` (a JSON value, required) is serialised as JSON and streamed as argument
 * fragments. Several in one step are parallel tool calls with distinct indexes.
 */
export const ToolCallAction = Schema.Struct({
  type: Schema.Literal("tool_call"),
  name: Schema.String,
  input: Schema.Json
})

/**
 * An error event sent mid-stream (`data: {"error": ...}`); the stream ends after it. A
 * non-streamed call answers it as a 500.
 */
export const ErrorAction = Schema.Struct({ type: Schema.Literal("error"), message: Schema.String })

/**
 * The step answers with the names of the tools the request offered, one per line, as text, read
 * from each API's own request format (Chat Completions `tools[].function.name`, Responses and
 * Anthropic `tools[].name`, Gemini `tools[].functionDeclarations[].name`); a request that offered
 * none gets an empty answer.
 */
export const ListToolsAction = Schema.Struct({ type: Schema.Literal("list_tools") })

/**
 * An answer to a structured-output call (JSON mode, a JSON Schema the request asks the answer to
 * follow: Gemini's `responseJsonSchema`, Chat Completions' `response_format`, the Responses API's
 * `text.format`, Anthropic's `output_format`): `value` as JSON text, checked against the schema
 * the request gives (a mismatch is refused, naming the path), or, without one, a value
 * generated from the schema the request gives (seeded, proven to decode under it; `{}` for JSON
 * mode without a schema).
 */
export const JsonAction = Schema.Struct({ type: Schema.Literal("json"), value: Schema.optional(Schema.Json) })

/**
 * A wait a client is told to observe before retrying, in milliseconds: finite and not negative.
 */
export const RetryAfterMs = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * The status of a simulated HTTP error: a whole number from 400 to 599.
 */
export const HttpErrorStatus = Schema.Int.check(Schema.isBetween({ minimum: 400, maximum: 599 }))

/**
 * The whole call answered as an HTTP error with `status` (400–599); `retryAfterMs` adds
 * `retry-after-ms` and `retry-after` headers. A step holding one answers with the first such
 * action only.
 */
export const HttpErrorAction = Schema.Struct({
  type: Schema.Literal("http_error"),
  status: HttpErrorStatus,
  message: Schema.String,
  retryAfterMs: Schema.optional(RetryAfterMs)
})

/**
 * One thing the simulated model does within a step.
 */
export const LlmAction = Schema.Union([
  TextAction,
  ThinkingAction,
  ToolCallAction,
  ListToolsAction,
  JsonAction,
  ErrorAction,
  HttpErrorAction
]).annotate({
  expected: 'an action of type "text", "thinking", "tool_call", "list_tools", "json", "error" or "http_error"'
})
export type LlmAction = typeof LlmAction.Type

/**
 * Token counts a script reports instead of simnet's estimate.
 */
export const LlmUsage = Schema.Struct({
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  totalTokens: Schema.Int
})
export type LlmUsage = typeof LlmUsage.Type

/**
 * Why a choice ended, in the API's spelling (Chat Completions'): what a driver's `llm.finish` may
 * give besides the script's own finish reasons.
 */
export const FinishReason = Schema.Literals(["stop", "length", "tool_calls", "content_filter", "function_call"])
export type FinishReason = typeof FinishReason.Type

/**
 * Token counts of one completion, as Chat Completions spells them (a driver's `llm.finish` usage).
 */
export const CompletionUsage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int
})
export type CompletionUsage = typeof CompletionUsage.Type

/**
 * How the last step of a script ends. `error` ends the stream with an error event; `unknown` is
 * a finish the client cannot name: the API's `finish_reason` is `null` (a client such as the AI
 * SDK reports it as "other"/"unknown").
 */
export const LlmFinish = Schema.Literals(["stop", "tool-calls", "error", "length", "unknown"])
export type LlmFinish = typeof LlmFinish.Type

/**
 * How fast an answer streams, on Effect's `Clock` (so `TestClock` controls it): `ttftMs` before
 * the first content event, then `tokensPerSecond` (one event is a word, about a token), each gap
 * varied by up to `jitter` of itself (0 to 1), seeded by the call so the same run keeps the same
 * pace. A non-streamed answer waits the whole time before it is sent.
 */
export const LlmPace = Schema.Struct({
  ttftMs: Schema.optional(RetryAfterMs),
  tokensPerSecond: Schema.optional(Schema.Finite.check(Schema.isGreaterThan(0))),
  jitter: Schema.optional(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))
})
export type LlmPace = typeof LlmPace.Type

/**
 * A script of the provider's queue: step N answers the call that follows N tool-result rounds
 * (counted after the last user message); a script has at least one step. `usage` is reported on every step; `finish` sets how
 * the last step ends (otherwise `tool-calls` when the step calls tools, else `stop`); `pace`
 * how fast its answers stream (at once when not given).
 */
export const LlmScript = Schema.Struct({
  steps: Schema.Array(
    Schema.Array(LlmAction).check(Schema.isMinLength(1, { expected: "at least one action in a step" }))
  ).check(Schema.isMinLength(1, { expected: "at least one step" })),
  usage: Schema.optional(LlmUsage),
  finish: Schema.optional(LlmFinish),
  pace: Schema.optional(LlmPace)
})
export type LlmScript = typeof LlmScript.Type

/**
 * Driver item: a fragment of answer text, sent as one chunk.
 */
export const TextDeltaItem = Schema.Struct({ type: Schema.Literal("textDelta"), text: Schema.String })

/**
 * Driver item: a fragment of reasoning text, sent as one chunk.
 */
export const ReasoningDeltaItem = Schema.Struct({ type: Schema.Literal("reasoningDelta"), text: Schema.String })

/**
 * Driver item: a whole tool call. `id` defaults to a deterministic `call_…`; `input` is sent as
 * JSON argument fragments, or `arguments` verbatim in one fragment.
 */
export const ToolCallItem = Schema.Struct({
  type: Schema.Literal("toolCall"),
  id: Schema.optional(Schema.String),
  name: Schema.String,
  input: Schema.optional(Schema.Json),
  arguments: Schema.optional(Schema.String)
})

/**
 * Driver item: one raw event object of the request's API (a chat-completion chunk, a Responses or
 * Anthropic stream event, a Gemini `GenerateContentResponse`), passed through as one SSE event
 * exactly as given, for events simnet would not write itself: `data: JSON` on Chat Completions and
 * Gemini, with `event: TYPE` first (the chunk's own `type`) on Responses and Anthropic. A
 * non-streamed call has no stream to write into and ignores it.
 */
export const RawChunkItem = Schema.Struct({ type: Schema.Literal("raw"), chunk: Schema.Json })

/**
 * Driver item: bytes written to the response stream verbatim (as UTF-8 text), for frames no
 * well-behaved server would send. A non-streamed call has no stream to write into and ignores it.
 */
export const RawItem = Schema.Struct({ type: Schema.Literal("raw"), data: Schema.String })

/**
 * One item of `llm.chunk {id, items}`: `textDelta`, `reasoningDelta`, `toolCall`, `raw`, or an
 * action in the script's own words, which means the same: `text {content}` (a `textDelta`),
 * `thinking {content}` (a `reasoningDelta`), `tool_call {name, input}` (a `toolCall`).
 */
export const LlmDriverItem = Schema.Union([
  TextDeltaItem,
  ReasoningDeltaItem,
  ToolCallItem,
  RawChunkItem,
  RawItem,
  TextAction,
  ThinkingAction,
  ToolCallAction
]).annotate({
  expected:
    'an item of type "textDelta", "reasoningDelta", "toolCall" or "raw" (with chunk or data), or a script action "text", "thinking" or "tool_call"'
})
export type LlmDriverItem = typeof LlmDriverItem.Type

/**
 * A rule of the simulated model as JSON (a fixture's `llm.rules`, `POST llm/rules`): what
 * `network.llm.rule(match, behaviour, { id, times, latency })` takes in code. `match` is `"any"`
 * or a matcher object whose text fields are strings or `{ "regex": "…" }` (RE2); `behaviour` is a
 * rule behaviour (`respond`, `failThenRespond`, `rateLimit`, …); both are checked as `rule`
 * checks them, naming the field.
 */
export const LlmRuleSpec = Schema.Struct({
  id: Schema.optional(Schema.NonEmptyString),
  match: Schema.Unknown,
  behaviour: Schema.Unknown,
  times: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  latencyMs: Schema.optional(RetryAfterMs)
})
export type LlmRuleSpec = typeof LlmRuleSpec.Type
