/**
 * Reading a model's answer back (record mode): what an answer said — its text, thinking and tool
 * calls, its finish and its usage — from the bytes a real provider sent, whole or streamed. Each
 * API's reader sits beside its wire (`models/API/APIReadBack.ts`) and its wire names it
 * (`ModelWire.readBack`); what they share is here.
 */
import type { TokenUsage } from "../provider/parts.ts"
import { isJsonObject, parseJson } from "../../registry/util.ts"

/** A JSON object a provider sent: its fields are checked where they are read (`at`, `textAt`, `countAt`, `listAt`). */
export type JsonRecord = Readonly<Record<string, unknown>>

/**
 * The `data:` payloads of an event stream that are JSON objects (`[DONE]` and other text left out);
 * an array (a JSON-RPC batch) is kept too, its fields read as an object's: none.
 */
export const eventData = (text: string): Array<JsonRecord> =>
  text
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => parseJson(line.slice(5).trim()))
    .filter((v): v is JsonRecord => typeof v === "object" && v !== null)

/** The value at `path` (keys, and indexes of arrays) inside `value`, or undefined where the path leaves it. */
export const at = (value: unknown, ...path: ReadonlyArray<string | number>): unknown => {
  let here = value
  for (const key of path) {
    if (typeof here !== "object" || here === null) return undefined
    here = (here as Record<string | number, unknown>)[key]
  }
  return here
}

/** The text at `path`: a value as `String` writes it, or "" where there is none. */
export const textAt = (value: unknown, ...path: ReadonlyArray<string | number>): string => {
  const found = at(value, ...path)
  return found === undefined || found === null ? "" : String(found)
}

/** The number at `path` (a token count), or undefined where there is no number. */
export const countAt = (value: unknown, ...path: ReadonlyArray<string | number>): number | undefined => {
  const found = at(value, ...path)
  return typeof found === "number" ? found : undefined
}

/** The array at `path`, or none where there is no array. */
export const listAt = (value: unknown, ...path: ReadonlyArray<string | number>): ReadonlyArray<unknown> => {
  const found = at(value, ...path)
  return Array.isArray(found) ? found : []
}

/** One thing a model said: the script vocabulary's text, thinking and tool calls. */
export type ReadBackAction =
  | { readonly type: "text" | "thinking"; readonly content: string }
  | { readonly type: "tool_call"; readonly name: string; readonly input: unknown }

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
      ? content
          .map((part) =>
            typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text"
              ? String((part as { text?: unknown }).text ?? "")
              : ""
          )
          .join("")
      : ""

/** The JSON objects of an NDJSON body (Ollama's streams; Bedrock's decoded event streams). */
export const jsonLines = (text: string): Array<JsonRecord> =>
  text
    .split(/\r?\n/)
    .map((line) => parseJson(line.trim()))
    .filter(isJsonObject)
