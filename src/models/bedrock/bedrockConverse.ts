/**
 * Amazon Bedrock's runtime API, answered by the network's `SimulatedProvider`:
 * - **Converse** (`POST /model/{modelId}/converse`) and **ConverseStream** (`…/converse-stream`),
 *   the same for every model: Converse's messages in, its `output.message` out, and, streamed,
 *   `messageStart`, `contentBlockStart`/`Delta`/`Stop`, `messageStop` and `metadata` events;
 * - **InvokeModel** (`…/invoke`) and **InvokeModelWithResponseStream**
 *   (`…/invoke-with-response-stream`), carrying the model's own body: Anthropic's Messages body
 *   (Claude), Amazon Nova's (the Converse shapes) or Meta Llama's (a prompt); streamed, each of
 *   the model's events goes in a `chunk` event as base64 `bytes`.
 *
 * Streams are AWS event streams (binary frames with their CRCs), encoded by Smithy's own codec
 * (`@smithy/core/event-streams`), loaded on the first stream. Errors carry Bedrock's body
 * (`message`) and the exception's name (`ThrottlingException` for a 429, …) where the AWS SDK
 * reads it. The SigV4 `authorization` and `x-amz-security-token` headers are accepted as sent,
 * and redacted as credentials everywhere simnet writes a request down.
 */
import { createRequire } from "node:module"
import { crc32 } from "node:zlib"
import type { SimRequest } from "../../registry/route.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf, textOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { parseArguments, partTokens, usageOf } from "../provider/parts.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type {
  BedrockErrorBody,
  ConverseAnswerBlock,
  ConverseBlock,
  ConverseRequest as ConverseRequestType,
  ConverseResponse,
  ConverseStopReason,
  ConverseStreamEvent,
  ConverseUsage
} from "./bedrockSchema.ts"
import { ConverseRequest } from "./bedrockSchema.ts"
import { type ModelWire, readWith } from "../wire/wire.ts"
import { converseReadBack } from "./bedrockReadBack.ts"

/** The base URL `Routes.bedrock` serves when none is given: the runtime endpoint of `us-east-1`. */
export const DEFAULT_BEDROCK_BASE_URL = "https://bedrock-runtime.us-east-1.amazonaws.com"

interface CodecMessage {
  readonly headers: Record<string, { readonly type: string; readonly value: unknown }>
  readonly body: Uint8Array
}

interface Codec {
  encode(message: CodecMessage): Uint8Array
  decode(message: ArrayBufferView): CodecMessage
  formatHeaders(headers: CodecMessage["headers"]): Uint8Array
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
let codec: Codec | undefined
/** Smithy's event-stream codec, loaded on first use. */
export const codecOf = (): Codec => {
  if (codec !== undefined) return codec
  const { EventStreamCodec } = createRequire(import.meta.url)("@smithy/core/event-streams") as {
    readonly EventStreamCodec: new (
      toUtf8: (bytes: Uint8Array) => string,
      fromUtf8: (text: string) => Uint8Array
    ) => Codec
  }
  codec = new EventStreamCodec(
    (bytes) => decoder.decode(bytes),
    (text) => encoder.encode(text)
  )
  return codec
}

const header = (value: string) => ({ type: "string" as const, value })

/** The headers of an event (or, its name ending in `Exception`, an exception) of `type`. */
export const eventHeaders = (type: string): CodecMessage["headers"] =>
  type.endsWith("Exception")
    ? {
        ":message-type": header("exception"),
        ":exception-type": header(type),
        ":content-type": header("application/json")
      }
    : { ":message-type": header("event"), ":event-type": header(type), ":content-type": header("application/json") }

/** Each event type's headers as the codec formats them, made once (bounded: an API's types are few). */
const headerBytes = new Map<string, Uint8Array>()

/**
 * One event-stream message of `type` whose payload is `json` (its JSON text). Kept for speed (the
 * codec's `encode` costs about 18 µs a message, this about 3): the headers are formatted by the
 * codec once per type, and the prelude, its CRC and the message CRC are framed here with Node's
 * native CRC-32, byte for byte what `encode` writes (`test/internal/eventStream.test.ts` holds it
 * to the codec's encode and decode).
 */
export const eventMessage = (type: string, json: string): Uint8Array => {
  let headers = headerBytes.get(type)
  if (headers === undefined) {
    headers = codecOf().formatHeaders(eventHeaders(type))
    if (headerBytes.size < 64) headerBytes.set(type, headers)
  }
  const payload = encoder.encode(json)
  const total = 12 + headers.length + payload.length + 4
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  view.setUint32(0, total)
  view.setUint32(4, headers.length)
  view.setUint32(8, crc32(out.subarray(0, 8)))
  out.set(headers, 12)
  out.set(payload, 12 + headers.length)
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)))
  return out
}

