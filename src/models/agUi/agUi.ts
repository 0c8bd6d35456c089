/**
 * An AG-UI agent endpoint (the Agent–User Interaction protocol: `POST` a `RunAgentInput`, read
 * back a stream of events), answered by the network's `SimulatedProvider` as every model API is:
 * one script, rule or driver. The input's messages become the conversation (a `tool` message is a
 * tool result, so step N of a script answers the run after N rounds of them); the answer streams
 * as `RUN_STARTED`, `STATE_SNAPSHOT` (the state the run was given), `TEXT_MESSAGE_START` /
 * `_CONTENT` / `_END` for text, `REASONING_*` for thinking, `TOOL_CALL_START` / `_ARGS` / `_END`
 * for each tool call, and `RUN_FINISHED`, or `RUN_ERROR` when the script fails the run. Events go
 * as `data: JSON` frames, as AG-UI's own encoder writes them.
 */
import { Schema } from "effect"
import type { Route } from "../../registry/route.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { partFrames } from "../provider/parts.ts"
import { dataFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import { modelApi } from "../wire/modelApi.ts"
import { type ModelWire, readWith } from "../wire/wire.ts"

/** The base URL `Routes.agUi` serves when none is given: the agent's endpoint itself. */
export const DEFAULT_AG_UI_URL = "https://agent.example.com/ag-ui"

/** Options of the AG-UI route: `baseUrl`, the URL the agent is posted to (default `https://agent.example.com/ag-ui`). */
export interface AgUiRoutesOptions {
  readonly baseUrl?: string | undefined
}

const Content = Schema.Union([Schema.String, Schema.Array(Schema.Unknown), Schema.Null])

/** The part of a `RunAgentInput` the simulated agent reads; other fields are kept as they came. */
export const RunAgentInput = Schema.Struct({
  threadId: Schema.String,
  runId: Schema.String,
  state: Schema.optional(Schema.Unknown),
  messages: Schema.Array(
    Schema.Struct({
      role: Schema.String,
      content: Schema.optional(Content),
      toolCalls: Schema.optional(
        Schema.Array(
          Schema.Struct({
            id: Schema.String,
            function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
          })
        )
      ),
      toolCallId: Schema.optional(Schema.String)
    })
  ),
  tools: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String }))),
  forwardedProps: Schema.optional(Schema.Unknown)
})
type RunAgentInput = typeof RunAgentInput.Type

/** A message's text: a string, or the text of its text parts. */
const textOf = (content: RunAgentInput["messages"][number]["content"]): string =>
  typeof content === "string"
    ? content
    : (content ?? [])
        .map((part) =>
          typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text"
            ? String((part as { text?: unknown }).text ?? "")
            : ""
        )
        .join("")

const turnOf = (message: RunAgentInput["messages"][number]): LlmTurn => {
  const text = textOf(message.content)
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        text,
        calls: (message.toolCalls ?? []).map((call) => ({
          name: call.function.name,
          arguments: call.function.arguments
        }))
      }
    case "tool":
      return { role: "tool", text }
    case "system":
    case "developer":
      return { role: "system", text }
    default:
      return { role: "user", text }
  }
}

/**
 * The model a run names: a string `model` in its `forwardedProps` (as CopilotKit forwards it),
 * else `ag-ui`.
 */
const modelOf = (input: RunAgentInput): string => {
  const props = input.forwardedProps
  const named = typeof props === "object" && props !== null ? (props as { readonly model?: unknown }).model : undefined
  return typeof named === "string" ? named : "ag-ui"
}

/** An event frame, as AG-UI's encoder writes one: `data: JSON` and a blank line. */
const frame: (event: { readonly type: string; readonly [field: string]: unknown }) => string = dataFrame

const inputOf = (invocation: LlmInvocation): RunAgentInput => invocation.request.raw as RunAgentInput

/**
 * Writes a run's events. Text and reasoning each open a message of their own (closed when
 * something else comes); a tool call closes them and names the assistant message it belongs to.
 */
class AgUiWriter implements StreamWriter {
  readonly #input: RunAgentInput
  readonly #seq: number
  #open: { readonly kind: "text" | "reasoning"; readonly id: string } | undefined
  #messages = 0
  /** The assistant's text message so far, which a tool call belongs to (a new one when there was no text). */
  #text: string | undefined

  constructor(invocation: LlmInvocation) {
    this.#input = inputOf(invocation)
    this.#seq = invocation.seq
  }

