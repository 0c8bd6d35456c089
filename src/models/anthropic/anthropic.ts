/**
 * The Anthropic Messages API: `POST {base}/v1/messages`, streamed (`message_start`, `ping`,
 * `content_block_start` / `content_block_delta` / `content_block_stop` for `text`, `thinking`
 * (with its `signature_delta`) and `tool_use` (with `input_json_delta` fragments),
 * `message_delta` with the stop reason and usage, `message_stop`) and not (the `message`
 * object), and `GET {base}/v1/models`. Step N of a script answers the call after N user turns of
 * `tool_result` blocks. Errors carry Anthropic's body and types: 429 `rate_limit_error`, 529
 * `overloaded_error`, other 5xx `api_error` — the ones its SDK retries and classifies.
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { createHash } from "../../registry/util.ts"
import { Effect, Exit, Result } from "effect"
import { JsonTemplates, type JsonText } from "../wire/jsonTemplate.ts"
import { answerWith, type Responder, type Route, type SimRequest } from "../../registry/route.ts"
import type { ConversationInput, LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf, textOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter } from "../provider/parts.ts"
import { jsonText, parseArguments, partTokens, usageOf } from "../provider/parts.ts"
import { namedFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type {
  BlockDelta,
  ContentBlock,
  ErrorBody,
  Message,
  ModelList,
  RequestBlock,
  StopReason,
  StreamEvent,
  Usage
} from "./anthropicSchema.ts"
import { MessagesRequest } from "./anthropicSchema.ts"
import type { TokenUsage } from "../provider/parts.ts"
import { jsonWhole } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { anthropicRateLimits } from "../wire/rateLimits.ts"
import { anthropicReadBack } from "./anthropicReadBack.ts"
import { anthropicStructured } from "../wire/structured.ts"

/**
 * The base URL `Routes.anthropic` serves when none is given (the SDK's `baseURL`; the paths add
 * `/v1`).
 */
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"

/**
 * The models `GET {base}/v1/models` lists when none are given.
 */
export const DEFAULT_ANTHROPIC_MODELS: ReadonlyArray<string> = [
  "claude-sonnet-4-6",
  "claude-opus-4-7",
  "claude-haiku-4-5"
]

/**
 * Options of the Anthropic routes: `baseUrl` (default `https://api.anthropic.com`, as the
 * `@anthropic-ai/sdk` client's `baseURL`) and `models` (the ids `GET /v1/models` lists).
 */
export interface AnthropicRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

const KEY_FIELDS = [
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "thinking"
]

const blockText = (block: RequestBlock): string => {
  if (block.type === "text") return block.text ?? ""
  if (block.type === "tool_result") {
    const content = block.content
    return typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("")
  }
  return ""
}

const turnsOf = (body: MessagesRequest): Array<LlmTurn> => {
  const turns: Array<LlmTurn> = []
  const system = body.system
  if (system !== undefined) {
    turns.push({
      role: "system",
      text: typeof system === "string" ? system : system.map((block) => block.text ?? "").join("\n")
    })
  }
  for (const message of body.messages) {
    const content = message.content
    if (typeof content === "string") {
      turns.push({ role: message.role, text: content })
      continue
    }
    const text = content
      .map(blockText)
      .filter((t) => t.length > 0)
      .join("\n")
    if (message.role === "system") {
      turns.push({ role: "system", text })
    } else if (message.role === "assistant") {
      const calls = content.flatMap((block) =>
        block.type === "tool_use" ? [{ name: block.name ?? "", arguments: textOf(block.input ?? {}) }] : []
      )
      turns.push({ role: "assistant", text, calls })
    } else {
      turns.push({ role: content.some((block) => block.type === "tool_result") ? "tool" : "user", text })
    }
  }
  return turns
}

/**
 * The `stop_reason` of a finish; `null` (a finish the client cannot name) stays `null`, which the
 * AI SDK reports as "other".
 */
const stopReason = (finish: Finish): StopReason | null => (finish === null ? null : STOP_REASONS[finish])

const STOP_REASONS: Readonly<Record<Exclude<Finish, null>, StopReason>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal"
}

const usageBlock = (usage: TokenUsage): Usage => ({
  input_tokens: usage.inputTokens,
  output_tokens: usage.outputTokens,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0
})

