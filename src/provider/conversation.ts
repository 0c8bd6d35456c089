/**
 * Reading a chat request the way the provider's script queue, rules and counters need it: the
 * number of tool-result rounds since the last user message, the text of the conversation, and
 * the logical request key.
 */
import { createHash } from "node:crypto"
import type { ChatCompletionRequest, ChatMessage } from "../schemas/openai.ts"
import { canonicalJson } from "../registry/seed.ts"

/**
 * A model request as rules and logs see it.
 */
export interface LlmRequest {
  /** The URL the request was sent to. */
  readonly url: string
  /** The decoded body. */
  readonly body: ChatCompletionRequest
  /** The body exactly as parsed from JSON, with the fields the schema does not name. */
  readonly raw: unknown
  readonly model: string
  readonly stream: boolean
  /** Whether `stream_options.include_usage` asks for the usage chunk. */
  readonly includeUsage: boolean
  /** Groups of tool results since the last user message: step N of a script answers N. */
  readonly toolResultRounds: number
  /** The text of the last user message, if there is one. */
  readonly lastUserMessage: string | undefined
  /** The request material: every message's text (and tool calls' names and arguments), one per line. */
  readonly material: string
  /** The logical request key (see `requestKeyOf`). */
  readonly key: string
}

const KEY_FIELDS = [
  "model",
  "messages",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "seed",
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "reasoning_effort"
] as const

/**
 * The logical key of a chat request body (`llm_` and 16 hex digits: 64 bits of a SHA-256), a digest of its model, messages, tools and sampling
 * parameters with object keys in canonical order. Transport choices (`stream`,
 * `stream_options`, `user`, `metadata`) are left out, so the streamed and the non-streamed form
 * of one question share a key.
 */
export const requestKeyOf = (body: unknown): string => {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  const material: Record<string, unknown> = {}
  for (const field of KEY_FIELDS) if (record[field] !== undefined) material[field] = record[field]
  return `llm_${createHash("sha256").update(canonicalJson(material)).digest("hex").slice(0, 16)}`
}

/**
 * The text of a message's content: the string, or the text parts joined.
 */
export const contentText = (message: ChatMessage): string => {
  const content = message.content
  if (content === undefined || content === null) return ""
  if (typeof content === "string") return content
  return content.map((part) => part.text ?? "").join("")
}

const countRounds = (messages: ReadonlyArray<ChatMessage>, from: number): number => {
  let rounds = 0
  let inRun = false
  for (let i = from; i < messages.length; i++) {
    const isTool = messages[i].role === "tool"
    if (isTool && !inRun) rounds++
    inRun = isTool
  }
  return rounds
}

/**
 * Reads a decoded chat request.
 */
export const readRequest = (url: string, body: ChatCompletionRequest, raw: unknown): LlmRequest => {
  const messages = body.messages
  let lastUser = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user") {
      lastUser = i
      break
    }
  }
  const lines: Array<string> = []
  for (const message of messages) {
    const text = contentText(message)
    if (text.length > 0) lines.push(text)
    for (const call of message.tool_calls ?? []) lines.push(`${call.function.name} ${call.function.arguments}`)
  }
  return {
    url,
    body,
    raw,
    model: body.model,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    toolResultRounds: countRounds(messages, lastUser + 1),
    lastUserMessage: lastUser === -1 ? undefined : contentText(messages[lastUser]),
    material: lines.join("\n"),
    key: requestKeyOf(raw)
  }
}

/**
 * A one-line summary of a request for error messages: model, last user message, tool results.
 */
export const summarize = (request: LlmRequest): string => {
  const last = request.lastUserMessage
  const quoted = last === undefined ? "none" : JSON.stringify(last.length > 120 ? `${last.slice(0, 117)}...` : last)
  return `model=${request.model}; last user message: ${quoted}; tool-result rounds: ${request.toolResultRounds}`
}

/**
 * The sha256 digest of bytes, in hex.
 */
export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")
