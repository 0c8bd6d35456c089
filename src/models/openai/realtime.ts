/**
 * OpenAI Realtime over a WebSocket (`GET {base}/realtime?model=M` upgraded), answered by the
 * network's `SimulatedProvider` — the same script, rules or driver as every other surface:
 * - in: `session.update`, `conversation.item.create` (messages, `function_call_output`),
 *   `input_audio_buffer.append`/`commit`/`clear`, `response.create`, `response.cancel`;
 * - out: `session.created` on connect, `session.updated`, `conversation.item.added`/`done`, and per
 *   response `response.created`, `response.output_item.added`, `response.content_part.added`,
 *   text (`response.output_text.delta`/`done`) or, when the session's `output_modalities` ask
 *   for audio (the API's default), `response.output_audio.delta` (seeded PCM16 bytes, the same for
 *   the same seed) with `response.output_audio_transcript.delta`, function calls
 *   (`response.function_call_arguments.delta`/`done`), and `response.done`.
 *
 * A response is the Responses API's streamed answer to the conversation so far (the realtime wire
 * is the Responses wire under the name `openai.realtime`), its events translated one by one.
 * Bad frames and refusals are `error` events; the socket stays open.
 */
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import type { Frame, SocketPeer } from "../../registry/socket.ts"
import { webSocketResponder } from "../../routes/webSocket/webSocket.ts"
import { modelResponder } from "../wire/call.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import { dialectOf, type ModelWire } from "../wire/wire.ts"
import { DEFAULT_OPENAI_BASE_URL } from "./chatWire.ts"
import { responsesWire } from "./openaiResponses.ts"
import { answerTurn, eachSseData, jsonFrame, seededAudio, turnError, turnHeaders } from "../wire/socketCalls.ts"

/** The Realtime API's wire: the Responses wire under its own name (no HTTP request is one of its calls). */
export const realtimeWire: ModelWire = dialectOf(responsesWire, {
  api: "openai.realtime",
  name: "openai",
  defaultBaseUrl: DEFAULT_OPENAI_BASE_URL,
  calls: () => false,
  baseUrlAt: responsesWire.baseUrlAt
})

const answer = modelResponder(realtimeWire)

/** How much conversation a session keeps (items), oldest dropped first. */
const KEPT_ITEMS = 512

type Item = Record<string, unknown>
type Event = Record<string, unknown>

/** A conversation item as the Responses API's input takes it. */
const asInput = (item: Item): Item | undefined => {
  if (item.type === "function_call")
    return { type: "function_call", call_id: item.call_id, name: item.name, arguments: item.arguments ?? "" }
  if (item.type === "function_call_output")
    return { type: "function_call_output", call_id: item.call_id, output: item.output ?? "" }
  if (item.type !== "message") return undefined
  const parts = Array.isArray(item.content) ? (item.content as ReadonlyArray<Item>) : []
  const text = parts
    .map((part) =>
      typeof part.text === "string" ? part.text : typeof part.transcript === "string" ? part.transcript : ""
    )
    .join("")
  return { type: "message", role: item.role, content: text }
}

const sessionObject = (id: string, model: string) => ({
  id,
  object: "realtime.session",
  type: "realtime",
  model,
  output_modalities: ["audio"],
  instructions: "",
  tools: [] as ReadonlyArray<unknown>,
  tool_choice: "auto",
  max_output_tokens: "inf",
  audio: {
    input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: null },
    output: { format: { type: "audio/pcm", rate: 24000 }, voice: "alloy" }
  }
})