  #messageId(): string {
    return `msg_sim_${this.#seq}_${this.#messages}`
  }

  open(): ReadonlyArray<string> {
    return [
      frame({ type: "RUN_STARTED", threadId: this.#input.threadId, runId: this.#input.runId }),
      frame({ type: "STATE_SNAPSHOT", snapshot: this.#input.state ?? {} })
    ]
  }

  #close(): Array<string> {
    const open = this.#open
    if (open === undefined) return []
    this.#open = undefined
    this.#messages++
    return open.kind === "text"
      ? [frame({ type: "TEXT_MESSAGE_END", messageId: open.id })]
      : [
          frame({ type: "REASONING_MESSAGE_END", messageId: open.id }),
          frame({ type: "REASONING_END", messageId: open.id })
        ]
  }

  content(part: ContentPart): ReadonlyArray<string> {
    switch (part.kind) {
      case "text":
      case "reasoning": {
        const frames: Array<string> = []
        if (this.#open?.kind !== part.kind) {
          frames.push(...this.#close())
          const id = this.#messageId()
          this.#open = { kind: part.kind, id }
          if (part.kind === "text") this.#text = id
          if (part.kind === "text") frames.push(frame({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }))
          else
            frames.push(
              frame({ type: "REASONING_START", messageId: id }),
              frame({ type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" })
            )
        }
        const id = this.#open!.id
        frames.push(
          frame({
            type: part.kind === "text" ? "TEXT_MESSAGE_CONTENT" : "REASONING_MESSAGE_CONTENT",
            messageId: id,
            delta: part.text
          })
        )
        return frames
      }
      case "toolCall": {
        const frames = this.#close()
        frames.push(
          frame({
            type: "TOOL_CALL_START",
            toolCallId: part.id,
            toolCallName: part.name,
            parentMessageId: (this.#text ??= this.#messageId())
          })
        )
        for (const fragment of part.fragments)
          frames.push(frame({ type: "TOOL_CALL_ARGS", toolCallId: part.id, delta: fragment }))
        frames.push(frame({ type: "TOOL_CALL_END", toolCallId: part.id }))
        return frames
      }
    }
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, false)
  }

  error(message: string): ReadonlyArray<string> {
    return [...this.#close(), frame({ type: "RUN_ERROR", message })]
  }

  finish(_finish: Finish, _usage: TokenUsage | undefined): ReadonlyArray<string> {
    return [...this.#close(), frame({ type: "RUN_FINISHED", threadId: this.#input.threadId, runId: this.#input.runId })]
  }

  malformed(): string {
    return truncatedFrame({ type: "TEXT_MESSAGE_CONTENT", messageId: this.#messageId(), delta: "" })
  }
}

/** The events of a whole run, in order: what the stream carries, as one JSON array. */
const wholeRun = (
  invocation: LlmInvocation,
  parts: ReadonlyArray<Part>,
  finish: Finish,
  usage: TokenUsage
): unknown => {
  const writer = new AgUiWriter(invocation)
  const frames = [
    ...writer.open(),
    ...parts.flatMap((part) => partFrames(writer, part)),
    ...writer.finish(finish, usage)
  ]
  return frames.map((text) => JSON.parse(text.slice("data: ".length)) as unknown)
}

/**
 * The AG-UI endpoint. A run always streams (AG-UI has no other answer); a client that asks for
 * JSON (`Accept: application/json`) gets the same events as one array. Its calls are told by
 * nothing in the URL, so record mode records an AG-UI upstream as plain routes, not as a script.
 */
export const agUiWire: ModelWire = {
  api: "ag-ui",
  name: "ag-ui",
  defaultBaseUrl: DEFAULT_AG_UI_URL,
  calls: () => false,
  baseUrlAt: () => undefined,
  requestIdHeader: "x-request-id",
  read: readWith("ag-ui", RunAgentInput, "RunAgentInput", (input, request) => ({
    model: modelOf(input),
    stream: !/^application\/json\b/i.test(request.headers.get("accept") ?? ""),
    turns: input.messages.map(turnOf),
    tools: (input.tools ?? []).map((tool) => tool.name),
    // Messages without their ids (a client makes new ones every run): the same conversation has one key.
    key: requestKeyOf(
      {
        messages: input.messages.map(({ role, content, toolCalls, toolCallId }) => ({
          role,
          content,
          toolCalls,
          toolCallId
        })),
        tools: input.tools,
        state: input.state
      },
      ["messages", "tools", "state"]
    )
  })),
  writer: (invocation) => new AgUiWriter(invocation),
  answer: (invocation, parts, finish, usage) => wholeRun(invocation, parts, finish, usage),
  errorBody: (status, message) => ({ error: { status, message } }),
  readBack: () => undefined
}

/** The AG-UI route at `baseUrl` (default `https://agent.example.com/ag-ui`): id `ag-ui.run`, source `ag-ui`. */
export const agUiRoutes = (options: AgUiRoutesOptions = {}): ReadonlyArray<Route> =>
  modelApi("ag-ui", DEFAULT_AG_UI_URL, options.baseUrl, [
    { name: "run", method: "POST", path: "", endpoint: "run", wire: agUiWire }
  ])
