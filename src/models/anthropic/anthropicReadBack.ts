/**
 * Anthropic's Messages answers read back (record mode), whole or streamed.
 */
import { parseJson } from "../../registry/util.ts"
import { eventData, type ReadBack, type ReadBackAction } from "../wire/readBack.ts"

const ANTHROPIC_FINISH: Readonly<Record<string, string>> = { end_turn: "stop", tool_use: "tool-calls", max_tokens: "length", stop_sequence: "stop" }

/** A Messages answer (`message`, or its stream of events). */
export const anthropicReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const fromBlocks = (blocks: ReadonlyArray<Record<string, any>>): Array<ReadBackAction> =>
    blocks.flatMap((block): Array<ReadBackAction> =>
      block.type === "text"
        ? [{ type: "text", content: String(block.text ?? "") }]
        : block.type === "thinking"
        ? [{ type: "thinking", content: String(block.thinking ?? "") }]
        : block.type === "tool_use"
        ? [{ type: "tool_call", name: String(block.name ?? ""), input: block.input ?? {} }]
        : []
    )
  if (!streamed) {
    const body = parseJson(text) as { content?: Array<Record<string, any>>; stop_reason?: string; usage?: Record<string, number> } | undefined
    if (!Array.isArray(body?.content)) return undefined
    const usage = body.usage
    return {
      actions: fromBlocks(body.content),
      finish: ANTHROPIC_FINISH[body.stop_reason ?? ""],
      usage: usage === undefined ? undefined : { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0, totalTokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) }
    }
  }
  const blocks = new Map<number, Record<string, any>>()
  let finish: string | undefined
  let input = 0
  let output = 0
  for (const event of eventData(text)) {
    if (event.type === "message_start") input = event.message?.usage?.input_tokens ?? 0
    if (event.type === "content_block_start") blocks.set(event.index, { ...event.content_block, partial: "" })
    if (event.type === "content_block_delta") {
      const block = blocks.get(event.index)
      if (block === undefined) continue
      if (event.delta?.type === "text_delta") block.text = `${block.text ?? ""}${event.delta.text}`
      if (event.delta?.type === "thinking_delta") block.thinking = `${block.thinking ?? ""}${event.delta.thinking}`
      if (event.delta?.type === "input_json_delta") block.partial += event.delta.partial_json
    }
    if (event.type === "message_delta") {
      finish = ANTHROPIC_FINISH[event.delta?.stop_reason ?? ""]
      output = event.usage?.output_tokens ?? output
    }
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) =>
    block.type === "tool_use" && block.partial !== "" ? { ...block, input: parseJson(block.partial) ?? {} } : block
  )
  return { actions: fromBlocks(ordered), finish, usage: { inputTokens: input, outputTokens: output, totalTokens: input + output } }
}
