/**
 * Every model API simnet speaks, in one table: its name (`LLM_APIS`) and its wire (`ModelWire`:
 * how a request is read and an answer written, its errors, its family and default base URL, and
 * how a call of it is told from other requests). The model routes answer through the wires;
 * record mode reads calls back through them and writes the family that serves each.
 */
import { LLM_APIS, type LlmApi } from "../../provider/conversation.ts"
import { anthropicWire } from "./anthropic.ts"
import { geminiWire } from "./gemini.ts"
import type { ModelWire } from "./model.ts"
import { chatWire } from "./openai.ts"
import { responsesWire } from "./openaiResponses.ts"

/** Each API's wire, by its name. */
export const MODEL_APIS: { readonly [Api in LlmApi]: ModelWire } = {
  "openai.chat": chatWire,
  "openai.responses": responsesWire,
  "anthropic.messages": anthropicWire,
  gemini: geminiWire
}

/** The API a request (its method and URL) is a model call of, or undefined. */
export const modelApiOf = (method: string, url: URL): LlmApi | undefined => LLM_APIS.find((api) => MODEL_APIS[api].calls(method, url.pathname))
