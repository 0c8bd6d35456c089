/**
 * Bedrock's answers read back (record mode): Converse's, and InvokeModel's in its model's own
 * body (Claude's, Nova's or Llama's), whole or as decoded stream events.
 */
import { parseJson } from "../../registry/util.ts"
import { anthropicReadBack } from "../anthropic/anthropicReadBack.ts"
import { jsonLines, type ReadBack, type ReadBackAction } from "../wire/readBack.ts"
import { dataFrame } from "../wire/sse.ts"

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
  if (lines.some((line) => typeof line.type === "string")) return anthropicReadBack(lines.map(dataFrame).join(""), true)
  if (lines.some((line) => typeof line.generation === "string")) {
    const content = lines.map((line) => String(line.generation ?? "")).join("")
    const last = lines.at(-1)
    return { actions: content === "" ? [] : [{ type: "text", content }], finish: last?.stop_reason === "length" ? "length" : "stop", usage: { inputTokens: last?.prompt_token_count ?? 0, outputTokens: last?.generation_token_count ?? 0, totalTokens: (last?.prompt_token_count ?? 0) + (last?.generation_token_count ?? 0) } }
  }
  return converseReadBack(text, true)
}
