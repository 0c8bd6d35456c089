/**
 * Cohere's v2 API (default `https://api.cohere.com`), answered by the network's
 * `SimulatedProvider`: `POST /v2/chat`, streamed (`message-start`, `content-start`/`-delta`/`-end`
 * for text and thinking, `tool-call-start`/`-delta`/`-end`, `message-end` with the finish reason
 * and usage) and not; `POST /v2/embed` (seeded vectors, as OpenAI's embeddings) and
 * `POST /v2/rerank` (each document scored by how near its seeded vector is to the query's, so the
 * same query ranks the same documents alike on every run). Errors carry Cohere's `{ id, message }`.
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { Exit } from "effect"
import type { RespondContext, Route, SimRequest } from "../../registry/route.ts"
import type { Whole } from "../../registry/answer.ts"
import type { LlmTurn, Structured } from "../provider/conversation.ts"
import { requestKeyOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { estimateTokens, partTokens, usageOf } from "../provider/parts.ts"
import { namedFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import {
  type CohereAssistantMessage,
  CohereChatRequest,
  type CohereChatResponse,
  CohereEmbedRequest,
  type CohereErrorBody,
  type CohereFinish,
  type CohereMessage,
  CohereRerankRequest,
  type CohereUsage
} from "./cohereSchema.ts"
import { embed, vectorNumbers } from "../embeddings/embeddings.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { cohereReadBack } from "./cohereReadBack.ts"

/** The base URL `Routes.cohere` serves when none is given (the `cohere-ai` client's). */
export const DEFAULT_COHERE_BASE_URL = "https://api.cohere.com"

/** Options of the Cohere routes: `baseUrl` (default `https://api.cohere.com`). */
export interface CohereRoutesOptions {
  readonly baseUrl?: string | undefined
}

/** Cohere's error body. */
export const cohereErrorBody = (_status: number, message: string): CohereErrorBody => ({ id: "sim-error", message })

const contentText = (content: CohereMessage["content"]): string =>
  content === undefined ? "" : typeof content === "string" ? content : content.map((part) => part.text ?? "").join("")

const turnOf = (message: CohereMessage): LlmTurn => {
  const text = contentText(message.content)
  return message.role === "assistant"
    ? {
        role: "assistant",
        text,
        calls: (message.tool_calls ?? []).map((call) => ({
          name: call.function.name,
          arguments: call.function.arguments ?? "{}"
        }))
      }
    : { role: message.role, text }
}

const structuredOf = (format: unknown): Structured | undefined => {
  if (typeof format !== "object" || format === null) return undefined
  const value = format as { readonly type?: unknown; readonly json_schema?: unknown }
  return value.type === "json_object" ? { schema: value.json_schema } : undefined
}

const finishOf = (finish: Finish, calls: boolean): CohereFinish =>
  finish === "length"
    ? "MAX_TOKENS"
    : finish === "tool_calls" || finish === "function_call" || (calls && finish === "stop")
      ? "TOOL_CALL"
      : "COMPLETE"

const usageBlock = (usage: TokenUsage): CohereUsage => ({
  billed_units: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  tokens: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens }
})

/** A tool call's id as Cohere spells them, the same for the same call on every run. */
const callId = (id: string): string => (/^call_\d+_\d+$/.test(id) ? `${id.replace(/_/g, "")}sim` : id)

const messageOf = (parts: ReadonlyArray<Part>): CohereAssistantMessage => {
  const content: Array<{ type: "text"; text: string } | { type: "thinking"; thinking: string }> = []
  const calls: Array<NonNullable<CohereAssistantMessage["tool_calls"]>[number]> = []
  for (const part of parts) {
    const last = content.at(-1)
    if (part.kind === "text") {
      if (last?.type === "text") last.text += part.text
      else content.push({ type: "text", text: part.text })
    } else if (part.kind === "reasoning") {
      if (last?.type === "thinking") last.thinking += part.text
      else content.push({ type: "thinking", thinking: part.text })
    } else if (part.kind === "toolCall") {
      calls.push({
        id: callId(part.id),
        type: "function",
        function: { name: part.name, arguments: part.fragments.join("") }
      })
    }
  }
  return {
    role: "assistant",
    ...(content.length > 0 ? { content } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {})
  }
}

