/**
 * Gemini's `generateContent` answers read back (record mode), whole or streamed.
 */
import { parseJson } from "../../registry/util.ts"
import { eventData, type ReadBack, type ReadBackAction } from "../wire/readBack.ts"

const GEMINI_FINISH: Readonly<Record<string, string>> = { STOP: "stop", MAX_TOKENS: "length" }

/** A `GenerateContentResponse`, or the chunks of its stream. */
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
