/**
 * The OpenAI Chat Completions wire format as the simulated provider writes it: chunks, SSE frames,
 * completions and error bodies. Every value is typed by the production Schemas of
 * `models/openai/openaiSchema.ts`, so a schema change that the provider does not follow fails the type check.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatToolCall,
  ChunkDelta,
  CompletionUsage,
  FinishReason,
  OpenAiErrorBody
} from "./openaiSchema.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"

/**
 * The base URL `Routes.openai` serves when none is given (Chat Completions and Responses alike).
 */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
import { gather, usageOf } from "../provider/parts.ts"
import { dataFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import { JsonTemplates, type JsonText } from "../wire/jsonTemplate.ts"

/**
 * The fields every chunk of one completion repeats.
 */
export interface ChunkHead {
  readonly id: string
  readonly created: number
  readonly model: string
}

/**
 * The terminating SSE frame.
 */
export const DONE_FRAME = "data: [DONE]\n\n"

/**
 * One SSE frame carrying a JSON value.
 */
export const frame: (value: ChatCompletionChunk | OpenAiErrorBody) => string = dataFrame

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
 * The OpenAI error body for a status, or for one of simnet's refusals (`type: "simnet_error"`,
 * `code`: the refusal's tag, such as `NoScriptQueued`).
 */
export const openAiErrorBody = (status: number, message: string, reason: string | undefined): OpenAiErrorBody => {
  const kind = reason === undefined ? errorKind(status) : { type: "simnet_error", code: reason }
  return errorBody(message, kind.type, kind.code)
}

/**
 * Writes the SSE frames of one streamed completion, part by part. It numbers tool calls in the
 * order they are started, so parallel calls get distinct indexes.
 */
export class ChunkWriter implements StreamWriter {
  readonly head: ChunkHead
  readonly includeUsage: boolean
  readonly material: string
  #toolCalls = 0
  #outputTokens = 0

  constructor(head: ChunkHead, includeUsage: boolean, material: string) {
    this.head = head
    this.includeUsage = includeUsage
    this.material = material
  }

  /** The role chunk that opens every stream. */
  open(): ReadonlyArray<string> {
    return [frame(chunk(this.head, { role: "assistant", content: "" }))]
  }

  /** The frames of one part (a tool call gives its head and its argument fragments). */
  content(part: ContentPart): ReadonlyArray<string> {
    switch (part.kind) {
      case "text":
        this.#outputTokens++
        return [frame(chunk(this.head, { content: part.text }))]
      case "reasoning":
        this.#outputTokens++
        return [frame(chunk(this.head, { reasoning_content: part.text }))]
      case "toolCall":
        return this.toolCall(part.id, part.name, part.fragments)
    }
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, false)
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
  error(message: string): ReadonlyArray<string> {
    return [frame(errorBody(message, "server_error", "server_error"))]
  }

  /** The finish chunk, the usage chunk when asked for, and `[DONE]`. */
  finish(reason: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageOf(given, this.material, this.#outputTokens)
    const frames = [frame(chunk(this.head, {}, reason))]
    if (this.includeUsage) {
      const usageChunk: ChatCompletionChunk = {
        id: this.head.id,
        object: "chat.completion.chunk",
        created: this.head.created,
        model: this.head.model,
        choices: [],
        usage: chatUsage(usage)
      }
      frames.push(frame(usageChunk))
    }
    frames.push(DONE_FRAME)
    return frames
  }

  /** A frame that is not valid JSON, cut off where a real truncated write would be. */
  malformed(): string {
    return truncatedFrame(chunk(this.head, { content: "" }))
  }
}

/**
 * The `chat.completion` object of a non-streamed answer: text joined, reasoning joined, tool
 * calls with their whole arguments.
 */
const completionOf = (
  head: ChunkHead,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage
): ChatCompletion => {
  const { textJson, reasoning, toolCalls } = gather(parts)
  const calls: Array<ChatToolCall> = toolCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments }
  }))
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
          content: textJson ?? null,
          ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
          refusal: null,
          ...(calls.length === 0 ? {} : { tool_calls: calls })
        },
        logprobs: null,
        finish_reason: finish
      }
    ],
    usage: chatUsage(usage)
  }
}

/**
 * The `chat.completion` of a non-streamed answer as its JSON text, from a template kept with the
 * parts (`JsonTemplates`: the head, the finish and the token counts are its holes); the object
 * itself when the parts make no template.
 */
export const completion = (
  head: ChunkHead,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage
): ChatCompletion | JsonText =>
  completionTemplates.write(parts, [
    head.id,
    head.created,
    head.model,
    finish,
    usage.inputTokens,
    usage.outputTokens,
    usage.totalTokens
  ])

const completionTemplates = new JsonTemplates<
  ReadonlyArray<Part>,
  readonly [string, number, string, Finish, number, number, number],
  ChatCompletion
>(7, (parts, [id, created, model, finish, input, output, total]) =>
  completionOf({ id, created, model }, parts, finish, { inputTokens: input, outputTokens: output, totalTokens: total })
)

/** Token counts in Chat Completions' words. */
const chatUsage = (usage: TokenUsage): CompletionUsage => ({
  prompt_tokens: usage.inputTokens,
  completion_tokens: usage.outputTokens,
  total_tokens: usage.totalTokens
})
