/**
 * Route families: the routes a real app calls at startup, as plain routes a test can override
 * one by one (the latest registration wins). Each is usable from code (`Routes.models()`) and
 * from a fixture (`{ "family": "models", "baseUrl": "..." }`).
 */
import type { Route } from "./internal/types.ts"
import type { DecodeContext, FamilyFactory } from "./RouteSpec.ts"
import { FAMILIES as SCHEMA_FAMILIES, jsonSchemaKind, openapi } from "./routes/families.ts"
import { openaiRoutes, type OpenAiRoutesOptions } from "./routes/openai.ts"
import { codesearch, websearch } from "./mcp-route/families.ts"
import { mcpKind } from "./mcp-route/spec.ts"

export { account, installation, models, openapi, share, skills } from "./routes/families.ts"
export type { OpenAiRoutesOptions } from "./routes/openai.ts"
export { codesearch, EXA_URL, mcpFromConfig, websearch } from "./mcp-route/families.ts"
export type { McpConfigEntry, McpConfigRoutes, NotSimulated, SearchOptions, SearchResult } from "./mcp-route/families.ts"

/**
 * The OpenAI-compatible model API: `POST {base}/chat/completions` (streaming and not) and
 * `GET {base}/models`, answered by the network's `SimulatedProvider` (`network.llm`). Default
 * base: `https://api.openai.com/v1`.
 *
 * @example
 * const network = await SimulationNetwork.start({ routes: Routes.openai() })
 * network.llm.enqueue({ steps: [[{ type: "text", content: "Hello!" }]] })
 * const client = new OpenAI({ apiKey: "sk-test", fetch: network.fetch })
 */
export const openai = (options: OpenAiRoutesOptions = {}): ReadonlyArray<Route> =>
  openaiRoutes((context) => context.llm, options)

/**
 * Every family a fixture can name, by name.
 */
export const FAMILIES: ReadonlyMap<string, FamilyFactory> = new Map<string, FamilyFactory>([
  ...SCHEMA_FAMILIES,
  ["openai", (spec) => openai({ baseUrl: spec.baseUrl })],
  ["openapi", (spec) => openapi(spec.document, { baseUrl: spec.baseUrl })],
  ["websearch", () => websearch()],
  ["codesearch", () => codesearch()]
])

/**
 * What RouteSpec JSON can refer to by default: every family, and the `jsonSchema` kind.
 */
export const defaultDecodeContext: DecodeContext = {
  families: FAMILIES,
  kinds: new Map([["jsonSchema", jsonSchemaKind], ["mcp", mcpKind]])
}
