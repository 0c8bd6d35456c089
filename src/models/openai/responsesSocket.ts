/**
 * The Responses API over a WebSocket (`GET {base}/responses` upgraded, what Codex tries first):
 * each `response.create` frame is a Responses request, answered by the same wire and the same
 * script, rules or driver as `POST {base}/responses` with `stream: true`, and every event of that
 * stream goes out as one text frame holding the same JSON object. Frames are answered one at a
 * time, in order. A `previous_response_id` continues a response this connection answered (its
 * input and output come first, as the real API keeps them per connection); an unknown one, a
 * frame that is not JSON or not a `response.create`, and an error the HTTP route would answer
 * with, are an `error` event frame (`{ type: "error", status, error }`), and the socket stays open.
 */
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import type { Frame, SocketPeer } from "../../registry/socket.ts"
import { answerTurn, eachSseData, jsonFrame, turnError, turnHeaders } from "../wire/socketCalls.ts"
import { webSocketResponder } from "../../routes/webSocket/webSocket.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import { modelResponder } from "../wire/call.ts"
import { responsesWire } from "./openaiResponses.ts"

/** How many earlier responses a connection can be continued from (`previous_response_id`). */
const KEPT_RESPONSES = 32

const answer = modelResponder(responsesWire)

const errorFrame = (status: number, code: string, message: string) =>
  JSON.stringify({
    type: "error",
    status,
    error: { type: status >= 500 ? "server_error" : "invalid_request_error", code, message }
  })

/** Sends each event of a Responses event stream as one frame, as it arrives; the completed response, if any. */
const relayEvents = async (
  body: ReadableStream<Uint8Array>,
  socket: SocketPeer
): Promise<Record<string, unknown> | undefined> => {
  let completed: Record<string, unknown> | undefined
  await eachSseData(
    body,
    (data) => {
      socket.send(data)
      if (
        data.includes('"response.completed"') ||
        data.includes('"response.incomplete"') ||
        data.includes('"response.failed"')
      ) {
        completed = (JSON.parse(data) as { readonly response?: Record<string, unknown> }).response
      }
    },
    undefined,
    socket
  )
  return completed
}

const asItems = (input: unknown): ReadonlyArray<unknown> =>
  input === undefined
    ? []
    : typeof input === "string"
      ? [{ type: "message", role: "user", content: input }]
      : Array.isArray(input)
        ? input
        : [input]

/** One connection's session: its frames answered in order, its responses kept for continuing. */
const session = (socket: SocketPeer, upgrade: SimRequest, context: RespondContext): void => {
  const kept = new Map<string, ReadonlyArray<unknown>>()
  const closed = new AbortController()
  const headers = turnHeaders(upgrade)
  let turn = Promise.resolve()
  socket.onClose(() => closed.abort(new DOMException("The WebSocket closed", "AbortError")))

  const respond = async (frame: Frame): Promise<void> => {
    const event = jsonFrame(frame)
    if (event === undefined)
      return socket.send(errorFrame(400, "invalid_json", "simnet: a frame of the Responses WebSocket is a JSON object"))
    if (event.type !== "response.create") {
      return socket.send(
        errorFrame(
          400,
          "unsupported_event",
          `simnet: the Responses WebSocket takes response.create events, got ${JSON.stringify(String(event.type)).slice(0, 80)}`
        )
      )
    }
    const { type: _type, previous_response_id: previous, ...body } = event
    let input = asItems(body.input)
    if (previous !== undefined && previous !== null) {
      const before = typeof previous === "string" ? kept.get(previous) : undefined
      if (before === undefined)
        return socket.send(
          errorFrame(
            400,
            "previous_response_not_found",
            `Previous response with id '${String(previous).slice(0, 80)}' not found.`
          )
        )
      input = [...before, ...input]
    }
    const response = await answerTurn(answer, context, {
      url: upgrade.url,
      headers,
      body: { ...body, input, stream: true },
      signal: closed.signal
    })
    if (response.status !== 200 || response.body === null) {
      return socket.send(JSON.stringify({ type: "error", status: response.status, error: await turnError(response) }))
    }
    const completed = await relayEvents(response.body, socket)
    if (completed !== undefined && typeof completed.id === "string") {
      kept.set(completed.id, [...input, ...asItems(completed.output)])
      if (kept.size > KEPT_RESPONSES) kept.delete(kept.keys().next().value!)
    }
  }

  socket.onMessage((frame) => {
    turn = turn
      .then(() => respond(frame))
      .catch(() => {
        if (!closed.signal.aborted) socket.close(1011, "simnet: the model call failed")
      })
  })
}

/** The route of `GET {base}/responses` upgraded to a WebSocket. */
export const responsesSocketEndpoint: PartsEndpoint = {
  name: "responses.socket",
  method: "GET",
  path: "/responses",
  endpoint: "responses (WebSocket)",
  parts: webSocketResponder(session)
}
