/**
 * Reading a model request the way the provider's script queue, rules and counters need it,
 * whatever API it came through: each model route turns its own message format into `LlmTurn`s
 * (chat messages, Responses input items, Anthropic content blocks, Gemini parts) and
 * `readConversation` counts the tool-result rounds since the last user message, keeps the text of
 * the conversation, and derives the logical request key. The provider never sees a wire format.
 */
import { sha256Hex } from "../../registry/util.ts"
import { canonicalJson, canonicalMembers } from "../../registry/seed.ts"

/**
 * The model APIs simnet speaks out of the box, as the model's log names them. Each is a wire in
 * `models/apis.ts` (`test/llm.apis.test.ts` holds this list to that table), which a network
 * can add to (`NetworkOptions.models`).
 */
export const LLM_APIS = [
  "openai.chat",
  "openai.responses",
  "openai.realtime",
  "openai.transcription",
  "openai.translation",
  "anthropic.messages",
  "gemini",
  "gemini.live",
  "bedrock.converse",
  "bedrock.invoke",
  "vertex.gemini",
  "vertex.anthropic",
  "azure-openai.chat",
  "azure-openai.responses",
  "openrouter.chat",
  "ollama.chat",
  "ollama.generate",
  "cohere.chat",
  "a2a",
  "ag-ui"
] as const

/** The name of a model API: one of `LLM_APIS`, or one a network was given (`NetworkOptions.models`). */
export type LlmApi = (typeof LLM_APIS)[number] | (string & {})

/**
 * One turn of a conversation, read from any API: a system prompt, a user message, a model
 * message (its text and the tools it called) or tool results. A user message that only carries
 * tool results (Anthropic `tool_result` blocks, Gemini `functionResponse` parts) is a `tool` turn.
 */
export interface LlmTurn {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly text: string
  readonly calls?: ReadonlyArray<{ readonly name: string; readonly arguments: string }> | undefined
}

/**
 * A model request as rules and logs see it.
 */
export interface LlmRequest {
  /** The API the request came through. */
  readonly api: LlmApi
  /** The URL the request was sent to. */
  readonly url: string
  /** The body exactly as parsed from JSON, deeply frozen. */
  readonly raw: unknown
  readonly model: string
  readonly stream: boolean
  /** Whether the usage chunk is asked for (`stream_options.include_usage`; chat completions only). */
  readonly includeUsage: boolean
  /** The conversation in the API-agnostic form. */
  readonly messages: ReadonlyArray<LlmTurn>
  /** The names of the tools offered to the model. */
  readonly tools: ReadonlyArray<string>
  /** Groups of tool results since the last user message: step N of a script answers N. */
  readonly toolResultRounds: number
  /** The text of the last user message, if there is one. */
  readonly lastUserMessage: string | undefined
  /** The request material: every message's text (and tool calls' names and arguments), one per line. */
  readonly material: string
  /** The logical request key (see `requestKeyOf`). */
  readonly key: string
  /** The size of the request body in bytes, as the model's log counts it against its byte bound. */
  readonly bodySize: number
  /**
   * What a structured-output call asks the answer to be: JSON (`schema` undefined: JSON mode), or
   * JSON following `schema` (the JSON Schema the request gives). Undefined for a free-text call.
   */
  readonly structured: Structured | undefined
}

/** A structured-output request: JSON, following `schema` when one is given. */
export interface Structured {
  readonly schema: unknown
}

/**
 * The sampling and content fields of a chat completions body that make up its key.
 */
export const CHAT_KEY_FIELDS: ReadonlyArray<string> = [
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
]

/**
 * The logical key of a request body (`llm_` and 16 hex digits: 64 bits of a SHA-256): a digest of
 * the named `fields` (default: those of a chat completions body) with object keys in canonical
 * order, and of `extra` (such as a model named in the URL). Transport choices (`stream`, `stream_options`, `user`, `metadata`) are left out, so
 * the streamed and the non-streamed form of one question share a key.
 */
export const requestKeyOf = (
  body: unknown,
  fields: ReadonlyArray<string> = CHAT_KEY_FIELDS,
  extra?: Readonly<Record<string, unknown>>
): string => {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  if (extra === undefined) {
    // The body's own members under the fields, in canonical order: no copy of them is made.
    const sorted = sortedFields(fields)
    return `llm_${sha256Hex(canonicalMembers(record, sorted.keys, sorted.members)).slice(0, 16)}`
  }
  const material: Record<string, unknown> = { ...extra }
  for (const field of fields) if (record[field] !== undefined) material[field] = record[field]
  return `llm_${sha256Hex(canonicalJson(material)).slice(0, 16)}`
}

