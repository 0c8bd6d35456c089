/**
 * Anthropic's Messages answers read back (record mode), whole or streamed.
 */
import { isJsonObject, parseJson } from "../../registry/util.ts"
import {
  at,
  countAt,
  eventData,
  type JsonRecord,
  type ReadBack,
  type ReadBackAction,
  textAt
} from "../wire/readBack.ts"

const ANTHROPIC_FINISH: Readonly<Record<string, string>> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  stop_sequence: "stop"
}

/** A content block as the stream builds it: its start, and its text, thinking or tool input so far. */
interface Block {
  readonly type: unknown
  readonly name: unknown
  text: string
  thinking: string
  partial: string
  input: unknown
}

/** A Messages answer (`message`, or its stream of events). */
export const anthropicReadBack = (text: string, streamed: boolean): ReadBack | undefined => {
  const fromBlocks = (blocks: ReadonlyArray<unknown>): Array<ReadBackAction> =>
    blocks.flatMap((block): Array<ReadBackAction> => {
      const type = at(block, "type")
      return type === "text"
        ? [{ type: "text", content: textAt(block, "text") }]
        : type === "thinking"
          ? [{ type: "thinking", content: textAt(block, "thinking") }]
          : type === "tool_use"
            ? [{ type: "tool_call", name: textAt(block, "name"), input: at(block, "input") ?? {} }]
            : []
    })
  if (!streamed) {
    const body = parseJson(text)
    const content = at(body, "content")
    if (!Array.isArray(content)) return undefined
    const usage = at(body, "usage")
    const input = countAt(usage, "input_tokens") ?? 0
    const output = countAt(usage, "output_tokens") ?? 0
    return {
      actions: fromBlocks(content),
      finish: ANTHROPIC_FINISH[textAt(body, "stop_reason")],
      usage: usage === undefined ? undefined : { inputTokens: input, outputTokens: output, totalTokens: input + output }
    }
  }
  const blocks = new Map<number, Block>()
  let finish: string | undefined
  let input = 0
  let output = 0
  for (const event of eventData(text)) {
    const index = countAt(event, "index") ?? 0
    if (event.type === "message_start") input = countAt(event, "message", "usage", "input_tokens") ?? 0
    if (event.type === "content_block_start") {
      const start: JsonRecord = isJsonObject(event.content_block) ? event.content_block : {}
      blocks.set(index, {
        type: start.type,
        name: start.name,
        text: textAt(start, "text"),
        thinking: textAt(start, "thinking"),
        partial: "",
        input: start.input
      })
    }
    if (event.type === "content_block_delta") {
      const block = blocks.get(index)
      if (block === undefined) continue
      const delta = at(event, "delta", "type")
      if (delta === "text_delta") block.text += textAt(event, "delta", "text")
      if (delta === "thinking_delta") block.thinking += textAt(event, "delta", "thinking")
      if (delta === "input_json_delta") block.partial += textAt(event, "delta", "partial_json")
    }
    if (event.type === "message_delta") {
      finish = ANTHROPIC_FINISH[textAt(event, "delta", "stop_reason")]
      output = countAt(event, "usage", "output_tokens") ?? output
    }
  }
  const ordered = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, block]) =>
      block.type === "tool_use" && block.partial !== "" ? { ...block, input: parseJson(block.partial) ?? {} } : block
    )
  return {
    actions: fromBlocks(ordered),
    finish,
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output }
  }
}
