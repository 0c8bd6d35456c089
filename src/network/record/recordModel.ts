/**
 * Recording model calls: a call of any model API simnet speaks (OpenAI, Anthropic, Gemini,
 * Bedrock, Vertex, Azure, OpenRouter, Ollama, Cohere) that record mode forwarded (streamed or not) is read back into an `llm` rule — matched by the request's last
 * user message and whether it carries tool results, answered by a script of the text, thinking
 * and tool calls that came back, with the finish reason, usage and (for a stream) its pace. A
 * script replays through every API simnet speaks, so a call recorded through one replays through
 * all. Embeddings and other model APIs are recorded as plain HTTP (routes).
 */
import { Result } from "effect"
import { readConversation } from "../../models/provider/conversation.ts"
import { makeSimRequest } from "../../registry/request.ts"
import type { ModelWire } from "../../models/wire/wire.ts"

const decoder = new TextDecoder()

/** The family a fixture registers to answer recorded calls of `api` at `origin` (its base URL when not the API's default). */
export const familyFor = (wire: ModelWire, origin: string): Record<string, unknown> => {
  const baseUrl = wire.baseUrlAt(origin)
  return { family: wire.name, ...(baseUrl === undefined ? {} : { baseUrl }) }
}

/**
 * The rule's match: the last user message, and whether tool results follow it, as the model
 * routes read the request when it is replayed (their own reading, so the rule matches then).
 * Undefined when the body is not a request of its API or has no user message.
 */
const matchOf = (wire: ModelWire, url: string, requestBody: string): Record<string, unknown> | undefined => {
  const request = makeSimRequest({
    method: "POST",
    url,
    headers: { "content-type": "application/json" },
    body: requestBody
  })
  const read = wire.read(request, request.json())
  if (Result.isFailure(read)) return undefined
  const conversation = readConversation(read.success)
  return conversation.lastUserMessage === undefined
    ? undefined
    : { lastUserMessage: conversation.lastUserMessage, toolResult: conversation.toolResultRounds > 0 }
}

/**
 * A recorded call as an `llm` rule (without an id), or undefined when its body is not an answer
 * this module reads (an error, an unexpected shape): the call is then recorded as plain HTTP.
 */
export const ruleOf = (
  wire: ModelWire,
  url: string,
  requestBody: string | undefined,
  status: number,
  contentType: string | undefined,
  bytes: Uint8Array,
  timing: { readonly firstByteMs: number; readonly totalMs: number } | undefined
): Record<string, unknown> | undefined => {
  if (status !== 200 || requestBody === undefined) return undefined
  const match = matchOf(wire, url, requestBody)
  if (match === undefined) return undefined
  const framing = wire.streaming
  const streamed =
    /event-stream/i.test(contentType ?? "") ||
    (framing !== undefined && (contentType ?? "").toLowerCase().startsWith(framing.contentType))
  const body = streamed && framing?.decode !== undefined ? framing.decode(bytes) : decoder.decode(bytes)
  const answer = wire.readBack(body, streamed)
  if (answer === undefined || answer.actions.length === 0) return undefined
  const words = answer.actions.reduce(
    (n, a) => n + (a.type === "tool_call" ? 1 : a.content.split(/\s+/).filter(Boolean).length),
    0
  )
  const streaming = streamed && timing !== undefined ? timing.totalMs - timing.firstByteMs : 0
  const pace =
    streamed && timing !== undefined
      ? {
          ttftMs: Math.round(timing.firstByteMs),
          ...(streaming > 0 && words > 1 ? { tokensPerSecond: Math.round(((words * 1000) / streaming) * 10) / 10 } : {})
        }
      : undefined
  return {
    match,
    behaviour: {
      type: "respond",
      steps: [answer.actions],
      ...(answer.finish === undefined ? {} : { finish: answer.finish }),
      ...(answer.usage === undefined ? {} : { usage: answer.usage }),
      ...(pace === undefined ? {} : { pace })
    }
  }
}
