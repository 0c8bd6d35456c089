/**
 * Route families: what a real app calls at startup (account, models.dev catalog, share, skills,
 * installation), the model APIs (OpenAI, Anthropic, Gemini), MCP presets and OpenAPI documents,
 * each a function returning routes. A public face: the catalogue lives in `families/`.
 */
export * from "./families/routes.ts"
