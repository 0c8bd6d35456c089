/**
 * The commands of the model's driver protocol (`llm.*` over the driver socket, and the same
 * methods in process): one Schema per command's params, so a socket driver and an in-process
 * driver are held to one protocol and a bad command is refused naming the field.
 */
import { Schema } from "effect"
import { CompletionUsage, FinishReason, HttpErrorStatus, LlmDriverItem, LlmFinish } from "./llmScript.ts"

/**
 * The finish reasons a driver may give, in the script's spelling or the API's.
 */
export const DriverFinish = Schema.Union([LlmFinish, FinishReason]).annotate({
  expected:
    'a finish reason: "stop", "tool-calls", "length", "error", "unknown", or the API\'s "tool_calls", "content_filter", "function_call"'
})
export type DriverFinish = typeof DriverFinish.Type

const InvocationId = Schema.String.annotate({ expected: 'an invocation id such as "inv_1"' })

/** `llm.chunk {id, items}`: items sent into a pending invocation. */
export const ChunkCommand = Schema.Struct({ id: InvocationId, items: Schema.Array(LlmDriverItem) })
export type ChunkCommand = typeof ChunkCommand.Type

/** `llm.finish {id, reason?, usage?}`: the end of an invocation's answer. */
export const FinishCommand = Schema.Struct({
  id: InvocationId,
  reason: Schema.optional(DriverFinish),
  usage: Schema.optional(CompletionUsage)
})
export type FinishCommand = typeof FinishCommand.Type

/** `llm.fail {id, status, message?}`: an HTTP error before any chunk, else an error event. */
export const FailCommand = Schema.Struct({
  id: InvocationId,
  status: HttpErrorStatus,
  message: Schema.optional(Schema.String)
})
export type FailCommand = typeof FailCommand.Type

/** `llm.disconnect {id}`: the invocation's connection dropped. */
export const DisconnectCommand = Schema.Struct({ id: InvocationId })
export type DisconnectCommand = typeof DisconnectCommand.Type