/**
 * The signature of a thinking block: a digest of the thinking text (clients send it back with
 * the block).
 */
const signatureOf = (thinking: string): string => createHash("sha256").update(thinking).digest("base64")

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/**
 * A tool call's id in Anthropic's shape (`toolu_01` and 22 letters and digits), derived from the
 * id the provider numbered it with (`call_N_I`), so the same call has the same id on every run;
 * an id a driver gave is kept as given.
 */
const toolUseId = (id: string): string => {
  if (!/^call_\d+_\d+$/.test(id)) return id
  const digest = createHash("sha256").update(`simnet/toolu\u0000${id}`).digest()
  let out = "toolu_01"
  for (let i = 0; i < 22; i++) out += BASE62[digest[i] % 62]
  return out
}

/**
 * Whether the request asks for extended thinking (`thinking: { type: "enabled" | "adaptive" }`):
 * without it, a script's thinking is not sent, as the API sends none.
 */
const thinks = (invocation: LlmInvocation): boolean => {
  const body = invocation.request.raw as { readonly thinking?: { readonly type?: unknown } } | undefined
  const type = body?.thinking?.type
  return type === "enabled" || type === "adaptive"
}

/** The error `type` of a status Anthropic names; any other is an `api_error` (5xx) or an `invalid_request_error`. */
const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  504: "timeout_error",
  529: "overloaded_error"
}

const errorType = (status: number): string =>
  ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error")

/**
 * Anthropic's error body for a status (a refusal of simnet's is a 422 `invalid_request_error` whose message
 * names the reason).
 */
export const anthropicErrorBody = (status: number, message: string): ErrorBody => ({
  type: "error",
  error: { type: errorType(status), message }
})

/** A message's id: the call's number. */
const messageId = (invocation: LlmInvocation): string => `msg_sim_${invocation.seq}`

const messageOf = (
  id: string,
  model: string,
  content: ReadonlyArray<ContentBlock>,
  stop: StopReason | null,
  usage: Usage
): Message => ({
  id,
  type: "message",
  role: "assistant",
  model,
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage
})

/**
 * The content blocks of an answer's parts, kept with the list (it never changes once made), its
 * text escaped once (`jsonText`): a rule's step, split once, is gathered once. Nothing changes a block.
 */
const contentOf = (parts: ReadonlyArray<Part>, thinking: boolean): ReadonlyArray<ContentBlock> => {
  let kept = contentKept.get(parts)
  if (kept === undefined) contentKept.set(parts, (kept = {}))
  return thinking ? (kept.thinking ??= contentNow(parts, true)) : (kept.plain ??= contentNow(parts, false))
}

/**
 * The whole message of an answer's parts as a template (`JsonTemplate`), kept with the list as its
 * content is, with or without its thinking: the call's id, model, stop reason and token counts are
 * its holes.
 */
const messageTemplates = (thinking: boolean) =>
  new JsonTemplates<ReadonlyArray<Part>, readonly [string, string, StopReason | null, number, number], Message>(
    5,
    (parts, [id, model, stop, input, output]) =>
      messageOf(
        id,
        model,
        contentOf(parts, thinking),
        stop,
        usageBlock({ inputTokens: input, outputTokens: output, totalTokens: input + output })
      )
  )
const plainTemplates = messageTemplates(false)
const thinkingTemplates = messageTemplates(true)

const contentKept = new WeakMap<
  ReadonlyArray<Part>,
  { thinking?: ReadonlyArray<ContentBlock>; plain?: ReadonlyArray<ContentBlock> }
>()

const contentNow = (parts: ReadonlyArray<Part>, thinking: boolean): Array<ContentBlock> => {
  const blocks: Array<ContentBlock> = []
  let run: { kind: "text" | "reasoning"; text: string } | undefined
  const flush = () => {
    if (run === undefined) return
    blocks.push(
      run.kind === "text"
        ? { type: "text", text: jsonText(run.text) }
        : { type: "thinking", thinking: run.text, signature: signatureOf(run.text) }
    )
    run = undefined
  }
  for (const part of parts) {
    if (part.kind === "reasoning" && !thinking) continue
    if (part.kind === "text" || part.kind === "reasoning") {
      if (run !== undefined && run.kind !== part.kind) flush()
      run ??= { kind: part.kind, text: "" }
      run.text += part.text
    } else if (part.kind === "toolCall") {
      flush()
      blocks.push({
        type: "tool_use",
        id: toolUseId(part.id),
        name: part.name,
        input: parseArguments(part.fragments.join(""))
      })
    }
  }
  flush()
  return blocks
}

