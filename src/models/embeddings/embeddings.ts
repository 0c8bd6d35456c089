/**
 * Embeddings: OpenAI's `POST {base}/embeddings` (with `encoding_format: "base64"`, the `openai`
 * SDK's default, and `dimensions`), and the vectors Gemini's `embedContent` serves too. A vector
 * is a pure function of the network's run seed and the input text: the same text always gets the
 * same vector, whatever the model or the request around it, and every vector has length 1.
 *
 * Each word of the text (lower-cased letters and digits) has a pseudo-random direction drawn from
 * the seed; a text's vector is the normalised sum of its words' directions. Texts that share
 * words are therefore closer than texts that do not, so a retrieval test ranks sensibly. A
 * shorter `dimensions` is the longer vector cut and renormalised, as OpenAI's
 * `text-embedding-3-*` models do.
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { createHash } from "../../registry/util.ts"
import { seededStream } from "../../registry/seed.ts"
import { Exit } from "effect"
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import { estimateTokens } from "../provider/parts.ts"
import { openAiErrorBody } from "../openai/chatWire.ts"
import type { Embedding, EmbeddingList } from "./embeddingsSchema.ts"
import { EmbeddingRequest } from "./embeddingsSchema.ts"
import { jsonWhole } from "../wire/call.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import type { Whole } from "../../registry/answer.ts"

/**
 * The length of a vector when the request does not ask for one: by model, else 1 536.
 */
export const defaultDimensions = (model: string): number => {
  if (model.includes("3-large") || model.includes("gemini-embedding")) return 3072
  if (model.includes("text-embedding-004") || model.includes("embedding-001")) return 768
  return 1536
}

const WORD = /[\p{L}\p{N}]+/gu

const wordSeed = (seed: number, word: string): number =>
  createHash("sha256").update(`${seed}\u0000${word}`).digest().readUInt32LE(0)

/**
 * A word's direction: `dimensions` values in [-1, 1) from a mulberry32 stream (`seededStream`) seeded by the run
 * seed and the word. A shorter direction is a prefix of a longer one.
 */
const direction = (seed: number, word: string, dimensions: number): Float32Array => {
  const out = new Float32Array(dimensions)
  const next = seededStream(wordSeed(seed, word))
  for (let i = 0; i < dimensions; i++) out[i] = next() * 2 - 1
  return out
}

/**
 * Recently used directions (a pure function's results, so sharing them across networks changes
 * nothing): at most `CACHE_LIMIT` entries, the least recently used dropped first.
 */
const CACHE_LIMIT = 1024
const cache = new Map<string, Float32Array>()

const cachedDirection = (seed: number, word: string, dimensions: number): Float32Array => {
  const key = `${seed}\u0000${dimensions}\u0000${word}`
  const hit = cache.get(key)
  if (hit !== undefined) {
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const made = direction(seed, word, dimensions)
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!)
  cache.set(key, made)
  return made
}

const addDirection = (into: Float64Array, seed: number, word: string, weight: number): void => {
  const d = cachedDirection(seed, word, into.length)
  for (let i = 0; i < into.length; i++) into[i] += weight * d[i]
}

/**
 * The vector of `text` under run seed `seed`, `dimensions` long, normalised to length 1, as
 * float32 values.
 */
export const embed = (seed: number, text: string, dimensions: number): Float32Array => {
  const sum = new Float64Array(dimensions)
  const counts = new Map<string, number>()
  for (const word of text.toLowerCase().match(WORD) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1)
  if (counts.size === 0) addDirection(sum, seed, `\u0001${text}`, 1)
  for (const [word, count] of counts) addDirection(sum, seed, word, count)
  let norm = 0
  for (let i = 0; i < dimensions; i++) norm += sum[i] * sum[i]
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm)
  const out = new Float32Array(dimensions)
  for (let i = 0; i < dimensions; i++) out[i] = sum[i] * scale
  return out
}

/**
 * A float32 vector as JSON numbers, each printed with the 9 significant digits that give the
 * float32 back.
 */
export const vectorNumbers = (vector: Float32Array): Array<number> => {
  const out = new Array<number>(vector.length)
  for (let i = 0; i < vector.length; i++) out[i] = Number(vector[i].toPrecision(9))
  return out
}

const base64 = (vector: Float32Array): string =>
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64")

const inputs = (input: EmbeddingRequest["input"]): ReadonlyArray<string> => {
  if (typeof input === "string") return [input]
  if (input.length === 0) return []
  const first = input[0]
  if (typeof first === "string") return input as ReadonlyArray<string>
  if (typeof first === "number") return [(input as ReadonlyArray<number>).join(" ")]
  return (input as ReadonlyArray<ReadonlyArray<number>>).map((tokens) => tokens.join(" "))
}

const decode = compiledDecoder(EmbeddingRequest)

const answer = (request: SimRequest, context: RespondContext): Whole => {
  const decoded = decode(request.json())
  if (Exit.isFailure(decoded)) {
    return jsonWhole(
      openAiErrorBody(400, `simnet: the body is not an embeddings request: ${String(decoded.cause)}`, undefined),
      400
    )
  }
  const body = decoded.value
  const texts = inputs(body.input)
  const dimensions = body.dimensions ?? defaultDimensions(body.model)
  let tokens = 0
  const data = texts.map((text, index): Embedding => {
    tokens += estimateTokens(text)
    const vector = embed(context.runSeed, text, dimensions)
    return {
      object: "embedding",
      index,
      embedding: body.encoding_format === "base64" ? base64(vector) : vectorNumbers(vector)
    }
  })
  const list: EmbeddingList = {
    object: "list",
    data,
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens }
  }
  return jsonWhole(list, 200)
}

/**
 * The route of `POST {base}/embeddings` with `id` and `source`.
 */
export const embeddingsEndpoint: PartsEndpoint = {
  name: "embeddings",
  method: "POST",
  path: "/embeddings",
  endpoint: "embeddings",
  parts: { answer }
}