/** One event-stream message of `type` carrying `payload` as JSON. */
const message = (type: string, payload: unknown): Uint8Array => eventMessage(type, JSON.stringify(payload))

/**
 * An event stream read back (record mode): each message as one line of JSON, `{ TYPE: payload }`
 * (an exception's name for its type); a message that does not decode ends the reading.
 */
const decodeStream = (bytes: Uint8Array, each: (type: string, payload: unknown) => string): string => {
  const lines: Array<string> = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let at = 0; at + 12 <= bytes.length; ) {
    const length = view.getUint32(at)
    if (length < 16 || at + length > bytes.length) break
    let message: CodecMessage
    try {
      message = codecOf().decode(bytes.subarray(at, at + length))
    } catch {
      break
    }
    at += length
    const type = String(message.headers[":event-type"]?.value ?? message.headers[":exception-type"]?.value ?? "")
    let payload: unknown
    try {
      payload = JSON.parse(decoder.decode(message.body))
    } catch {
      continue
    }
    lines.push(each(type, payload))
  }
  return lines.join("\n")
}

/** A ConverseStream read back: `{ "contentBlockDelta": … }` a line. */
export const converseLines = (bytes: Uint8Array): string =>
  decodeStream(bytes, (type, payload) => JSON.stringify({ [type]: payload }))

/** An InvokeModelWithResponseStream read back: each chunk's model event a line. */
export const chunkLines = (bytes: Uint8Array): string =>
  decodeStream(bytes, (type, payload) => {
    const chunk = (payload as { readonly bytes?: unknown }).bytes
    return type === "chunk" && typeof chunk === "string"
      ? Buffer.from(chunk, "base64").toString("utf8")
      : JSON.stringify({ [type]: payload })
  })

/** A frame as a truncated write leaves it: a message whose last bytes (its CRC) are wrong. */
const broken = (frame: string): Uint8Array => {
  const bytes = message("chunk", { bytes: Buffer.from(frame).toString("base64") })
  bytes[bytes.length - 1] ^= 0xff
  return bytes
}

/** A Converse frame (`{ "messageStop": {…} }`, one key) as its event-stream message. */
export const converseFrame = (frame: string): Uint8Array => {
  // The writer's own frames are `{"TYPE":PAYLOAD}`: split without parsing them again.
  const close = frame.indexOf('":')
  if (frame.startsWith('{"') && close > 2 && frame.endsWith("}") && /^[A-Za-z]+$/.test(frame.slice(2, close))) {
    return eventMessage(frame.slice(2, close), frame.slice(close + 2, -1))
  }
  let event: Record<string, unknown>
  try {
    event = JSON.parse(frame) as Record<string, unknown>
  } catch {
    return broken(frame)
  }
  const type = Object.keys(event)[0] ?? "chunk"
  return message(type, event[type])
}

/** A model's own stream event, as `InvokeModelWithResponseStream` carries it: a `chunk` of base64 `bytes`. */
export const chunkFrame = (frame: string): Uint8Array =>
  frame.startsWith("{")
    ? frame.startsWith('{"internalServerException"')
      ? converseFrame(frame)
      : message("chunk", { bytes: Buffer.from(frame).toString("base64") })
    : broken(frame)

const EXCEPTIONS: Readonly<Record<number, string>> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  503: "ServiceUnavailableException"
}

