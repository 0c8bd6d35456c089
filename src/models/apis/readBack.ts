/**
 * Reading a model's answer back (record mode): what an answer of each API said — its text,
 * thinking and tool calls, its finish and its usage — from the bytes a real provider sent,
 * whole or streamed. Each API's wire names its reader (`ModelWire.readBack`).
 */
import type { TokenUsage } from "../provider/parts.ts"
import { parseJson } from "../../core/util.ts"

/** The `data:` payloads of an event stream that are JSON objects (`[DONE]` and other text left out). */
export const eventData = (text: string): Array<Record<string, any>> =>
  text.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => parseJson(line.slice(5).trim())).filter((v): v is Record<string, any> => typeof v === "object" && v !== null)

/** One thing a model said: the script vocabulary's text, thinking and tool calls. */
export type ReadBackAction = { readonly type: "text" | "thinking"; readonly content: string } | { readonly type: "tool_call"; readonly name: string; readonly input: unknown }

/** What a model answered, read back from its body. */
export interface ReadBack {
  readonly actions: ReadonlyArray<ReadBackAction>
  readonly finish: string | undefined
  readonly usage: TokenUsage | undefined
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : "")).join("")
    : ""


const OPENAI_FINISH: Readonly<Record<string, string>> = { stop: "stop", tool_calls: "tool-calls", length: "length", content_filter: "stop" }
const ANTHROPIC_FINISH: Readonly<Record<string, string>> = { end_turn: "stop", tool_use: "tool-calls", max_tokens: "length", stop_sequence: "stop" }

export const openaiReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text) as { choices?: Array<{ message?: { content?: unknown; tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> }; finish_reason?: string }>; usage?: Record<string, number> } | undefined
    const choice = body?.choices?.[0]
    if (choice === undefined) return undefined
    const actions: Array<ReadBackAction> = []
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
  let usage: ReadBack["usage"]
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
  const actions: Array<ReadBackAction> = content === "" ? [] : [{ type: "text", content }]
  for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c)) actions.push({ type: "tool_call", name: call.name, input: parseJson(call.args) ?? {} })
  return { actions, finish, usage }
}

export const anthropicReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const fromBlocks = (blocks: ReadonlyArray<Record<string, any>>): Array<ReadBackAction> =>
    blocks.flatMap((block): Array<ReadBackAction> =>
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

export const responsesReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const response = streamed
    ? eventData(text).find((event) => event.type === "response.completed")?.response
    : parseJson(text) as Record<string, any> | undefined
  const output = response?.output
  if (!Array.isArray(output)) return undefined
  const actions: Array<ReadBackAction> = []
  for (const item of output) {
    if (item?.type === "reasoning") {
      const summary = Array.isArray(item.summary) ? item.summary.map((s: any) => s?.text ?? "").join("") : ""
      if (summary !== "") actions.push({ type: "thinking", content: summary })
    } else if (item?.type === "message") {
      const content = Array.isArray(item.content) ? item.content.map((c: any) => (c?.type === "output_text" ? c.text ?? "" : "")).join("") : ""
      if (content !== "") actions.push({ type: "text", content })
    } else if (item?.type === "function_call") {
      actions.push({ type: "tool_call", name: String(item.name ?? ""), input: parseJson(item.arguments ?? "{}") ?? {} })
    } else if (item?.type === "custom_tool_call") {
      // A custom tool's input is text: a tool_call whose input is a string replays as one.
      actions.push({ type: "tool_call", name: String(item.name ?? ""), input: String(item.input ?? "") })
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

export const geminiReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const chunks = streamed ? eventData(text) : [parseJson(text) as Record<string, any> | undefined].filter((c): c is Record<string, any> => c !== undefined)
  if (chunks.length === 0) return undefined
  let content = ""
  let thought = ""
  const calls: Array<ReadBackAction> = []
  let finish: string | undefined
  let usage: ReadBack["usage"]
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
  const actions: Array<ReadBackAction> = [
    ...(thought === "" ? [] : [{ type: "thinking" as const, content: thought }]),
    ...(content === "" ? [] : [{ type: "text" as const, content }]),
    ...calls
  ]
  return { actions, finish: calls.length > 0 ? "tool-calls" : finish, usage }
}

