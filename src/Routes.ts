/**
 * Route families: what a real app calls at startup (account, models.dev catalog, share, skills,
 * installation), the model APIs (OpenAI, Anthropic, Gemini), MCP presets and OpenAPI documents,
 * each a function returning routes. A public face: the catalogue lives in `families/`.
 */
export {
  account,
  anthropic,
  azureOpenai,
  bedrock,
  claudeCode,
  codesearch,
  codex,
  cohere,
  defaultDecodeContext,
  EXA_URL,
  FAMILIES,
  gemini,
  geminiCli,
  installation,
  mcpFromConfig,
  models,
  ollama,
  openai,
  openaiResponses,
  openapi,
  openrouter,
  passthrough,
  share,
  skillFileText,
  skills,
  websearch
} from "./families/routes.ts"
export type {
  AnthropicRoutesOptions,
  BedrockRoutesOptions,
  CohereRoutesOptions,
  GeminiRoutesOptions,
  McpConfigEntry,
  McpConfigRoutes,
  ModelsOptions,
  OllamaRoutesOptions,
  NotSimulated,
  OpenAiDialectOptions,
  OpenAiRoutesOptions,
  OpenApiOptions,
  SearchOptions,
  SearchResult
} from "./families/routes.ts"
