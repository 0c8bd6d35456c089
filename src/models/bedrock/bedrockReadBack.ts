/**
 * Bedrock's answers read back (record mode): Converse's, and InvokeModel's in its model's own
 * body (Claude's, Nova's or Llama's), whole or as decoded stream events.
 */
import { parseJson } from "../../registry/util.ts"
import { anthropicReadBack } from "../anthropic/anthropicReadBack.ts"
import { at, countAt, jsonLines, type ReadBack, type ReadBackAction, textAt } from "../wire/readBack.ts"
import { dataFrame } from "../wire/sse.ts"

const CONVERSE_FINISH: Readonly<Record<string, string>> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  stop_sequence: "stop"
}

/** Bedrock's Converse answer (and Nova's), whole or as decoded stream events (`{ "contentBlockDelta": … }` a line). */
export const converseReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text)
    const content = at(body, "output", "message", "content")
    if (!Array.isArray(content)) return undefined
    const actions = content.flatMap(
      (block: unknown): Array<ReadBackAction> =>
        typeof at(block, "text") === "string"
          ? [{ type: "text", content: textAt(block, "text") }]
          : at(block, "reasoningContent", "reasoningText") !== undefined
            ? [{ type: "thinking", content: textAt(block, "reasoningContent", "reasoningText", "text") }]
            : at(block, "toolUse") !== undefined
              ? [
                  {
                    type: "tool_call",
                    name: textAt(block, "toolUse", "name"),
                    input: at(block, "toolUse", "input") ?? {}
                  }
                ]
              : []
    )
    const usage = at(body, "usage")
    return {
      actions,
      finish: CONVERSE_FINISH[textAt(body, "stopReason")],
      usage:
        usage === undefined
          ? undefined
          : {
              inputTokens: countAt(usage, "inputTokens") ?? 0,
              outputTokens: countAt(usage, "outputTokens") ?? 0,
              totalTokens: countAt(usage, "totalTokens") ?? 0
            }
    }
  }
  const blocks = new Map<number, { kind: "text" | "thinking" | "tool"; text: string; name: string }>()
  let finish: string | undefined
  let usage: ReadBack["usage"]
  let seen = false
  for (const event of jsonLines(text)) {
    if (event.messageStart !== undefined) seen = true
    const start = event.contentBlockStart
    if (at(start, "start", "toolUse") !== undefined)
      blocks.set(countAt(start, "contentBlockIndex") ?? 0, {
        kind: "tool",
        text: "",
        name: textAt(start, "start", "toolUse", "name")
      })
    const delta = at(event.contentBlockDelta, "delta")
    if (event.contentBlockDelta !== undefined) {
      const index = countAt(event.contentBlockDelta, "contentBlockIndex") ?? 0
      const kind =
        at(delta, "toolUse") !== undefined ? "tool" : at(delta, "reasoningContent") !== undefined ? "thinking" : "text"
      const block = blocks.get(index) ?? { kind, text: "", name: "" }
      block.text +=
        textAt(delta, "toolUse", "input") || textAt(delta, "reasoningContent", "text") || textAt(delta, "text")
      blocks.set(index, block)
    }
    if (event.messageStop !== undefined) finish = CONVERSE_FINISH[textAt(event.messageStop, "stopReason")]
    const u = at(event.metadata, "usage")
    if (u !== undefined)
      usage = {
        inputTokens: countAt(u, "inputTokens") ?? 0,
        outputTokens: countAt(u, "outputTokens") ?? 0,
        totalTokens: countAt(u, "totalTokens") ?? 0
      }
  }
  if (!seen) return undefined
  const actions = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([, block]): ReadBackAction =>
        block.kind === "tool"
          ? { type: "tool_call", name: block.name, input: parseJson(block.text) ?? {} }
          : { type: block.kind, content: block.text }
    )
  return { actions, finish, usage }
}

/** Bedrock's InvokeModel answer in its model's own body: Claude's, Nova's or Llama's. */
export const invokeReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  if (!streamed) {
    const body = parseJson(text)
    const generation = at(body, "generation")
    if (typeof generation === "string") {
      const input = countAt(body, "prompt_token_count") ?? 0
      const output = countAt(body, "generation_token_count") ?? 0
      return {
        actions: generation === "" ? [] : [{ type: "text", content: generation }],
        finish: at(body, "stop_reason") === "length" ? "length" : "stop",
        usage: { inputTokens: input, outputTokens: output, totalTokens: input + output }
      }
    }
    return anthropicReadBack(text, false) ?? converseReadBack(text, false)
  }
  const lines = jsonLines(text)
  if (lines.some((line) => typeof line.type === "string")) return anthropicReadBack(lines.map(dataFrame).join(""), true)
  if (lines.some((line) => typeof line.generation === "string")) {
    const content = lines.map((line) => textAt(line, "generation")).join("")
    const last = lines.at(-1)
    const input = countAt(last, "prompt_token_count") ?? 0
    const output = countAt(last, "generation_token_count") ?? 0
    return {
      actions: content === "" ? [] : [{ type: "text", content }],
      finish: at(last, "stop_reason") === "length" ? "length" : "stop",
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output }
    }
  }
  return converseReadBack(text, true)
}
