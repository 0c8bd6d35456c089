/**
 * Production-shaped Schemas of Amazon Bedrock's runtime API: the Converse request as the
 * simulated model reads it (`POST /model/{modelId}/converse` and `converse-stream`), the
 * Converse answer and stream events it writes, and the native bodies `InvokeModel` carries for
 * Amazon Nova (the Converse shapes again) and Meta Llama (a prompt and a generation).
 */
import { Schema } from "effect"

/** A block of a Converse message: text, an earlier tool call, a tool's result, or others kept for their type. */
export const ConverseBlock = Schema.Struct({
  text: Schema.optional(Schema.String),
  toolUse: Schema.optional(
    Schema.Struct({ toolUseId: Schema.String, name: Schema.String, input: Schema.optional(Schema.Unknown) })
  ),
  toolResult: Schema.optional(
    Schema.Struct({
      toolUseId: Schema.String,
      content: Schema.optional(
        Schema.Array(Schema.Struct({ text: Schema.optional(Schema.String), json: Schema.optional(Schema.Unknown) }))
      ),
      status: Schema.optional(Schema.String)
    })
  )
})
export type ConverseBlock = typeof ConverseBlock.Type

/** A message of a Converse (or Nova) request. */
export const ConverseMessage = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Array(ConverseBlock)
})
export type ConverseMessage = typeof ConverseMessage.Type

/** The body of a Converse request (the model is in the URL), as far as the simulated model reads it; also Nova's `InvokeModel` body. */
export const ConverseRequest = Schema.Struct({
  messages: Schema.Array(ConverseMessage),
  system: Schema.optional(Schema.Array(Schema.Struct({ text: Schema.optional(Schema.String) }))),
  toolConfig: Schema.optional(
    Schema.Struct({
      tools: Schema.Array(Schema.Struct({ toolSpec: Schema.optional(Schema.Struct({ name: Schema.String })) }))
    })
  )
})
export type ConverseRequest = typeof ConverseRequest.Type

/** Meta Llama's `InvokeModel` body: one prompt in Llama's chat template. */
export const LlamaRequest = Schema.Struct({
  prompt: Schema.String,
  max_gen_len: Schema.optional(Schema.Int)
})
export type LlamaRequest = typeof LlamaRequest.Type

/** Converse's stop reasons. */
export type ConverseStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "content_filtered"

/** A block of a Converse answer. */
export type ConverseAnswerBlock =
  | { readonly text: string }
  | { readonly toolUse: { readonly toolUseId: string; readonly name: string; readonly input: unknown } }
  | { readonly reasoningContent: { readonly reasoningText: { readonly text: string; readonly signature: string } } }

/** Converse's usage. */
export interface ConverseUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** The answer of `converse` (and Nova's `InvokeModel`). */
export interface ConverseResponse {
  readonly output: {
    readonly message: { readonly role: "assistant"; readonly content: ReadonlyArray<ConverseAnswerBlock> }
  }
  readonly stopReason: ConverseStopReason
  readonly usage: ConverseUsage
  readonly metrics: { readonly latencyMs: number }
}

/** One event of a ConverseStream answer (and of Nova's streamed `InvokeModel` chunks), keyed by its type. */
export type ConverseStreamEvent =
  | { readonly messageStart: { readonly role: "assistant" } }
  | {
      readonly contentBlockStart: {
        readonly contentBlockIndex: number
        readonly start: { readonly toolUse: { readonly toolUseId: string; readonly name: string } }
      }
    }
  | {
      readonly contentBlockDelta: {
        readonly contentBlockIndex: number
        readonly delta:
          | { readonly text: string }
          | { readonly toolUse: { readonly input: string } }
          | { readonly reasoningContent: { readonly text: string } | { readonly signature: string } }
      }
    }
  | { readonly contentBlockStop: { readonly contentBlockIndex: number } }
  | { readonly messageStop: { readonly stopReason: ConverseStopReason } }
  | { readonly metadata: { readonly usage: ConverseUsage; readonly metrics: { readonly latencyMs: number } } }
  | { readonly internalServerException: { readonly message: string } }

/** Bedrock's error body: the message, and the exception's name where the SDK reads it (`__type`). */
export interface BedrockErrorBody {
  readonly message: string
  readonly __type: string
}

/** Meta Llama's answer (and, with `stop_reason: null` until the last, each streamed chunk). */
export interface LlamaResponse {
  readonly generation: string
  readonly prompt_token_count: number | null
  readonly generation_token_count: number
  readonly stop_reason: "stop" | "length" | null
}
