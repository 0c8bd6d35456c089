/**
 * The models.dev provider catalog (`GET https://models.dev/api.json`), as an app that reads it at
 * startup decodes it: a record of providers keyed by id, each with a record of models keyed by id.
 *
 * `Catalog` is the production schema. `CatalogGenerated` is its narrowed generator: a fixed set
 * of real providers and model ids (so keys equal ids and names read like the real catalog) with
 * realistic prices, limits and dates. Everything it generates decodes under `Catalog`.
 */
import { Schema } from "effect"

/** An input or output modality of a model. */
export const Modality = Schema.Literals(["text", "audio", "image", "video", "pdf"])

/** Prices in USD per million tokens. */
export const ModelCost = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  cache_read: Schema.optional(Schema.Number),
  cache_write: Schema.optional(Schema.Number)
})

/** Token limits of a model. */
export const ModelLimit = Schema.Struct({
  context: Schema.Number,
  output: Schema.Number,
  input: Schema.optional(Schema.Number)
})

/** One model of a provider. */
export const Model = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  family: Schema.optional(Schema.String),
  release_date: Schema.String,
  attachment: Schema.Boolean,
  reasoning: Schema.Boolean,
  temperature: Schema.Boolean,
  tool_call: Schema.Boolean,
  cost: Schema.optional(ModelCost),
  limit: ModelLimit,
  modalities: Schema.optional(Schema.Struct({ input: Schema.Array(Modality), output: Schema.Array(Modality) })),
  status: Schema.optional(Schema.Literals(["alpha", "beta", "deprecated"]))
})
export type Model = typeof Model.Type

/** One provider: its id, display name, the environment variables that hold its key, and its models. */
export const Provider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  env: Schema.Array(Schema.String),
  api: Schema.optional(Schema.String),
  npm: Schema.optional(Schema.String),
  models: Schema.Record(Schema.String, Model)
})
export type Provider = typeof Provider.Type

/** The whole catalog: providers keyed by id. */
export const Catalog = Schema.Record(Schema.String, Provider)
export type Catalog = typeof Catalog.Type

const ReleaseDate = Schema.String.check(Schema.isPattern(/^202[3-5]-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$/))
const price = Schema.Literals([0.1, 0.15, 0.4, 0.5, 1.1, 1.25, 2.5, 3, 5, 10, 15])

const generatedModel = (id: string, name: string, family: string, required: boolean) => {
  const model = Schema.Struct({
    id: Schema.Literal(id),
    name: Schema.Literal(name),
    family: Schema.optional(Schema.Literal(family)),
    release_date: ReleaseDate,
    attachment: Schema.Boolean,
    reasoning: Schema.Boolean,
    temperature: Schema.Boolean,
    tool_call: Schema.Boolean,
    cost: Schema.optional(Schema.Struct({ input: price, output: price, cache_read: Schema.optional(price) })),
    limit: Schema.Struct({
      context: Schema.Literals([128_000, 200_000, 400_000, 1_000_000]),
      output: Schema.Literals([8_192, 16_384, 32_000, 64_000, 100_000])
    }),
    modalities: Schema.optional(
      Schema.Struct({
        input: Schema.Array(Modality).check(Schema.isMinLength(1), Schema.isMaxLength(3)),
        output: Schema.Tuple([Schema.Literal("text")])
      })
    ),
    status: Schema.optional(Schema.Literals(["beta", "deprecated"]))
  })
  return required ? model : Schema.optionalKey(model)
}

const generatedProvider = (
  id: string,
  name: string,
  env: string,
  npm: string,
  models: Record<string, ReturnType<typeof generatedModel>>
) =>
  Schema.Struct({
    id: Schema.Literal(id),
    name: Schema.Literal(name),
    env: Schema.Tuple([Schema.Literal(env)]),
    npm: Schema.Literal(npm),
    models: Schema.Struct(models)
  })

/**
 * The narrowed generator of `Catalog`: four real providers, each with its best-known models
 * always present and a few more that come and go with the seed.
 */
export const CatalogGenerated = Schema.Struct({
  openai: generatedProvider("openai", "OpenAI", "OPENAI_API_KEY", "@ai-sdk/openai", {
    "gpt-4o": generatedModel("gpt-4o", "GPT-4o", "gpt", true),
    "gpt-4o-mini": generatedModel("gpt-4o-mini", "GPT-4o mini", "gpt-mini", true),
    o3: generatedModel("o3", "o3", "o", false),
    "gpt-5": generatedModel("gpt-5", "GPT-5", "gpt", false)
  }),
  anthropic: generatedProvider("anthropic", "Anthropic", "ANTHROPIC_API_KEY", "@ai-sdk/anthropic", {
    "claude-sonnet-4-5": generatedModel("claude-sonnet-4-5", "Claude Sonnet 4.5", "claude-sonnet", true),
    "claude-haiku-4-5": generatedModel("claude-haiku-4-5", "Claude Haiku 4.5", "claude-haiku", false),
    "claude-opus-4-1": generatedModel("claude-opus-4-1", "Claude Opus 4.1", "claude-opus", false)
  }),
  google: generatedProvider("google", "Google", "GOOGLE_GENERATIVE_AI_API_KEY", "@ai-sdk/google", {
    "gemini-2.5-pro": generatedModel("gemini-2.5-pro", "Gemini 2.5 Pro", "gemini-pro", true),
    "gemini-2.5-flash": generatedModel("gemini-2.5-flash", "Gemini 2.5 Flash", "gemini-flash", false)
  }),
  mistral: generatedProvider("mistral", "Mistral", "MISTRAL_API_KEY", "@ai-sdk/mistral", {
    "mistral-large-latest": generatedModel("mistral-large-latest", "Mistral Large", "mistral-large", true),
    "codestral-latest": generatedModel("codestral-latest", "Codestral", "codestral", false)
  })
})
