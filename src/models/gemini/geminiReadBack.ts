/**
 * Gemini's `generateContent` answers read back (record mode), whole or streamed.
 */
import { parseJson } from "../../registry/util.ts"
import { at, countAt, eventData, listAt, type ReadBack, type ReadBackAction, textAt } from "../wire/readBack.ts"

const GEMINI_FINISH: Readonly<Record<string, string>> = { STOP: "stop", MAX_TOKENS: "length" }

/** A `GenerateContentResponse`, or the chunks of its stream. */
export const geminiReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const chunks: ReadonlyArray<unknown> = streamed ? eventData(text) : [parseJson(text)].filter((c) => c !== undefined)
  if (chunks.length === 0) return undefined
  let content = ""
  let thought = ""
  const calls: Array<ReadBackAction> = []
  let finish: string | undefined
  let usage: ReadBack["usage"]
  for (const chunk of chunks) {
    const candidate = at(chunk, "candidates", 0)
    for (const part of listAt(candidate, "content", "parts")) {
      const said = at(part, "text")
      if (typeof said === "string") {
        if (at(part, "thought") === true) thought += said
        else content += said
      }
      if (at(part, "functionCall") !== undefined)
        calls.push({
          type: "tool_call",
          name: textAt(part, "functionCall", "name"),
          input: at(part, "functionCall", "args") ?? {}
        })
    }
    const reason = at(candidate, "finishReason")
    if (typeof reason === "string") finish = GEMINI_FINISH[reason]
    const u = at(chunk, "usageMetadata")
    if (u !== undefined)
      usage = {
        inputTokens: countAt(u, "promptTokenCount") ?? 0,
        outputTokens: countAt(u, "candidatesTokenCount") ?? 0,
        totalTokens: countAt(u, "totalTokenCount") ?? 0
      }
  }
  const actions: Array<ReadBackAction> = [
    ...(thought === "" ? [] : [{ type: "thinking" as const, content: thought }]),
    ...(content === "" ? [] : [{ type: "text" as const, content }]),
    ...calls
  ]
  return { actions, finish: calls.length > 0 ? "tool-calls" : finish, usage }
}
