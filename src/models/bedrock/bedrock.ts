/**
 * Amazon Bedrock's runtime API as a model family: Converse (`bedrockConverse.ts`) and
 * InvokeModel (`bedrockInvoke.ts`) under `/model/{modelId}/`, streamed as AWS event streams.
 */
import type { Route } from "../../registry/route.ts"
import { converseWire, DEFAULT_BEDROCK_BASE_URL } from "./bedrockConverse.ts"
import { invokeWire } from "./bedrockInvoke.ts"
import { modelApi } from "../wire/modelApi.ts"

export { converseWire, DEFAULT_BEDROCK_BASE_URL, invokeWire }

/** Options of the Bedrock routes: `baseUrl` (default the `us-east-1` runtime endpoint; another region's is `https://bedrock-runtime.REGION.amazonaws.com`). */
export interface BedrockRoutesOptions {
  readonly baseUrl?: string | undefined
}

/**
 * The Bedrock routes at `baseUrl` (default `us-east-1`'s runtime endpoint): `converse`,
 * `converse-stream`, `invoke` and `invoke-with-response-stream` under `/model/{modelId}/`, ids
 * `bedrock.converse`, `bedrock.converse-stream`, `bedrock.invoke` and
 * `bedrock.invoke-stream`, source `bedrock`.
 */
export const bedrockRoutes = (options: BedrockRoutesOptions = {}): ReadonlyArray<Route> => {
  return modelApi("bedrock", DEFAULT_BEDROCK_BASE_URL, options.baseUrl, [
    { name: "converse", method: "POST", path: "/model/:modelId/converse", endpoint: "converse", wire: converseWire },
    {
      name: "converse-stream",
      method: "POST",
      path: "/model/:modelId/converse-stream",
      endpoint: "converse-stream",
      wire: converseWire
    },
    { name: "invoke", method: "POST", path: "/model/:modelId/invoke", endpoint: "invoke", wire: invokeWire },
    {
      name: "invoke-stream",
      method: "POST",
      path: "/model/:modelId/invoke-with-response-stream",
      endpoint: "invoke-with-response-stream",
      wire: invokeWire
    }
  ])
}
