/**
 * Gemini Live over a WebSocket (`GET {base}/ws/google.ai.generativelanguage.{v1beta|v1alpha}.GenerativeService.BidiGenerateContent`
 * upgraded), answered by the network's `SimulatedProvider` — the same script, rules or driver as
 * every other surface:
 * - in: `setup` (model, `generationConfig.responseModalities`, `systemInstruction`, `tools`) then
 *   `clientContent` (turns; answered when `turnComplete`), `realtimeInput` with `text`, and
 *   `toolResponse` (`functionResponses`);
 * - out: `setupComplete`; per turn `serverContent.modelTurn` parts (text, or with `AUDIO` asked for,
 *   seeded PCM16 `inlineData` with `outputTranscription`), then `generationComplete` and
 *   `turnComplete` with `usageMetadata` — or a `toolCall` (`functionCalls` with ids), which the
 *   client answers with a `toolResponse`.
 *
 * A turn is Gemini's streamed `generateContent` answer to the conversation so far (the live wire
 * is Gemini's wire under the name `gemini.live`), its chunks translated one by one. A frame before
 * `setup`, or that is not one of these, closes the socket with 1007, as the service does.
 */
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import type { Frame, SocketPeer } from "../../registry/socket.ts"
import { webSocketResponder } from "../../routes/webSocket/webSocket.ts"
import { modelResponder } from "../wire/call.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import { dialectOf, type ModelWire } from "../wire/wire.ts"
import { answerTurn, eachSseData, jsonFrame, seededAudio, turnError, turnHeaders } from "../wire/socketCalls.ts"

/** Live's wire: `gemini` under its own name (no HTTP request is one of its calls). */
export const liveWireOf = (gemini: ModelWire): ModelWire =>
  dialectOf(gemini, {
    api: "gemini.live",
    name: gemini.name,
    defaultBaseUrl: gemini.defaultBaseUrl,
    calls: () => false,
    baseUrlAt: gemini.baseUrlAt
  })

/** How many turns a session keeps, oldest dropped first. */
const KEPT_TURNS = 256

type Json = Record<string, unknown>

const object = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined

