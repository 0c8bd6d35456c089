/**
 * Route families: what a real app calls at startup (account, models.dev catalog, share, skills,
 * installation), the model APIs (OpenAI, Anthropic, Gemini), MCP presets and OpenAPI documents,
 * each a function returning routes. A public face: the catalogue lives in `families/`.
 */
export {
  account,
  anthropic,
  bedrock,
  claudeCode,
  codesearch,
  codex,
  defaultDecodeContext,
  EXA_URL,
  FAMILIES,
  gemini,
  geminiCli,
  installation,
  mcpFromConfig,
  models,
  openai,
  openaiResponses,
  openapi,
  passthrough,
  share,
  skillFileText,
  skills,
  websearch
} from "./families/routes.ts"
export type {
  AnthropicRoutesOptions,
  BedrockRoutesOptions,
  GeminiRoutesOptions,
  McpConfigEntry,
  McpConfigRoutes,
  ModelsOptions,
  NotSimulated,
  OpenAiRoutesOptions,
  OpenApiOptions,
  SearchOptions,
  SearchResult
} from "./families/routes.ts"