/** Each list of key fields (the APIs' constants), sorted once with its members' `"key":`. */
const sortedLists = new WeakMap<
  ReadonlyArray<string>,
  { readonly keys: ReadonlyArray<string>; readonly members: ReadonlyArray<string> }
>()

const sortedFields = (fields: ReadonlyArray<string>) => {
  let sorted = sortedLists.get(fields)
  if (sorted === undefined) {
    const keys = [...new Set(fields)].sort()
    sorted = { keys, members: keys.map((key) => `${JSON.stringify(key)}:`) }
    sortedLists.set(fields, sorted)
  }
  return sorted
}

/**
 * Freezes a parsed JSON value and everything in it, so that what a log entry, a rule or a driver
 * was handed cannot change what a later reader sees. Iterative (a deep body cannot overflow the
 * stack); returns the value.
 */
export const deepFreeze = <A>(value: A): A => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue
    Object.freeze(next)
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) stack.push(next[i])
      continue
    }
    // `for…in` walks the object's enumeration cache where `Object.keys` makes an array each time.
    for (const key in next) if (Object.hasOwn(next, key)) stack.push((next as Record<string, unknown>)[key])
  }
  return value
}

const countRounds = (turns: ReadonlyArray<LlmTurn>, from: number): number => {
  let rounds = 0
  let inRun = false
  for (let i = from; i < turns.length; i++) {
    const isTool = turns[i].role === "tool"
    if (isTool && !inRun) rounds++
    inRun = isTool
  }
  return rounds
}

/**
 * What a model route knows about a request once it has read its own format.
 */
export interface ConversationInput {
  readonly api: LlmApi
  readonly url: string
  readonly raw: unknown
  readonly model: string
  readonly stream: boolean
  readonly includeUsage?: boolean | undefined
  readonly turns: ReadonlyArray<LlmTurn>
  readonly tools: ReadonlyArray<string>
  readonly key: string
  /** The body's size in bytes (0 when unknown). */
  readonly bodySize?: number | undefined
  /** What a structured-output call asks for (see `LlmRequest.structured`). */
  readonly structured?: Structured | undefined
}

/**
 * The request the provider serves: rounds counted after the last user turn, the material joined,
 * the raw body frozen. `bodySize` is the body's size in bytes (default: the input's); `url` the
 * URL as it is kept and shown (a model route gives it redacted: the log, snapshots and drivers
 * see no credential query parameter).
 */
export const readConversation = (
  input: ConversationInput,
  bodySize: number = input.bodySize ?? 0,
  url: string = input.url
): LlmRequest => {
  const turns = input.turns
  let lastUser = -1
  for (let i = turns.length - 1; i >= 0; i--) {
    if (turns[i].role === "user") {
      lastUser = i
      break
    }
  }
  const lines: Array<string> = []
  for (const turn of turns) {
    if (turn.text.length > 0) lines.push(turn.text)
    for (const call of turn.calls ?? []) lines.push(`${call.name} ${call.arguments}`)
  }
  return {
    api: input.api,
    url,
    raw: deepFreeze(input.raw),
    model: input.model,
    stream: input.stream,
    includeUsage: input.includeUsage === true,
    messages: turns,
    tools: input.tools,
    toolResultRounds: countRounds(turns, lastUser + 1),
    lastUserMessage: lastUser === -1 ? undefined : turns[lastUser].text,
    material: lines.join("\n"),
    key: input.key,
    bodySize,
    structured: input.structured
  }
}

/**
 * The text of a tool's output or a content value of any API: a string as is, anything else as
 * JSON.
 */
export const textOf = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value)

/**
 * A one-line summary of a request for error messages: model, last user message, tool results.
 */
export const summarize = (request: LlmRequest): string => {
  const last = request.lastUserMessage
  const quoted = last === undefined ? "none" : JSON.stringify(last.length > 120 ? `${last.slice(0, 117)}...` : last)
  return `model=${request.model}; last user message: ${quoted}; tool-result rounds: ${request.toolResultRounds}`
}