/** Bedrock's error body for a status, the exception named as the AWS SDK reads it. */
export const bedrockErrorBody = (status: number, text: string): BedrockErrorBody => ({
  message: text,
  __type: EXCEPTIONS[status] ?? (status >= 500 ? "InternalServerException" : "ValidationException")
})

/** The model id of a runtime URL (`/model/{modelId}/…`, the id percent-encoded as the SDK sends it). */
export const modelIdOf = (request: SimRequest): string => {
  const segments = request.url.pathname.split("/")
  const at = segments.indexOf("model")
  const id = at < 0 ? undefined : segments[at + 1]
  if (id === undefined) return ""
  try {
    return decodeURIComponent(id)
  } catch {
    return id
  }
}

export const streamedUrl = (request: SimRequest): boolean => request.url.pathname.endsWith("-stream")

const blockText = (block: ConverseBlock): string =>
  block.text ??
  (block.toolResult?.content ?? [])
    .map((part) => part.text ?? (part.json === undefined ? "" : textOf(part.json)))
    .join("")

const converseTurns = (body: ConverseRequestType): Array<LlmTurn> => {
  const turns: Array<LlmTurn> = []
  const system = (body.system ?? []).map((block) => block.text ?? "").join("\n")
  if (system.length > 0) turns.push({ role: "system", text: system })
  for (const message of body.messages) {
    const text = message.content
      .map(blockText)
      .filter((t) => t.length > 0)
      .join("\n")
    if (message.role === "assistant") {
      const calls = message.content.flatMap((block) =>
        block.toolUse === undefined ? [] : [{ name: block.toolUse.name, arguments: textOf(block.toolUse.input ?? {}) }]
      )
      turns.push({ role: "assistant", text, calls })
    } else {
      turns.push({ role: message.content.some((block) => block.toolResult !== undefined) ? "tool" : "user", text })
    }
  }
  return turns
}

const converseStop = (finish: Finish, parts: ReadonlyArray<Part> = []): ConverseStopReason => {
  switch (finish) {
    case "length":
      return "max_tokens"
    case "tool_calls":
    case "function_call":
      return "tool_use"
    case "content_filter":
      return "content_filtered"
    default:
      return parts.some((part) => part.kind === "toolCall") ? "tool_use" : "end_turn"
  }
}

const converseUsage = (usage: TokenUsage): ConverseUsage => ({
  inputTokens: usage.inputTokens,
  outputTokens: usage.outputTokens,
  totalTokens: usage.totalTokens
})

/** A tool call's id as Bedrock spells them (`tooluse_` and 22 characters), the same for the same call on every run. */
const toolUseId = (id: string): string =>
  /^call_\d+_\d+$/.test(id)
    ? `tooluse_${Buffer.from(`simnet/${id}`).toString("base64url").slice(0, 22).padEnd(22, "0")}`
    : id

const converseContent = (parts: ReadonlyArray<Part>): Array<ConverseAnswerBlock> => {
  const blocks: Array<ConverseAnswerBlock> = []
  let run: { kind: "text" | "reasoning"; text: string } | undefined
  const flush = () => {
    if (run === undefined) return
    blocks.push(
      run.kind === "text"
        ? { text: run.text }
        : { reasoningContent: { reasoningText: { text: run.text, signature: "" } } }
    )
    run = undefined
  }
  for (const part of parts) {
    if (part.kind === "text" || part.kind === "reasoning") {
      if (run !== undefined && run.kind !== part.kind) flush()
      run ??= { kind: part.kind, text: "" }
      run.text += part.text
    } else if (part.kind === "toolCall") {
      flush()
      blocks.push({
        toolUse: { toolUseId: toolUseId(part.id), name: part.name, input: parseArguments(part.fragments.join("")) }
      })
    }
  }
  flush()
  return blocks
}

export const converseAnswer = (parts: ReadonlyArray<Part>, finish: Finish, usage: TokenUsage): ConverseResponse => ({
  output: { message: { role: "assistant", content: converseContent(parts) } },
  stopReason: converseStop(finish, parts),
  usage: converseUsage(usage),
  metrics: { latencyMs: 0 }
})

