/**
 * Recording model calls: an OpenAI Chat Completions or Responses, Anthropic Messages or Gemini
 * call that record mode forwarded (streamed or not) is read back into an `llm` rule — matched by the request's last
 * user message and whether it carries tool results, answered by a script of the text, thinking
 * and tool calls that came back, with the finish reason, usage and (for a stream) its pace. A
 * script replays through every API simnet speaks, so a call recorded through one replays through
 * all. Embeddings and other model APIs are recorded as plain HTTP (routes).
 */
import { Result } from "effect"
import { readConversation } from "../provider/conversation.ts"
import { makeSimRequest } from "../registry/request.ts"
import type { LlmApi } from "../provider/conversation.ts"
import { MODEL_APIS, modelApiOf } from "../routes/model/apis.ts"
import { parseJson } from "../registry/util.ts"
import { eventData } from "./recorded.ts"

export { modelApiOf }

/** The family a fixture registers to answer recorded calls of `api` at `origin` (its base URL when not the API's default). */
export const familyFor = (api: LlmApi, origin: string): Record<string, unknown> => {
  const wire = MODEL_APIS[api]
  const baseUrl = wire.baseUrlAt(origin)
  return { family: wire.name, ...(baseUrl === undefined ? {} : { baseUrl }) }
}

type Action = { readonly type: "text" | "thinking"; readonly content: string } | { readonly type: "tool_call"; readonly name: string; readonly input: unknown }

/** What a model answered, read back from its body. */
interface Answer {
  readonly actions: ReadonlyArray<Action>
  readonly finish: string | undefined
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly totalTokens: number } | undefined
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : "")).join("")
    : ""


/**
 * The rule's match: the last user message, and whether tool results follow it, as the model
 * routes read the request when it is replayed (their own reading, so the rule matches then).
 * Undefined when the body is not a request of its API or has no user message.
 */
const matchOf = (api: LlmApi, url: string, requestBody: string): Record<string, unknown> | undefined => {
  const request = makeSimRequest({ method: "POST", url, headers: { "content-type": "application/json" }, body: requestBody })
  const read = MODEL_APIS[api].read(request, request.json())
  if (Result.isFailure(read)) return undefined
  const conversation = readConversation(read.success)
  return conversation.lastUserMessage === undefined ? undefined : { lastUserMessage: conversation.lastUserMessage, toolResult: conversation.toolResultRounds > 0 }
}

const OPENAI_FINISH: Readonly<Record<string, string>> = { stop: "stop", tool_calls: "tool-calls", length: "length", content_filter: "stop" }
const ANTHROPIC_FINISH: Readonly<Record<string, string>> = { end_turn: "stop", tool_use: "tool-calls", max_tokens: "length", stop_sequence: "stop" }

const openaiAnswer = (text: string, streamed: boolean): Answer | undefined => {
  if (!streamed) {
    const body = parseJson(text) as { choices?: Array<{ message?: { content?: unknown; tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> }; finish_reason?: string }>; usage?: Record<string, number> } | undefined
    const choice = body?.choices?.[0]
    if (choice === undefined) return undefined
    const actions: Array<Action> = []
    const content = textOf(choice.message?.content)
    if (content !== "") actions.push({ type: "text", content })
    for (const call of choice.message?.tool_calls ?? []) actions.push({ type: "tool_call", name: String(call.function?.name ?? ""), input: parseJson(call.function?.arguments ?? "{}") ?? {} })
    const usage = body?.usage
    return {
      actions,
      finish: OPENAI_FINISH[choice.finish_reason ?? ""],
      usage: usage === undefined ? undefined : { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0, totalTokens: usage.total_tokens ?? 0 }
    }
  }
  let content = ""
  let finish: string | undefined
  let usage: Answer["usage"]
  const calls = new Map<number, { name: string; args: string }>()
  for (const event of eventData(text)) {
    const choice = event.choices?.[0]
    if (typeof choice?.delta?.content === "string") content += choice.delta.content
    for (const call of choice?.delta?.tool_calls ?? []) {
      const found = calls.get(call.index ?? 0) ?? { name: "", args: "" }
      if (typeof call.function?.name === "string") found.name += call.function.name
      if (typeof call.function?.arguments === "string") found.args += call.function.arguments
      calls.set(call.index ?? 0, found)
    }
    if (typeof choice?.finish_reason === "string") finish = OPENAI_FINISH[choice.finish_reason]
    if (event.usage) usage = { inputTokens: event.usage.prompt_tokens ?? 0, outputTokens: event.usage.completion_tokens ?? 0, totalTokens: event.usage.total_tokens ?? 0 }
  }
  const actions: Array<Action> = content === "" ? [] : [{ type: "text", content }]
  for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) actions.push({ type: "tool_call", name: call.name, input: parseJson(call.args) ?? {} })
  return { actions, finish, usage }
}

