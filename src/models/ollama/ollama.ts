/**
 * Ollama's API (default `http://127.0.0.1:11434`, the `ollama` client's host), answered by the
 * network's `SimulatedProvider`: `POST /api/chat` and `POST /api/generate`, streamed unless the
 * body says `stream: false` (NDJSON lines, `done: false` until the last, which carries
 * `done_reason` and the counts) — tool calls whole, their arguments an object —, and
 * `POST /api/embed` (seeded vectors, as OpenAI's embeddings), `GET /api/tags`, `POST /api/show`,
 * `GET /api/version`. Errors are Ollama's `{ "error": "…" }`, a line of the same shape mid-stream.
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { Effect, Exit } from "effect"
import { answerWith, type RespondContext, type Route, type SimRequest } from "../../registry/route.ts"
import type { Whole } from "../../registry/answer.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf, textOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { estimateTokens, parseArguments, partTokens, usageOf } from "../provider/parts.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type { Structured } from "../provider/conversation.ts"
import {
  type OllamaChatRequest as ChatRequest,
  OllamaChatRequest,
  type OllamaChatResponse,
  type OllamaCounts,
  OllamaEmbedRequest,
  OllamaGenerateRequest,
  type OllamaGenerateResponse,
  type OllamaMessage,
  type OllamaModel
} from "./ollamaSchema.ts"
import { embed, vectorNumbers } from "../embeddings/embeddings.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { ollamaReadBack } from "./ollamaReadBack.ts"

/** The base URL `Routes.ollama` serves when none is given (the `ollama` client's default host). */
export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434"

/** The models `/api/tags` lists when none are given. */
export const DEFAULT_OLLAMA_MODELS: ReadonlyArray<string> = ["llama3.2:latest", "qwen3:8b", "nomic-embed-text:latest"]

/** Options of the Ollama routes: `baseUrl` (default `http://127.0.0.1:11434`) and `models` (what `/api/tags` lists). */
export interface OllamaRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

/** Ollama's error body. */
export const ollamaErrorBody = (_status: number, message: string): { readonly error: string } => ({ error: message })

const turnOf = (message: OllamaMessage): LlmTurn => {
  const text = message.content ?? ""
  switch (message.role) {
    case "system":
      return { role: "system", text }
    case "assistant":
      return {
        role: "assistant",
        text,
        calls: (message.tool_calls ?? []).map((call) => ({
          name: call.function.name,
          arguments: textOf(call.function.arguments ?? {})
        }))
      }
    case "tool":
      return { role: "tool", text }
    default:
      return { role: "user", text }
  }
}

/** `format: "json"` (JSON mode) or a JSON Schema. */
const structuredOf = (format: unknown): Structured | undefined =>
  format === "json"
    ? { schema: undefined }
    : typeof format === "object" && format !== null
      ? { schema: format }
      : undefined

const thinks = (invocation: LlmInvocation): boolean => {
  const think = (invocation.request.raw as { readonly think?: unknown } | undefined)?.think
  return think !== undefined && think !== false
}

const createdAt = (invocation: LlmInvocation): string => new Date(invocation.created * 1000).toISOString()

const counts = (usage: TokenUsage): OllamaCounts => ({
  total_duration: 0,
  load_duration: 0,
  prompt_eval_count: usage.inputTokens,
  prompt_eval_duration: 0,
  eval_count: usage.outputTokens,
  eval_duration: 0
})

const doneReason = (finish: Finish): "stop" | "length" => (finish === "length" ? "length" : "stop")

const callOf = (part: Extract<Part, { kind: "toolCall" }>) => ({
  function: { name: part.name, arguments: parseArguments(part.fragments.join("")) }
})

const line = (value: unknown): string => `${JSON.stringify(value)}\n`

/** Which endpoint a writer speaks: `/api/chat`'s `message` or `/api/generate`'s `response`. */
type Endpoint = "chat" | "generate"

