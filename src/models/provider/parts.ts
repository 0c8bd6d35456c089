/**
 * An answer as the provider hands it to a model route, before any wire format: parts in the
 * order they are sent, how the answer ends, and the token counts. Every model route (Chat
 * Completions, Responses, Anthropic Messages, Gemini) implements `StreamWriter` over these, so
 * one script, rule or driver answers on all of them alike.
 */
import { Schema } from "effect"

/**
 * Token counts of one answer, whatever the API: the provider's own shape, in a script's words
 * (`LlmScript.usage`). Each wire format writes it in its API's (`prompt_tokens`,
 * `input_tokens`, `promptTokenCount`, …); a driver's `llm.finish` usage is read into it.
 */
export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** How an answer ends, in the provider's words (each wire format maps them to its API's). */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call"

/**
 * One piece of an answer, in the order it is sent. A `text` or `reasoning` part is one fragment
 * (a word); a tool call carries its argument fragments; `raw` is a frame written verbatim;
 * `rawChunk` is an event object of the route's API, written as one SSE event exactly as given
 * (see `rawChunkFrame` in `models/wire/sse.ts`).
 */
export type Part =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "reasoning"; readonly text: string }
  | {
      readonly kind: "toolCall"
      readonly id: string
      readonly name: string
      /** The arguments as JSON text, in fragments. */
      readonly fragments: ReadonlyArray<string>
      /** For a custom (freeform) tool call, the raw string input: the Responses API sends it as a `custom_tool_call`. */
      readonly custom?: string | undefined
    }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "raw"; readonly data: string }
  | { readonly kind: "rawChunk"; readonly chunk: unknown }

/**
 * How an answer ends, in Chat Completions' spelling (the provider's neutral one): each wire format
 * maps it to its own. `null` is a finish the client cannot name (a script's `finish: "unknown"`):
 * `finish_reason: null` on Chat Completions, an `incomplete` response with reason `unknown` on
 * Responses, `stop_reason: null` on Anthropic, `FINISH_REASON_UNSPECIFIED` on Gemini.
 */
export type Finish = FinishReason | null

/**
 * What a stream carries: parts, then the finish (with the usage a script or driver gave, if any).
 */
export type StreamItem =
  | Part
  | { readonly kind: "finish"; readonly finish: Finish; readonly usage: TokenUsage | undefined }

/**
 * How a scripted stream goes wrong instead of ending: a frame that is not JSON, a clean end
 * without the closing events, or a transport reset.
 */
export const StreamFault = Schema.Literals(["malformed", "truncate", "reset"])
export type StreamFault = typeof StreamFault.Type

/** The parts a wire frames itself: text, reasoning and tool calls (`partFrames` writes the rest). */
export type ContentPart = Extract<Part, { readonly kind: "text" | "reasoning" | "toolCall" }>

/**
 * Writes the SSE frames of one streamed answer in a wire format. Each call returns whole frames
 * (`event:`/`data:` lines and the blank line), so a body can hand over one frame per read.
 */
export interface StreamWriter {
  /** The frames that open the stream (a role chunk, `message_start`, `response.created`). */
  open(): ReadonlyArray<string>
  /** The frames of one text, reasoning or tool-call part. */
  content(part: ContentPart): ReadonlyArray<string>
  /** An error event, as the API sends one mid-stream; the stream ends after it. */
  error(message: string): ReadonlyArray<string>
  /** A driver's raw chunk (an event object of the API) as one frame of this API. */
  chunk(value: unknown): string
  /** The closing frames: open blocks closed, finish reason, usage (the given one or the estimate). */
  finish(finish: Finish, usage: TokenUsage | undefined): ReadonlyArray<string>
  /** A frame that is not valid JSON, cut off where a real truncated write would be. */
  malformed(): string
}

/**
 * The frames of any part, the same for every API: an error part is the API's error frames (the
 * stream ends after them), a raw part goes out as it is, a raw chunk as the API frames one event,
 * and the rest is the writer's own. A scripted stream and a driven one both write through here.
 */
export const partFrames = (writer: StreamWriter, part: Part): ReadonlyArray<string> => {
  switch (part.kind) {
    case "error":
      return writer.error(part.message)
    case "raw":
      return [part.data]
    case "rawChunk":
      return [writer.chunk(part.chunk)]
    default:
      return writer.content(part)
  }
}

/**
 * Splits text into word-sized fragments (each word with the whitespace before it); joined, they
 * give the text back.
 */
export const splitWords = (text: string): ReadonlyArray<string> => {
  if (text.length === 0) return []
  return text.match(/\s*\S+|\s+$/g) ?? [text]
}

/**
 * Splits serialised tool arguments into fragments of at most `size` characters.
 */
