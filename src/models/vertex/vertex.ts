/**
 * Google Vertex AI (default base `https://us-central1-aiplatform.googleapis.com`; the global
 * endpoint is `https://aiplatform.googleapis.com`), answered by the network's `SimulatedProvider`:
 * - **Gemini on Vertex**: `/{v1|v1beta1}/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
 *   and `:streamGenerateContent` (and `embedContent`, `batchEmbedContents`), in Gemini's wire
 *   format, and the same without the project (`/{version}/publishers/google/models/…`: the express
 *   mode an API key calls);
 * - **Claude on Vertex**: `…/publishers/anthropic/models/{model}:rawPredict` and
 *   `:streamRawPredict`, in Anthropic's Messages format (the model in the URL, the body's
 *   `anthropic_version`);
 * - Google's OAuth token endpoint (`POST https://oauth2.googleapis.com/token`), so a client with a
 *   service account's credentials gets a token without leaving the network.
 */
import { Effect } from "effect"
import { answerWith, type Route } from "../../registry/route.ts"
import { make as makeRoute } from "../../routes/make.ts"
import { anthropicErrorBody, messagesBody } from "../anthropic/anthropic.ts"
import { callOf, geminiAnswererFor, geminiWire } from "../gemini/gemini.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { dialectOf, type ModelWire } from "../wire/wire.ts"
import { anthropicReadBack } from "../anthropic/anthropicReadBack.ts"

/** The base URL `Routes.vertex` serves when none is given: the `us-central1` endpoint. */
export const DEFAULT_VERTEX_BASE_URL = "https://us-central1-aiplatform.googleapis.com"

/** Vertex AI's global endpoint (`location: "global"`, and express mode with an API key). */
export const VERTEX_GLOBAL_BASE_URL = "https://aiplatform.googleapis.com"

/** Google's OAuth token endpoint, which a service account's credentials are exchanged at. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"

/** Options of the Vertex routes: `baseUrl` (default `us-central1`'s endpoint; `https://LOCATION-aiplatform.googleapis.com` or the global `https://aiplatform.googleapis.com`). */
export interface VertexRoutesOptions {
  readonly baseUrl?: string | undefined
}

const underVertex = (origin: string): string | undefined =>
  origin === DEFAULT_VERTEX_BASE_URL || origin === VERTEX_GLOBAL_BASE_URL ? undefined : origin

/** Gemini on Vertex. */
export const vertexGeminiWire: ModelWire = dialectOf(geminiWire, {
  api: "vertex.gemini",
  name: "vertex",
  defaultBaseUrl: DEFAULT_VERTEX_BASE_URL,
  calls: (method, pathname) =>
    method === "POST" &&
    pathname.includes("/publishers/google/models/") &&
    /:(stream)?[gG]enerateContent$/.test(pathname),
  baseUrlAt: underVertex
})

/** Claude on Vertex. */
export const vertexAnthropicWire: ModelWire = {
  api: "vertex.anthropic",
  name: "vertex",
  defaultBaseUrl: DEFAULT_VERTEX_BASE_URL,
  calls: (method, pathname) =>
    method === "POST" &&
    pathname.includes("/publishers/anthropic/models/") &&
    /:(stream)?[rR]awPredict$/.test(pathname),
  baseUrlAt: underVertex,
  requestIdHeader: "request-id",
  read: (request, raw) => {
    const { model, method } = callOf(request)
    return messagesBody.readAt(
      "vertex.anthropic",
      request,
      raw,
      model,
      method === "streamRawPredict" ? true : undefined
    )
  },
  writer: (invocation, usage) => messagesBody.writer(invocation, usage),
  answer: messagesBody.answer,
  errorBody: anthropicErrorBody,
  readBack: anthropicReadBack
}

const PROJECT = "/:version/projects/:project/locations/:location/publishers"

const tokenRoute = (): Route =>
  makeRoute(
    "vertex",
    `POST ${GOOGLE_TOKEN_URL}`,
    {
      answer: answerWith(() =>
        Effect.sync(() =>
          jsonWhole({ access_token: "ya29.simnet-simulated-token", expires_in: 3599, token_type: "Bearer" }, 200)
        )
      ),
      describe: { family: "vertex", endpoint: "oauth2 token" }
    },
    { id: "vertex.token", source: "vertex" }
  )

/**
 * The Vertex AI routes at `baseUrl` (default `us-central1`'s endpoint), source `vertex`:
 * `gemini` and `anthropic` under a project and location, `express.gemini` without (all three at
 * the global endpoint too when no base is given), and `token` (Google's OAuth token endpoint).
 */
export const vertexRoutes = (options: VertexRoutesOptions = {}): ReadonlyArray<Route> => {
  const gemini = { answer: geminiAnswererFor(vertexGeminiWire) }
  const at = (baseUrl: string | undefined) =>
    modelApi("vertex", DEFAULT_VERTEX_BASE_URL, baseUrl, [
      {
        name: "gemini",
        method: "POST",
        path: `${PROJECT}/google/models/:call`,
        endpoint: "publishers/google/models/{model}:{method}",
        parts: gemini
      },
      {
        name: "anthropic",
        method: "POST",
        path: `${PROJECT}/anthropic/models/:call`,
        endpoint: "publishers/anthropic/models/{model}:rawPredict",
        wire: vertexAnthropicWire
      },
      {
        name: "express.gemini",
        method: "POST",
        path: "/:version/publishers/google/models/:call",
        endpoint: "express publishers/google/models/{model}:{method}",
        parts: gemini
      }
    ])
  // By default the global endpoint is served too: `location: "global"` and express mode call it.
  return [...at(options.baseUrl), ...(options.baseUrl === undefined ? at(VERTEX_GLOBAL_BASE_URL) : []), tokenRoute()]
}