/**
 * Writes a streamed message: a content block per run of text or thinking and per tool call,
 * indexed in order.
 */
class AnthropicWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  #blocks = 0
  #open: { readonly kind: "text" | "reasoning"; readonly index: number; text: string } | undefined
  #outputTokens = 0
  readonly #thinking: boolean
  readonly #frame: (event: StreamEvent) => string
  #textPrefix: { readonly index: number; readonly text: string } | undefined

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined, frame: (event: StreamEvent) => string) {
    this.#invocation = invocation
    this.#hint = hint
    this.#thinking = thinks(invocation)
    this.#frame = frame
  }

  #event(event: StreamEvent): string {
    return this.#frame(event)
  }

  #delta(index: number, delta: BlockDelta): string {
    return this.#event({ type: "content_block_delta", index, delta })
  }

  open(): ReadonlyArray<string> {
    const usage = usageBlock(usageOf(this.#hint, this.#invocation.request.material, 0))
    return [
      this.#event({
        type: "message_start",
        message: messageOf(messageId(this.#invocation), this.#invocation.request.model, [], null, {
          ...usage,
          output_tokens: 1
        })
      }),
      this.#event({ type: "ping" })
    ]
  }

  #close(): Array<string> {
    const open = this.#open
    if (open === undefined) return []
    this.#open = undefined
    const frames: Array<string> = []
    if (open.kind === "reasoning")
      frames.push(this.#delta(open.index, { type: "signature_delta", signature: signatureOf(open.text) }))
    frames.push(this.#event({ type: "content_block_stop", index: open.index }))
    return frames
  }

  content(part: ContentPart): ReadonlyArray<string> {
    if (part.kind === "reasoning" && !this.#thinking) return []
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
      case "reasoning": {
        const frames: Array<string> = []
        if (this.#open?.kind !== part.kind) {
          frames.push(...this.#close())
          const index = this.#blocks++
          this.#open = { kind: part.kind, index, text: "" }
          const block: ContentBlock =
            part.kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" }
          frames.push(this.#event({ type: "content_block_start", index, content_block: block }))
        }
        const open = this.#open!
        open.text += part.text
        if (part.kind === "text" && this.#frame === sseEvent) {
          // The most frequent frame, written from a prefix per block: the same bytes `#delta` writes.
          if (this.#textPrefix?.index !== open.index)
            this.#textPrefix = {
              index: open.index,
              text: `event: content_block_delta\ndata: {"type":"content_block_delta","index":${open.index},"delta":{"type":"text_delta","text":`
            }
          frames.push(`${this.#textPrefix.text}${JSON.stringify(part.text)}}}\n\n`)
          return frames
        }
        frames.push(
          this.#delta(
            open.index,
            part.kind === "text"
              ? { type: "text_delta", text: part.text }
              : { type: "thinking_delta", thinking: part.text }
          )
        )
        return frames
      }
      case "toolCall": {
        const frames = this.#close()
        const index = this.#blocks++
        frames.push(
          this.#event({
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: toolUseId(part.id), name: part.name, input: {} }
          })
        )
        for (const fragment of part.fragments)
          frames.push(this.#delta(index, { type: "input_json_delta", partial_json: fragment }))
        frames.push(this.#event({ type: "content_block_stop", index }))
        return frames
      }
    }
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, true)
  }

  error(message: string): ReadonlyArray<string> {
    return [this.#event({ type: "error", error: { type: "api_error", message } })]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const frames = this.#close()
    const usage = usageBlock(usageOf(given ?? this.#hint, this.#invocation.request.material, this.#outputTokens))
    frames.push(
      this.#event({ type: "message_delta", delta: { stop_reason: stopReason(finish), stop_sequence: null }, usage }),
      this.#event({ type: "message_stop" })
    )
    return frames
  }

  malformed(): string {
    return truncatedFrame(
      { type: "content_block_delta", index: this.#blocks, delta: { type: "text_delta", text: "" } },
      "content_block_delta"
    )
  }
}

const sseEvent = (event: StreamEvent): string => namedFrame(event.type, event)
const decodeMessages = compiledDecoder(MessagesRequest)

/**
 * The Messages body wherever it travels (the Messages API, and Claude on Bedrock and Vertex AI,
 * which carry the same body with the model in the URL): its turns, the fields of its key, the
 * `message` answer and a stream writer whose events are framed by `frame` (SSE by default; one
 * JSON event a frame for a transport that wraps them itself).
 */
export const messagesBody = {
  keyFields: KEY_FIELDS,
  turns: (body: MessagesRequest): Array<LlmTurn> => turnsOf(body),
  /**
   * Reads a Messages body sent to `model` named in the URL (the body has none), as `api`; streamed
   * when `stream` says so, or else when the body does.
   */
  readAt: (
    api: string,
    request: SimRequest,
    raw: unknown,
    model: string,
    stream?: boolean
  ): Result.Result<ConversationInput, string> => {
    const decoded = decodeMessages(typeof raw === "object" && raw !== null ? { ...raw, model } : raw)
    if (Exit.isFailure(decoded))
      return Result.fail(`the body is not an Anthropic Messages request: ${String(decoded.cause)}`)
    const body = decoded.value
    return Result.succeed({
      api,
      url: request.url.href,
      raw,
      model,
      stream: stream ?? body.stream === true,
      turns: turnsOf(body),
      tools: (body.tools ?? []).map((tool) => tool.name),
      key: requestKeyOf(raw, KEY_FIELDS, { model }),
      structured: anthropicStructured(raw)
    })
  },
  answer: (
    invocation: LlmInvocation,
    parts: ReadonlyArray<Part>,
    finish: Finish,
    usage: TokenUsage
  ): Message | JsonText => {
    const templates = thinks(invocation) ? thinkingTemplates : plainTemplates
    return templates.write(parts, [
      messageId(invocation),
      invocation.request.model,
      stopReason(finish),
      usage.inputTokens,
      usage.outputTokens
    ])
  },
  writer: (
    invocation: LlmInvocation,
    usage: TokenUsage | undefined,
    frame: (event: StreamEvent) => string = sseEvent
  ): StreamWriter => new AnthropicWriter(invocation, usage, frame)
}

/**
 * The Anthropic Messages wire format.
 */
export const anthropicWire: ModelWire = {
  api: "anthropic.messages",
  name: "anthropic",
  defaultBaseUrl: DEFAULT_ANTHROPIC_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/v1/messages"),
  baseUrlAt: baseUrlUnder(DEFAULT_ANTHROPIC_BASE_URL, "/v1"),
  requestIdHeader: "request-id",
  rateLimits: anthropicRateLimits,
  read: readWith("anthropic.messages", MessagesRequest, "Messages", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream === true,
    turns: turnsOf(body),
    tools: (body.tools ?? []).map((tool) => tool.name),
    key: requestKeyOf(raw, KEY_FIELDS),
    structured: anthropicStructured(raw)
  })),
  writer: (invocation, usage) => messagesBody.writer(invocation, usage),
  answer: messagesBody.answer,
  errorBody: anthropicErrorBody,
  readBack: anthropicReadBack
}

/**
 * The responder of `GET {base}/v1/models`.
 */
const modelsResponder =
  (models: ReadonlyArray<string>): Responder =>
  () =>
    Effect.sync(() => {
      const list: ModelList = {
        data: models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" })),
        has_more: false,
        first_id: models[0] ?? null,
        last_id: models.at(-1) ?? null
      }
      return jsonWhole(list, 200)
    })

/**
 * The Anthropic routes: `POST {base}/v1/messages` and `GET {base}/v1/models`, ids
 * `anthropic.messages` and `anthropic.models` (suffixed by the base URL when it is not the
 * default), source `anthropic`.
 */
export const anthropicRoutes = (options: AnthropicRoutesOptions = {}): ReadonlyArray<Route> => {
  return modelApi("anthropic", DEFAULT_ANTHROPIC_BASE_URL, options.baseUrl, [
    { name: "messages", method: "POST", path: "/v1/messages", endpoint: "messages", wire: anthropicWire },
    {
      name: "models",
      method: "GET",
      path: "/v1/models",
      endpoint: "models",
      parts: { answer: answerWith(modelsResponder(options.models ?? DEFAULT_ANTHROPIC_MODELS)) }
    }
  ])
}
