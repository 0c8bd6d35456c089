/**
 * Recording the model APIs spoken over a WebSocket as model calls: an OpenAI Realtime session
 * (`…/realtime`) or a Gemini Live one (`…BidiGenerateContent`) that record mode relayed becomes
 * one `llm` rule per answered turn — matched by the conversation's last user message and whether
 * tool results came after it, answered by the text (or spoken transcript) and tool calls the
 * upstream sent — beside the family that serves the API, so the session replays through any
 * surface, as every recorded model call does. Undefined for any other WebSocket, or a session
 * with no answered turn: it is then recorded as a `webSocket` script.
 */
import type { Frame } from "../../registry/socket.ts"
import { jsonFrame } from "../../models/wire/socketCalls.ts"
import { at, type JsonRecord, listAt, type ReadBackAction, textAt } from "../../models/wire/readBack.ts"
import { isJsonObject } from "../../registry/util.ts"
import { parseArguments } from "../../models/provider/parts.ts"
import type { RecordedSocket } from "./recordSocket.ts"

type Rule = Record<string, unknown>

const rule = (lastUserMessage: string, toolResult: boolean, actions: ReadonlyArray<ReadBackAction>): Rule => ({
  match: { lastUserMessage, toolResult },
  behaviour: { type: "respond", steps: [actions] }
})

/** The text of a message's parts: each part's `text`, else its `transcript`. */
const partsText = (parts: ReadonlyArray<unknown>): string =>
  parts.map((part) => (at(part, "text") !== undefined ? textAt(part, "text") : textAt(part, "transcript"))).join("")

/** Every frame of a session in the order it crossed: the opening server frames, then each client frame and what followed it. */
const framesOf = (
  session: RecordedSocket
): Array<{ readonly from: "client" | "server"; readonly message: JsonRecord }> => {
  const out: Array<{ from: "client" | "server"; message: JsonRecord }> = []
  const add = (from: "client" | "server", frame: Frame) => {
    const message = jsonFrame(frame)
    if (isJsonObject(message)) out.push({ from, message })
  }
  for (const frame of session.open) add("server", frame)
  for (const reply of session.replies) {
    add("client", reply.client)
    for (const frame of reply.server) add("server", frame)
  }
  return out
}

const realtimeRules = (session: RecordedSocket): Array<Rule> => {
  const rules: Array<Rule> = []
  let lastUser: string | undefined
  let toolResult = false
  for (const { from, message } of framesOf(session)) {
    if (from === "client" && message.type === "conversation.item.create") {
      const item = message.item
      if (at(item, "type") === "function_call_output") toolResult = true
      if (at(item, "type") === "message" && at(item, "role") === "user") {
        lastUser = partsText(listAt(item, "content"))
        toolResult = false
      }
    }
    if (
      from === "server" &&
      message.type === "response.done" &&
      at(message, "response", "status") === "completed" &&
      lastUser !== undefined
    ) {
      const actions: Array<ReadBackAction> = []
      for (const item of listAt(message, "response", "output")) {
        if (at(item, "type") === "message") {
          const text = partsText(listAt(item, "content"))
          if (text !== "") actions.push({ type: "text", content: text })
        }
        if (at(item, "type") === "function_call")
          actions.push({
            type: "tool_call",
            name: textAt(item, "name"),
            input: parseArguments(textAt(item, "arguments") || "{}")
          })
      }
      if (actions.length > 0) rules.push(rule(lastUser, toolResult, actions))
    }
  }
  return rules
}

const liveRules = (session: RecordedSocket): Array<Rule> => {
  const rules: Array<Rule> = []
  let lastUser: string | undefined
  let toolResult = false
  let text = ""
  const flush = (calls: ReadonlyArray<unknown>) => {
    const actions: Array<ReadBackAction> = [
      ...(text === "" ? [] : [{ type: "text" as const, content: text }]),
      ...calls.map(
        (call): ReadBackAction => ({ type: "tool_call", name: textAt(call, "name"), input: at(call, "args") ?? {} })
      )
    ]
    if (actions.length > 0 && lastUser !== undefined) rules.push(rule(lastUser, toolResult, actions))
    text = ""
  }
  for (const { from, message } of framesOf(session)) {
    if (from === "client") {
      const users = listAt(message, "clientContent", "turns").filter((turn) => at(turn, "role") !== "model")
      if (users.length > 0) {
        lastUser = listAt(users.at(-1), "parts")
          .map((part) => textAt(part, "text"))
          .join("")
        toolResult = false
      }
      const typed = at(message, "realtimeInput", "text")
      if (typeof typed === "string") {
        lastUser = typed
        toolResult = false
      }
      if (message.toolResponse !== undefined) toolResult = true
      continue
    }
    const parts = listAt(message, "serverContent", "modelTurn", "parts")
    for (const part of parts) {
      const said = at(part, "text")
      if (typeof said === "string" && at(part, "thought") !== true) text += said
    }
    const transcript = at(message, "serverContent", "outputTranscription", "text")
    if (typeof transcript === "string" && !parts.some((part) => typeof at(part, "text") === "string"))
      text += transcript
    const calls = at(message, "toolCall", "functionCalls")
    if (Array.isArray(calls)) flush(calls)
    else if (at(message, "serverContent", "turnComplete") === true) flush([])
  }
  return rules
}

/**
 * The model calls of a recorded WebSocket session at `url`, with the family that serves them
 * (`openai` for Realtime, `gemini` for Live; its `baseUrl` when `url` is not the API's own host),
 * or undefined when it is not such a session or answered no turn.
 */
export const socketCalls = (
  url: URL,
  session: RecordedSocket
): { readonly family: Record<string, unknown>; readonly rules: ReadonlyArray<Rule> } | undefined => {
  const origin = `${url.protocol === "ws:" ? "http:" : url.protocol === "wss:" ? "https:" : url.protocol}//${url.host}`
  if (url.pathname.endsWith("/realtime")) {
    const rules = realtimeRules(session)
    const base = url.pathname.slice(0, -"/realtime".length)
    return rules.length === 0
      ? undefined
      : {
          family:
            origin === "https://api.openai.com" && base === "/v1"
              ? { family: "openai" }
              : { family: "openai", baseUrl: `${origin}${base}` },
          rules
        }
  }
  if (url.pathname.includes(".GenerativeService.BidiGenerateContent")) {
    const rules = liveRules(session)
    const base = url.pathname.slice(0, url.pathname.indexOf("/ws/"))
    return rules.length === 0
      ? undefined
      : {
          family:
            origin === "https://generativelanguage.googleapis.com" && base === ""
              ? { family: "gemini" }
              : { family: "gemini", baseUrl: `${origin}${base}` },
          rules
        }
  }
  return undefined
}
