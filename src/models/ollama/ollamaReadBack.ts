/**
 * Ollama's answers read back (record mode).
 */
import { parseJson } from "../../registry/util.ts"
import { jsonLines, type ReadBack, type ReadBackAction } from "../wire/readBack.ts"

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
