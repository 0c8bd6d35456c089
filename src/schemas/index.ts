/**
 * The schemas simnet ships, for tests that decode what the simulated network serves: the
 * production-shaped family schemas, the model wire formats (OpenAI Chat Completions and
 * Responses, Anthropic Messages, Gemini, embeddings), the LLM script, RouteSpec JSON,
 * and the named-schema registry that `{ "ref": NAME }` looks up.
 */
export * as Account from "./account.ts"
export * as Anthropic from "./anthropic.ts"
export * as Driver from "./driver.ts"
export * as Embeddings from "./embeddings.ts"
export * as Gemini from "./gemini.ts"
export * as Installation from "./installation.ts"
export * as LlmScript from "./llmScript.ts"
export * as Models from "./models.ts"
export * as OpenAi from "./openai.ts"
export * as OpenAiResponses from "./openaiResponses.ts"
export * as RouteSpec from "./routeSpec.ts"
export * as Share from "./share.ts"
export * as Skills from "./skills.ts"
export { lookupSchema, NAMED_SCHEMAS, type NamedSchema } from "./registry.ts"
