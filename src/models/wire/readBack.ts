/**
 * Reading a model's answer back (record mode): what an answer said — its text, thinking and tool
 * calls, its finish and its usage — from the bytes a real provider sent, whole or streamed. Each
 * API's reader sits beside its wire (`models/API/APIReadBack.ts`) and its wire names it
 * (`ModelWire.readBack`); what they share is here.
 */
import type { TokenUsage } from "../provider/parts.ts"
import { parseJson } from "../../registry/util.ts"

/** The `data:` payloads of an event stream that are JSON objects (`[DONE]` and other text left out). */
export const eventData = (text: string): Array<Record<string, any>> =>
  text.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => parseJson(line.slice(5).trim())).filter((v): v is Record<string, any> => typeof v === "object" && v !== null)

/** One thing a model said: the script vocabulary's text, thinking and tool calls. */
export type ReadBackAction = { readonly type: "text" | "thinking"; readonly content: string } | { readonly type: "tool_call"; readonly name: string; readonly input: unknown }

/** What a model answered, read back from its body. */
export interface ReadBack {
  readonly actions: ReadonlyArray<ReadBackAction>
  readonly finish: string | undefined
  readonly usage: TokenUsage | undefined
}

/** The text of a message's `content`: a string, or the `text` of its text parts. */
export const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((part) => (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" ? String((part as { text?: unknown }).text ?? "") : "")).join("")
    : ""

/** The JSON objects of an NDJSON body (Ollama's streams; Bedrock's decoded event streams). */
export const jsonLines = (text: string): Array<Record<string, any>> =>
  text.split(/\r?\n/).map((line) => parseJson(line.trim())).filter((v): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v))
