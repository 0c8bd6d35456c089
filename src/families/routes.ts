/**
 * Route families: the routes a real app calls at startup, as plain routes a test can override
 * one by one (the latest registration wins). Each is usable from code (`Routes.models()`) and
 * from a fixture (`{ "family": "models", "baseUrl": "..." }`). Families never throw: a bad
 * argument is refused, naming the field, when the routes are registered.
 */
export { account } from "./account.ts"
export { defaultDecodeContext, FAMILIES } from "./index.ts"
export { installation } from "./installation.ts"
export { claudeCode, codex, geminiCli } from "./agents.ts"
export { codesearch, EXA_URL, mcpFromConfig, websearch } from "./mcpPresets.ts"
export type { McpConfigEntry, McpConfigRoutes, NotSimulated, SearchOptions, SearchResult } from "./mcpPresets.ts"
export { models } from "./models.ts"
export type { ModelsOptions } from "./models.ts"
export { share } from "./share.ts"
export { skillFileText, skills } from "./skills.ts"
export type { AnthropicRoutesOptions } from "../models/anthropic/anthropic.ts"
export type { GeminiRoutesOptions } from "../models/gemini/gemini.ts"
export type { BedrockRoutesOptions } from "../models/bedrock/bedrock.ts"
export type { OllamaRoutesOptions } from "../models/ollama/ollama.ts"
export type { CohereRoutesOptions } from "../models/cohere/cohere.ts"
export type { VertexRoutesOptions } from "../models/vertex/vertex.ts"
export type { OpenAiDialectOptions } from "../models/openai/openaiDialects.ts"
export type { OpenAiRoutesOptions } from "../models/openai/openai.ts"
export type { A2aRoutesOptions } from "../models/a2a/a2a.ts"
export type { AgUiRoutesOptions } from "../models/agUi/agUi.ts"
export { openapi } from "./openapi.ts"
export { passthrough } from "./passthrough.ts"
export type { OpenApiOptions } from "./openapi.ts"

import type { Route } from "../registry/route.ts"
import { anthropicRoutes, type AnthropicRoutesOptions } from "../models/anthropic/anthropic.ts"
import { geminiRoutes, type GeminiRoutesOptions } from "../models/gemini/gemini.ts"
import { bedrockRoutes, type BedrockRoutesOptions } from "../models/bedrock/bedrock.ts"
import { ollamaRoutes, type OllamaRoutesOptions } from "../models/ollama/ollama.ts"
import { cohereRoutes, type CohereRoutesOptions } from "../models/cohere/cohere.ts"
import { vertexRoutes, type VertexRoutesOptions } from "../models/vertex/vertex.ts"
import { azureOpenaiRoutes, type OpenAiDialectOptions, openrouterRoutes } from "../models/openai/openaiDialects.ts"
import { DEFAULT_OPENAI_BASE_URL, openaiRoutes, type OpenAiRoutesOptions } from "../models/openai/openai.ts"
import { modelApi } from "../models/wire/modelApi.ts"
import { a2aRoutes, type A2aRoutesOptions } from "../models/a2a/a2a.ts"
import { agUiRoutes, type AgUiRoutesOptions } from "../models/agUi/agUi.ts"
import { responsesEndpoint } from "../models/openai/openaiResponses.ts"

/**
 * The OpenAI model API: `POST {base}/chat/completions` and `POST {base}/responses` (streaming and
 * not), `POST {base}/embeddings` and `GET {base}/models`, answered by the network's `SimulatedProvider` (`network.llm`). Default
 * base: `https://api.openai.com/v1`.
 *
 * @example
 * const network = await SimulationNetwork.start({ routes: Routes.openai() })
 * network.llm.enqueue({ steps: [[{ type: "text", content: "Hello!" }]] })
 * const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch })
 */
export const openai = (options: OpenAiRoutesOptions = {}): ReadonlyArray<Route> => openaiRoutes(options)

/**
 * The OpenAI Responses API alone: `POST {base}/responses` (streaming and not), answered by the
 * network's `SimulatedProvider`. `Routes.openai()` includes it.
 */
export const openaiResponses = (options: { readonly baseUrl?: string | undefined } = {}): ReadonlyArray<Route> => {
  return modelApi("openai", DEFAULT_OPENAI_BASE_URL, options.baseUrl, [responsesEndpoint])
}