export const splitArguments = (json: string, size = 12): ReadonlyArray<string> => {
  const fragments: Array<string> = []
  for (let i = 0; i < json.length; i += size) fragments.push(json.slice(i, i + size))
  return fragments
}

/**
 * The finish of a script's (or a driver's) `finish` in the neutral spelling: `tool_calls` for
 * `tool-calls`, `null` for `unknown`.
 */
export const wireFinish = (finish: "stop" | "tool-calls" | "length" | "unknown"): Finish =>
  finish === "tool-calls" ? "tool_calls" : finish === "unknown" ? null : finish

/**
 * The finish reason an answer ends with when nothing says otherwise.
 */
export const naturalFinish = (parts: ReadonlyArray<Part>): FinishReason =>
  parts.some((part) => part.kind === "toolCall") ? "tool_calls" : "stop"

/**
 * A deterministic token estimate for a text: one token per four characters, rounded up.
 */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

/**
 * The output tokens of a part as simnet counts them: one per text or reasoning fragment and one
 * per tool-argument fragment.
 */
export const partTokens = (part: Part): number =>
  part.kind === "text" || part.kind === "reasoning" ? 1 : part.kind === "toolCall" ? part.fragments.length : 0

/**
 * The output tokens of an answer (see `partTokens`).
 */
export const countOutputTokens = (parts: ReadonlyArray<Part>): number => {
  let tokens = 0
  for (const part of parts) tokens += partTokens(part)
  return tokens
}

/**
 * The usage a response reports: the one given (a script's or a driver's), else the estimate
 * from the request material and the output tokens.
 */
export const usageOf = (given: TokenUsage | undefined, material: string, outputTokens: number): TokenUsage => {
  if (given !== undefined) return given
  const prompt = estimateTokens(material)
  return { inputTokens: prompt, outputTokens, totalTokens: prompt + outputTokens }
}

/**
 * The parts of an answer gathered for a non-streamed body: the text joined, the reasoning joined,
 * the tool calls with their whole arguments.
 */
export interface Gathered {
  readonly text: string | undefined
  readonly reasoning: string | undefined
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>
  /** `text` as a JSON answer writes it (`jsonText`), escaped once with the gathering. */
  readonly textJson: string | undefined
  /** The output tokens of the parts (`countOutputTokens`). */
  readonly outputTokens: number
  /** The message of the first error part, when one fails the answer. */
  readonly error: string | undefined
}

/**
 * `text` as a JSON answer writes it, escaped once: a `JSON.rawJSON` of its JSON, which
 * `JSON.stringify` copies as it stands. A whole answer's text, written again on every call, was a
 * fifth of a model call's own work (about 2 ns a character). It is typed as the string it stands
 * for, and goes only where a value is written as JSON and read by nothing else: the values of the
 * wires' whole answers (`ModelWire.answer`), which only the renderer reads, to serialize them.
 */
export const jsonText = (text: string): string =>
  (JSON as unknown as { rawJSON: (json: string) => unknown }).rawJSON(JSON.stringify(text)) as string

/**
 * Gathers the parts of a non-streamed answer. A list of parts is never changed once made, so its
 * gathering is kept with it: a rule's step, split once (`plan.ts`), is joined once too.
 */
export const gather = (parts: ReadonlyArray<Part>): Gathered => {
  let gathered = gatheredOf.get(parts)
  if (gathered === undefined) gatheredOf.set(parts, (gathered = gatherNow(parts)))
  return gathered
}

const gatheredOf = new WeakMap<ReadonlyArray<Part>, Gathered>()

const gatherNow = (parts: ReadonlyArray<Part>): Gathered => {
  let text: string | undefined
  let reasoning: string | undefined
  let error: string | undefined
  const toolCalls: Array<{ readonly id: string; readonly name: string; readonly arguments: string }> = []
  for (const part of parts) {
    if (part.kind === "text") text = (text ?? "") + part.text
    else if (part.kind === "reasoning") reasoning = (reasoning ?? "") + part.text
    else if (part.kind === "toolCall")
      toolCalls.push({ id: part.id, name: part.name, arguments: part.fragments.join("") })
    else if (part.kind === "error" && error === undefined) error = part.message
  }
  return {
    text,
    reasoning,
    toolCalls,
    textJson: text === undefined ? undefined : jsonText(text),
    outputTokens: countOutputTokens(parts),
    error
  }
}

/**
 * Tool arguments as a JSON value for the APIs that send them parsed (Anthropic `input`, Gemini
 * `args`): the parsed arguments, or `{}` when they are not JSON (a driver may send any string).
 */
export const parseArguments = (json: string): unknown => {
  try {
    return JSON.parse(json)
  } catch {
    return {}
  }
}
