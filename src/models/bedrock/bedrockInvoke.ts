/**
 * Bedrock's InvokeModel (`POST /model/{modelId}/invoke`) and InvokeModelWithResponseStream
 * (`…/invoke-with-response-stream`): each model's own body — Anthropic's Messages body (Claude),
 * Amazon Nova's (the Converse shapes) or Meta Llama's (a prompt) — answered in that body;
 * streamed, each of the model's events goes in a `chunk` event as base64 `bytes`.
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { Exit, Result } from "effect"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { parseArguments, partTokens, usageOf } from "../provider/parts.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type { LlamaResponse } from "./bedrockSchema.ts"
import { ConverseRequest, LlamaRequest } from "./bedrockSchema.ts"
import { messagesBody } from "../anthropic/anthropic.ts"
import type { ModelWire } from "../wire/wire.ts"
import { invokeReadBack } from "./bedrockReadBack.ts"
import {
  baseUrlAt,
  bedrockErrorBody,
  chunkFrame,
  chunkLines,
  converseAnswer,
  converseEvent,
  converseInput,
  ConverseWriter,
  DEFAULT_BEDROCK_BASE_URL,
  isRuntimeCall,
  modelIdOf,
  streamedUrl
} from "./bedrockConverse.ts"

type Dialect = "anthropic" | "nova" | "llama"

/** Which model body an id carries (`anthropic.claude-…`, `us.anthropic.claude-…`, `amazon.nova-…`, `meta.llama…`). */
const dialectOf = (modelId: string): Dialect | undefined => {
  const id =
    modelId.includes(":inference-profile/") || modelId.includes(":foundation-model/")
      ? modelId.slice(modelId.lastIndexOf("/") + 1)
      : modelId
  const provider = id.split(".").find((part) => part === "anthropic" || part === "amazon" || part === "meta")
  return provider === "anthropic"
    ? "anthropic"
    : provider === "amazon"
      ? "nova"
      : provider === "meta"
        ? "llama"
        : undefined
}

const decodeConverse = compiledDecoder(ConverseRequest)
const decodeLlama = compiledDecoder(LlamaRequest)

/** The last user message of a Llama chat-template prompt, or the whole prompt when it has none. */
const llamaTurns = (prompt: string): Array<LlmTurn> => {
  const segments = [
    ...prompt.matchAll(
      /<\|start_header_id\|>(system|user|assistant|ipython)<\|end_header_id\|>\s*([\s\S]*?)(?:<\|eot_id\|>|$)/g
    )
  ]
  if (segments.length === 0) return [{ role: "user", text: prompt }]
  return segments
    .filter((segment) => segment[2]!.length > 0)
    .map((segment) => ({
      role: segment[1] === "ipython" ? "tool" : (segment[1] as LlmTurn["role"]),
      text: segment[2]!.trim()
    }))
}

const invalid = (what: string, cause: unknown) => Result.fail(`the body is not ${what} request: ${String(cause)}`)

const readInvoke: ModelWire["read"] = (request, raw) => {
  const model = modelIdOf(request)
  const stream = streamedUrl(request)
  const base = { api: "bedrock.invoke", url: request.url.href, raw, model, stream }
  switch (dialectOf(model)) {
    case "anthropic":
      return messagesBody.readAt("bedrock.invoke", request, raw, model, stream)
    case "nova": {
      const decoded = decodeConverse(raw)
      if (Exit.isFailure(decoded)) return invalid("an Amazon Nova", decoded.cause)
      return Result.succeed({ ...base, ...converseInput(decoded.value, request, raw, stream) })
    }
    case "llama": {
      const decoded = decodeLlama(raw)
      if (Exit.isFailure(decoded)) return invalid("a Meta Llama", decoded.cause)
      return Result.succeed({
        ...base,
        turns: llamaTurns(decoded.value.prompt),
        tools: [],
        key: requestKeyOf(raw, ["prompt", "max_gen_len", "temperature", "top_p"], { model })
      })
    }
    case undefined:
      return Result.fail(
        `simnet answers InvokeModel for Anthropic, Amazon Nova and Meta Llama models; "${model}" is none of them (Converse serves every model)`
      )
  }
}

