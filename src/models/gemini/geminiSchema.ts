/**
 * Production-shaped Schemas of the Gemini API's `generateContent` wire format
 * (`…/v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`): the request
 * as the simulated model reads it, the response (each streamed chunk is one), the error body and
 * the model list. The Gemini route builds every value it serves against these types.
 */
import { Schema } from "effect"

/**
 * A part of a request's content: text (`thought: true` for thinking), a `functionCall` the model
 * made earlier, a `functionResponse` with a tool's result; other parts kept for their fields.
 */
export const RequestPart = Schema.Struct({
  text: Schema.optional(Schema.String),
  thought: Schema.optional(Schema.Boolean),
  functionCall: Schema.optional(Schema.Struct({ name: Schema.String, args: Schema.optional(Schema.Unknown) })),
  functionResponse: Schema.optional(Schema.Struct({ name: Schema.String, response: Schema.optional(Schema.Unknown) }))
})
export type RequestPart = typeof RequestPart.Type

/**
 * A content of a request: `role` `user` (default) or `model`, and its parts.
 */
export const RequestContent = Schema.Struct({
  role: Schema.optional(Schema.String),
  parts: Schema.Array(RequestPart)
})
export type RequestContent = typeof RequestContent.Type

/**
 * The body of `generateContent`, as far as the simulated provider reads it (the model and
 * whether to stream are in the URL).
 */
export const GenerateContentRequest = Schema.Struct({
  contents: Schema.Array(RequestContent),
  systemInstruction: Schema.optional(Schema.Struct({ parts: Schema.Array(RequestPart) })),
  tools: Schema.optional(
    Schema.Array(
      Schema.Struct({
        functionDeclarations: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String })))
      })
    )
  )
})
export type GenerateContentRequest = typeof GenerateContentRequest.Type

/**
 * A part of an answer: text, thinking text (`thought: true`), or a whole function call.
 */
export const ResponsePart = Schema.Union([
  Schema.Struct({ text: Schema.String, thought: Schema.optionalKey(Schema.Literal(true)) }),
  Schema.Struct({
    functionCall: Schema.Struct({ id: Schema.optionalKey(Schema.String), name: Schema.String, args: Schema.Unknown })
  })
])
export type ResponsePart = typeof ResponsePart.Type

/**
 * Why a candidate stopped (`FINISH_REASON_UNSPECIFIED`: a stop the client cannot name).
 */
export const FinishReason = Schema.Literals(["FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "OTHER"])
export type FinishReason = typeof FinishReason.Type

/**
 * Token counts.
 */
export const UsageMetadata = Schema.Struct({
  promptTokenCount: Schema.Int,
  candidatesTokenCount: Schema.Int,
  totalTokenCount: Schema.Int,
  thoughtsTokenCount: Schema.optionalKey(Schema.Int)
})
export type UsageMetadata = typeof UsageMetadata.Type

/**
 * A candidate answer.
 */
export const Candidate = Schema.Struct({
  content: Schema.Struct({ parts: Schema.Array(ResponsePart), role: Schema.Literal("model") }),
  finishReason: Schema.optionalKey(FinishReason),
  index: Schema.Int
})
export type Candidate = typeof Candidate.Type

/**
 * A `generateContent` response, and each chunk of a streamed one (the last carries
 * `finishReason` and `usageMetadata`).
 */
export const GenerateContentResponse = Schema.Struct({
  candidates: Schema.Array(Candidate),
  usageMetadata: Schema.optionalKey(UsageMetadata),
  modelVersion: Schema.String,
  responseId: Schema.String
})
export type GenerateContentResponse = typeof GenerateContentResponse.Type

/**
 * The error body: `{error: {code, message, status}}` (`RESOURCE_EXHAUSTED` for 429,
 * `INTERNAL` for 500, `UNAVAILABLE` for 503).
 */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({ code: Schema.Int, message: Schema.String, status: Schema.String })
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * The body of `GET /v1beta/models`.
 */
export const ModelList = Schema.Struct({
  models: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      displayName: Schema.String,
      supportedGenerationMethods: Schema.Array(Schema.String)
    })
  )
})
export type ModelList = typeof ModelList.Type
