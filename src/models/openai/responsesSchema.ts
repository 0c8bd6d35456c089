/**
 * Production-shaped Schemas of the OpenAI Responses wire format (`POST /v1/responses`): the
 * request as the simulated model reads it, the `response` object, its output items, and the
 * streamed events with their `sequence_number`. The Responses route builds every value it serves
 * against these types, so a drift between the schema and the route breaks the build.
 */
import { Schema } from "effect"

/**
 * A content part of an input message (`input_text`, `output_text`, images and files kept as
 * they are).
 */
export const InputContentPart = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.String)
})

/**
 * One item of a request's `input`: a message (`role` and `content`), a `function_call` the model
 * made earlier, a `function_call_output` with a tool's result, or any other item (reasoning,
 * `item_reference`), read only for its type.
 */
export const InputItem = Schema.Struct({
  type: Schema.optional(Schema.String),
  role: Schema.optional(Schema.String),
  content: Schema.optional(Schema.Union([Schema.String, Schema.Array(InputContentPart)])),
  call_id: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  arguments: Schema.optional(Schema.String),
  /** A `custom_tool_call`'s freeform input. */
  input: Schema.optional(Schema.String),
  output: Schema.optional(Schema.Unknown),
  /** An `additional_tools` item's tools (Codex sends its tools this way, in `namespace` groups). */
  tools: Schema.optional(Schema.Unknown)
})
export type InputItem = typeof InputItem.Type

/**
 * A tool offered to the model: a `function` tool has a `name`; hosted tools have only a type.
 */
export const ResponsesTool = Schema.Struct({
  type: Schema.String,
  name: Schema.optional(Schema.String)
})

/**
 * The body of `POST /responses`, as far as the simulated provider reads it.
 */
export const ResponsesRequest = Schema.Struct({
  model: Schema.String,
  input: Schema.optional(Schema.Union([Schema.String, Schema.Array(InputItem)])),
  instructions: Schema.optional(Schema.NullOr(Schema.String)),
  tools: Schema.optional(Schema.NullOr(Schema.Array(ResponsesTool))),
  stream: Schema.optional(Schema.NullOr(Schema.Boolean))
})
export type ResponsesRequest = typeof ResponsesRequest.Type

/**
 * Text in an assistant message.
 */
export const OutputText = Schema.Struct({
  type: Schema.Literal("output_text"),
  text: Schema.String,
  annotations: Schema.Array(Schema.Unknown),
  logprobs: Schema.Array(Schema.Unknown)
})
export type OutputText = typeof OutputText.Type

/**
 * The status of an output item.
 */
export const ItemStatus = Schema.Literals(["in_progress", "completed", "incomplete"])

/**
 * An assistant message item.
 */
export const OutputMessage = Schema.Struct({
  type: Schema.Literal("message"),
  id: Schema.String,
  status: ItemStatus,
  role: Schema.Literal("assistant"),
  content: Schema.Array(OutputText)
})
export type OutputMessage = typeof OutputMessage.Type

/**
 * A summary part of a reasoning item.
 */
export const SummaryText = Schema.Struct({ type: Schema.Literal("summary_text"), text: Schema.String })

/**
 * A reasoning item: the model's thinking, as summary text.
 */
export const ReasoningItem = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: Schema.String,
  summary: Schema.Array(SummaryText),
  encrypted_content: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type ReasoningItem = typeof ReasoningItem.Type

/**
 * A function call item: `call_id` is what the `function_call_output` answering it names.
 */
export const FunctionCallItem = Schema.Struct({
  type: Schema.Literal("function_call"),
  id: Schema.String,
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  status: ItemStatus
})
export type FunctionCallItem = typeof FunctionCallItem.Type

/** A call of a custom (freeform) tool: its `input` is text, not JSON arguments. */
export const CustomToolCallItem = Schema.Struct({
  type: Schema.Literal("custom_tool_call"),
  id: Schema.String,
  call_id: Schema.String,
  name: Schema.String,
  input: Schema.String,
  status: ItemStatus
})
export type CustomToolCallItem = typeof CustomToolCallItem.Type

/**
 * An item of a response's `output`.
 */
export const OutputItem = Schema.Union([OutputMessage, ReasoningItem, FunctionCallItem, CustomToolCallItem])
export type OutputItem = typeof OutputItem.Type

/**
 * Token counts of a response.
 */
export const ResponseUsage = Schema.Struct({
  input_tokens: Schema.Int,
  input_tokens_details: Schema.Struct({ cached_tokens: Schema.Int }),
  output_tokens: Schema.Int,
  output_tokens_details: Schema.Struct({ reasoning_tokens: Schema.Int }),
  total_tokens: Schema.Int
})
export type ResponseUsage = typeof ResponseUsage.Type

/**
 * The `response` object: returned whole by a non-streamed call, and carried by
 * `response.created`, `response.in_progress` and `response.completed` (or `response.incomplete`).
 */
