/**
 * OpenAI's `POST {base}/audio/transcriptions` and `POST {base}/audio/translations`: the
 * multipart upload is read (the file's name, type and size; `model`, `prompt`, `language`,
 * `response_format`, `stream`), and the text comes from the network's `SimulatedProvider` — the
 * script's or rule's text, as for a chat call (the request's user message is `audio:FILENAME`, so
 * a rule can tell files apart). Formats: `json` (`{ text, usage }`), `text`, `srt`, `vtt` and
 * `verbose_json`; `stream: true` sends `transcript.text.delta` and `transcript.text.done` events.
 */
import { Effect, Result } from "effect"
import { makeSimRequest } from "../../registry/request.ts"
import { answerWith, type Responder, type SimRequest } from "../../registry/route.ts"
import { settle, whole, type Whole } from "../../registry/answer.ts"
import { requestKeyOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { partTokens, usageOf } from "../provider/parts.ts"
import { dataFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import { DEFAULT_OPENAI_BASE_URL, openAiErrorBody } from "./chatWire.ts"
import { jsonWhole, modelResponder } from "../wire/call.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import type { ModelWire } from "../wire/wire.ts"

type Task = "transcribe" | "translate"

/** What the responder reads of the upload, and hands the wire as the request's JSON. */
interface Upload {
  readonly model: string
  readonly file: { readonly name: string; readonly type: string; readonly size: number }
  readonly prompt?: string | undefined
  readonly language?: string | undefined
  readonly response_format: string
  readonly stream: boolean
}

const usageBlock = (usage: TokenUsage) => ({
  type: "tokens",
  input_tokens: usage.inputTokens,
  output_tokens: usage.outputTokens,
  total_tokens: usage.totalTokens
})

const textOf = (parts: ReadonlyArray<Part>): string =>
  parts.map((part) => (part.kind === "text" ? part.text : "")).join("")

class TranscriptWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #hint: TokenUsage | undefined
  #text = ""
  #outputTokens = 0

  constructor(invocation: LlmInvocation, hint: TokenUsage | undefined) {
    this.#invocation = invocation
    this.#hint = hint
  }

  open(): ReadonlyArray<string> {
    return []
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    if (part.kind !== "text") return []
    this.#text += part.text
    return [dataFrame({ type: "transcript.text.delta", delta: part.text, logprobs: null })]
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, false)
  }

  error(message: string): ReadonlyArray<string> {
    return [dataFrame({ type: "error", error: { type: "server_error", message } })]
  }

  finish(_finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const usage = usageOf(given ?? this.#hint, this.#invocation.request.material, this.#outputTokens)
    return [dataFrame({ type: "transcript.text.done", text: this.#text, logprobs: null, usage: usageBlock(usage) })]
  }

  malformed(): string {
    return truncatedFrame({ type: "transcript.text.delta", delta: "" })
  }
}

const wireOf = (task: Task): ModelWire => {
  const api = task === "transcribe" ? "openai.transcription" : "openai.translation"
  const path = task === "transcribe" ? "/audio/transcriptions" : "/audio/translations"
  return {
    api,
    name: "openai",
    defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
    // Record mode reads a model call's JSON body; an upload is not one.
    calls: () => false,
    baseUrlAt: () => undefined,
    requestIdHeader: "x-request-id",
    read: (request, raw) => {
      const upload = raw as Upload
      return Result.succeed({
        api,
        url: request.url.href,
        raw,
        model: upload.model,
        stream: upload.stream,
        turns: [
          ...(upload.prompt === undefined ? [] : [{ role: "system" as const, text: upload.prompt }]),
          { role: "user" as const, text: `audio:${upload.file.name}` }
        ],
        tools: [],
        key: requestKeyOf(raw, ["model", "file", "prompt", "language"], { path })
      })
    },
    writer: (invocation, usage) => new TranscriptWriter(invocation, usage),
    answer: (invocation, parts, _finish, usage) => {
      const upload = invocation.request.raw as Upload
      const text = textOf(parts)
      if (upload.response_format !== "verbose_json") return { text, usage: usageBlock(usage) }
      const duration = Math.max(1, text.split(/\s+/).length * 0.4)
      return {
        task,
        language: task === "translate" ? "english" : (upload.language ?? "english"),
        duration,
        text,
        segments: [
          {
            id: 0,
            seek: 0,
            start: 0,
            end: duration,
            text,
            tokens: [],
            temperature: 0,
            avg_logprob: -0.1,
            compression_ratio: 1,
            no_speech_prob: 0
          }
        ]
      }
    },
    errorBody: openAiErrorBody,
    readBack: () => undefined
  }
}

export const transcriptionWire: ModelWire = wireOf("transcribe")
export const translationWire: ModelWire = wireOf("translate")

const stamp = (seconds: number, comma: boolean): string => {
  const ms = Math.round(seconds * 1000)
  const pad = (n: number, width = 2) => String(n).padStart(width, "0")
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${comma ? "," : "."}${pad(ms % 1000, 3)}`
}

/** A JSON answer `{ text }` in a text format: plain, SubRip or WebVTT (one cue for the whole text). */
const asFormat = (answer: Whole, format: string): Whole => {
  if (answer.status !== 200 || typeof answer.body !== "string") return answer
  const text = (JSON.parse(answer.body) as { readonly text?: string }).text ?? ""
  const end = Math.max(1, text.split(/\s+/).length * 0.4)
  const body =
    format === "srt"
      ? `1\n${stamp(0, true)} --> ${stamp(end, true)}\n${text}\n\n`
      : format === "vtt"
        ? `WEBVTT\n\n${stamp(0, false)} --> ${stamp(end, false)}\n${text}\n\n`
        : `${text}\n`
  return whole(200, { "content-type": "text/plain; charset=utf-8" }, body)
}

const FORMATS = new Set(["json", "text", "srt", "vtt", "verbose_json"])

const field = (form: FormData, name: string): string | undefined => {
  const value = form.get(name)
  return typeof value === "string" ? value : undefined
}

const responderOf = (wire: ModelWire): Responder => {
  const answer = modelResponder(wire)
  const bad = (message: string) => Effect.succeed(jsonWhole(openAiErrorBody(400, `simnet: ${message}`, undefined), 400))
  return (request: SimRequest, context) =>
    Effect.flatMap(
      Effect.promise(() =>
        new Response(request.body as BodyInit | undefined, {
          headers: { "content-type": request.headers.get("content-type") ?? "" }
        })
          .formData()
          .catch(() => undefined)
      ),
      (form) => {
        if (form === undefined) return bad("an audio upload is multipart/form-data")
        const file = form.get("file")
        const model = field(form, "model")
        if (file === null || typeof file === "string") return bad("the upload has no file")
        if (model === undefined) return bad("the upload has no model")
        const format = field(form, "response_format") ?? "json"
        if (!FORMATS.has(format)) return bad(`response_format must be one of ${[...FORMATS].join(", ")}`)
        const upload: Upload = {
          model,
          file: { name: file.name, type: file.type, size: file.size },
          prompt: field(form, "prompt"),
          language: field(form, "language"),
          response_format: format,
          stream: field(form, "stream") === "true"
        }
        const json = makeSimRequest({
          method: "POST",
          url: request.url,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(upload),
          signal: request.signal
        })
        return Effect.map(answer(json, context), (answered) => {
          const settled = answered instanceof Response ? settle(answered) : answered
          return settled._tag === "Whole" && (format === "text" || format === "srt" || format === "vtt")
            ? asFormat(settled, format)
            : answered
        })
      }
    )
}

/** `POST {base}/audio/transcriptions` and `POST {base}/audio/translations`. */
export const transcriptionEndpoints: ReadonlyArray<PartsEndpoint> = [
  {
    name: "transcriptions",
    method: "POST",
    path: "/audio/transcriptions",
    endpoint: "audio/transcriptions",
    parts: { answer: answerWith(responderOf(transcriptionWire)) }
  },
  {
    name: "translations",
    method: "POST",
    path: "/audio/translations",
    endpoint: "audio/translations",
    parts: { answer: answerWith(responderOf(translationWire)) }
  }
]
