/**
 * OpenAI's answers read back (record mode): a chat completion and a Responses API response, whole
 * or streamed.
 */
import { parseJson } from "../../registry/util.ts"
import { eventData, type ReadBack, type ReadBackAction, textOf } from "../wire/readBack.ts"

const OPENAI_FINISH: Readonly<Record<string, string>> = { stop: "stop", tool_calls: "tool-calls", length: "length", content_filter: "stop" }

/** A Chat Completions answer (`chat.completion`, or its `chat.completion.chunk` events). */
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

/** A Responses API answer (its `response`, or the `response.completed` event of its stream). */
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