export const converseEvent = (value: ConverseStreamEvent): string => JSON.stringify(value)

/** Writes a ConverseStream answer (and Nova's streamed chunks): one JSON event a frame, keyed by its type. */
export class ConverseWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  #blocks = 0
  #open: { readonly kind: "text" | "reasoning"; readonly index: number } | undefined
  #outputTokens = 0
  #calls = false

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined) {
    this.#invocation = invocation
    this.#hint = hint
  }

  open(): ReadonlyArray<string> {
    return [converseEvent({ messageStart: { role: "assistant" } })]
  }

  #close(): Array<string> {
    const open = this.#open
    if (open === undefined) return []
    this.#open = undefined
    return [converseEvent({ contentBlockStop: { contentBlockIndex: open.index } })]
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
      case "reasoning": {
        const frames: Array<string> = []
        if (this.#open?.kind !== part.kind) {
          frames.push(...this.#close())
          this.#open = { kind: part.kind, index: this.#blocks++ }
        }
        const contentBlockIndex = this.#open!.index
        frames.push(
          converseEvent({
            contentBlockDelta: {
              contentBlockIndex,
              delta: part.kind === "text" ? { text: part.text } : { reasoningContent: { text: part.text } }
            }
          })
        )
        return frames
      }
      case "toolCall": {
        this.#calls = true
        const frames = this.#close()
        const contentBlockIndex = this.#blocks++
        frames.push(
          converseEvent({
            contentBlockStart: {
              contentBlockIndex,
              start: { toolUse: { toolUseId: toolUseId(part.id), name: part.name } }
            }
          })
        )
        for (const input of part.fragments)
          frames.push(converseEvent({ contentBlockDelta: { contentBlockIndex, delta: { toolUse: { input } } } }))
        frames.push(converseEvent({ contentBlockStop: { contentBlockIndex } }))
        return frames
      }
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
    const stopReason = finish === "stop" && this.#calls ? "tool_use" : converseStop(finish)
    return [
      ...this.#close(),
      converseEvent({ messageStop: { stopReason } }),
      converseEvent({ metadata: { usage: converseUsage(usage), metrics: { latencyMs: 0 } } })
    ]
  }

  malformed(): string {
    return '{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"te'
  }
}

const CONVERSE_KEY = ["messages", "system", "toolConfig", "inferenceConfig", "additionalModelRequestFields"]

export const converseInput = (body: ConverseRequestType, request: SimRequest, raw: unknown, stream: boolean) => {
  const model = modelIdOf(request)
  return {
    model,
    stream,
    turns: converseTurns(body),
    tools: (body.toolConfig?.tools ?? []).flatMap((tool) => (tool.toolSpec === undefined ? [] : [tool.toolSpec.name])),
    key: requestKeyOf(raw, CONVERSE_KEY, { model })
  }
}

export const isRuntimeCall = (method: string, pathname: string, ends: ReadonlyArray<string>): boolean =>
  method === "POST" && pathname.includes("/model/") && ends.some((end) => pathname.endsWith(end))

export const baseUrlAt = (origin: string): string | undefined =>
  origin === DEFAULT_BEDROCK_BASE_URL ? undefined : origin

/** The Converse wire (`converse` and `converse-stream`). */
export const converseWire: ModelWire = {
  api: "bedrock.converse",
  name: "bedrock",
  defaultBaseUrl: DEFAULT_BEDROCK_BASE_URL,
  calls: (method, pathname) => isRuntimeCall(method, pathname, ["/converse", "/converse-stream"]),
  baseUrlAt,
  requestIdHeader: "x-amzn-requestid",
  streaming: { contentType: "application/vnd.amazon.eventstream", encode: converseFrame, decode: converseLines },
  read: readWith("bedrock.converse", ConverseRequest, "Converse", (body, request, raw) =>
    converseInput(body, request, raw, streamedUrl(request))
  ),
  writer: (invocation, usage) => new ConverseWriter(invocation, usage),
  answer: (_invocation, parts, finish, usage) => converseAnswer(parts, finish, usage),
  errorBody: bedrockErrorBody,
  readBack: converseReadBack
}
