/**
 * Cohere's v2 chat answers read back (record mode).
 */
import { parseJson } from "../../registry/util.ts"
import { eventData, type ReadBack, type ReadBackAction } from "../wire/readBack.ts"

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
