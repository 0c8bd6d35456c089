/**
 * Reading a model's answer back (record mode): what an answer of each API said — its text,
 * thinking and tool calls, its finish and its usage — from the bytes a real provider sent,
 * whole or streamed. Each API's wire names its reader (`ModelWire.readBack`).
 */
import type { TokenUsage } from "../provider/parts.ts"
import { parseJson } from "../../registry/util.ts"

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


/** The JSON objects of an NDJSON body (Ollama's streams; Bedrock's decoded event streams). */
export const jsonLines = (text: string): Array<Record<string, any>> =>
  text.split(/\r?\n/).map((line) => parseJson(line.trim())).filter((v): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v))

const CONVERSE_FINISH: Readonly<Record<string, string>> = { end_turn: "stop", tool_use: "tool-calls", max_tokens: "length", stop_sequence: "stop" }

/** Bedrock's Converse answer (and Nova's), whole or as decoded stream events (`{ "contentBlockDelta": … }` a line). */
export const converseReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text) as Record<string, any> | undefined
    const content = body?.output?.message?.content
    if (!Array.isArray(content)) return undefined
    const actions = content.flatMap((block: Record<string, any>): Array<ReadBackAction> =>
      typeof block.text === "string"
        ? [{ type: "text", content: block.text }]
        : block.reasoningContent?.reasoningText !== undefined
        ? [{ type: "thinking", content: String(block.reasoningContent.reasoningText.text ?? "") }]
        : block.toolUse !== undefined
        ? [{ type: "tool_call", name: String(block.toolUse.name ?? ""), input: block.toolUse.input ?? {} }]
        : []
    )
    const usage = body?.usage
    return { actions, finish: CONVERSE_FINISH[body?.stopReason ?? ""], usage: usage === undefined ? undefined : { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, totalTokens: usage.totalTokens ?? 0 } }
  }
  const blocks = new Map<number, { kind: "text" | "thinking" | "tool"; text: string; name: string }>()
  let finish: string | undefined
  let usage: ReadBack["usage"]
  let seen = false
  for (const event of jsonLines(text)) {
    if (event.messageStart !== undefined) seen = true
    const start = event.contentBlockStart
    if (start?.start?.toolUse !== undefined) blocks.set(start.contentBlockIndex ?? 0, { kind: "tool", text: "", name: String(start.start.toolUse.name ?? "") })
    const delta = event.contentBlockDelta
    if (delta !== undefined) {
      const index = delta.contentBlockIndex ?? 0
      const kind = delta.delta?.toolUse !== undefined ? "tool" : delta.delta?.reasoningContent !== undefined ? "thinking" : "text"
      const block = blocks.get(index) ?? { kind, text: "", name: "" }
      block.text += delta.delta?.toolUse?.input ?? delta.delta?.reasoningContent?.text ?? delta.delta?.text ?? ""
      blocks.set(index, block)
    }
    if (event.messageStop !== undefined) finish = CONVERSE_FINISH[event.messageStop.stopReason ?? ""]
    const u = event.metadata?.usage
    if (u !== undefined) usage = { inputTokens: u.inputTokens ?? 0, outputTokens: u.outputTokens ?? 0, totalTokens: u.totalTokens ?? 0 }
  }
  if (!seen) return undefined
  const actions = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]): ReadBackAction =>
    block.kind === "tool" ? { type: "tool_call", name: block.name, input: parseJson(block.text) ?? {} } : { type: block.kind, content: block.text }
  )
  return { actions, finish, usage }
}

/** Bedrock's InvokeModel answer in its model's own body: Claude's, Nova's or Llama's. */
export const invokeReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text) as Record<string, any> | undefined
    if (typeof body?.generation === "string") {
      return { actions: body.generation === "" ? [] : [{ type: "text", content: body.generation }], finish: body.stop_reason === "length" ? "length" : "stop", usage: { inputTokens: body.prompt_token_count ?? 0, outputTokens: body.generation_token_count ?? 0, totalTokens: (body.prompt_token_count ?? 0) + (body.generation_token_count ?? 0) } }
    }
    return anthropicReadBack(text, false) ?? converseReadBack(text, false)
  }
  const lines = jsonLines(text)
  if (lines.some((line) => typeof line.type === "string")) return anthropicReadBack(lines.map((line) => `data: ${JSON.stringify(line)}\n\n`).join(""), true)
  if (lines.some((line) => typeof line.generation === "string")) {
    const content = lines.map((line) => String(line.generation ?? "")).join("")
    const last = lines.at(-1)
    return { actions: content === "" ? [] : [{ type: "text", content }], finish: last?.stop_reason === "length" ? "length" : "stop", usage: { inputTokens: last?.prompt_token_count ?? 0, outputTokens: last?.generation_token_count ?? 0, totalTokens: (last?.prompt_token_count ?? 0) + (last?.generation_token_count ?? 0) } }
  }
  return converseReadBack(text, true)
}