const frame = (value: { readonly type: string; readonly [field: string]: unknown }): string =>
  namedFrame(value.type, value)

/** Writes a streamed chat answer: a content block per run of text or thinking, a tool call per call. */
class CohereWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  #content = 0
  #calls = 0
  #open: { readonly kind: "text" | "reasoning"; readonly index: number } | undefined
  #outputTokens = 0

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined) {
    this.#invocation = invocation
    this.#hint = hint
  }

  open(): ReadonlyArray<string> {
    return [
      frame({
        type: "message-start",
        id: `sim-${this.#invocation.seq}`,
        delta: { message: { role: "assistant", content: [], tool_plan: "", tool_calls: [], citations: [] } }
      })
    ]
  }

  #close(): Array<string> {
    const open = this.#open
    if (open === undefined) return []
    this.#open = undefined
    return [frame({ type: "content-end", index: open.index })]
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
      case "reasoning": {
        const frames: Array<string> = []
        if (this.#open?.kind !== part.kind) {
          frames.push(...this.#close())
          const index = this.#content++
          this.#open = { kind: part.kind, index }
          const start = part.kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" }
          frames.push(frame({ type: "content-start", index, delta: { message: { content: start } } }))
        }
        const content = part.kind === "text" ? { text: part.text } : { thinking: part.text }
        frames.push(frame({ type: "content-delta", index: this.#open!.index, delta: { message: { content } } }))
        return frames
      }
      case "toolCall": {
        const frames = this.#close()
        const index = this.#calls++
        frames.push(
          frame({
            type: "tool-call-start",
            index,
            delta: {
              message: {
                tool_calls: { id: callId(part.id), type: "function", function: { name: part.name, arguments: "" } }
              }
            }
          })
        )
        for (const fragment of part.fragments)
          frames.push(
            frame({
              type: "tool-call-delta",
              index,
              delta: { message: { tool_calls: { function: { arguments: fragment } } } }
            })
          )
        frames.push(frame({ type: "tool-call-end", index }))
        return frames
      }
    }
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, true)
  }

  error(message: string): ReadonlyArray<string> {
    return [frame({ type: "message-end", delta: { error: message, finish_reason: "ERROR" } })]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageOf(given ?? this.#hint, this.#invocation.request.material, this.#outputTokens)
    return [
      ...this.#close(),
      frame({
        type: "message-end",
        delta: { finish_reason: finishOf(finish, this.#calls > 0), usage: usageBlock(usage) }
      })
    ]
  }

  malformed(): string {
    return truncatedFrame(
      { type: "content-delta", index: this.#content, delta: { message: { content: { text: "" } } } },
      "content-delta"
    )
  }
}

const KEY_FIELDS = [
  "model",
  "messages",
  "tools",
  "tool_choice",
  "response_format",
  "max_tokens",
  "temperature",
  "p",
  "k",
  "stop_sequences",
  "thinking"
]

/** `/v2/chat`. */
export const cohereChatWire: ModelWire = {
  api: "cohere.chat",
  name: "cohere",
  defaultBaseUrl: DEFAULT_COHERE_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/v2/chat"),
  baseUrlAt: baseUrlUnder(DEFAULT_COHERE_BASE_URL, ""),
  requestIdHeader: "x-request-id",
  read: readWith("cohere.chat", CohereChatRequest, "chat", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream === true,
    turns: body.messages.map(turnOf),
    tools: (body.tools ?? []).map((tool) => tool.function.name),
    key: requestKeyOf(raw, KEY_FIELDS),
    structured: structuredOf(body.response_format)
  })),
  writer: (invocation, usage) => new CohereWriter(invocation, usage),
  answer: (invocation, parts, finish, usage): CohereChatResponse => ({
    id: `sim-${invocation.seq}`,
    finish_reason: finishOf(
      finish,
      parts.some((part) => part.kind === "toolCall")
    ),
    message: messageOf(parts),
    usage: usageBlock(usage)
  }),
  errorBody: cohereErrorBody,
  readBack: cohereReadBack
}

const badRequest = (what: string, cause: unknown): Whole =>
  jsonWhole(cohereErrorBody(400, `simnet: the body is not ${what} request: ${String(cause)}`), 400)

/** The dimensions of a Cohere embedding model (`embed-v4.0`: 1536; the v3 models: 1024, their light ones 384). */
const dimensionsOf = (model: string): number => (model.includes("light") ? 384 : model.includes("v3") ? 1024 : 1536)

const decodeEmbed = compiledDecoder(CohereEmbedRequest)
const embedAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const decoded = decodeEmbed(request.json())
  if (Exit.isFailure(decoded)) return badRequest("an embed", decoded.cause)
  const body = decoded.value
  const texts = body.texts ?? []
  const dimensions = body.output_dimension ?? dimensionsOf(body.model)
  const vectors = texts.map((text) => vectorNumbers(embed(context.runSeed, text, dimensions)))
  const types = body.embedding_types ?? ["float"]
  const embeddings: Record<string, unknown> = {}
  for (const type of types) {
    embeddings[type] =
      type === "float" ? vectors : vectors.map((vector) => vector.map((value) => Math.round(value * 127)))
  }
  return jsonWhole(
    {
      id: `sim-embed-${texts.length}`,
      embeddings,
      texts,
      meta: {
        api_version: { version: "2" },
        billed_units: { input_tokens: texts.reduce((sum, text) => sum + estimateTokens(text), 0) }
      },
      response_type: "embeddings_by_type"
    },
    200
  )
}

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!
  return dot
}

