/**
 * The OpenAI wire format as the simulated provider writes it: chunks, SSE frames, completions
 * and error bodies. Every value is typed by the production Schemas of `schemas/openai.ts`, so a
 * schema change that the provider does not follow fails the type check.
 */
import { Schema } from "effect"
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatToolCall,
  ChunkDelta,
  CompletionUsage,
  FinishReason,
  OpenAiErrorBody
} from "../schemas/openai.ts"

/**
 * The fields every chunk of one completion repeats.
 */
export interface ChunkHead {
  readonly id: string
  readonly created: number
  readonly model: string
}

/**
 * One piece of an answer, in the order it is sent. A `text` or `reasoning` part is one chunk; a
 * tool call is a head chunk followed by one chunk per argument fragment.
 */
export type Part =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "reasoning"; readonly text: string }
  | { readonly kind: "toolCall"; readonly id: string; readonly name: string; readonly fragments: ReadonlyArray<string> }
  | { readonly kind: "error"; readonly message: string }
  | { readonly kind: "raw"; readonly data: string }
  | { readonly kind: "rawChunk"; readonly chunk: unknown }

/**
 * How a scripted stream goes wrong instead of ending: a frame that is not JSON, a clean end
 * without finish chunk or `[DONE]`, or a transport reset.
 */
export const StreamFault = Schema.Literals(["malformed", "truncate", "reset"])
export type StreamFault = typeof StreamFault.Type

/**
 * The terminating SSE frame.
 */
export const DONE_FRAME = "data: [DONE]\n\n"

/**
 * One SSE frame carrying a JSON value.
 */
export const frame = (value: ChatCompletionChunk | OpenAiErrorBody): string => `data: ${JSON.stringify(value)}\n\n`

const chunk = (head: ChunkHead, delta: ChunkDelta, finish: FinishReason | null = null): ChatCompletionChunk => ({
  id: head.id,
  object: "chat.completion.chunk",
  created: head.created,
  model: head.model,
  choices: [{ index: 0, delta, finish_reason: finish }]
})

/**
 * The error body of the API: `{error: {message, type, param, code}}`.
 */
export const errorBody = (message: string, type: string, code: string | null): OpenAiErrorBody => ({
  error: { message, type, param: null, code }
})

/**
 * The error `type` and `code` the API uses for an HTTP status.
 */
export const errorKind = (status: number): { readonly type: string; readonly code: string | null } => {
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" }
  if (status >= 500) return { type: "server_error", code: "server_error" }
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" }
  return { type: "invalid_request_error", code: null }
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
 * The wire finish of a script's finish: the API's spelling, or `null` for `unknown` (a finish the
 * client cannot name; the AI SDK reports it as "other").
 */
export const wireFinish = (finish: "stop" | "tool-calls" | "length" | "unknown"): FinishReason | null =>
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
 * The output tokens of an answer as simnet counts them: one per text or reasoning fragment and
 * one per tool-argument fragment.
 */
export const countOutputTokens = (parts: ReadonlyArray<Part>): number => {
  let tokens = 0
  for (const part of parts) {
    if (part.kind === "text" || part.kind === "reasoning") tokens++
    else if (part.kind === "toolCall") tokens += part.fragments.length
  }
  return tokens
}

/**
 * The usage a response reports: the one given (a script's or a driver's), else the estimate
 * from the request material and the output tokens.
 */
export const usageOf = (given: CompletionUsage | undefined, material: string, outputTokens: number): CompletionUsage => {
  if (given !== undefined) return given
  const prompt = estimateTokens(material)
  return { prompt_tokens: prompt, completion_tokens: outputTokens, total_tokens: prompt + outputTokens }
}

/**
 * Writes the SSE frames of one streamed completion, part by part. It numbers tool calls in the
 * order they are started, so parallel calls get distinct indexes.
 */
export class ChunkWriter {
  readonly head: ChunkHead
  readonly includeUsage: boolean
  #toolCalls = 0
  #outputTokens = 0

  constructor(head: ChunkHead, includeUsage: boolean) {
    this.head = head
    this.includeUsage = includeUsage
  }

  /** The tokens streamed so far (one per content, reasoning or argument fragment). */
  get outputTokens(): number {
    return this.#outputTokens
  }

  /** Whether a tool call has been started. */
  get calledTools(): boolean {
    return this.#toolCalls > 0
  }

  /** The role chunk that opens every stream. */
  role(): string {
    return frame(chunk(this.head, { role: "assistant", content: "" }))
  }

  /** The frames of one part (a tool call gives its head and its argument fragments). */
  part(part: Part): ReadonlyArray<string> {
    switch (part.kind) {
      case "text":
        this.#outputTokens++
        return [frame(chunk(this.head, { content: part.text }))]
      case "reasoning":
        this.#outputTokens++
        return [frame(chunk(this.head, { reasoning_content: part.text }))]
      case "toolCall":
        return this.toolCall(part.id, part.name, part.fragments)
      case "error":
        return [this.error(part.message)]
      case "raw":
        return [part.data]
      case "rawChunk":
        return [`data: ${JSON.stringify(part.chunk)}\n\n`]
    }
  }

  /** A tool call: the head chunk with empty arguments, then one chunk per fragment. */
  toolCall(id: string, name: string, fragments: ReadonlyArray<string>): ReadonlyArray<string> {
    const index = this.#toolCalls++
    const frames = [
      frame(chunk(this.head, { tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] }))
    ]
    for (const fragment of fragments) {
      this.#outputTokens++
      frames.push(frame(chunk(this.head, { tool_calls: [{ index, function: { arguments: fragment } }] })))
    }
    return frames
  }

  /** An error event, as the API sends one mid-stream. */
  error(message: string): string {
    return frame(errorBody(message, "server_error", "server_error"))
  }

  /** The finish chunk, the usage chunk when asked for, and `[DONE]`. */
  finish(reason: FinishReason | null, usage: CompletionUsage): ReadonlyArray<string> {
    const frames = [frame(chunk(this.head, {}, reason))]
    if (this.includeUsage) {
      const usageChunk: ChatCompletionChunk = {
        id: this.head.id,
        object: "chat.completion.chunk",
        created: this.head.created,
        model: this.head.model,
        choices: [],
        usage
      }
      frames.push(frame(usageChunk))
    }
    frames.push(DONE_FRAME)
    return frames
  }

  /** A frame that is not valid JSON, cut off where a real truncated write would be. */
  malformed(): string {
    const whole = JSON.stringify(chunk(this.head, { content: "" }))
    return `data: ${whole.slice(0, Math.floor(whole.length / 2))}\n\n`
  }
}

/**
 * The `chat.completion` object of a non-streamed answer: text joined, reasoning joined, tool
 * calls with their whole arguments.
 */
export const completion = (
  head: ChunkHead,
  parts: ReadonlyArray<Part>,
  finish: FinishReason | null,
  usage: CompletionUsage
): ChatCompletion => {
  let text: string | null = null
  let reasoning: string | undefined
  const toolCalls: Array<ChatToolCall> = []
  for (const part of parts) {
    if (part.kind === "text") text = (text ?? "") + part.text
    else if (part.kind === "reasoning") reasoning = (reasoning ?? "") + part.text
    else if (part.kind === "toolCall") {
      toolCalls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.fragments.join("") } })
    }
  }
  return {
    id: head.id,
    object: "chat.completion",
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text,
          ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
          refusal: null,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls })
        },
        logprobs: null,
        finish_reason: finish
      }
    ],
    usage
  }
}