/** Ollama's `/api/chat` and `/api/generate` answers, whole or NDJSON. */
export const ollamaReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const lines = streamed ? jsonLines(text) : [parseJson(text) as Record<string, any> | undefined].filter((v): v is Record<string, any> => v !== undefined)
  if (!lines.some((line) => line.message !== undefined || typeof line.response === "string")) return undefined
  let content = ""
  let thinking = ""
  const calls: Array<ReadBackAction> = []
  for (const line of lines) {
    content += line.message?.content ?? line.response ?? ""
    thinking += line.message?.thinking ?? line.thinking ?? ""
    for (const call of line.message?.tool_calls ?? []) calls.push({ type: "tool_call", name: String(call.function?.name ?? ""), input: call.function?.arguments ?? {} })
  }
  const last = lines.at(-1)
  const actions: Array<ReadBackAction> = [
    ...(thinking === "" ? [] : [{ type: "thinking" as const, content: thinking }]),
    ...(content === "" ? [] : [{ type: "text" as const, content }]),
    ...calls
  ]
  const input = last?.prompt_eval_count ?? 0
  const output = last?.eval_count ?? 0
  return { actions, finish: calls.length > 0 ? "tool-calls" : last?.done_reason === "length" ? "length" : "stop", usage: { inputTokens: input, outputTokens: output, totalTokens: input + output } }
}

const COHERE_FINISH: Readonly<Record<string, string>> = { COMPLETE: "stop", TOOL_CALL: "tool-calls", MAX_TOKENS: "length", STOP_SEQUENCE: "stop" }

/** Cohere's v2 chat answer, whole or as its stream events. */
export const cohereReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const usageOf = (usage: Record<string, any> | undefined) => {
    const tokens = usage?.tokens ?? usage?.billed_units
    return tokens === undefined ? undefined : { inputTokens: tokens.input_tokens ?? 0, outputTokens: tokens.output_tokens ?? 0, totalTokens: (tokens.input_tokens ?? 0) + (tokens.output_tokens ?? 0) }
  }
  if (!streamed) {
    const body = parseJson(text) as Record<string, any> | undefined
    const message = body?.message
    if (message === undefined) return undefined
    const actions: Array<ReadBackAction> = []
    for (const part of message.content ?? []) {
      if (part?.type === "thinking") actions.push({ type: "thinking", content: String(part.thinking ?? "") })
      if (part?.type === "text") actions.push({ type: "text", content: String(part.text ?? "") })
    }
    for (const call of message.tool_calls ?? []) actions.push({ type: "tool_call", name: String(call.function?.name ?? ""), input: parseJson(call.function?.arguments ?? "{}") ?? {} })
    return { actions, finish: COHERE_FINISH[body?.finish_reason ?? ""], usage: usageOf(body?.usage) }
  }
  const contents = new Map<number, { kind: "text" | "thinking"; text: string }>()
  const calls = new Map<number, { name: string; args: string }>()
  let finish: string | undefined
  let usage: ReadBack["usage"]
  for (const event of eventData(text)) {
    const message = event.delta?.message
    if (event.type === "content-start") contents.set(event.index ?? 0, { kind: message?.content?.type === "thinking" ? "thinking" : "text", text: "" })
    if (event.type === "content-delta") {
      const found = contents.get(event.index ?? 0)
      if (found !== undefined) found.text += message?.content?.text ?? message?.content?.thinking ?? ""
    }
    if (event.type === "tool-call-start") calls.set(event.index ?? 0, { name: String(message?.tool_calls?.function?.name ?? ""), args: String(message?.tool_calls?.function?.arguments ?? "") })
    if (event.type === "tool-call-delta") {
      const found = calls.get(event.index ?? 0)
      if (found !== undefined) found.args += message?.tool_calls?.function?.arguments ?? ""
    }
    if (event.type === "message-end") {
      finish = COHERE_FINISH[event.delta?.finish_reason ?? ""]
      usage = usageOf(event.delta?.usage)
    }
  }
  if (contents.size === 0 && calls.size === 0) return undefined
  const actions: Array<ReadBackAction> = [
    ...[...contents.entries()].sort(([a], [b]) => a - b).map(([, c]): ReadBackAction => ({ type: c.kind, content: c.text })),
    ...[...calls.entries()].sort(([a], [b]) => a - b).map(([, c]): ReadBackAction => ({ type: "tool_call", name: c.name, input: parseJson(c.args) ?? {} }))
  ]
  return { actions, finish, usage }
}
