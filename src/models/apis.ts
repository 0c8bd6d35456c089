/**
 * Every model API simnet speaks, in one table: the families (`MODEL_FAMILIES`: `openai`,
 * `anthropic`, `gemini`), each with the APIs it serves (their wire, `ModelWire`: how a request is
 * read and an answer written, its errors, its family and default base URL, how a call of it is
 * told from other requests and how its answer is read back) and its routes. The model routes
 * answer through the wires; record mode, RouteSpec families and the snapshot derive from the
 * table. A network can speak more (`NetworkOptions.models`): `withModels` adds them.
 */
import type { FamilySpec } from "../schemas/routeSpec.ts"
import type { Route } from "../registry/route.ts"
import { anthropicRoutes, anthropicWire } from "./anthropic/anthropic.ts"
import { geminiLiveWire, geminiRoutes, geminiWire } from "./gemini/gemini.ts"
import type { ModelFamily, ModelWire } from "./wire/wire.ts"
import { chatWire, openaiRoutes } from "./openai/openai.ts"
import { responsesWire } from "./openai/openaiResponses.ts"
import { realtimeWire } from "./openai/realtime.ts"
import { transcriptionWire, translationWire } from "./openai/transcription.ts"
import { bedrockRoutes, converseWire, invokeWire } from "./bedrock/bedrock.ts"
import { ollamaChatWire, ollamaGenerateWire, ollamaRoutes } from "./ollama/ollama.ts"
import { cohereChatWire, cohereRoutes } from "./cohere/cohere.ts"
import { vertexAnthropicWire, vertexGeminiWire, vertexRoutes } from "./vertex/vertex.ts"
import { a2aRoutes, a2aWire } from "./a2a/a2a.ts"
import { agUiRoutes, agUiWire } from "./agUi/agUi.ts"
import {
  azureChatWire,
  azureOpenaiRoutes,
  azureResponsesWire,
  openrouterChatWire,
  openrouterRoutes
} from "./openai/openaiDialects.ts"

/**
 * simnet's own model families. A family whose calls another's would also take (Azure's and
 * OpenRouter's Chat Completions end as OpenAI's do, Vertex's Gemini calls as Gemini's) comes first: record mode reads a call through
 * the first API that takes it.
 */
export const MODEL_FAMILIES: ReadonlyArray<ModelFamily> = [
  {
    name: "azure-openai",
    apis: [azureChatWire, azureResponsesWire],
    routes: (spec) => azureOpenaiRoutes({ baseUrl: spec.baseUrl })
  },
  { name: "openrouter", apis: [openrouterChatWire], routes: (spec) => openrouterRoutes({ baseUrl: spec.baseUrl }) },
  {
    name: "vertex",
    apis: [vertexGeminiWire, vertexAnthropicWire],
    routes: (spec) => vertexRoutes({ baseUrl: spec.baseUrl })
  },
  {
    name: "openai",
    apis: [chatWire, responsesWire, realtimeWire, transcriptionWire, translationWire],
    routes: (spec: FamilySpec): ReadonlyArray<Route> => openaiRoutes({ baseUrl: spec.baseUrl })
  },
  { name: "anthropic", apis: [anthropicWire], routes: (spec) => anthropicRoutes({ baseUrl: spec.baseUrl }) },
  { name: "gemini", apis: [geminiWire, geminiLiveWire], routes: (spec) => geminiRoutes({ baseUrl: spec.baseUrl }) },
  { name: "bedrock", apis: [converseWire, invokeWire], routes: (spec) => bedrockRoutes({ baseUrl: spec.baseUrl }) },
  {
    name: "ollama",
    apis: [ollamaChatWire, ollamaGenerateWire],
    routes: (spec) => ollamaRoutes({ baseUrl: spec.baseUrl })
  },
  { name: "cohere", apis: [cohereChatWire], routes: (spec) => cohereRoutes({ baseUrl: spec.baseUrl }) },
  { name: "a2a", apis: [a2aWire], routes: (spec) => a2aRoutes({ baseUrl: spec.baseUrl }) },
  { name: "ag-ui", apis: [agUiWire], routes: (spec) => agUiRoutes({ baseUrl: spec.baseUrl }) }
]

/**
 * The model APIs a network speaks: simnet's own and `more` (a family given again by name
 * replaces simnet's). Record mode reads calls through them, first match first.
 */
export interface ModelApis {
  readonly families: ReadonlyArray<ModelFamily>
  readonly apis: ReadonlyArray<ModelWire>
  /** The API a request (its method and URL) is a model call of, or undefined. */
  readonly apiOf: (method: string, url: URL) => ModelWire | undefined
}

const tableOf = (families: ReadonlyArray<ModelFamily>): ModelApis => {
  const apis = families.flatMap((family) => family.apis)
  return { families, apis, apiOf: (method, url) => apis.find((wire) => wire.calls(method, url.pathname)) }
}

/** simnet's own model APIs. */
export const DEFAULT_MODEL_APIS: ModelApis = tableOf(MODEL_FAMILIES)

/** simnet's model APIs with `more` added (a family of the same name replaces simnet's). */
export const withModels = (more: ReadonlyArray<ModelFamily> | undefined): ModelApis =>
  more === undefined || more.length === 0
    ? DEFAULT_MODEL_APIS
    : tableOf([...MODEL_FAMILIES.filter((family) => !more.some((m) => m.name === family.name)), ...more])
