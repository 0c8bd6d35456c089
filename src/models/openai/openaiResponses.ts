/**
 * The OpenAI Responses API: `POST {base}/responses`, streamed (the event sequence
 * `response.created`, `response.in_progress`, `response.output_item.added`, content parts and
 * their deltas, `response.output_item.done`, `response.completed`, each with its
 * `sequence_number`) and not (the `response` object). A script's steps become output items:
 * thinking a `reasoning` item with summary text, text a `message` item, each tool call a
 * `function_call` item. Step N answers the call whose `input` holds N runs of
 * `function_call_output` items after the last user message.
 */
import { requestKeyOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter } from "../provider/parts.ts"
import { partTokens, usageOf } from "../provider/parts.ts"
import { namedFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import { DEFAULT_OPENAI_BASE_URL, openAiErrorBody } from "./chatWire.ts"
import type { TokenUsage } from "../provider/parts.ts"
import type {
  CustomToolCallItem,
  FunctionCallItem,
  OutputItem,
  OutputMessage,
  ReasoningItem,
  ResponseObject,
  ResponseStreamEvent,
  ResponseUsage
} from "./responsesSchema.ts"
import { ResponsesRequest } from "./responsesSchema.ts"
import type { ModelEndpoint } from "../wire/modelApi.ts"
import { baseUrlUnder, type ModelWire, readWith } from "../wire/wire.ts"
import { openAiRateLimits } from "../wire/rateLimits.ts"
import { responsesReadBack } from "./openaiReadBack.ts"
import { responsesStructured } from "../wire/structured.ts"
import { inputTurns, offeredTools } from "./responsesInput.ts"

const KEY_FIELDS = [
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "temperature",
  "top_p",
  "max_output_tokens",
  "previous_response_id",
  "truncation"
]

const responseUsage = (usage: TokenUsage, reasoningTokens: number): ResponseUsage => ({
  input_tokens: usage.inputTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: usage.outputTokens,
  output_tokens_details: { reasoning_tokens: Math.min(reasoningTokens, usage.outputTokens) },
  total_tokens: usage.totalTokens
})

const field = <A>(raw: unknown, name: string, guard: (u: unknown) => u is A): A | undefined => {
  const value = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)[name] : undefined
  return guard(value) ? value : undefined
}
const isString = (u: unknown): u is string => typeof u === "string"
const isNumber = (u: unknown): u is number => typeof u === "number"
const isArray = (u: unknown): u is ReadonlyArray<unknown> => Array.isArray(u)

/**
 * How an answer's finish ends a response: `completed`, or `incomplete` with the reason —
 * `max_output_tokens` for `length`, `unknown` for a finish the client cannot name (`null`; the
 * AI SDK reports a reason it does not know as "other").
 */
interface End {
  readonly status: "completed" | "incomplete"
  readonly reason: string | undefined
}

const endOf = (finish: Finish): End =>
  finish === "length"
    ? { status: "incomplete", reason: "max_output_tokens" }
    : finish === null
      ? { status: "incomplete", reason: "unknown" }
      : { status: "completed", reason: undefined }

/**
 * The `response` object of an invocation with its output so far (`end` once it has ended).
 */
const responseObject = (
  invocation: LlmInvocation,
  end: End | "in_progress",
  output: ReadonlyArray<OutputItem>,
  usage: ResponseUsage | null
): ResponseObject => {
  const raw = invocation.request.raw
  return {
    id: `resp_sim_${invocation.seq}`,
    object: "response",
    created_at: invocation.created,
    status: end === "in_progress" ? end : end.status,
    error: null,
    incomplete_details: end === "in_progress" || end.reason === undefined ? null : { reason: end.reason },
    instructions: field(raw, "instructions", isString) ?? null,
    max_output_tokens: field(raw, "max_output_tokens", isNumber) ?? null,
    model: invocation.request.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: field(raw, "previous_response_id", isString) ?? null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: field(raw, "temperature", isNumber) ?? 1,
    text: { format: { type: "text" } },
    tool_choice: field(raw, "tool_choice", (u): u is unknown => u !== undefined) ?? "auto",
    tools: field(raw, "tools", isArray) ?? [],
    top_p: field(raw, "top_p", isNumber) ?? 1,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {}
  }
}

const itemId = (kind: "msg" | "rs" | "fc" | "ctc", seq: number, index: number) => `${kind}_sim_${seq}_${index}`

const message = (id: string, text: string, status: OutputMessage["status"]): OutputMessage => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }]
})

const functionCall = (
  id: string,
  callId: string,
  name: string,
  args: string,
  status: FunctionCallItem["status"]
): FunctionCallItem => ({
  type: "function_call",
  id,
  call_id: callId,
  name,
  arguments: args,
  status
})

const customCall = (
  id: string,
  callId: string,
  name: string,
  input: string,
  status: CustomToolCallItem["status"]
): CustomToolCallItem => ({
  type: "custom_tool_call",
  id,
  call_id: callId,
  name,
  input,
  status
})

