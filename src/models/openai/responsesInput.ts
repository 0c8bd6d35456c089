/**
 * The Responses API's request as the simulated model reads it: its input items as turns (function
 * and custom tool calls and their outputs included) and the tools it offers, `additional_tools`
 * items (Codex's way, in `namespace` groups) included.
 */
import type { LlmTurn } from "../provider/conversation.ts"
import { textOf } from "../provider/conversation.ts"
import type { InputItem, ResponsesRequest } from "./responsesSchema.ts"

const inputText = (content: InputItem["content"]): string =>
  content === undefined ? "" : typeof content === "string" ? content : content.map((part) => part.text ?? "").join("")

export const inputTurns = (
  input: ResponsesRequest["input"],
  instructions: string | null | undefined
): Array<LlmTurn> => {
  const turns: Array<LlmTurn> = []
  if (typeof instructions === "string") turns.push({ role: "system", text: instructions })
  if (input === undefined) return turns
  if (typeof input === "string") {
    turns.push({ role: "user", text: input })
    return turns
  }
  for (const item of input) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
      turns.push({ role: "tool", text: textOf(item.output) })
    else if (item.type === "function_call" || item.type === "custom_tool_call") {
      turns.push({
        role: "assistant",
        text: "",
        calls: [{ name: item.name ?? "", arguments: item.arguments ?? item.input ?? "" }]
      })
    } else if ((item.type === undefined || item.type === "message") && item.role !== undefined) {
      const text = inputText(item.content)
      if (item.role === "user") turns.push({ role: "user", text })
      else if (item.role === "assistant") turns.push({ role: "assistant", text })
      else turns.push({ role: "system", text })
    }
  }
  return turns
}

/**
 * The names of the tools a request offers: its `tools`, and those of its `additional_tools` input
 * items (Codex's way), `namespace` groups opened, at most `MAX_TOOL_DEPTH` deep.
 */
const toolNames = (tools: ReadonlyArray<unknown>, depth = 0): Array<string> =>
  depth > MAX_TOOL_DEPTH
    ? []
    : tools.flatMap((tool) => {
        if (typeof tool !== "object" || tool === null) return []
        const { name, tools: inner } = tool as { name?: unknown; tools?: unknown }
        if (Array.isArray(inner)) return toolNames(inner, depth + 1)
        return typeof name === "string" ? [name] : []
      })
const MAX_TOOL_DEPTH = 4

export const offeredTools = (body: ResponsesRequest): Array<string> => [
  ...toolNames(body.tools ?? []),
  ...(typeof body.input === "string" || body.input === undefined
    ? []
    : body.input.flatMap((item) =>
        item.type === "additional_tools" && Array.isArray(item.tools) ? toolNames(item.tools) : []
      ))
]