const RERANK_DIMENSIONS = 256
const decodeRerank = compiledDecoder(CohereRerankRequest)

/**
 * Scores each document by the cosine of its seeded vector and the query's, mapped to [0, 1]
 * (vectors of shared words lie near each other), highest first; `top_n` keeps the first.
 */
export const rerankAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const decoded = decodeRerank(request.json())
  if (Exit.isFailure(decoded)) return badRequest("a rerank", decoded.cause)
  const body = decoded.value
  const query = embed(context.runSeed, body.query, RERANK_DIMENSIONS)
  const results = body.documents
    .map((document, index) => {
      const text = typeof document === "string" ? document : document.text
      return {
        index,
        relevance_score: Number(
          ((cosine(query, embed(context.runSeed, text, RERANK_DIMENSIONS)) + 1) / 2).toPrecision(6)
        )
      }
    })
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
  return jsonWhole(
    {
      id: `sim-rerank-${body.documents.length}`,
      results: body.top_n === undefined ? results : results.slice(0, body.top_n),
      meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } }
    },
    200
  )
}

/**
 * The Cohere routes at `baseUrl` (default `https://api.cohere.com`): ids `cohere.chat`,
 * `cohere.embed` and `cohere.rerank`, source `cohere`.
 */
export const cohereRoutes = (options: CohereRoutesOptions = {}): ReadonlyArray<Route> =>
  modelApi("cohere", DEFAULT_COHERE_BASE_URL, options.baseUrl, [
    { name: "chat", method: "POST", path: "/v2/chat", endpoint: "v2/chat", wire: cohereChatWire },
    { name: "embed", method: "POST", path: "/v2/embed", endpoint: "v2/embed", parts: { answer: embedAnswer } },
    { name: "rerank", method: "POST", path: "/v2/rerank", endpoint: "v2/rerank", parts: { answer: rerankAnswer } }
  ])
