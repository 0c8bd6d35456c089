/**
 * Production-shaped Schemas of the embeddings wire formats: OpenAI's `POST /v1/embeddings`
 * request and list, and Gemini's `embedContent` / `batchEmbedContents` requests and answers.
 * The embeddings routes build every value they serve against these types.
 */
import { Schema } from "effect"

/**
 * The body of OpenAI's `POST /embeddings`: `input` is a string, strings, or token arrays;
 * `encoding_format` `float` (default) or `base64` (little-endian float32, what the `openai` SDK
 * asks for); `dimensions` shortens the vector.
 */
export const EmbeddingRequest = Schema.Struct({
  model: Schema.String,
  input: Schema.Union([
    Schema.String,
    Schema.Array(Schema.String),
    Schema.Array(Schema.Int),
    Schema.Array(Schema.Array(Schema.Int))
  ]),
  encoding_format: Schema.optional(Schema.Literals(["float", "base64"])),
  dimensions: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 8192 }))),
  user: Schema.optional(Schema.String)
})
export type EmbeddingRequest = typeof EmbeddingRequest.Type

/**
 * One vector of an embedding list: numbers, or base64 of little-endian float32.
 */
export const Embedding = Schema.Struct({
  object: Schema.Literal("embedding"),
  index: Schema.Int,
  embedding: Schema.Union([Schema.Array(Schema.Number), Schema.String])
})
export type Embedding = typeof Embedding.Type

/**
 * The answer of OpenAI's `POST /embeddings`.
 */
export const EmbeddingList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(Embedding),
  model: Schema.String,
  usage: Schema.Struct({ prompt_tokens: Schema.Int, total_tokens: Schema.Int })
})
export type EmbeddingList = typeof EmbeddingList.Type

/**
 * Gemini content as `embedContent` reads it: parts with text.
 */
export const GeminiEmbedContent = Schema.Struct({
  parts: Schema.Array(Schema.Struct({ text: Schema.optional(Schema.String) }))
})

/**
 * The body of Gemini's `embedContent` (and one request of `batchEmbedContents`).
 */
export const GeminiEmbedRequest = Schema.Struct({
  model: Schema.optional(Schema.String),
  content: GeminiEmbedContent,
  taskType: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  outputDimensionality: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 8192 })))
})
export type GeminiEmbedRequest = typeof GeminiEmbedRequest.Type

/**
 * The body of Gemini's `batchEmbedContents`.
 */
export const GeminiBatchEmbedRequest = Schema.Struct({ requests: Schema.Array(GeminiEmbedRequest) })
export type GeminiBatchEmbedRequest = typeof GeminiBatchEmbedRequest.Type

/**
 * A Gemini embedding.
 */
export const GeminiEmbedding = Schema.Struct({ values: Schema.Array(Schema.Number) })

/**
 * The answer of Gemini's `embedContent`.
 */
export const GeminiEmbedResponse = Schema.Struct({ embedding: GeminiEmbedding })
export type GeminiEmbedResponse = typeof GeminiEmbedResponse.Type

/**
 * The answer of Gemini's `batchEmbedContents`.
 */
export const GeminiBatchEmbedResponse = Schema.Struct({ embeddings: Schema.Array(GeminiEmbedding) })
export type GeminiBatchEmbedResponse = typeof GeminiBatchEmbedResponse.Type