const anthropicAnswer = (text: string, streamed: boolean): Answer | undefined => {
  const fromBlocks = (blocks: ReadonlyArray<Record<string, any>>): Array<Action> =>
    blocks.flatMap((block): Array<Action> =>
      block.type === "text"
        ? [{ type: "text", content: String(block.text ?? "") }]
        : block.type === "thinking"
        ? [{ type: "thinking", content: String(block.thinking ?? "") }]
        : block.type === "tool_use"
        ? [{ type: "tool_call", name: String(block.name ?? ""), input: block.input ?? {} }]
        : []
    )
  if (!streamed) {
    const body = parseJson(text) as { content?: Array<Record<string, any>>; stop_reason?: string; usage?: Record<string, number> } | undefined
    if (!Array.isArray(body?.content)) return undefined
    const usage = body.usage
    return {
      actions: fromBlocks(body.content),
      finish: ANTHROPIC_FINISH[body.stop_reason ?? ""],
      usage: usage === undefined ? undefined : { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0, totalTokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) }
    }
  }
  const blocks = new Map<number, Record<string, any>>()
  let finish: string | undefined
  let input = 0
  let output = 0
  for (const event of eventData(text)) {
    if (event.type === "message_start") input = event.message?.usage?.input_tokens ?? 0
    if (event.type === "content_block_start") blocks.set(event.index, { ...event.content_block, partial: "" })
    if (event.type === "content_block_delta") {
      const block = blocks.get(event.index)
      if (block === undefined) continue
      if (event.delta?.type === "text_delta") block.text = `${block.text ?? ""}${event.delta.text}`
      if (event.delta?.type === "thinking_delta") block.thinking = `${block.thinking ?? ""}${event.delta.thinking}`
      if (event.delta?.type === "input_json_delta") block.partial += event.delta.partial_json
    }
    if (event.type === "message_delta") {
      finish = ANTHROPIC_FINISH[event.delta?.stop_reason ?? ""]
      output = event.usage?.output_tokens ?? output
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) =>
    block.type === "tool_use" && block.partial !== "" ? { ...block, input: parseJson(block.partial) ?? {} } : block
  )
  return { actions: fromBlocks(ordered), finish, usage: { inputTokens: input, outputTokens: output, totalTokens: input + output } }
}

const responsesAnswer = (text: string, streamed: boolean): Answer | undefined => {
  const response = streamed
    ? eventData(text).find((event) => event.type === "response.completed")?.response
    : parseJson(text) as Record<string, any> | undefined
  const output = response?.output
  if (!Array.isArray(output)) return undefined
  const actions: Array<Action> = []
  for (const item of output) {
    if (item?.type === "reasoning") {
      const summary = Array.isArray(item.summary) ? item.summary.map((s: any) => s?.text ?? "").join("") : ""
      if (summary !== "") actions.push({ type: "thinking", content: summary })
    } else if (item?.type === "message") {
      const content = Array.isArray(item.content) ? item.content.map((c: any) => (c?.type === "output_text" ? c.text ?? "" : "")).join("") : ""
      if (content !== "") actions.push({ type: "text", content })
    } else if (item?.type === "function_call") {
      actions.push({ type: "tool_call", name: String(item.name ?? ""), input: parseJson(item.arguments ?? "{}") ?? {} })
    }
  }
  const usage = response?.usage
  const incomplete = response?.status === "incomplete"
  return {
    actions,
    finish: incomplete ? "length" : actions.some((a) => a.type === "tool_call") ? "tool-calls" : "stop",
    usage: usage === undefined ? undefined : { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0, totalTokens: usage.total_tokens ?? 0 }
  }
}

