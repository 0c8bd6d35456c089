/**
 * Production-shaped Schemas of Ollama's API: the `/api/chat` and `/api/generate` requests as the
 * simulated model reads them, `/api/embed`'s request, and the answers simnet writes (one object,
 * or NDJSON lines of the same shape with `done: false` until the last).
 */
import { Schema } from "effect"

/** A tool call as Ollama spells it: the arguments an object, not a JSON string. */
export const OllamaToolCall = Schema.Struct({
  function: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.Unknown) })
})

/** A message of an `/api/chat` request. */
export const OllamaMessage = Schema.Struct({
  role: Schema.String,
  content: Schema.optional(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optional(Schema.Array(OllamaToolCall))
})
export type OllamaMessage = typeof OllamaMessage.Type

/** The body of `POST /api/chat`, as far as the simulated model reads it (`stream` is true unless false). */
export const OllamaChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(OllamaMessage),
  tools: Schema.optional(Schema.Array(Schema.Struct({ function: Schema.Struct({ name: Schema.String }) }))),
  stream: Schema.optional(Schema.Boolean),
  format: Schema.optional(Schema.Unknown)
})
export type OllamaChatRequest = typeof OllamaChatRequest.Type

/** The body of `POST /api/generate`. */
export const OllamaGenerateRequest = Schema.Struct({
  model: Schema.String,
  prompt: Schema.optional(Schema.String),
  system: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.Boolean),
  format: Schema.optional(Schema.Unknown)
})
export type OllamaGenerateRequest = typeof OllamaGenerateRequest.Type

/** The body of `POST /api/embed`. */
export const OllamaEmbedRequest = Schema.Struct({
  model: Schema.String,
  input: Schema.Union([Schema.String, Schema.Array(Schema.String)]),
  dimensions: Schema.optional(Schema.Int)
})

/** The timings and counts every final answer carries. */
export interface OllamaCounts {
  readonly total_duration: number
  readonly load_duration: number
  readonly prompt_eval_count: number
  readonly prompt_eval_duration: number
  readonly eval_count: number
  readonly eval_duration: number
}

/** An answer (or NDJSON line) of `/api/chat`. */
export interface OllamaChatResponse extends Partial<OllamaCounts> {
  readonly model: string
  readonly created_at: string
  readonly message: {
    readonly role: "assistant"
    readonly content: string
    readonly thinking?: string
    readonly tool_calls?: ReadonlyArray<{ readonly function: { readonly name: string; readonly arguments: unknown } }>
  }
  readonly done: boolean
  readonly done_reason?: "stop" | "length"
}

/** An answer (or NDJSON line) of `/api/generate`. */
export interface OllamaGenerateResponse extends Partial<OllamaCounts> {
  readonly model: string
  readonly created_at: string
  readonly response: string
  readonly thinking?: string
  readonly done: boolean
  readonly done_reason?: "stop" | "length"
}

/** A model of `/api/tags`. */
export interface OllamaModel {
  readonly name: string
  readonly model: string
  readonly modified_at: string
  readonly size: number
  readonly digest: string
  readonly details: {
    readonly parent_model: string
    readonly format: string
    readonly family: string
    readonly families: ReadonlyArray<string>
    readonly parameter_size: string
    readonly quantization_level: string
  }
}
