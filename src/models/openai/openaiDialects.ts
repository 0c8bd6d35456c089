/**
 * Providers that speak OpenAI's bodies at their own paths, each a model family of its own:
 * - **`azure-openai`** (base `https://RESOURCE.openai.azure.com`): the deployment paths
 *   (`/openai/deployments/{deployment}/chat/completions` and `/embeddings`, with the
 *   `api-version` query the SDKs send), the preview Responses path (`/openai/responses`) and the
 *   v1 paths (`/openai/v1/chat/completions`, `/responses`, `/embeddings`, `/models`); the
 *   `api-key` header is accepted as sent and redacted as a credential.
 * - **`openrouter`** (base `https://openrouter.ai/api/v1`): Chat Completions, embeddings, and its
 *   model list (`/models`, with OpenRouter's `context_length`, `pricing` and `architecture`).
 *
 * Each answers through the OpenAI wires under its own API name (`azure-openai.chat`,
 * `azure-openai.responses`, `openrouter.chat`), so the model's log and the inspector show the
 * surface a call came through.
 */
import { Effect } from "effect"
import { answerWith, type Route } from "../../registry/route.ts"
import { embeddingsEndpoint } from "../embeddings/embeddings.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi, type ModelEndpoint, type PartsEndpoint } from "../wire/modelApi.ts"
import { dialectOf, type ModelWire } from "../wire/wire.ts"
import { chatWire, modelsResponder } from "./openai.ts"
import { responsesWire } from "./openaiResponses.ts"

/** The base `Routes.azureOpenai` serves when none is given; a real one is `https://RESOURCE.openai.azure.com`. */
export const DEFAULT_AZURE_OPENAI_BASE_URL = "https://simnet.openai.azure.com"

/** The base `Routes.openrouter` serves when none is given (the OpenAI SDK's `baseURL` for OpenRouter). */
export const DEFAULT_OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"

/** Options of these families: `baseUrl`, and `models` (what their model lists give). */
export interface OpenAiDialectOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

const originOf = (base: string) => new URL(base).origin
const underAzure = (origin: string): string | undefined =>
  origin === DEFAULT_AZURE_OPENAI_BASE_URL ? undefined : origin

/** Azure OpenAI's Chat Completions (deployment and v1 paths). */
export const azureChatWire: ModelWire = dialectOf(chatWire, {
  api: "azure-openai.chat",
  name: "azure-openai",
  defaultBaseUrl: DEFAULT_AZURE_OPENAI_BASE_URL,
  calls: (method, pathname) =>
    method === "POST" && pathname.startsWith("/openai/") && pathname.endsWith("/chat/completions"),
  baseUrlAt: underAzure
})

/** Azure OpenAI's Responses (preview and v1 paths). */
export const azureResponsesWire: ModelWire = dialectOf(responsesWire, {
  api: "azure-openai.responses",
  name: "azure-openai",
  defaultBaseUrl: DEFAULT_AZURE_OPENAI_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.startsWith("/openai/") && pathname.endsWith("/responses"),
  baseUrlAt: underAzure
})

/** OpenRouter's Chat Completions. */
export const openrouterChatWire: ModelWire = dialectOf(chatWire, {
  api: "openrouter.chat",
  name: "openrouter",
  defaultBaseUrl: DEFAULT_OPENROUTER_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/api/v1/chat/completions"),
  baseUrlAt: (origin) => (origin === originOf(DEFAULT_OPENROUTER_BASE_URL) ? undefined : `${origin}/api/v1`),
  rateLimits: undefined
})

const endpoint = (
  name: string,
  method: "GET" | "POST",
  path: string,
  by: Pick<ModelEndpoint, "wire"> | Pick<PartsEndpoint, "parts">
): ModelEndpoint | PartsEndpoint => ({ name, method, path, endpoint: path.slice(1), ...by })

/**
 * The Azure OpenAI routes at `baseUrl` (default `https://simnet.openai.azure.com`), source
 * `azure-openai`: `chat` and `embeddings` under `/openai/deployments/{deployment}/`,
 * `responses` at `/openai/responses`, and `v1.chat`, `v1.responses`, `v1.embeddings`,
 * `v1.models` under `/openai/v1/`.
 */
export const azureOpenaiRoutes = (options: OpenAiDialectOptions = {}): ReadonlyArray<Route> => {
  const chat = { wire: azureChatWire }
  const responses = { wire: azureResponsesWire }
  return modelApi("azure-openai", DEFAULT_AZURE_OPENAI_BASE_URL, options.baseUrl, [
    endpoint("chat", "POST", "/openai/deployments/:deployment/chat/completions", chat),
    endpoint("embeddings", "POST", "/openai/deployments/:deployment/embeddings", { parts: embeddingsEndpoint.parts }),
    endpoint("responses", "POST", "/openai/responses", responses),
    endpoint("v1.chat", "POST", "/openai/v1/chat/completions", chat),
    endpoint("v1.responses", "POST", "/openai/v1/responses", responses),
    endpoint("v1.embeddings", "POST", "/openai/v1/embeddings", { parts: embeddingsEndpoint.parts }),
    endpoint("v1.models", "GET", "/openai/v1/models", {
      parts: { answer: answerWith(modelsResponder(options.models)) }
    })
  ])
}

/** The models OpenRouter's list gives when none are given. */
export const DEFAULT_OPENROUTER_MODELS: ReadonlyArray<string> = [
  "openai/gpt-4o",
  "anthropic/claude-sonnet-4.5",
  "google/gemini-2.5-flash",
  "meta-llama/llama-3.3-70b-instruct"
]

const openrouterModels = (models: ReadonlyArray<string>) => () =>
  Effect.sync(() =>
    jsonWhole(
      {
        data: models.map((id) => ({
          id,
          canonical_slug: id,
          name: id,
          created: 1_715_367_049,
          description: `${id}, simulated by simnet`,
          context_length: 128_000,
          architecture: {
            modality: "text->text",
            input_modalities: ["text"],
            output_modalities: ["text"],
            tokenizer: "Other",
            instruct_type: null
          },
          pricing: { prompt: "0", completion: "0", request: "0", image: "0" },
          top_provider: { context_length: 128_000, max_completion_tokens: 16_384, is_moderated: false },
          per_request_limits: null,
          supported_parameters: ["tools", "tool_choice", "response_format", "max_tokens", "temperature"]
        }))
      },
      200
    )
  )

/**
 * The OpenRouter routes at `baseUrl` (default `https://openrouter.ai/api/v1`), source
 * `openrouter`: `chat` (`/chat/completions`), `embeddings` and `models`.
 */
export const openrouterRoutes = (options: OpenAiDialectOptions = {}): ReadonlyArray<Route> =>
  modelApi("openrouter", DEFAULT_OPENROUTER_BASE_URL, options.baseUrl, [
    endpoint("chat", "POST", "/chat/completions", { wire: openrouterChatWire }),
    endpoint("embeddings", "POST", "/embeddings", { parts: embeddingsEndpoint.parts }),
    endpoint("models", "GET", "/models", {
      parts: { answer: answerWith(openrouterModels(options.models ?? DEFAULT_OPENROUTER_MODELS)) }
    })
  ])
