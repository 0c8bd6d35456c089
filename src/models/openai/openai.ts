/**
 * The OpenAI routes: `POST {base}/chat/completions` (streamed and not) and `GET {base}/models`,
 * answered by the network's `SimulatedProvider`, plus the Responses and embeddings endpoints of
 * their own modules. Everything above the HTTP boundary — the client's request body, SSE
 * decoding, tool-argument accumulation, retries — runs for real in the app's own client; these
 * responders only speak the wire format.
 */
import { Effect } from "effect"
import { answerWith, type Responder, type Route } from "../../registry/route.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf } from "../provider/conversation.ts"
import { ChunkWriter, completion, DEFAULT_OPENAI_BASE_URL, openAiErrorBody } from "./chatWire.ts"
import type { ChatMessage, ModelList } from "./openaiSchema.ts"
import { ChatCompletionRequest } from "./openaiSchema.ts"
import { embeddingsEndpoint } from "../embeddings/embeddings.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { openAiRateLimits } from "../wire/rateLimits.ts"
import { responsesEndpoint } from "./openaiResponses.ts"
import { responsesSocketEndpoint } from "./responsesSocket.ts"
import { realtimeEndpoint } from "./realtime.ts"
import { mediaEndpoints } from "./media.ts"
import { transcriptionEndpoints } from "./transcription.ts"
import { openaiReadBack } from "./openaiReadBack.ts"
import { chatStructured } from "../wire/structured.ts"

export { DEFAULT_OPENAI_BASE_URL }

/**
 * The models `GET {base}/models` lists when none are given.
 */
export const DEFAULT_OPENAI_MODELS: ReadonlyArray<string> = [
  "gpt-4o",
  "gpt-4o-mini",
  "gpt-4.1",
  "gpt-4.1-mini",
  "o4-mini"
]

/**
 * Options of the OpenAI routes: `baseUrl` (default `https://api.openai.com/v1`; an SDK's
 * `baseURL`) and `models` (the ids `GET /models` lists).
 */
export interface OpenAiRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

/**
 * The text of a chat message's content: the string, or the text parts joined.
 */
const contentText = (message: ChatMessage): string => {
  const content = message.content
  if (content === undefined || content === null) return ""
  if (typeof content === "string") return content
  return content.map((part) => part.text ?? "").join("")
}

const chatTurn = (message: ChatMessage): LlmTurn => {
  const text = contentText(message)
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", text }
    case "user":
      return { role: "user", text }
    case "tool":
    case "function":
      return { role: "tool", text }
    case "assistant":
      return {
        role: "assistant",
        text,
        calls: (message.tool_calls ?? []).map((call) => ({
          name: call.function.name,
          arguments: call.function.arguments
        }))
      }
  }
}

/**
 * The Chat Completions wire format.
 */
export const chatWire: ModelWire = {
  api: "openai.chat",
  name: "openai",
  defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/chat/completions"),
  baseUrlAt: baseUrlUnder(DEFAULT_OPENAI_BASE_URL, "/v1"),
  requestIdHeader: "x-request-id",
  rateLimits: openAiRateLimits,
  read: readWith("openai.chat", ChatCompletionRequest, "chat completion", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    turns: body.messages.map(chatTurn),
    tools: (body.tools ?? []).map((tool) => tool.function.name),
    key: requestKeyOf(raw),
    structured: chatStructured(raw)
  })),
  writer: (invocation) =>
    new ChunkWriter(
      { id: `chatcmpl-sim-${invocation.seq}`, created: invocation.created, model: invocation.request.model },
      invocation.request.includeUsage,
      invocation.request.material
    ),
  answer: (invocation, parts, finish, usage) =>
    completion(
      { id: `chatcmpl-sim-${invocation.seq}`, created: invocation.created, model: invocation.request.model },
      parts,
      finish,
      usage
    ),
  errorBody: openAiErrorBody,
  readBack: openaiReadBack
}

/**
 * The responder of `GET {base}/models`: the configured model ids as an OpenAI model list.
 */
export const modelsResponder =
  (models: ReadonlyArray<string> = DEFAULT_OPENAI_MODELS): Responder =>
  () =>
    Effect.sync(() => {
      const list: ModelList = {
        object: "list",
        data: models.map((id) => ({ id, object: "model", created: 1_715_367_049, owned_by: "simnet" }))
      }
      return jsonWhole(list, 200, {})
    })

/**
 * The OpenAI routes: `POST {base}/chat/completions`, `POST {base}/responses`,
 * `POST {base}/embeddings` and `GET {base}/models`, answered by the network's
 * `SimulatedProvider` (`network.llm`; embeddings from the run seed), with ids `openai.chat`,
 * `openai.responses`, `openai.embeddings` and `openai.models` (suffixed by the base URL when it
 * is not the default) and source `openai`.
 */
export const openaiRoutes = (options: OpenAiRoutesOptions = {}): ReadonlyArray<Route> =>
  modelApi("openai", DEFAULT_OPENAI_BASE_URL, options.baseUrl, [
    { name: "chat", method: "POST", path: "/chat/completions", endpoint: "chat/completions", wire: chatWire },
    responsesEndpoint,
    responsesSocketEndpoint,
    realtimeEndpoint,
    embeddingsEndpoint,
    ...mediaEndpoints,
    ...transcriptionEndpoints,
    {
      name: "models",
      method: "GET",
      path: "/models",
      endpoint: "models",
      parts: { answer: answerWith(modelsResponder(options.models)) }
    }
  ])