const GEMINI_FINISH: Readonly<Record<string, string>> = { STOP: "stop", MAX_TOKENS: "length" }

const geminiAnswer = (text: string, streamed: boolean): Answer | undefined => {
  const chunks = streamed ? eventData(text) : [parseJson(text) as Record<string, any> | undefined].filter((c): c is Record<string, any> => c !== undefined)
  if (chunks.length === 0) return undefined
  let content = ""
  let thought = ""
  const calls: Array<Action> = []
  let finish: string | undefined
  let usage: Answer["usage"]
  for (const chunk of chunks) {
    const candidate = chunk.candidates?.[0]
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part?.text === "string") {
        if (part.thought === true) thought += part.text
        else content += part.text
      }
      if (part?.functionCall !== undefined) calls.push({ type: "tool_call", name: String(part.functionCall.name ?? ""), input: part.functionCall.args ?? {} })
    }
    if (typeof candidate?.finishReason === "string") finish = GEMINI_FINISH[candidate.finishReason]
    const u = chunk.usageMetadata
    if (u !== undefined) usage = { inputTokens: u.promptTokenCount ?? 0, outputTokens: u.candidatesTokenCount ?? 0, totalTokens: u.totalTokenCount ?? 0 }
  }
  const actions: Array<Action> = [
    ...(thought === "" ? [] : [{ type: "thinking" as const, content: thought }]),
    ...(content === "" ? [] : [{ type: "text" as const, content }]),
    ...calls
  ]
  return { actions, finish: calls.length > 0 ? "tool-calls" : finish, usage }
}

/** How each API's answer is read back, by its name: a table typed by `LLM_APIS`, so a new API without a reader does not compile. */
const ANSWERS: { readonly [Api in LlmApi]: (text: string, streamed: boolean) => Answer | undefined } = {
  "openai.chat": openaiAnswer,
  "openai.responses": responsesAnswer,
  "anthropic.messages": anthropicAnswer,
  gemini: geminiAnswer
}

/**
 * A recorded call as an `llm` rule (without an id), or undefined when its body is not an answer
 * this module reads (an error, an unexpected shape): the call is then recorded as plain HTTP.
 */
export const ruleOf = (
  api: LlmApi,
  url: string,
  requestBody: string | undefined,
  status: number,
  contentType: string | undefined,
  body: string,
  timing: { readonly firstByteMs: number; readonly totalMs: number } | undefined
): Record<string, unknown> | undefined => {
  if (status !== 200 || requestBody === undefined) return undefined
  const match = matchOf(api, url, requestBody)
  if (match === undefined) return undefined
  const streamed = /event-stream/i.test(contentType ?? "")
  const answer = ANSWERS[api](body, streamed)
  if (answer === undefined || answer.actions.length === 0) return undefined
  const words = answer.actions.reduce((n, a) => n + (a.type === "tool_call" ? 1 : a.content.split(/\s+/).filter(Boolean).length), 0)
  const streaming = streamed && timing !== undefined ? timing.totalMs - timing.firstByteMs : 0
  const pace = streamed && timing !== undefined
    ? { ttftMs: Math.round(timing.firstByteMs), ...(streaming > 0 && words > 1 ? { tokensPerSecond: Math.round((words * 1000 / streaming) * 10) / 10 } : {}) }
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
