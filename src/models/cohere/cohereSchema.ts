/**
 * Production-shaped Schemas of Cohere's v2 API: the `/v2/chat`, `/v2/embed` and `/v2/rerank`
 * requests as simnet reads them, and the answers it writes (wire names, snake_case).
 */
import { Schema } from "effect"

const TextPart = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })

/** A tool call of an assistant message, its arguments a JSON string. */
export const CohereToolCall = Schema.Struct({
  id: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.String) })
})

/** A message of a `/v2/chat` request. */
export const CohereMessage = Schema.Struct({
  role: Schema.Literals(["system", "user", "assistant", "tool"]),
  content: Schema.optional(Schema.Union([Schema.String, Schema.Array(TextPart)])),
  tool_calls: Schema.optional(Schema.Array(CohereToolCall)),
  tool_plan: Schema.optional(Schema.String)
})
export type CohereMessage = typeof CohereMessage.Type

/** The body of `POST /v2/chat`. */
export const CohereChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(CohereMessage),
  tools: Schema.optional(Schema.Array(Schema.Struct({ function: Schema.Struct({ name: Schema.String }) }))),
  stream: Schema.optional(Schema.Boolean),
  response_format: Schema.optional(Schema.Unknown)
})
export type CohereChatRequest = typeof CohereChatRequest.Type

/** The body of `POST /v2/embed`. */
export const CohereEmbedRequest = Schema.Struct({
  model: Schema.String,
  texts: Schema.optional(Schema.Array(Schema.String)),
  input_type: Schema.optional(Schema.String),
  embedding_types: Schema.optional(Schema.Array(Schema.String)),
  output_dimension: Schema.optional(Schema.Int)
})

/** The body of `POST /v2/rerank`. */
export const CohereRerankRequest = Schema.Struct({
  model: Schema.String,
  query: Schema.String,
  documents: Schema.Array(Schema.Union([Schema.String, Schema.Struct({ text: Schema.String })])),
  top_n: Schema.optional(Schema.Int)
})

/** Cohere's finish reasons. */
export type CohereFinish = "COMPLETE" | "MAX_TOKENS" | "TOOL_CALL" | "ERROR" | "STOP_SEQUENCE"

/** Cohere's usage. */
export interface CohereUsage {
  readonly billed_units: { readonly input_tokens: number; readonly output_tokens: number }
  readonly tokens: { readonly input_tokens: number; readonly output_tokens: number }
}

/** An assistant message of an answer. */
export interface CohereAssistantMessage {
  readonly role: "assistant"
  readonly content?: ReadonlyArray<
    { readonly type: "text"; readonly text: string } | { readonly type: "thinking"; readonly thinking: string }
  >
  readonly tool_plan?: string
  readonly tool_calls?: ReadonlyArray<{
    readonly id: string
    readonly type: "function"
    readonly function: { readonly name: string; readonly arguments: string }
  }>
}

/** The answer of `POST /v2/chat`. */
export interface CohereChatResponse {
  readonly id: string
  readonly finish_reason: CohereFinish
  readonly message: CohereAssistantMessage
  readonly usage: CohereUsage
}

/** Cohere's error body. */
export interface CohereErrorBody {
  readonly id: string
  readonly message: string
}