const reasoning = (id: string, text: string | undefined): ReasoningItem => ({
  type: "reasoning",
  id,
  summary: text === undefined ? [] : [{ type: "summary_text", text }]
})

/**
 * The output items of a whole answer: consecutive reasoning fragments are one reasoning item,
 * consecutive text fragments one message, and each tool call a function call — the items a
 * stream of the same parts announces, with the same ids.
 */
const outputItems = (seq: number, parts: ReadonlyArray<Part>): Array<OutputItem> => {
  const items: Array<OutputItem> = []
  let run: { kind: "text" | "reasoning"; text: string } | undefined
  const flush = () => {
    if (run === undefined) return
    const id = itemId(run.kind === "text" ? "msg" : "rs", seq, items.length)
    items.push(run.kind === "text" ? message(id, run.text, "completed") : reasoning(id, run.text))
    run = undefined
  }
  for (const part of parts) {
    if (part.kind === "text" || part.kind === "reasoning") {
      if (run !== undefined && run.kind !== part.kind) flush()
      run ??= { kind: part.kind, text: "" }
      run.text += part.text
    } else if (part.kind === "toolCall") {
      flush()
      const id = itemId(part.custom === undefined ? "fc" : "ctc", seq, items.length)
      items.push(
        part.custom === undefined
          ? functionCall(id, part.id, part.name, part.fragments.join(""), "completed")
          : customCall(id, part.id, part.name, part.custom, "completed")
      )
    }
  }
  flush()
  return items
}

/**
 * Writes a streamed response: numbers every event, opens and closes output items as the parts
 * change kind, and ends with `response.completed` (`response.incomplete` for `length`) carrying
 * the whole output and the usage.
 */
class ResponsesWriter implements StreamWriter {
  readonly #invocation: LlmInvocation
  readonly #output: Array<OutputItem> = []
  #sequence = 0
  #open: { readonly kind: "text" | "reasoning"; readonly id: string; readonly index: number; text: string } | undefined
  #outputTokens = 0
  #reasoningTokens = 0

  constructor(invocation: LlmInvocation) {
    this.#invocation = invocation
  }

