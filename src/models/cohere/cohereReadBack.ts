/**
 * Cohere's v2 chat answers read back (record mode).
 */
import { parseJson } from "../../registry/util.ts"
import { at, countAt, eventData, listAt, type ReadBack, type ReadBackAction, textAt } from "../wire/readBack.ts"

const COHERE_FINISH: Readonly<Record<string, string>> = {
  COMPLETE: "stop",
  TOOL_CALL: "tool-calls",
  MAX_TOKENS: "length",
  STOP_SEQUENCE: "stop"
}

/** Cohere's v2 chat answer, whole or as its stream events. */
export const cohereReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const usageOf = (usage: unknown) => {
    const tokens = at(usage, "tokens") ?? at(usage, "billed_units")
    if (tokens === undefined) return undefined
    const input = countAt(tokens, "input_tokens") ?? 0
    const output = countAt(tokens, "output_tokens") ?? 0
    return { inputTokens: input, outputTokens: output, totalTokens: input + output }
  }
  if (!streamed) {
    const body = parseJson(text)
    const message = at(body, "message")
    if (message === undefined) return undefined
    const actions: Array<ReadBackAction> = []
    for (const part of listAt(message, "content")) {
      if (at(part, "type") === "thinking") actions.push({ type: "thinking", content: textAt(part, "thinking") })
      if (at(part, "type") === "text") actions.push({ type: "text", content: textAt(part, "text") })
    }
    for (const call of listAt(message, "tool_calls"))
      actions.push({
        type: "tool_call",
        name: textAt(call, "function", "name"),
        input: parseJson(textAt(call, "function", "arguments") || "{}") ?? {}
      })
    return { actions, finish: COHERE_FINISH[textAt(body, "finish_reason")], usage: usageOf(at(body, "usage")) }
  }
  const contents = new Map<number, { kind: "text" | "thinking"; text: string }>()
  const calls = new Map<number, { name: string; args: string }>()
  let finish: string | undefined
  let usage: ReadBack["usage"]
  for (const event of eventData(text)) {
    const message = at(event, "delta", "message")
    const index = countAt(event, "index") ?? 0
    if (event.type === "content-start")
      contents.set(index, { kind: at(message, "content", "type") === "thinking" ? "thinking" : "text", text: "" })
    if (event.type === "content-delta") {
      const found = contents.get(index)
      if (found !== undefined)
        found.text +=
          at(message, "content", "text") !== undefined
            ? textAt(message, "content", "text")
            : textAt(message, "content", "thinking")
    }
    if (event.type === "tool-call-start")
      calls.set(index, {
        name: textAt(message, "tool_calls", "function", "name"),
        args: textAt(message, "tool_calls", "function", "arguments")
      })
    if (event.type === "tool-call-delta") {
      const found = calls.get(index)
      if (found !== undefined) found.args += textAt(message, "tool_calls", "function", "arguments")
    }
    if (event.type === "message-end") {
      finish = COHERE_FINISH[textAt(event, "delta", "finish_reason")]
      usage = usageOf(at(event, "delta", "usage"))
    }
  }
  if (contents.size === 0 && calls.size === 0) return undefined
  const actions: Array<ReadBackAction> = [
    ...[...contents.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]): ReadBackAction => ({ type: c.kind, content: c.text })),
    ...[...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]): ReadBackAction => ({ type: "tool_call", name: c.name, input: parseJson(c.args) ?? {} }))
  ]
  return { actions, finish, usage }
}
