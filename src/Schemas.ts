/**
 * The schemas simnet ships, for tests that decode what the simulated network serves: the
 * production-shaped family schemas, the model wire formats (OpenAI Chat Completions and
 * Responses, Anthropic Messages, Gemini, embeddings), the LLM script, RouteSpec JSON,
 * and the named-schema registry that `{ "ref": NAME }` looks up. A public face: each wire format's
 * Schemas live beside its wire (`models/API/APISchema.ts`), the others in `schemas/`.
 */
export * as Account from "./schemas/account.ts"
export * as Anthropic from "./models/anthropic/anthropicSchema.ts"
export * as Driver from "./schemas/driver.ts"
export * as Embeddings from "./models/embeddings/embeddingsSchema.ts"
export * as Gemini from "./models/gemini/geminiSchema.ts"
export * as Installation from "./schemas/installation.ts"
export * as LlmScript from "./schemas/llmScript.ts"
export * as Models from "./schemas/models.ts"
export * as OpenAi from "./models/openai/openaiSchema.ts"
export * as OpenAiResponses from "./models/openai/responsesSchema.ts"
export * as RouteSpec from "./schemas/routeSpec.ts"
export * as Share from "./schemas/share.ts"
export * as Skills from "./schemas/skills.ts"
export { lookupSchema, NAMED_SCHEMAS, type NamedSchema } from "./schemas/registry.ts"
