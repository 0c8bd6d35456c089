/**
 * OpenAI's answers read back (record mode): a chat completion and a Responses API response, whole
 * or streamed.
 */
import { parseJson } from "../../registry/util.ts"
import { at, countAt, eventData, listAt, type ReadBack, type ReadBackAction, textAt, textOf } from "../wire/readBack.ts"

const OPENAI_FINISH: Readonly<Record<string, string>> = {
  stop: "stop",
  tool_calls: "tool-calls",
  length: "length",
  content_filter: "stop"
}

/** Chat Completions' `usage`, in the script's words (none when the answer gave none). */
const usageOf = (usage: unknown): ReadBack["usage"] =>
  usage === undefined
    ? undefined
    : {
        inputTokens: countAt(usage, "prompt_tokens") ?? 0,
        outputTokens: countAt(usage, "completion_tokens") ?? 0,
        totalTokens: countAt(usage, "total_tokens") ?? 0
      }

/** A Chat Completions answer (`chat.completion`, or its `chat.completion.chunk` events). */
export const openaiReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text)
    const choice = at(body, "choices", 0)
    if (choice === undefined) return undefined
    const actions: Array<ReadBackAction> = []
    const content = textOf(at(choice, "message", "content"))
    if (content !== "") actions.push({ type: "text", content })
    for (const call of listAt(choice, "message", "tool_calls"))
      actions.push({
        type: "tool_call",
        name: textAt(call, "function", "name"),
        input: parseJson(textAt(call, "function", "arguments") || "{}") ?? {}
      })
    return { actions, finish: OPENAI_FINISH[textAt(choice, "finish_reason")], usage: usageOf(at(body, "usage")) }
  }
  let content = ""
  let finish: string | undefined
  let usage: ReadBack["usage"]
  const calls = new Map<number, { name: string; args: string }>()
  for (const event of eventData(text)) {
    const choice = at(event, "choices", 0)
    const delta = at(choice, "delta", "content")
    if (typeof delta === "string") content += delta
    for (const call of listAt(choice, "delta", "tool_calls")) {
      const index = countAt(call, "index") ?? 0
      const found = calls.get(index) ?? { name: "", args: "" }
      const name = at(call, "function", "name")
      const args = at(call, "function", "arguments")
      if (typeof name === "string") found.name += name
      if (typeof args === "string") found.args += args
      calls.set(index, found)
    }
    const reason = at(choice, "finish_reason")
    if (typeof reason === "string") finish = OPENAI_FINISH[reason]
    if (event.usage) usage = usageOf(event.usage)
  }
  const actions: Array<ReadBackAction> = content === "" ? [] : [{ type: "text", content }]
  for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c))
    actions.push({ type: "tool_call", name: call.name, input: parseJson(call.args) ?? {} })
  return { actions, finish, usage }
}

/** A Responses API answer (its `response`, or the `response.completed` event of its stream). */
export const responsesReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const response = streamed
    ? eventData(text).find((event) => event.type === "response.completed")?.response
    : parseJson(text)
  const output = at(response, "output")
  if (!Array.isArray(output)) return undefined
  const actions: Array<ReadBackAction> = []
  for (const item of output) {
    const type = at(item, "type")
    if (type === "reasoning") {
      const summary = listAt(item, "summary")
        .map((s) => textAt(s, "text"))
        .join("")
      if (summary !== "") actions.push({ type: "thinking", content: summary })
    } else if (type === "message") {
      const content = listAt(item, "content")
        .map((c) => (at(c, "type") === "output_text" ? textAt(c, "text") : ""))
        .join("")
      if (content !== "") actions.push({ type: "text", content })
    } else if (type === "function_call") {
      actions.push({
        type: "tool_call",
        name: textAt(item, "name"),
        input: parseJson(textAt(item, "arguments") || "{}") ?? {}
      })
    } else if (type === "custom_tool_call") {
      // A custom tool's input is text: a tool_call whose input is a string replays as one.
      actions.push({ type: "tool_call", name: textAt(item, "name"), input: textAt(item, "input") })
    }
  }
  const usage = at(response, "usage")
  const incomplete = at(response, "status") === "incomplete"
  return {
    actions,
    finish: incomplete ? "length" : actions.some((a) => a.type === "tool_call") ? "tool-calls" : "stop",
    usage:
      usage === undefined
        ? undefined
        : {
            inputTokens: countAt(usage, "input_tokens") ?? 0,
            outputTokens: countAt(usage, "output_tokens") ?? 0,
            totalTokens: countAt(usage, "total_tokens") ?? 0
          }
  }
}