export const ResponseObject = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("response"),
  created_at: Schema.Int,
  status: Schema.Literals(["in_progress", "completed", "incomplete", "failed"]),
  error: Schema.Null,
  incomplete_details: Schema.NullOr(Schema.Struct({ reason: Schema.String })),
  instructions: Schema.NullOr(Schema.String),
  max_output_tokens: Schema.NullOr(Schema.Int),
  model: Schema.String,
  output: Schema.Array(OutputItem),
  parallel_tool_calls: Schema.Boolean,
  previous_response_id: Schema.NullOr(Schema.String),
  reasoning: Schema.Struct({ effort: Schema.NullOr(Schema.String), summary: Schema.NullOr(Schema.String) }),
  store: Schema.Boolean,
  temperature: Schema.Number,
  text: Schema.Struct({ format: Schema.Struct({ type: Schema.Literal("text") }) }),
  tool_choice: Schema.Unknown,
  tools: Schema.Array(Schema.Unknown),
  top_p: Schema.Number,
  truncation: Schema.Literal("disabled"),
  usage: Schema.NullOr(ResponseUsage),
  user: Schema.NullOr(Schema.String),
  metadata: Schema.Record(Schema.String, Schema.String)
})
export type ResponseObject = typeof ResponseObject.Type

const seq = { sequence_number: Schema.Int }

/** `response.created`, `response.in_progress`, `response.completed`, `response.incomplete`. */
export const ResponseLifecycleEvent = Schema.Struct({
  type: Schema.Literals(["response.created", "response.in_progress", "response.completed", "response.incomplete"]),
  response: ResponseObject,
  ...seq
})

/** `response.output_item.added` and `response.output_item.done`. */
export const OutputItemEvent = Schema.Struct({
  type: Schema.Literals(["response.output_item.added", "response.output_item.done"]),
  output_index: Schema.Int,
  item: OutputItem,
  ...seq
})

/** `response.content_part.added` and `response.content_part.done`. */
export const ContentPartEvent = Schema.Struct({
  type: Schema.Literals(["response.content_part.added", "response.content_part.done"]),
  item_id: Schema.String,
  output_index: Schema.Int,
  content_index: Schema.Int,
  part: OutputText,
  ...seq
})

/** `response.output_text.delta`. */
export const OutputTextDeltaEvent = Schema.Struct({
  type: Schema.Literal("response.output_text.delta"),
  item_id: Schema.String,
  output_index: Schema.Int,
  content_index: Schema.Int,
  delta: Schema.String,
  logprobs: Schema.Array(Schema.Unknown),
  ...seq
})

/** `response.output_text.done`. */
export const OutputTextDoneEvent = Schema.Struct({
  type: Schema.Literal("response.output_text.done"),
  item_id: Schema.String,
  output_index: Schema.Int,
  content_index: Schema.Int,
  text: Schema.String,
  logprobs: Schema.Array(Schema.Unknown),
  ...seq
})

/** `response.reasoning_summary_part.added` and `.done`. */
export const ReasoningSummaryPartEvent = Schema.Struct({
  type: Schema.Literals(["response.reasoning_summary_part.added", "response.reasoning_summary_part.done"]),
  item_id: Schema.String,
  output_index: Schema.Int,
  summary_index: Schema.Int,
  part: SummaryText,
  ...seq
})

/** `response.reasoning_summary_text.delta`. */
export const ReasoningSummaryTextDeltaEvent = Schema.Struct({
  type: Schema.Literal("response.reasoning_summary_text.delta"),
  item_id: Schema.String,
  output_index: Schema.Int,
  summary_index: Schema.Int,
  delta: Schema.String,
  ...seq
})

/** `response.reasoning_summary_text.done`. */
export const ReasoningSummaryTextDoneEvent = Schema.Struct({
  type: Schema.Literal("response.reasoning_summary_text.done"),
  item_id: Schema.String,
  output_index: Schema.Int,
  summary_index: Schema.Int,
  text: Schema.String,
  ...seq
})

/** `response.function_call_arguments.delta`. */
export const FunctionCallArgumentsDeltaEvent = Schema.Struct({
  type: Schema.Literal("response.function_call_arguments.delta"),
  item_id: Schema.String,
  output_index: Schema.Int,
  delta: Schema.String,
  ...seq
})

/** `response.function_call_arguments.done`. */
export const FunctionCallArgumentsDoneEvent = Schema.Struct({
  type: Schema.Literal("response.function_call_arguments.done"),
  item_id: Schema.String,
  output_index: Schema.Int,
  name: Schema.String,
  arguments: Schema.String,
  ...seq
})

/** `response.custom_tool_call_input.delta` and `.done`: a custom tool call's input, streamed. */
export const CustomToolCallInputEvent = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("response.custom_tool_call_input.delta"),
    item_id: Schema.String,
    output_index: Schema.Int,
    delta: Schema.String,
    ...seq
  }),
  Schema.Struct({
    type: Schema.Literal("response.custom_tool_call_input.done"),
    item_id: Schema.String,
    output_index: Schema.Int,
    input: Schema.String,
    ...seq
  })
])

/** `error`: the stream failed; it ends after this event. */
export const ResponseErrorEvent = Schema.Struct({
  type: Schema.Literal("error"),
  code: Schema.NullOr(Schema.String),
  message: Schema.String,
  param: Schema.NullOr(Schema.String),
  ...seq
})

/**
 * Any event of a streamed response (SSE `event:` is the event's `type`).
 */
export const ResponseStreamEvent = Schema.Union([
  ResponseLifecycleEvent,
  OutputItemEvent,
  ContentPartEvent,
  OutputTextDeltaEvent,
  OutputTextDoneEvent,
  ReasoningSummaryPartEvent,
  ReasoningSummaryTextDeltaEvent,
  ReasoningSummaryTextDoneEvent,
  FunctionCallArgumentsDeltaEvent,
  FunctionCallArgumentsDoneEvent,
  CustomToolCallInputEvent,
  ResponseErrorEvent
])
export type ResponseStreamEvent = typeof ResponseStreamEvent.Type
