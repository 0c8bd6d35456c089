/**
 * Ollama's answers read back (record mode).
 */
import { parseJson } from "../../registry/util.ts"
import { at, countAt, jsonLines, listAt, type ReadBack, type ReadBackAction, textAt } from "../wire/readBack.ts"

/** Ollama's `/api/chat` and `/api/generate` answers, whole or NDJSON. */
export const ollamaReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const lines: ReadonlyArray<unknown> = streamed ? jsonLines(text) : [parseJson(text)].filter((v) => v !== undefined)
  if (!lines.some((line) => at(line, "message") !== undefined || typeof at(line, "response") === "string"))
    return undefined
  let content = ""
  let thinking = ""
  const calls: Array<ReadBackAction> = []
  for (const line of lines) {
    content +=
      at(line, "message", "content") !== undefined ? textAt(line, "message", "content") : textAt(line, "response")
    thinking +=
      at(line, "message", "thinking") !== undefined ? textAt(line, "message", "thinking") : textAt(line, "thinking")
    for (const call of listAt(line, "message", "tool_calls"))
      calls.push({
        type: "tool_call",
        name: textAt(call, "function", "name"),
        input: at(call, "function", "arguments") ?? {}
      })
  }
  const last = lines.at(-1)
  const actions: Array<ReadBackAction> = [
    ...(thinking === "" ? [] : [{ type: "thinking" as const, content: thinking }]),
    ...(content === "" ? [] : [{ type: "text" as const, content }]),
    ...calls
  ]
  const input = countAt(last, "prompt_eval_count") ?? 0
  const output = countAt(last, "eval_count") ?? 0
  return {
    actions,
    finish: calls.length > 0 ? "tool-calls" : at(last, "done_reason") === "length" ? "length" : "stop",
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output }
  }
}