const session = (socket: SocketPeer, upgrade: SimRequest, context: RespondContext): void => {
  const model = upgrade.url.searchParams.get("model") ?? "gpt-realtime"
  let events = 0
  let responses = 0
  let items = 0
  let config: Record<string, unknown> = sessionObject(`sess_sim_${context.runSeed}`, model)
  const conversation: Array<Item> = []
  const headers = turnHeaders(upgrade)
  const closed = new AbortController()
  let current: AbortController | undefined
  let audioBuffered = false
  let queue = Promise.resolve()
  socket.onClose(() => closed.abort(new DOMException("The WebSocket closed", "AbortError")))

  const send = (event: Event) => socket.send(JSON.stringify({ ...event, event_id: `event_sim_${++events}` }))
  const error = (code: string, message: string, eventId?: unknown) =>
    send({
      type: "error",
      error: {
        type: "invalid_request_error",
        code,
        message,
        param: null,
        event_id: typeof eventId === "string" ? eventId : null
      }
    })
  const remember = (item: Item) => {
    conversation.push(item)
    if (conversation.length > KEPT_ITEMS) conversation.shift()
  }
  const addItem = (given: Item, previous: unknown) => {
    const item = {
      ...given,
      id: typeof given.id === "string" ? given.id : `item_sim_${++items}`,
      object: "realtime.item",
      status: "completed"
    }
    remember(item)
    send({ type: "conversation.item.added", previous_item_id: typeof previous === "string" ? previous : null, item })
    send({ type: "conversation.item.done", previous_item_id: typeof previous === "string" ? previous : null, item })
  }

  const respond = async (options: Event): Promise<void> => {
    const id = `resp_sim_${++responses}`
    const modalities = (options.output_modalities ?? config.output_modalities) as ReadonlyArray<string> | undefined
    const audio = modalities?.includes("audio") === true
    const controller = new AbortController()
    current = controller
    const abort = () => controller.abort(closed.signal.reason)
    closed.signal.addEventListener("abort", abort, { once: true })
    const body = {
      model,
      instructions: options.instructions ?? config.instructions ?? "",
      input: conversation.flatMap((item) => asInput(item) ?? []),
      tools: options.tools ?? config.tools ?? [],
      stream: true
    }
    const response = await answerTurn(answer, context, { url: upgrade.url, headers, body, signal: controller.signal })
    if (response.status !== 200 || response.body === null) {
      const failed = (await turnError(response)) as { readonly message?: unknown; readonly code?: unknown }
      send({
        type: "error",
        error: {
          type: "invalid_request_error",
          code: typeof failed.code === "string" ? failed.code : "model_error",
          message: String(failed.message ?? "the model call failed"),
          param: null,
          event_id: null
        }
      })
      closed.signal.removeEventListener("abort", abort)
      return
    }
    const base = {
      object: "realtime.response",
      id,
      conversation_id: "conv_sim",
      output_modalities: audio ? ["audio"] : ["text"],
      metadata: null
    }
    const translate = (data: string) => {
      const event = JSON.parse(data) as Event
      const { sequence_number: _sequence, ...rest } = event
      const type = String(event.type)
      const ids = { response_id: id }
      switch (type) {
        case "response.created":
          return send({ type, response: { ...base, status: "in_progress", output: [], usage: null } })
        case "response.output_item.added":
        case "response.output_item.done": {
          const item = audio ? audioItem(rest.item as Item) : (rest.item as Item)
          if (type === "response.output_item.done") remember(item)
          return send({ ...rest, ...ids, item })
        }
        case "response.content_part.added":
        case "response.content_part.done":
          return send({ ...rest, ...ids, part: audio ? audioPart(rest.part as Item) : rest.part })
        case "response.output_text.delta":
          if (!audio) return send({ ...rest, ...ids })
          send({ ...rest, ...ids, type: "response.output_audio_transcript.delta" })
          return send({
            ...rest,
            ...ids,
            type: "response.output_audio.delta",
            delta: seededAudio(`${context.runSeed}/${id}/${String(rest.item_id)}/${events}`, String(rest.delta))
          })
        case "response.output_text.done":
          if (!audio) return send({ ...rest, ...ids })
          send({
            type: "response.output_audio.done",
            ...ids,
            item_id: rest.item_id,
            output_index: rest.output_index,
            content_index: rest.content_index
          })
          return send({
            type: "response.output_audio_transcript.done",
            ...ids,
            item_id: rest.item_id,
            output_index: rest.output_index,
            content_index: rest.content_index,
            transcript: rest.text
          })
        case "response.function_call_arguments.delta":
        case "response.function_call_arguments.done":
          return send({ ...rest, ...ids })
        case "response.completed":
        case "response.incomplete":
        case "response.failed": {
          const done = rest.response as Item
          const status =
            type === "response.completed" ? "completed" : type === "response.incomplete" ? "incomplete" : "failed"
          const output = Array.isArray(done.output)
            ? (done.output as ReadonlyArray<Item>).map((item) => (audio ? audioItem(item) : item))
            : []
          return send({ type: "response.done", response: { ...base, status, output, usage: done.usage ?? null } })
        }
        default:
          return undefined
      }
    }
    try {
      await eachSseData(response.body, translate, controller.signal, socket)
    } catch {
      // A body that breaks (a reset, a cancelled read) ends the response as cancelled, below.
    } finally {
      if (controller.signal.aborted && !closed.signal.aborted)
        send({ type: "response.done", response: { ...base, status: "cancelled", output: [], usage: null } })
      closed.signal.removeEventListener("abort", abort)
      if (current === controller) current = undefined
    }
  }

  const handle = async (frame: Frame): Promise<void> => {
    const event = jsonFrame(frame)
    if (event === undefined) return error("invalid_json", "simnet: a Realtime frame is a JSON object")
    switch (event.type) {
      case "session.update": {
        const given =
          typeof event.session === "object" && event.session !== null ? (event.session as Record<string, unknown>) : {}
        const { type: _type, ...fields } = given
        config = { ...config, ...fields }
        return send({ type: "session.updated", session: config })
      }
      case "conversation.item.create": {
        const item = event.item
        if (typeof item !== "object" || item === null)
          return error("invalid_value", "simnet: conversation.item.create needs an item", event.event_id)
        return addItem(item as Item, event.previous_item_id)
      }
      case "input_audio_buffer.append":
        audioBuffered = true
        return
      case "input_audio_buffer.clear":
        audioBuffered = false
        return send({ type: "input_audio_buffer.cleared" })
      case "input_audio_buffer.commit": {
        if (!audioBuffered)
          return error(
            "input_audio_buffer_commit_empty",
            "Error committing input audio buffer: buffer too small.",
            event.event_id
          )
        audioBuffered = false
        const id = `item_sim_${++items}`
        send({ type: "input_audio_buffer.committed", previous_item_id: null, item_id: id })
        return addItem(
          { id, type: "message", role: "user", content: [{ type: "input_audio", transcript: null }] },
          null
        )
      }
      case "response.create":
        return respond(typeof event.response === "object" && event.response !== null ? (event.response as Event) : {})
      case "response.cancel":
        current?.abort(new DOMException("The response was cancelled", "AbortError"))
        return
      default:
        return error(
          "unknown_event",
          `simnet: the Realtime API does not take ${JSON.stringify(String(event.type)).slice(0, 80)} events`,
          event.event_id
        )
    }
  }

  send({ type: "session.created", session: config })
  socket.onMessage((frame) => {
    const event = jsonFrame(frame)
    // A cancel takes effect at once; every other event waits for the one before it.
    if (event?.type === "response.cancel") return void handle(frame)
    queue = queue
      .then(() => handle(frame))
      .catch(() => {
        if (!closed.signal.aborted) socket.close(1011, "simnet: the model call failed")
      })
  })
}

const audioPart = (part: Item | undefined): Item => ({
  type: "audio",
  transcript: typeof part?.text === "string" ? part.text : ""
})

const audioItem = (item: Item): Item => {
  if (item.type !== "message" || !Array.isArray(item.content)) return item
  return {
    ...item,
    content: (item.content as ReadonlyArray<Item>).map((part) =>
      part.type === "output_text" ? { type: "output_audio", transcript: part.text } : part
    )
  }
}

/** The route of `GET {base}/realtime` upgraded to a WebSocket. */
export const realtimeEndpoint: PartsEndpoint = {
  name: "realtime",
  method: "GET",
  path: "/realtime",
  endpoint: "realtime (WebSocket)",
  parts: webSocketResponder(session)
}