/** Writes NDJSON lines: one a part, the last with `done: true`, the reason and the counts. */
class OllamaWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  readonly #endpoint: Endpoint
  readonly #thinking: boolean
  #outputTokens = 0

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined, endpoint: Endpoint) {
    this.#invocation = invocation
    this.#hint = hint
    this.#endpoint = endpoint
    this.#thinking = thinks(invocation)
  }

  #head: { readonly model: string; readonly created_at: string } | undefined
  /** A text part's line, the most frequent, written from a prefix made once. */
  #textPrefix: string | undefined

  #line(
    text: string,
    extra: { readonly thinking?: string; readonly tool_calls?: ReadonlyArray<ReturnType<typeof callOf>> } = {},
    end?: Partial<OllamaChatResponse>
  ): string {
    const head = (this.#head ??= { model: this.#invocation.request.model, created_at: createdAt(this.#invocation) })
    if (this.#endpoint === "generate") {
      const value: OllamaGenerateResponse = {
        ...head,
        response: text,
        ...(extra.thinking === undefined ? {} : { thinking: extra.thinking }),
        done: false,
        ...end
      }
      return line(value)
    }
    const value: OllamaChatResponse = {
      ...head,
      message: { role: "assistant", content: text, ...extra },
      done: false,
      ...end
    }
    return line(value)
  }

  open(): ReadonlyArray<string> {
    return []
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text": {
        // The same bytes `#line(part.text)` writes: {"model","created_at", then the text where it goes, "done":false}.
        this.#textPrefix ??= `${JSON.stringify((this.#head ??= { model: this.#invocation.request.model, created_at: createdAt(this.#invocation) })).slice(0, -1)},${this.#endpoint === "chat" ? '"message":{"role":"assistant","content":' : '"response":'}`
        return [
          `${this.#textPrefix}${JSON.stringify(part.text)}${this.#endpoint === "chat" ? "}" : ""},"done":false}\n`
        ]
      }
      case "reasoning":
        return this.#thinking ? [this.#line("", { thinking: part.text })] : []
      case "toolCall":
        return this.#endpoint === "chat"
          ? [this.#line("", { tool_calls: [callOf(part)] })]
          : [this.#line(part.fragments.join(""))]
    }
  }

  chunk(value: unknown): string {
    return line(value)
  }

  error(message: string): ReadonlyArray<string> {
    return [line({ error: message })]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageOf(given ?? this.#hint, this.#invocation.request.material, this.#outputTokens)
    return [this.#line("", {}, { done: true, done_reason: doneReason(finish), ...counts(usage) })]
  }

  malformed(): string {
    return this.#line("").slice(0, 20)
  }
}

const chatAnswer = (
  invocation: LlmInvocation,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage
): OllamaChatResponse => {
  const text = parts.map((part) => (part.kind === "text" ? part.text : "")).join("")
  const thinking = parts.map((part) => (part.kind === "reasoning" ? part.text : "")).join("")
  const calls = parts.flatMap((part) => (part.kind === "toolCall" ? [callOf(part)] : []))
  return {
    model: invocation.request.model,
    created_at: createdAt(invocation),
    message: {
      role: "assistant",
      content: text,
      ...(thinking.length > 0 && thinks(invocation) ? { thinking } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {})
    },
    done: true,
    done_reason: doneReason(finish),
    ...counts(usage)
  }
}

const generateAnswer = (
  invocation: LlmInvocation,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage
): OllamaGenerateResponse => ({
  model: invocation.request.model,
  created_at: createdAt(invocation),
  response: parts
    .map((part) => (part.kind === "text" ? part.text : part.kind === "toolCall" ? part.fragments.join("") : ""))
    .join(""),
  done: true,
  done_reason: doneReason(finish),
  ...counts(usage)
})

const CHAT_KEY = ["model", "messages", "tools", "format", "options", "think"]
const GENERATE_KEY = ["model", "prompt", "system", "suffix", "format", "options", "think"]
const NDJSON = { contentType: "application/x-ndjson" }
const home = baseUrlUnder(DEFAULT_OLLAMA_BASE_URL, "")

/** `/api/chat`. */
export const ollamaChatWire: ModelWire = {
  api: "ollama.chat",
  name: "ollama",
  defaultBaseUrl: DEFAULT_OLLAMA_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/api/chat"),
  baseUrlAt: home,
  requestIdHeader: "x-request-id",
  streaming: NDJSON,
  read: readWith("ollama.chat", OllamaChatRequest, "chat", (body: ChatRequest, _request, raw) => ({
    model: body.model,
    stream: body.stream !== false,
    turns: body.messages.map(turnOf),
    tools: (body.tools ?? []).map((tool) => tool.function.name),
    key: requestKeyOf(raw, CHAT_KEY),
    structured: structuredOf(body.format)
  })),
  writer: (invocation, usage) => new OllamaWriter(invocation, usage, "chat"),
  answer: chatAnswer,
  errorBody: ollamaErrorBody,
  readBack: ollamaReadBack
}

/** `/api/generate`. */
export const ollamaGenerateWire: ModelWire = {
  api: "ollama.generate",
  name: "ollama",
  defaultBaseUrl: DEFAULT_OLLAMA_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/api/generate"),
  baseUrlAt: home,
  requestIdHeader: "x-request-id",
  streaming: NDJSON,
  read: readWith("ollama.generate", OllamaGenerateRequest, "generate", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream !== false,
    turns: [
      ...(body.system === undefined ? [] : [{ role: "system" as const, text: body.system }]),
      { role: "user" as const, text: body.prompt ?? "" }
    ],
    tools: [],
    key: requestKeyOf(raw, GENERATE_KEY),
    structured: structuredOf(body.format)
  })),
  writer: (invocation, usage) => new OllamaWriter(invocation, usage, "generate"),
  answer: generateAnswer,
  errorBody: ollamaErrorBody,
  readBack: ollamaReadBack
}

