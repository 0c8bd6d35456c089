/**
 * Production-shaped Schemas of the Anthropic Messages wire format (`POST /v1/messages`): the
 * request as the simulated model reads it, the `message` object and its content blocks, the
 * streamed events, the error body and the model list. The Anthropic route builds every value it
 * serves against these types, so a drift between the schema and the route breaks the build.
 */
import { Schema } from "effect"

/**
 * A content block of a request message: `text`, `tool_use` (the model's earlier call),
 * `tool_result` (a tool's answer, its `content` a string or blocks), `thinking` and others kept
 * for their type.
 */
export const RequestBlock = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  input: Schema.optional(Schema.Unknown),
  tool_use_id: Schema.optional(Schema.String),
  content: Schema.optional(
    Schema.Union([
      Schema.String,
      Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
    ])
  )
})
export type RequestBlock = typeof RequestBlock.Type

/**
 * A message of a request. `system` is a system turn inside the conversation, as Claude Code's
 * models send one (a mid-conversation system message) besides the top-level `system`.
 */
export const RequestMessage = Schema.Struct({
  role: Schema.Literals(["user", "assistant", "system"]),
  content: Schema.Union([Schema.String, Schema.Array(RequestBlock)])
})
export type RequestMessage = typeof RequestMessage.Type

/**
 * The body of `POST /v1/messages`, as far as the simulated provider reads it.
 */
export const MessagesRequest = Schema.Struct({
  model: Schema.String,
  max_tokens: Schema.Int,
  messages: Schema.Array(RequestMessage),
  system: Schema.optional(
    Schema.Union([
      Schema.String,
      Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
    ])
  ),
  tools: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String }))),
  stream: Schema.optional(Schema.Boolean)
})
export type MessagesRequest = typeof MessagesRequest.Type

/** A text block of an answer. */
export const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/** A thinking block of an answer, with the signature a client sends back with it. */
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String
})

/** A tool call of an answer. */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})

/** A content block of an answer. */
export const ContentBlock = Schema.Union([TextBlock, ThinkingBlock, ToolUseBlock])
export type ContentBlock = typeof ContentBlock.Type

/** Why an answer stopped. */
export const StopReason = Schema.Literals([
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal"
])
export type StopReason = typeof StopReason.Type

/** Token counts of an answer. */
export const Usage = Schema.Struct({
  input_tokens: Schema.Int,
  output_tokens: Schema.Int,
  cache_creation_input_tokens: Schema.Int,
  cache_read_input_tokens: Schema.Int
})
export type Usage = typeof Usage.Type

/**
 * The `message` object: a non-streamed answer, and the snapshot `message_start` carries.
 */
export const Message = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("message"),
  role: Schema.Literal("assistant"),
  model: Schema.String,
  content: Schema.Array(ContentBlock),
  stop_reason: Schema.NullOr(StopReason),
  stop_sequence: Schema.Null,
  usage: Usage
})
export type Message = typeof Message.Type

/** `message_start`. */
export const MessageStartEvent = Schema.Struct({ type: Schema.Literal("message_start"), message: Message })

/** `content_block_start`: text and thinking blocks start empty, `tool_use` with `input: {}`. */
export const ContentBlockStartEvent = Schema.Struct({
  type: Schema.Literal("content_block_start"),
  index: Schema.Int,
  content_block: ContentBlock
})

/** The delta of a `content_block_delta`. */
export const BlockDelta = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text_delta"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("thinking_delta"), thinking: Schema.String }),
  Schema.Struct({ type: Schema.Literal("signature_delta"), signature: Schema.String }),
  Schema.Struct({ type: Schema.Literal("input_json_delta"), partial_json: Schema.String })
])
export type BlockDelta = typeof BlockDelta.Type

/** `content_block_delta`. */
export const ContentBlockDeltaEvent = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Int,
  delta: BlockDelta
})

/** `content_block_stop`. */
export const ContentBlockStopEvent = Schema.Struct({ type: Schema.Literal("content_block_stop"), index: Schema.Int })

/** `message_delta`: the stop reason (nullable, as the SDK types it) and the final usage. */
export const MessageDeltaEvent = Schema.Struct({
  type: Schema.Literal("message_delta"),
  delta: Schema.Struct({ stop_reason: Schema.NullOr(StopReason), stop_sequence: Schema.Null }),
  usage: Usage
})

/** `message_stop`. */
export const MessageStopEvent = Schema.Struct({ type: Schema.Literal("message_stop") })

/** `ping`. */
export const PingEvent = Schema.Struct({ type: Schema.Literal("ping") })

/**
 * The error body of a failed response, and the data of a mid-stream `error` event. `type` is
 * `rate_limit_error` (429), `overloaded_error` (529), `api_error` (other 5xx) and so on.
 */
export const ErrorBody = Schema.Struct({
  type: Schema.Literal("error"),
  error: Schema.Struct({ type: Schema.String, message: Schema.String })
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * Any streamed event (SSE `event:` is the event's `type`).
 */
export const StreamEvent = Schema.Union([
  MessageStartEvent,
  ContentBlockStartEvent,
  ContentBlockDeltaEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStopEvent,
  PingEvent,
  ErrorBody
])
export type StreamEvent = typeof StreamEvent.Type

/**
 * The body of `GET /v1/models`.
 */
export const ModelList = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      type: Schema.Literal("model"),
      id: Schema.String,
      display_name: Schema.String,
      created_at: Schema.String
    })
  ),
  has_more: Schema.Boolean,
  first_id: Schema.NullOr(Schema.String),
  last_id: Schema.NullOr(Schema.String)
})
export type ModelList = typeof ModelList.Type