const llamaStop = (finish: Finish): "stop" | "length" => (finish === "length" ? "length" : "stop")

/** Writes Llama's streamed chunks: one `generation` a part, the counts and stop reason on the last. */
class LlamaWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  #outputTokens = 0

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined) {
    this.#invocation = invocation
    this.#hint = hint
  }

  #chunk(value: LlamaResponse & Record<string, unknown>): string {
    return JSON.stringify(value)
  }

  open(): ReadonlyArray<string> {
    return []
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
        return [
          this.#chunk({
            generation: part.text,
            prompt_token_count: null,
            generation_token_count: this.#outputTokens,
            stop_reason: null
          })
        ]
      case "toolCall":
        return [
          this.#chunk({
            generation: JSON.stringify({ name: part.name, parameters: parseArguments(part.fragments.join("")) }),
            prompt_token_count: null,
            generation_token_count: this.#outputTokens,
            stop_reason: null
          })
        ]
      case "reasoning":
        return []
    }
  }

  chunk(value: unknown): string {
    return JSON.stringify(value)
  }

  error(text: string): ReadonlyArray<string> {
    return [converseEvent({ internalServerException: { message: text } })]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageOf(given ?? this.#hint, this.#invocation.request.material, this.#outputTokens)
    return [
      this.#chunk({
        generation: "",
        prompt_token_count: usage.inputTokens,
        generation_token_count: usage.outputTokens,
        stop_reason: llamaStop(finish),
        "amazon-bedrock-invocationMetrics": {
          inputTokenCount: usage.inputTokens,
          outputTokenCount: usage.outputTokens,
          invocationLatency: 0,
          firstByteLatency: 0
        }
      })
    ]
  }

  malformed(): string {
    return '{"generation":"'
  }
}

const llamaText = (parts: ReadonlyArray<Part>): string =>
  parts
    .map((part) =>
      part.kind === "text"
        ? part.text
        : part.kind === "toolCall"
          ? JSON.stringify({ name: part.name, parameters: parseArguments(part.fragments.join("")) })
          : ""
    )
    .join("")

/** The InvokeModel wire (`invoke` and `invoke-with-response-stream`), in each model's own body. */
export const invokeWire: ModelWire = {
  api: "bedrock.invoke",
  name: "bedrock",
  defaultBaseUrl: DEFAULT_BEDROCK_BASE_URL,
  calls: (method, pathname) => isRuntimeCall(method, pathname, ["/invoke", "/invoke-with-response-stream"]),
  baseUrlAt,
  requestIdHeader: "x-amzn-requestid",
  streaming: { contentType: "application/vnd.amazon.eventstream", encode: chunkFrame, decode: chunkLines },
  read: readInvoke,
  writer: (invocation, usage) => {
    switch (dialectOf(invocation.request.model)) {
      case "nova":
        return new ConverseWriter(invocation, usage)
      case "llama":
        return new LlamaWriter(invocation, usage)
      default:
        return messagesBody.writer(invocation, usage, (value) => JSON.stringify(value))
    }
  },
  answer: (invocation, parts, finish, usage) => {
    switch (dialectOf(invocation.request.model)) {
      case "nova":
        return converseAnswer(parts, finish, usage)
      case "llama":
        return {
          generation: llamaText(parts),
          prompt_token_count: usage.inputTokens,
          generation_token_count: usage.outputTokens,
          stop_reason: llamaStop(finish)
        } satisfies LlamaResponse
      default:
        return messagesBody.answer(invocation, parts, finish, usage)
    }
  },
  errorBody: bedrockErrorBody,
  readBack: invokeReadBack
}