/**
 * The Anthropic Messages API: `POST {base}/v1/messages` (streaming and not) and
 * `GET {base}/v1/models`, answered by the network's `SimulatedProvider`. Default base:
 * `https://api.anthropic.com` (the `@anthropic-ai/sdk` client's `baseURL`).
 *
 * @example
 * const network = await SimulationNetwork.start({ routes: Routes.anthropic() })
 * const client = new Anthropic({ apiKey: "sk-ant-test", fetch: network.fetch })
 */
export const anthropic = (options: AnthropicRoutesOptions = {}): ReadonlyArray<Route> => anthropicRoutes(options)

/**
 * The Gemini API: `generateContent`, `streamGenerateContent?alt=sse`, `embedContent` and
 * `batchEmbedContents` under `{base}/v1beta/models/{model}:…`, and `GET {base}/v1beta/models`.
 * Default base: `https://generativelanguage.googleapis.com`.
 */
export const gemini = (options: GeminiRoutesOptions = {}): ReadonlyArray<Route> => geminiRoutes(options)

/**
 * Amazon Bedrock's runtime API (`converse`, `converse-stream`, `invoke`,
 * `invoke-with-response-stream` under `/model/{modelId}/`), answered by the network's
 * `SimulatedProvider` in Bedrock's wire format and AWS event streams. Default base: the
 * `us-east-1` runtime endpoint; another region's is `https://bedrock-runtime.REGION.amazonaws.com`.
 */
export const bedrock = (options: BedrockRoutesOptions = {}): ReadonlyArray<Route> => bedrockRoutes(options)

/**
 * Ollama's API (`/api/chat` and `/api/generate`, NDJSON streams; `/api/embed`, `/api/tags`,
 * `/api/show`, `/api/version`), answered by the network's `SimulatedProvider`. Default base:
 * `http://127.0.0.1:11434`.
 */
export const ollama = (options: OllamaRoutesOptions = {}): ReadonlyArray<Route> => ollamaRoutes(options)

/**
 * Azure OpenAI: the deployment paths (`/openai/deployments/{deployment}/chat/completions`,
 * `/embeddings`), `/openai/responses` and the v1 paths (`/openai/v1/…`), answered by the
 * network's `SimulatedProvider` in OpenAI's wire format. Default base
 * `https://simnet.openai.azure.com`; give your resource's (`https://RESOURCE.openai.azure.com`).
 */
export const azureOpenai = (options: OpenAiDialectOptions = {}): ReadonlyArray<Route> => azureOpenaiRoutes(options)

/**
 * OpenRouter: Chat Completions, embeddings and its model list under `https://openrouter.ai/api/v1`,
 * answered by the network's `SimulatedProvider`.
 */
export const openrouter = (options: OpenAiDialectOptions = {}): ReadonlyArray<Route> => openrouterRoutes(options)

/**
 * Cohere's v2 API (`/v2/chat`, streamed and not; `/v2/embed`; `/v2/rerank`, seeded), answered
 * by the network's `SimulatedProvider`. Default base: `https://api.cohere.com`.
 */
export const cohere = (options: CohereRoutesOptions = {}): ReadonlyArray<Route> => cohereRoutes(options)

/**
 * An A2A agent (protocol 0.3 over JSON-RPC) answered by the network's `SimulatedProvider`: its
 * card at the origin's `/.well-known/agent-card.json`, and `message/send`, `message/stream`,
 * `tasks/get`, `tasks/cancel` at `baseUrl` (default `https://agent.example.com`). A script's text
 * is the agent's answer; a tool call a data part the client answers in the same task.
 */
export const a2a = (options: A2aRoutesOptions = {}): ReadonlyArray<Route> => a2aRoutes(options)

/**
 * An AG-UI agent endpoint answered by the network's `SimulatedProvider`: `POST` a `RunAgentInput`
 * to `baseUrl` (default `https://agent.example.com/ag-ui`), read back `RUN_STARTED`,
 * `STATE_SNAPSHOT`, `TEXT_MESSAGE_*`, `TOOL_CALL_*` and `RUN_FINISHED` (or `RUN_ERROR`) events.
 */
export const agUi = (options: AgUiRoutesOptions = {}): ReadonlyArray<Route> => agUiRoutes(options)

/**
 * Google Vertex AI: Gemini (`…/publishers/google/models/{model}:generateContent`,
 * `:streamGenerateContent`, with or without a project) and Claude (`…/publishers/anthropic/models/{model}:rawPredict`,
 * `:streamRawPredict`), answered by the network's `SimulatedProvider`, and Google's OAuth token
 * endpoint. Default base: `https://us-central1-aiplatform.googleapis.com`.
 */
export const vertex = (options: VertexRoutesOptions = {}): ReadonlyArray<Route> => vertexRoutes(options)
