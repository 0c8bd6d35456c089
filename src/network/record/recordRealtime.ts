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
import type { ReadBackAction } from "../../models/wire/readBack.ts"
import { parseArguments } from "../../models/provider/parts.ts"
import type { RecordedSocket } from "./recordSocket.ts"

type Rule = Record<string, unknown>

const rule = (lastUserMessage: string, toolResult: boolean, actions: ReadonlyArray<ReadBackAction>): Rule => ({
  match: { lastUserMessage, toolResult },
  behaviour: { type: "respond", steps: [actions] }
})

/** Every frame of a session in the order it crossed: the opening server frames, then each client frame and what followed it. */
const framesOf = (session: RecordedSocket): Array<{ readonly from: "client" | "server"; readonly message: Record<string, any> }> => {
  const out: Array<{ from: "client" | "server"; message: Record<string, any> }> = []
  const add = (from: "client" | "server", frame: Frame) => {
    const message = jsonFrame(frame) as Record<string, any> | undefined
    if (message !== undefined) out.push({ from, message })
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
      const item = message.item ?? {}
      if (item.type === "function_call_output") toolResult = true
      if (item.type === "message" && item.role === "user") {
        lastUser = (Array.isArray(item.content) ? item.content : []).map((part: Record<string, any>) => String(part.text ?? part.transcript ?? "")).join("")
        toolResult = false
      }
    }
    if (from === "server" && message.type === "response.done" && message.response?.status === "completed" && lastUser !== undefined) {
      const actions: Array<ReadBackAction> = []
      for (const item of message.response.output ?? []) {
        if (item.type === "message") {
          const text = (item.content ?? []).map((part: Record<string, any>) => String(part.text ?? part.transcript ?? "")).join("")
          if (text !== "") actions.push({ type: "text", content: text })
        }
        if (item.type === "function_call") actions.push({ type: "tool_call", name: String(item.name ?? ""), input: parseArguments(String(item.arguments ?? "{}")) })
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
  const flush = (calls: ReadonlyArray<Record<string, any>>) => {
    const actions: Array<ReadBackAction> = [
      ...(text === "" ? [] : [{ type: "text" as const, content: text }]),
      ...calls.map((call): ReadBackAction => ({ type: "tool_call", name: String(call.name ?? ""), input: call.args ?? {} }))
    ]
    if (actions.length > 0 && lastUser !== undefined) rules.push(rule(lastUser, toolResult, actions))
    text = ""
  }
  for (const { from, message } of framesOf(session)) {
    if (from === "client") {
      const turns: ReadonlyArray<Record<string, any>> = message.clientContent?.turns ?? []
      const users = turns.filter((turn) => turn.role !== "model")
      if (users.length > 0) {
        lastUser = (users.at(-1)!.parts ?? []).map((part: Record<string, any>) => String(part.text ?? "")).join("")
        toolResult = false
      }
      if (typeof message.realtimeInput?.text === "string") {
        lastUser = message.realtimeInput.text
        toolResult = false
      }
      if (message.toolResponse !== undefined) toolResult = true
      continue
    }
    for (const part of message.serverContent?.modelTurn?.parts ?? []) if (typeof part.text === "string" && part.thought !== true) text += part.text
    if (typeof message.serverContent?.outputTranscription?.text === "string" && !(message.serverContent?.modelTurn?.parts ?? []).some((part: Record<string, any>) => typeof part.text === "string")) {
      text += message.serverContent.outputTranscription.text
    }
    if (Array.isArray(message.toolCall?.functionCalls)) flush(message.toolCall.functionCalls)
    else if (message.serverContent?.turnComplete === true) flush([])
  }
  return rules
}

/**
 * The model calls of a recorded WebSocket session at `url`, with the family that serves them
 * (`openai` for Realtime, `gemini` for Live; its `baseUrl` when `url` is not the API's own host),
 * or undefined when it is not such a session or answered no turn.
 */
export const socketCalls = (url: URL, session: RecordedSocket): { readonly family: Record<string, unknown>; readonly rules: ReadonlyArray<Rule> } | undefined => {
  const origin = `${url.protocol === "ws:" ? "http:" : url.protocol === "wss:" ? "https:" : url.protocol}//${url.host}`
  if (url.pathname.endsWith("/realtime")) {
    const rules = realtimeRules(session)
    const base = url.pathname.slice(0, -"/realtime".length)
    return rules.length === 0 ? undefined : { family: origin === "https://api.openai.com" && base === "/v1" ? { family: "openai" } : { family: "openai", baseUrl: `${origin}${base}` }, rules }
  }
  if (url.pathname.includes(".GenerativeService.BidiGenerateContent")) {
    const rules = liveRules(session)
    const base = url.pathname.slice(0, url.pathname.indexOf("/ws/"))
    return rules.length === 0 ? undefined : { family: origin === "https://generativelanguage.googleapis.com" && base === "" ? { family: "gemini" } : { family: "gemini", baseUrl: `${origin}${base}` }, rules }
  }
  return undefined
}
