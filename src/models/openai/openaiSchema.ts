/**
 * Production-shaped Schemas of the OpenAI Chat Completions wire format: the request an app's
 * client sends, the `chat.completion.chunk` events and the `chat.completion` object simnet sends
 * back, the error body and the model list. The simulated provider builds every value it serves
 * against these types, so a drift between the schema and the provider breaks the build; the tests
 * decode what the provider serves under them.
 */
import { Schema } from "effect"
import { CompletionUsage, FinishReason } from "../../schemas/llmScript.ts"

/** Why a choice ended, and the token counts of one completion: the driver's vocabulary too, kept in `llmScript.ts`. */
export { CompletionUsage, FinishReason } from "../../schemas/llmScript.ts"

/**
 * A content part of a message (`{type: "text", text}` and the others the API accepts). Parts
 * other than text are kept as they are.
 */
export const ChatContentPart = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.String)
})
export type ChatContentPart = typeof ChatContentPart.Type

/**
 * A tool call as it appears in an assistant message of a request or of a `chat.completion`.
 */
export const ChatToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    arguments: Schema.String
  })
})
export type ChatToolCall = typeof ChatToolCall.Type

/**
 * One message of a chat request: `system`, `developer`, `user`, `assistant` or `tool`. Content is
 * a string, an array of parts, or null (an assistant message that only calls tools).
 */
export const ChatMessage = Schema.Struct({
  role: Schema.Literals(["system", "developer", "user", "assistant", "tool", "function"]),
  content: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ChatContentPart)]))),
  name: Schema.optional(Schema.String),
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ChatToolCall))),
  tool_call_id: Schema.optional(Schema.String)
})
export type ChatMessage = typeof ChatMessage.Type

/**
 * A function tool offered to the model.
 */
export const ChatTool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    description: Schema.optional(Schema.String),
    parameters: Schema.optional(Schema.Unknown),
    strict: Schema.optional(Schema.NullOr(Schema.Boolean))
  })
})
export type ChatTool = typeof ChatTool.Type

/**
 * The body of `POST /chat/completions`, as far as the simulated provider reads it. Fields it does
 * not name are kept out of the decoded value but stay in the raw body (and in the request key
 * when they are sampling parameters).
 */
export const ChatCompletionRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(ChatMessage),
  tools: Schema.optional(Schema.NullOr(Schema.Array(ChatTool))),
  stream: Schema.optional(Schema.NullOr(Schema.Boolean)),
  stream_options: Schema.optional(
    Schema.NullOr(Schema.Struct({ include_usage: Schema.optional(Schema.NullOr(Schema.Boolean)) }))
  )
})
export type ChatCompletionRequest = typeof ChatCompletionRequest.Type

/**
 * A fragment of a tool call in a chunk: the first fragment of a call carries `id`, `type` and
 * `function.name` with empty `arguments`; later fragments carry only `index` and more
 * `function.arguments`.
 */
export const ChunkToolCall = Schema.Struct({
  index: Schema.Int,
  id: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(Schema.Literal("function")),
  function: Schema.Struct({
    name: Schema.optionalKey(Schema.String),
    arguments: Schema.String
  })
})
export type ChunkToolCall = typeof ChunkToolCall.Type

/**
 * The `delta` of a streamed choice. `reasoning_content` is the field reasoning models served
 * through OpenAI-compatible APIs use for thinking text.
 */
export const ChunkDelta = Schema.Struct({
  role: Schema.optionalKey(Schema.Literal("assistant")),
  content: Schema.optionalKey(Schema.NullOr(Schema.String)),
  reasoning_content: Schema.optionalKey(Schema.String),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.Array(ChunkToolCall))
})
export type ChunkDelta = typeof ChunkDelta.Type

/**
 * One choice of a streamed chunk.
 */
export const ChunkChoice = Schema.Struct({
  index: Schema.Int,
  delta: ChunkDelta,
  logprobs: Schema.optionalKey(Schema.Null),
  finish_reason: Schema.NullOr(FinishReason)
})
export type ChunkChoice = typeof ChunkChoice.Type

/**
 * A `chat.completion.chunk` event of a streamed completion. `id`, `object`, `created` and `model`
 * are on every chunk; the usage chunk has `choices: []` and `usage`.
 */
export const ChatCompletionChunk = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion.chunk"),
  created: Schema.Int,
  model: Schema.String,
  system_fingerprint: Schema.optionalKey(Schema.String),
  choices: Schema.Array(ChunkChoice),
  usage: Schema.optionalKey(Schema.NullOr(CompletionUsage))
})
export type ChatCompletionChunk = typeof ChatCompletionChunk.Type

/**
 * The assistant message of a non-streamed completion.
 */
export const CompletionMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.NullOr(Schema.String),
  reasoning_content: Schema.optionalKey(Schema.String),
  refusal: Schema.NullOr(Schema.String),
  tool_calls: Schema.optionalKey(Schema.Array(ChatToolCall))
})
export type CompletionMessage = typeof CompletionMessage.Type

/**
 * A non-streamed `chat.completion` object.
 */
export const ChatCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Int,
  model: Schema.String,
  system_fingerprint: Schema.optionalKey(Schema.String),
  choices: Schema.Array(
    Schema.Struct({
      index: Schema.Int,
      message: CompletionMessage,
      logprobs: Schema.Null,
      finish_reason: Schema.NullOr(FinishReason)
    })
  ),
  usage: CompletionUsage
})
export type ChatCompletion = typeof ChatCompletion.Type

/**
 * The error body of every failed OpenAI API response, streamed (as an SSE event) or not.
 */
export const OpenAiErrorBody = Schema.Struct({
  error: Schema.Struct({
    message: Schema.String,
    type: Schema.String,
    param: Schema.NullOr(Schema.String),
    code: Schema.NullOr(Schema.String)
  })
})
export type OpenAiErrorBody = typeof OpenAiErrorBody.Type

/**
 * The body of `GET /models`.
 */
export const ModelList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      object: Schema.Literal("model"),
      created: Schema.Int,
      owned_by: Schema.String
    })
  )
})
export type ModelList = typeof ModelList.Type
