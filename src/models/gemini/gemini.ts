/**
 * The Gemini API: `POST {base}/v1beta/models/{model}:generateContent` (one response) and
 * `:streamGenerateContent?alt=sse` (one `data:` chunk per text or thinking fragment and per
 * `functionCall`, the last chunk carrying `finishReason` and `usageMetadata`), `:embedContent`
 * and `:batchEmbedContents` (the vectors of the embeddings module), and `GET {base}/v1beta/models`.
 * Step N of a script answers the call after N user turns of `functionResponse` parts. Errors
 * carry Google's body (`{error: {code, message, status}}`; 429 `RESOURCE_EXHAUSTED`).
 */
import { compiledDecoder } from "../wire/compiled.ts"
import { Effect, Exit } from "effect"
import {
  type Answerer,
  answerWith,
  type RespondContext,
  type Responder,
  type Route,
  type SimRequest
} from "../../registry/route.ts"
import { pending } from "../../registry/answer.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf, textOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter } from "../provider/parts.ts"
import { gather, parseArguments, partTokens, usageOf } from "../provider/parts.ts"
import { truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type {
  GeminiBatchEmbedResponse,
  GeminiEmbedRequest,
  GeminiEmbedResponse
} from "../embeddings/embeddingsSchema.ts"
import { GeminiBatchEmbedRequest, GeminiEmbedRequest as EmbedRequest } from "../embeddings/embeddingsSchema.ts"
import type {
  ErrorBody,
  FinishReason as GeminiFinish,
  GenerateContentResponse,
  ModelList,
  RequestContent,
  ResponsePart,
  UsageMetadata
} from "./geminiSchema.ts"
import { GenerateContentRequest } from "./geminiSchema.ts"
import type { TokenUsage } from "../provider/parts.ts"
import { defaultDimensions, embed, vectorNumbers } from "../embeddings/embeddings.ts"
import { jsonWhole, modelAnswerer, modelResponder } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { geminiReadBack } from "./geminiReadBack.ts"
import { geminiStructured } from "../wire/structured.ts"
import { liveEndpoints, liveWireOf } from "./geminiLive.ts"

/**
 * The base URL `Routes.gemini` serves when none is given (paths add `/v1beta`).
 */
export const DEFAULT_GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"

/**
 * The models `GET {base}/v1beta/models` lists when none are given.
 */
export const DEFAULT_GEMINI_MODELS: ReadonlyArray<string> = [
  "gemini-2.5-pro",
  "gemini-2.5-flash",
  "gemini-embedding-001"
]

/**
 * Options of the Gemini routes: `baseUrl` (default `https://generativelanguage.googleapis.com`)
 * and `models` (the ids `GET /v1beta/models` lists).
 */
export interface GeminiRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

const KEY_FIELDS = [
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "safetySettings",
  "cachedContent"
]

const partsText = (parts: ReadonlyArray<{ readonly text?: string | undefined }>): string =>
  parts.map((part) => part.text ?? "").join("")

const turnOf = (content: RequestContent): LlmTurn => {
  const responses = content.parts.filter((part) => part.functionResponse !== undefined)
  if (responses.length > 0 || content.role === "function" || content.role === "tool") {
    return { role: "tool", text: responses.map((part) => textOf(part.functionResponse?.response)).join("\n") }
  }
  const text = partsText(content.parts.filter((part) => part.thought !== true))
  if (content.role === "model") {
    const calls = content.parts.flatMap((part) =>
      part.functionCall === undefined
        ? []
        : [{ name: part.functionCall.name, arguments: textOf(part.functionCall.args ?? {}) }]
    )
    return { role: "assistant", text, calls }
  }
  return { role: "user", text }
}

const statusName = (code: number): string => {
  switch (code) {
    case 400:
      return "INVALID_ARGUMENT"
    case 401:
      return "UNAUTHENTICATED"
    case 403:
      return "PERMISSION_DENIED"
    case 404:
      return "NOT_FOUND"
    case 429:
      return "RESOURCE_EXHAUSTED"
    case 503:
      return "UNAVAILABLE"
    case 504:
      return "DEADLINE_EXCEEDED"
    default:
      return code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"
  }
}

/**
 * Google's error body for a status.
 */
export const geminiErrorBody = (status: number, message: string): ErrorBody => ({
  error: { code: status, message, status: statusName(status) }
})

/**
 * The `finishReason` of a finish; a finish the client cannot name (`null`) is
 * `FINISH_REASON_UNSPECIFIED`, which the AI SDK reports as "other".
 */
const finishReason = (finish: Finish): GeminiFinish =>
  finish === null
    ? "FINISH_REASON_UNSPECIFIED"
    : finish === "length"
      ? "MAX_TOKENS"
      : finish === "content_filter"
        ? "SAFETY"
        : "STOP"

const usageMetadata = (usage: TokenUsage, thoughts: number): UsageMetadata => ({
  promptTokenCount: usage.inputTokens,
  candidatesTokenCount: usage.outputTokens,
  totalTokenCount: usage.totalTokens,
  ...(thoughts > 0 ? { thoughtsTokenCount: Math.min(thoughts, usage.outputTokens) } : {})
})

const response = (
  invocation: LlmInvocation,
  parts: ReadonlyArray<ResponsePart>,
  end?: { readonly finish: GeminiFinish; readonly usage: UsageMetadata }
): GenerateContentResponse => ({
  candidates: [
    { content: { parts, role: "model" }, ...(end === undefined ? {} : { finishReason: end.finish }), index: 0 }
  ],
  ...(end === undefined ? {} : { usageMetadata: end.usage }),
  modelVersion: invocation.request.model,
  responseId: `sim-${invocation.seq}`
})

const frame = (value: GenerateContentResponse | ErrorBody): string => `data: ${JSON.stringify(value)}\r\n\r\n`

const callPart = (part: Extract<Part, { kind: "toolCall" }>): ResponsePart => ({
  functionCall: { name: part.name, args: parseArguments(part.fragments.join("")) }
})

/**
 * Writes a streamed answer: one chunk per fragment or call, then the closing chunk.
 */
class GeminiWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  #outputTokens = 0
  #thoughts = 0

  constructor(invocation: LlmInvocation) {
    this.#invocation = invocation
  }

  open(): ReadonlyArray<string> {
    return []
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
        return [frame(response(this.#invocation, [{ text: part.text }]))]
      case "reasoning":
        this.#thoughts++
        return [frame(response(this.#invocation, [{ text: part.text, thought: true }]))]
      case "toolCall":
        return [frame(response(this.#invocation, [callPart(part)]))]
    }
  }

  chunk(value: unknown): string {
    return `data: ${JSON.stringify(value)}\r\n\r\n`
  }

  error(message: string): ReadonlyArray<string> {
    return [frame(geminiErrorBody(500, message))]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageMetadata(usageOf(given, this.#invocation.request.material, this.#outputTokens), this.#thoughts)
    return [frame(response(this.#invocation, [{ text: "" }], { finish: finishReason(finish), usage }))]
  }

  malformed(): string {
    return truncatedFrame(response(this.#invocation, [{ text: "" }]), undefined, "\r\n")
  }
}

/**
 * The `{model}:{method}` of a request's last path segment.
 */
export const callOf = (request: SimRequest): { readonly model: string; readonly method: string } => {
  const last = decodeURIComponent(request.url.pathname.slice(request.url.pathname.lastIndexOf("/") + 1))
  const colon = last.lastIndexOf(":")
  return colon === -1 ? { model: last, method: "" } : { model: last.slice(0, colon), method: last.slice(colon + 1) }
}

/**
 * The Gemini `generateContent` wire format (streamed when the method is `streamGenerateContent`).
 */
export const geminiWire: ModelWire = {
  api: "gemini",
  name: "gemini",
  defaultBaseUrl: DEFAULT_GEMINI_BASE_URL,
  calls: (method, pathname) => method === "POST" && /:(stream)?[gG]enerateContent$/.test(pathname),
  baseUrlAt: baseUrlUnder(DEFAULT_GEMINI_BASE_URL, ""),
  requestIdHeader: "x-request-id",
  read: readWith("gemini", GenerateContentRequest, "generateContent", (body, request, raw) => {
    const { model, method } = callOf(request)
    const turns: Array<LlmTurn> = []
    if (body.systemInstruction !== undefined)
      turns.push({ role: "system", text: partsText(body.systemInstruction.parts) })
    for (const content of body.contents) turns.push(turnOf(content))
    return {
      model,
      stream: method === "streamGenerateContent",
      turns,
      tools: (body.tools ?? []).flatMap((tool) =>
        (tool.functionDeclarations ?? []).map((declaration) => declaration.name)
      ),
      key: requestKeyOf(raw, KEY_FIELDS, { model }),
      structured: geminiStructured(raw)
    }
  }),
  writer: (invocation) => new GeminiWriter(invocation),
  answer: (invocation, parts, finish, usage) => {
    const { textJson, reasoning } = gather(parts)
    const out: Array<ResponsePart> = []
    if (reasoning !== undefined) out.push({ text: reasoning, thought: true })
    if (textJson !== undefined) out.push({ text: textJson })
    for (const part of parts) if (part.kind === "toolCall") out.push(callPart(part))
    const thoughts = parts.filter((part) => part.kind === "reasoning").length
    return response(invocation, out, { finish: finishReason(finish), usage: usageMetadata(usage, thoughts) })
  },
  errorBody: geminiErrorBody,
  readBack: geminiReadBack
}

const decodeEmbed = compiledDecoder(EmbedRequest)
const decodeBatch = compiledDecoder(GeminiBatchEmbedRequest)

const vectorOf = (seed: number, model: string, request: GeminiEmbedRequest) => ({
  values: vectorNumbers(
    embed(seed, partsText(request.content.parts), request.outputDimensionality ?? defaultDimensions(model))
  )
})

const badRequest = (message: string) => jsonWhole(geminiErrorBody(400, `simnet: ${message}`), 400)

/**
 * The responder of `POST {base}/v1beta/models/{model}:{method}`: `generateContent` and
 * `streamGenerateContent` are answered by the network's `SimulatedProvider`, `embedContent` and
 * `batchEmbedContents` from the run seed; any other method is a 404.
 */
export const geminiResponderFor = (wire: ModelWire): Responder => {
  const generate = modelResponder(wire)
  return (request, context) => answerGemini(generate, request, context)
}

const answerGemini = (generate: Responder, request: SimRequest, context: RespondContext) => {
  const { model, method } = callOf(request)
  switch (method) {
    case "generateContent":
    case "streamGenerateContent":
      return generate(request, context)
    case "embedContent":
      return Effect.sync(() => {
        const decoded = decodeEmbed(request.json())
        if (Exit.isFailure(decoded))
          return badRequest(`the body is not an embedContent request: ${String(decoded.cause)}`)
        const answer: GeminiEmbedResponse = { embedding: vectorOf(context.runSeed, model, decoded.value) }
        return jsonWhole(answer, 200)
      })
    case "batchEmbedContents":
      return Effect.sync(() => {
        const decoded = decodeBatch(request.json())
        if (Exit.isFailure(decoded))
          return badRequest(`the body is not a batchEmbedContents request: ${String(decoded.cause)}`)
        const answer: GeminiBatchEmbedResponse = {
          embeddings: decoded.value.requests.map((one) => vectorOf(context.runSeed, model, one))
        }
        return jsonWhole(answer, 200)
      })
    default:
      return Effect.succeed(
        jsonWhole(geminiErrorBody(404, `simnet: models/${model}:${method} is not a method simnet serves`), 404)
      )
  }
}

/** `geminiResponderFor` as a route's answer, a generate call had at once where nothing waits (`modelAnswerer`). */
export const geminiAnswererFor = (wire: ModelWire): Answerer => {
  const generate = modelAnswerer(wire)
  const responder = geminiResponderFor(wire)
  return (request, context) => {
    const { method } = callOf(request)
    return method === "generateContent" || method === "streamGenerateContent"
      ? generate(request, context)
      : pending(responder(request, context))
  }
}

/** Gemini Live's wire (`geminiLive.ts`). */
export const geminiLiveWire: ModelWire = liveWireOf(geminiWire)

const modelsResponder =
  (models: ReadonlyArray<string>): Responder =>
  () =>
    Effect.sync(() => {
      const list: ModelList = {
        models: models.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: id.includes("embedding")
            ? ["embedContent", "batchEmbedContents"]
            : ["generateContent", "countTokens"]
        }))
      }
      return jsonWhole(list, 200)
    })

/**
 * The Gemini routes: `POST {base}/v1beta/models/:call` (`{model}:generateContent`,
 * `:streamGenerateContent`, `:embedContent`, `:batchEmbedContents`) and
 * `GET {base}/v1beta/models`, ids `gemini.models.call` and `gemini.models`, and the same under
 * `/v1` (the stable version, which `@google/genai` 3.x calls), ids `gemini.v1.models.call` and
 * `gemini.v1.models` (each suffixed by the base URL when it is not the default); source `gemini`.
 */
export const geminiRoutes = (options: GeminiRoutesOptions = {}): ReadonlyArray<Route> => {
  return modelApi("gemini", DEFAULT_GEMINI_BASE_URL, options.baseUrl, [
    {
      name: "models.call",
      method: "POST",
      path: "/v1beta/models/:call",
      endpoint: "models/{model}:{method}",
      parts: { answer: geminiAnswererFor(geminiWire) }
    },
    {
      name: "models",
      method: "GET",
      path: "/v1beta/models",
      endpoint: "models",
      parts: { answer: answerWith(modelsResponder(options.models ?? DEFAULT_GEMINI_MODELS)) }
    },
    // The stable API version: @google/genai 3.x calls /v1 unless told apiVersion "v1beta".
    {
      name: "v1.models.call",
      method: "POST",
      path: "/v1/models/:call",
      endpoint: "v1 models/{model}:{method}",
      parts: { answer: geminiAnswererFor(geminiWire) }
    },
    {
      name: "v1.models",
      method: "GET",
      path: "/v1/models",
      endpoint: "v1 models",
      parts: { answer: answerWith(modelsResponder(options.models ?? DEFAULT_GEMINI_MODELS)) }
    },
    ...liveEndpoints(geminiLiveWire)
  ])
}