const decodeEmbed = compiledDecoder(OllamaEmbedRequest)
const DEFAULT_DIMENSIONS = 768

const embedAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const decoded = decodeEmbed(request.json())
  if (Exit.isFailure(decoded))
    return jsonWhole(ollamaErrorBody(400, `simnet: the body is not an embed request: ${String(decoded.cause)}`), 400)
  const body = decoded.value
  const texts = typeof body.input === "string" ? [body.input] : body.input
  const dimensions = body.dimensions ?? DEFAULT_DIMENSIONS
  return jsonWhole(
    {
      model: body.model,
      embeddings: texts.map((text) => vectorNumbers(embed(context.runSeed, text, dimensions))),
      total_duration: 0,
      load_duration: 0,
      prompt_eval_count: texts.reduce((sum, text) => sum + estimateTokens(text), 0)
    },
    200
  )
}

const MODIFIED = "2025-01-01T00:00:00Z"

const modelEntry = (name: string): OllamaModel => {
  const family = name.split(/[:.\d-]/)[0] || "llama"
  return {
    name,
    model: name,
    modified_at: MODIFIED,
    size: 0,
    digest: Buffer.from(name).toString("hex").padEnd(64, "0").slice(0, 64),
    details: {
      parent_model: "",
      format: "gguf",
      family,
      families: [family],
      parameter_size: "8B",
      quantization_level: "Q4_K_M"
    }
  }
}

const tagsAnswer = (models: ReadonlyArray<string>) => () =>
  Effect.sync(() => jsonWhole({ models: models.map(modelEntry) }, 200))

const showAnswer =
  (models: ReadonlyArray<string>) =>
  (request: SimRequest): Whole => {
    const body = request.json() as { readonly model?: unknown; readonly name?: unknown } | undefined
    const name = typeof body?.model === "string" ? body.model : typeof body?.name === "string" ? body.name : ""
    const known = models.find((model) => model === name || model === `${name}:latest`)
    if (known === undefined) return jsonWhole(ollamaErrorBody(404, `model '${name}' not found`), 404)
    const entry = modelEntry(known)
    return jsonWhole(
      {
        modelfile: `FROM ${known}\n`,
        parameters: "",
        template: "{{ .Prompt }}",
        details: entry.details,
        model_info: { "general.architecture": entry.details.family },
        capabilities: known.includes("embed") ? ["embedding"] : ["completion", "tools"],
        modified_at: MODIFIED
      },
      200
    )
  }

/**
 * The Ollama routes at `baseUrl` (default `http://127.0.0.1:11434`): ids `ollama.chat`,
 * `ollama.generate`, `ollama.embed`, `ollama.tags`, `ollama.show` and `ollama.version`, source `ollama`.
 */
export const ollamaRoutes = (options: OllamaRoutesOptions = {}): ReadonlyArray<Route> => {
  const models = options.models ?? DEFAULT_OLLAMA_MODELS
  return modelApi("ollama", DEFAULT_OLLAMA_BASE_URL, options.baseUrl, [
    { name: "chat", method: "POST", path: "/api/chat", endpoint: "api/chat", wire: ollamaChatWire },
    { name: "generate", method: "POST", path: "/api/generate", endpoint: "api/generate", wire: ollamaGenerateWire },
    { name: "embed", method: "POST", path: "/api/embed", endpoint: "api/embed", parts: { answer: embedAnswer } },
    {
      name: "tags",
      method: "GET",
      path: "/api/tags",
      endpoint: "api/tags",
      parts: { answer: answerWith(tagsAnswer(models)) }
    },
    { name: "show", method: "POST", path: "/api/show", endpoint: "api/show", parts: { answer: showAnswer(models) } },
    {
      name: "version",
      method: "GET",
      path: "/api/version",
      endpoint: "api/version",
      parts: { answer: () => jsonWhole({ version: "0.12.6" }, 200) }
    }
  ])
}
