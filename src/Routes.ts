/**
 * Route families: the routes a real app calls at startup, as plain routes a test can override
 * one by one (the latest registration wins). Each is usable from code (`Routes.models()`) and
 * from a fixture (`{ "family": "models", "baseUrl": "..." }`). Families never throw: a bad
 * argument is refused, naming the field, when the routes are registered.
 */
export { account } from "./routes/families/account.ts"
export { defaultDecodeContext, FAMILIES } from "./routes/families/index.ts"
export { installation } from "./routes/families/installation.ts"
export { codesearch, EXA_URL, mcpFromConfig, websearch } from "./mcp-route/families.ts"
export type { McpConfigEntry, McpConfigRoutes, NotSimulated, SearchOptions, SearchResult } from "./mcp-route/families.ts"
export { models } from "./routes/families/models.ts"
export { share } from "./routes/families/share.ts"
export { skillFileText, skills } from "./routes/families/skills.ts"
export type { OpenAiRoutesOptions } from "./routes/openai.ts"
export { openapi } from "./routes/openapi.ts"

import type { Route } from "./registry/route.ts"
import { openaiRoutes, type OpenAiRoutesOptions } from "./routes/openai.ts"

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
export const openai = (options: OpenAiRoutesOptions = {}): ReadonlyArray<Route> => openaiRoutes(options)