  #event(event: ResponseStreamEvent): string {
    return namedFrame(event.type, event)
  }

  #next(): number {
    return this.#sequence++
  }

  open(): ReadonlyArray<string> {
    const response = responseObject(this.#invocation, "in_progress", [], null)
    return [
      this.#event({ type: "response.created", response, sequence_number: this.#next() }),
      this.#event({ type: "response.in_progress", response, sequence_number: this.#next() })
    ]
  }

  /** A custom tool call: its item, its input in one delta and done, then the item done. */
  #custom(callId: string, name: string, input: string): Array<string> {
    const frames = this.#close()
    const index = this.#output.length
    const id = itemId("ctc", this.#invocation.seq, index)
    const item = customCall(id, callId, name, input, "completed")
    this.#output.push(item)
    frames.push(
      this.#event({
        type: "response.output_item.added",
        output_index: index,
        item: customCall(id, callId, name, "", "in_progress"),
        sequence_number: this.#next()
      }),
      this.#event({
        type: "response.custom_tool_call_input.delta",
        item_id: id,
        output_index: index,
        delta: input,
        sequence_number: this.#next()
      }),
      this.#event({
        type: "response.custom_tool_call_input.done",
        item_id: id,
        output_index: index,
        input,
        sequence_number: this.#next()
      }),
      this.#event({ type: "response.output_item.done", output_index: index, item, sequence_number: this.#next() })
    )
    return frames
  }

  #close(): Array<string> {
    const open = this.#open
    if (open === undefined) return []
    this.#open = undefined
    const { id, index, text } = open
    if (open.kind === "text") {
      const part = { type: "output_text", text, annotations: [], logprobs: [] } as const
      const item = message(id, text, "completed")
      this.#output.push(item)
      return [
        this.#event({
          type: "response.output_text.done",
          item_id: id,
          output_index: index,
          content_index: 0,
          text,
          logprobs: [],
          sequence_number: this.#next()
        }),
        this.#event({
          type: "response.content_part.done",
          item_id: id,
          output_index: index,
          content_index: 0,
          part,
          sequence_number: this.#next()
        }),
        this.#event({ type: "response.output_item.done", output_index: index, item, sequence_number: this.#next() })
      ]
    }
    const item = reasoning(id, text)
    this.#output.push(item)
    const part = { type: "summary_text", text } as const
    return [
      this.#event({
        type: "response.reasoning_summary_text.done",
        item_id: id,
        output_index: index,
        summary_index: 0,
        text,
        sequence_number: this.#next()
      }),
      this.#event({
        type: "response.reasoning_summary_part.done",
        item_id: id,
        output_index: index,
        summary_index: 0,
        part,
        sequence_number: this.#next()
      }),
      this.#event({ type: "response.output_item.done", output_index: index, item, sequence_number: this.#next() })
    ]
  }

  #start(kind: "text" | "reasoning"): Array<string> {
    const frames = this.#close()
    const index = this.#output.length
    const seq = this.#invocation.seq
    if (kind === "text") {
      const id = itemId("msg", seq, index)
      this.#open = { kind, id, index, text: "" }
      frames.push(
        this.#event({
          type: "response.output_item.added",
          output_index: index,
          item: message(id, "", "in_progress"),
          sequence_number: this.#next()
        }),
        this.#event({
          type: "response.content_part.added",
          item_id: id,
          output_index: index,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [], logprobs: [] },
          sequence_number: this.#next()
        })
      )
    } else {
      const id = itemId("rs", seq, index)
      this.#open = { kind, id, index, text: "" }
      frames.push(
        this.#event({
          type: "response.output_item.added",
          output_index: index,
          item: reasoning(id, undefined),
          sequence_number: this.#next()
        }),
        this.#event({
          type: "response.reasoning_summary_part.added",
          item_id: id,
          output_index: index,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
          sequence_number: this.#next()
        })
      )
    }
    return frames
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#outputTokens += partTokens(part)
    switch (part.kind) {
      case "text":
      case "reasoning": {
        const frames = this.#open?.kind === part.kind ? [] : this.#start(part.kind)
        const open = this.#open!
        open.text += part.text
        if (part.kind === "text") {
          frames.push(
            this.#event({
              type: "response.output_text.delta",
              item_id: open.id,
              output_index: open.index,
              content_index: 0,
              delta: part.text,
              logprobs: [],
              sequence_number: this.#next()
            })
          )
        } else {
          this.#reasoningTokens++
          frames.push(
            this.#event({
              type: "response.reasoning_summary_text.delta",
              item_id: open.id,
              output_index: open.index,
              summary_index: 0,
              delta: part.text,
              sequence_number: this.#next()
            })
          )
        }
        return frames
      }
      case "toolCall": {
        if (part.custom !== undefined) return this.#custom(part.id, part.name, part.custom)
        const frames = this.#close()
        const index = this.#output.length
        const id = itemId("fc", this.#invocation.seq, index)
        const args = part.fragments.join("")
        frames.push(
          this.#event({
            type: "response.output_item.added",
            output_index: index,
            item: functionCall(id, part.id, part.name, "", "in_progress"),
            sequence_number: this.#next()
          })
        )
        for (const delta of part.fragments) {
          frames.push(
            this.#event({
              type: "response.function_call_arguments.delta",
              item_id: id,
              output_index: index,
              delta,
              sequence_number: this.#next()
            })
          )
        }
        const item = functionCall(id, part.id, part.name, args, "completed")
        this.#output.push(item)
        frames.push(
          this.#event({
            type: "response.function_call_arguments.done",
            item_id: id,
            output_index: index,
            name: part.name,
            arguments: args,
            sequence_number: this.#next()
          }),
          this.#event({ type: "response.output_item.done", output_index: index, item, sequence_number: this.#next() })
        )
        return frames
      }
    }
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, true)
  }

  error(message: string): ReadonlyArray<string> {
    return [this.#event({ type: "error", code: "server_error", message, param: null, sequence_number: this.#next() })]
  }

  finish(finish: Finish, given: TokenUsage | undefined): ReadonlyArray<string> {
    const frames = this.#close()
    const usage = responseUsage(
      usageOf(given, this.#invocation.request.material, this.#outputTokens),
      this.#reasoningTokens
    )
    const end = endOf(finish)
    const response = responseObject(this.#invocation, end, this.#output, usage)
    const type = end.status === "completed" ? "response.completed" : "response.incomplete"
    frames.push(this.#event({ type, response, sequence_number: this.#next() }))
    return frames
  }

  malformed(): string {
    return truncatedFrame(
      { type: "response.output_text.delta", delta: "", sequence_number: this.#sequence },
      "response.output_text.delta"
    )
  }
}

/**
 * The Responses wire format.
 */
export const responsesWire: ModelWire = {
  api: "openai.responses",
  name: "openai",
  defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/responses"),
  baseUrlAt: baseUrlUnder(DEFAULT_OPENAI_BASE_URL, "/v1"),
  requestIdHeader: "x-request-id",
  rateLimits: openAiRateLimits,
  read: readWith("openai.responses", ResponsesRequest, "Responses", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream === true,
    turns: inputTurns(body.input, body.instructions),
    tools: offeredTools(body),
    key: requestKeyOf(raw, KEY_FIELDS),
    structured: responsesStructured(raw)
  })),
  writer: (invocation) => new ResponsesWriter(invocation),
  answer: (invocation, parts, finish, usage) => {
    const reasoningTokens = parts.filter((part) => part.kind === "reasoning").length
    const output = outputItems(invocation.seq, parts)
    return responseObject(invocation, endOf(finish), output, responseUsage(usage, reasoningTokens))
  },
  errorBody: openAiErrorBody,
  readBack: responsesReadBack
}

/**
 * The route of `POST {base}/responses` with `id` and `source`.
 */
export const responsesEndpoint: ModelEndpoint = {
  name: "responses",
  method: "POST",
  path: "/responses",
  endpoint: "responses",
  wire: responsesWire
}