const liveSession =
  (answer: ReturnType<typeof modelResponder>) =>
  (socket: SocketPeer, upgrade: SimRequest, context: RespondContext): void => {
    const headers = turnHeaders(upgrade)
    const closed = new AbortController()
    const contents: Array<Json> = []
    let setup: Json | undefined
    let turns = 0
    let queue = Promise.resolve()
    socket.onClose(() => closed.abort(new DOMException("The WebSocket closed", "AbortError")))
    const send = (message: Json) => socket.send(JSON.stringify(message))
    const remember = (content: Json) => {
      contents.push(content)
      if (contents.length > KEPT_TURNS) contents.shift()
    }

    const respond = async (): Promise<void> => {
      const config = object(setup?.generationConfig) ?? {}
      const { responseModalities, speechConfig: _speech, ...generationConfig } = config
      const audio =
        Array.isArray(responseModalities) &&
        responseModalities.some((modality) => String(modality).toUpperCase() === "AUDIO")
      const model = String(setup?.model ?? "models/gemini-live-2.5-flash").replace(/^models\//, "")
      const url = new URL(`/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`, upgrade.url)
      const body = { contents, systemInstruction: setup?.systemInstruction, tools: setup?.tools, generationConfig }
      const turn = ++turns
      const response = await answerTurn(answer, context, { url, headers, body, signal: closed.signal })
      if (response.status !== 200 || response.body === null) {
        const failed = object(await turnError(response))
        return socket.close(1011, String(failed?.message ?? "the model call failed").slice(0, 120))
      }
      const said: Array<Json> = []
      const calls: Array<Json> = []
      let usage: unknown
      let piece = 0
      await eachSseData(
        response.body,
        (data) => {
          const chunk = JSON.parse(data) as Json
          usage = chunk.usageMetadata ?? usage
          const candidate = object((chunk.candidates as ReadonlyArray<unknown> | undefined)?.[0])
          const parts = (object(candidate?.content)?.parts as ReadonlyArray<Json> | undefined) ?? []
          for (const part of parts) {
            if (object(part.functionCall) !== undefined) {
              const call = object(part.functionCall)!
              calls.push({ id: `function-call-sim-${turn}-${calls.length}`, name: call.name, args: call.args ?? {} })
              said.push(part)
            } else if (typeof part.text === "string" && part.thought !== true) {
              said.push({ text: part.text })
              if (audio) {
                send({
                  serverContent: {
                    modelTurn: {
                      parts: [
                        {
                          inlineData: {
                            mimeType: "audio/pcm;rate=24000",
                            data: seededAudio(`${context.runSeed}/${turn}/${piece++}`, part.text)
                          }
                        }
                      ]
                    },
                    outputTranscription: { text: part.text }
                  }
                })
              } else {
                send({ serverContent: { modelTurn: { parts: [{ text: part.text }] } } })
              }
            }
          }
        },
        closed.signal,
        socket
      )
      if (said.length > 0) remember({ role: "model", parts: said })
      if (calls.length > 0) return send({ toolCall: { functionCalls: calls } })
      send({ serverContent: { generationComplete: true } })
      send({ serverContent: { turnComplete: true }, ...(usage === undefined ? {} : { usageMetadata: usage }) })
    }

    const refuse = (why: string) => socket.close(1007, `simnet: ${why}`.slice(0, 120))

    const handle = async (frame: Frame): Promise<void> => {
      const message = jsonFrame(frame)
      if (message === undefined) return refuse("a Live frame is a JSON object")
      if (setup === undefined) {
        const given = object(message.setup)
        if (given === undefined) return refuse("the first Live message is setup")
        setup = given
        return send({ setupComplete: {} })
      }
      const content = object(message.clientContent)
      if (content !== undefined) {
        for (const turn of (content.turns as ReadonlyArray<unknown> | undefined) ?? []) {
          const value = object(turn)
          if (value !== undefined)
            remember({ role: value.role === "model" ? "model" : "user", parts: value.parts ?? [] })
        }
        return content.turnComplete === true ? respond() : undefined
      }
      const input = object(message.realtimeInput)
      if (input !== undefined) {
        if (typeof input.text !== "string") return undefined
        remember({ role: "user", parts: [{ text: input.text }] })
        return respond()
      }
      const tool = object(message.toolResponse)
      if (tool !== undefined) {
        const responses = ((tool.functionResponses as ReadonlyArray<unknown> | undefined) ?? []).flatMap(
          (one): Array<Json> => {
            const value = object(one)
            return value === undefined ? [] : [value]
          }
        )
        remember({
          role: "user",
          parts: responses.map((one) => ({ functionResponse: { name: one.name, response: one.response ?? {} } }))
        })
        return respond()
      }
      return refuse("a Live message is setup, clientContent, realtimeInput or toolResponse")
    }

    socket.onMessage((frame) => {
      queue = queue
        .then(() => handle(frame))
        .catch(() => {
          if (!closed.signal.aborted) socket.close(1011, "simnet: the model call failed")
        })
    })
  }

/** The Live routes' endpoints for `gemini` (its wire): `BidiGenerateContent` under `v1beta` and `v1alpha`. */
export const liveEndpoints = (live: ModelWire): ReadonlyArray<PartsEndpoint> => {
  const parts = webSocketResponder(liveSession(modelResponder(live)))
  return ["v1beta", "v1alpha"].map((version) => ({
    name: `live.${version}`,
    method: "GET" as const,
    path: `/ws/google.ai.generativelanguage.${version}.GenerativeService.BidiGenerateContent`,
    endpoint: `${version} BidiGenerateContent (WebSocket)`,
    parts
  }))
}
