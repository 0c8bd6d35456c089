/**
 * The models.dev catalog as the default `Routes.models()` serves it: well-known models of five
 * providers as they are (ids, names, release dates, tool calling, reasoning, modalities, context
 * and output limits, prices in USD per million tokens), so that an app that sizes its requests
 * or enables reasoning from the catalog does what it does against the real one. Fixed data: the
 * same bytes on every run. `Routes.models({ generated: true })` serves seeded variation instead.
 * `test/families.test.ts` decodes it under the production `Catalog` schema.
 */
import type { Catalog, Model } from "../schemas/models.ts"

type Modality = "text" | "audio" | "image" | "video" | "pdf"

const model = (
  id: string,
  name: string,
  family: string,
  release_date: string,
  flags: { readonly reasoning: boolean; readonly temperature: boolean; readonly attachment: boolean },
  cost: {
    readonly input: number
    readonly output: number
    readonly cache_read?: number
    readonly cache_write?: number
  },
  limit: { readonly context: number; readonly output: number },
  input: ReadonlyArray<Modality>
): Model => ({
  id,
  name,
  family,
  release_date,
  attachment: flags.attachment,
  reasoning: flags.reasoning,
  temperature: flags.temperature,
  tool_call: true,
  cost,
  limit,
  modalities: { input: [...input], output: ["text"] }
})

const chat = { reasoning: false, temperature: true, attachment: true } as const
const reasoning = { reasoning: true, temperature: false, attachment: true } as const
const thinking = { reasoning: true, temperature: true, attachment: true } as const
const textOnly = { reasoning: false, temperature: true, attachment: false } as const

const byId = (models: ReadonlyArray<Model>): Record<string, Model> => Object.fromEntries(models.map((m) => [m.id, m]))

/** The catalog, keyed by provider id and model id (each key equals its `id`). */
export const REAL_CATALOG: Catalog = {
  openai: {
    id: "openai",
    name: "OpenAI",
    env: ["OPENAI_API_KEY"],
    npm: "@ai-sdk/openai",
    models: byId([
      model(
        "gpt-4o",
        "GPT-4o",
        "gpt",
        "2024-05-13",
        chat,
        { input: 2.5, output: 10, cache_read: 1.25 },
        { context: 128_000, output: 16_384 },
        ["text", "image"]
      ),
      model(
        "gpt-4o-mini",
        "GPT-4o mini",
        "gpt-mini",
        "2024-07-18",
        chat,
        { input: 0.15, output: 0.6, cache_read: 0.075 },
        { context: 128_000, output: 16_384 },
        ["text", "image"]
      ),
      model(
        "gpt-4.1",
        "GPT-4.1",
        "gpt",
        "2025-04-14",
        chat,
        { input: 2, output: 8, cache_read: 0.5 },
        { context: 1_047_576, output: 32_768 },
        ["text", "image"]
      ),
      model(
        "o3",
        "o3",
        "o",
        "2025-04-16",
        reasoning,
        { input: 2, output: 8, cache_read: 0.5 },
        { context: 200_000, output: 100_000 },
        ["text", "image"]
      ),
      model(
        "o4-mini",
        "o4-mini",
        "o-mini",
        "2025-04-16",
        reasoning,
        { input: 1.1, output: 4.4, cache_read: 0.275 },
        { context: 200_000, output: 100_000 },
        ["text", "image"]
      ),
      model(
        "gpt-5",
        "GPT-5",
        "gpt",
        "2025-08-07",
        reasoning,
        { input: 1.25, output: 10, cache_read: 0.125 },
        { context: 400_000, output: 128_000 },
        ["text", "image"]
      )
    ])
  },
  anthropic: {
    id: "anthropic",
    name: "Anthropic",
    env: ["ANTHROPIC_API_KEY"],
    npm: "@ai-sdk/anthropic",
    models: byId([
      model(
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        "claude-sonnet",
        "2025-09-29",
        thinking,
        { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        { context: 200_000, output: 64_000 },
        ["text", "image", "pdf"]
      ),
      model(
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        "claude-haiku",
        "2025-10-15",
        thinking,
        { input: 1, output: 5, cache_read: 0.1, cache_write: 1.25 },
        { context: 200_000, output: 64_000 },
        ["text", "image", "pdf"]
      ),
      model(
        "claude-opus-4-1",
        "Claude Opus 4.1",
        "claude-opus",
        "2025-08-05",
        thinking,
        { input: 15, output: 75, cache_read: 1.5, cache_write: 18.75 },
        { context: 200_000, output: 32_000 },
        ["text", "image", "pdf"]
      )
    ])
  },
  google: {
    id: "google",
    name: "Google",
    env: ["GOOGLE_GENERATIVE_AI_API_KEY"],
    npm: "@ai-sdk/google",
    models: byId([
      model(
        "gemini-2.5-pro",
        "Gemini 2.5 Pro",
        "gemini-pro",
        "2025-06-17",
        thinking,
        { input: 1.25, output: 10, cache_read: 0.31 },
        { context: 1_048_576, output: 65_536 },
        ["text", "image", "audio", "video", "pdf"]
      ),
      model(
        "gemini-2.5-flash",
        "Gemini 2.5 Flash",
        "gemini-flash",
        "2025-06-17",
        thinking,
        { input: 0.3, output: 2.5, cache_read: 0.075 },
        { context: 1_048_576, output: 65_536 },
        ["text", "image", "audio", "video", "pdf"]
      )
    ])
  },
  "amazon-bedrock": {
    id: "amazon-bedrock",
    name: "Amazon Bedrock",
    env: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_BEARER_TOKEN_BEDROCK"],
    npm: "@ai-sdk/amazon-bedrock",
    models: byId([
      model(
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "Claude Sonnet 4.5",
        "claude-sonnet",
        "2025-09-29",
        thinking,
        { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
        { context: 200_000, output: 64_000 },
        ["text", "image", "pdf"]
      ),
      model(
        "amazon.nova-pro-v1:0",
        "Nova Pro",
        "nova-pro",
        "2024-12-03",
        chat,
        { input: 0.8, output: 3.2, cache_read: 0.2 },
        { context: 300_000, output: 8_192 },
        ["text", "image", "video"]
      )
    ])
  },
  mistral: {
    id: "mistral",
    name: "Mistral",
    env: ["MISTRAL_API_KEY"],
    npm: "@ai-sdk/mistral",
    models: byId([
      model(
        "mistral-large-latest",
        "Mistral Large",
        "mistral-large",
        "2024-11-01",
        textOnly,
        { input: 2, output: 6 },
        { context: 131_072, output: 16_384 },
        ["text"]
      ),
      model(
        "codestral-latest",
        "Codestral",
        "codestral",
        "2025-01-04",
        textOnly,
        { input: 0.3, output: 0.9 },
        { context: 256_000, output: 4_096 },
        ["text"]
      )
    ])
  }
}
