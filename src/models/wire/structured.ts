/**
 * What a structured-output call asks for, read from each API's own request: JSON mode, or JSON
 * following a JSON Schema (`Structured`). The simulated model's `json` action answers it, and the
 * rule matcher `structured` tells such calls (a Gemini CLI's hidden router call, say).
 */
import type { Structured } from "../provider/conversation.ts"
import { isJsonObject } from "../../registry/util.ts"

const field = (value: unknown, name: string): unknown => (isJsonObject(value) ? value[name] : undefined)

/** A format object of the `{ type: "json_schema", schema }` / `{ type: "json_object" }` kind. */
const ofFormat = (format: unknown, schemaOf: (format: unknown) => unknown): Structured | undefined => {
  const type = field(format, "type")
  return type === "json_schema"
    ? { schema: schemaOf(format) }
    : type === "json_object"
      ? { schema: undefined }
      : undefined
}

/** Chat Completions: `response_format: { type: "json_schema", json_schema: { schema } }` or `{ type: "json_object" }`. */
export const chatStructured = (raw: unknown): Structured | undefined =>
  ofFormat(field(raw, "response_format"), (format) => field(field(format, "json_schema"), "schema"))

/** Responses: `text: { format: { type: "json_schema", schema } }` or `{ type: "json_object" }`. */
export const responsesStructured = (raw: unknown): Structured | undefined =>
  ofFormat(field(field(raw, "text"), "format"), (format) => field(format, "schema"))

/** Anthropic: `output_format: { type: "json_schema", schema }`, or the same under `output_config.format`. */
export const anthropicStructured = (raw: unknown): Structured | undefined =>
  ofFormat(field(raw, "output_format") ?? field(field(raw, "output_config"), "format"), (format) =>
    field(format, "schema")
  )

/** Gemini: `generationConfig.responseMimeType: "application/json"`, with `responseJsonSchema` or `responseSchema`. */
export const geminiStructured = (raw: unknown): Structured | undefined => {
  const config = field(raw, "generationConfig")
  if (field(config, "responseMimeType") !== "application/json") return undefined
  return { schema: field(config, "responseJsonSchema") ?? field(config, "responseSchema") }
}
