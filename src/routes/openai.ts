/**
 * The OpenAI-compatible routes: `POST {base}/chat/completions` (streamed and not) and
 * `GET {base}/models`, answered by a `SimulatedProvider`. Everything above the HTTP boundary —
 * the client's request body, SSE decoding, tool-argument accumulation, retries — runs for real
 * in the app's own client; these responders only speak the wire format.
 */
import { Effect, Exit, Schema } from "effect"
import { routeService, type Responder, type Route, type SimRequest } from "../registry/route.ts"
import { untilAborted } from "../registry/transport.ts"
import type { LlmInvocation, LlmReply, SimulatedProviderApi } from "../provider/SimulatedProvider.ts"
import { SimulatedProvider } from "../provider/SimulatedProvider.ts"
import { framesBody, splitEvents, streamFrames } from "../provider/body.ts"
import type { StreamEnd } from "../provider/body.ts"
import { readRequest } from "../provider/conversation.ts"
import type { DrivenInvocation, Opening } from "../provider/invocation.ts"
import { ChunkWriter, completion, countOutputTokens, errorBody, errorKind, usageOf } from "../provider/wire.ts"
import type { ChatCompletion, ModelList } from "../schemas/openai.ts"
import { ChatCompletionRequest } from "../schemas/openai.ts"
import { RouteFailed } from "../SimnetError.ts"
import type { NoScriptQueued, UnmatchedLlmRequest } from "../SimnetError.ts"
import { make as makeRoute } from "./make.ts"

/**
 * The base URL `Routes.openai` serves when none is given.
 */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

/**
 * The models `GET {base}/models` lists when none are given.
 */
export const DEFAULT_OPENAI_MODELS: ReadonlyArray<string> = ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "o4-mini"]

/**
 * Options of the OpenAI routes: `baseUrl` (default `https://api.openai.com/v1`; an SDK's
 * `baseURL`) and `models` (the ids `GET /models` lists).
 */
export interface OpenAiRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly models?: ReadonlyArray<string> | undefined
}

const jsonResponse = (value: unknown, status: number, headers: Record<string, string>): Response =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json", ...headers } })

const errorResponse = (
  status: number,
  message: string,
  requestId: string,
  extra: Record<string, string> = {},
  kind = errorKind(status)
): Response => jsonResponse(errorBody(message, kind.type, kind.code), status, { "x-request-id": requestId, ...extra })

const sseHeaders = (requestId: string): Record<string, string> => ({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-request-id": requestId
})

const retryHeaders = (retryAfterMs: number | undefined): Record<string, string> =>
  retryAfterMs === undefined
    ? {}
    : { "retry-after-ms": String(retryAfterMs), "retry-after": String(Math.ceil(retryAfterMs / 1000)) }

const renderReply = (invocation: LlmInvocation, reply: Extract<LlmReply, { _tag: "Reply" }>): Response => {
  const requestId = `req_sim_${invocation.seq}`
  const { head, request } = invocation
  if (request.stream) {
    const writer = new ChunkWriter(head, request.includeUsage)
    const end: StreamEnd = reply.fault === undefined
      ? { _tag: "Finish", finish: reply.finish, usage: (tokens) => usageOf(reply.usage, request.material, tokens) }
      : { _tag: "Fault", fault: reply.fault }
    const body = framesBody(streamFrames(writer, reply.parts, end), { reset: reply.fault === "reset" })
    return new Response(body, { status: 200, headers: sseHeaders(requestId) })
  }
  const failed = reply.parts.find((part) => part.kind === "error")
  if (failed !== undefined && failed.kind === "error") return errorResponse(500, failed.message, requestId)
  const usage = usageOf(reply.usage, request.material, countOutputTokens(reply.parts))
  const value: ChatCompletion = completion(head, reply.parts, reply.finish, usage)
  if (reply.fault === undefined) return jsonResponse(value, 200, { "x-request-id": requestId })
  const whole = JSON.stringify(value)
  const half = whole.slice(0, Math.floor(whole.length / 2))
  const headers = { "content-type": "application/json", "x-request-id": requestId }
  return new Response(framesBody([half].values(), { reset: reply.fault === "reset" }), { status: 200, headers })
}

const renderOpening = (invocation: LlmInvocation, opening: Opening): Effect.Effect<Response, RouteFailed> => {
  const requestId = `req_sim_${invocation.seq}`
  switch (opening._tag) {
    case "Stream":
      return Effect.succeed(new Response(opening.body, { status: 200, headers: sseHeaders(requestId) }))
    case "Completion":
      return Effect.succeed(jsonResponse(opening.completion, 200, { "x-request-id": requestId }))
    case "HttpError":
      return Effect.succeed(errorResponse(opening.status, opening.message, requestId))
    case "Disconnected":
      return Effect.fail(new RouteFailed({ route: "openai", message: `simnet: the driver disconnected ${invocation.id}` }))
  }
}

const awaitDriver = (
  invocation: LlmInvocation,
  driven: DrivenInvocation,
  signal: AbortSignal | undefined
): Effect.Effect<Response, RouteFailed> => {
  const opened = Effect.callback<Opening>((resume) => {
    driven.whenOpen((opening) => resume(Effect.succeed(opening)))
    return Effect.sync(() => driven.abandon(new DOMException("The client aborted the request.", "AbortError")))
  })
  const waited = signal === undefined ? opened : Effect.raceFirst(opened, untilAborted(signal, "openai", invocation.id))
  return Effect.flatMap(
    Effect.onExit(waited, (exit) =>
      Exit.isFailure(exit) ? Effect.sync(() => driven.abandon(new DOMException("The client aborted the request.", "AbortError"))) : Effect.void),
    (opening) => {
      if (signal !== undefined && opening._tag === "Stream") {
        const abandon = () => driven.abandon(signal.reason)
        signal.addEventListener("abort", abandon, { once: true })
        driven.whenClosed(() => signal.removeEventListener("abort", abandon))
      }
      return renderOpening(invocation, opening)
    }
  )
}

const render = (invocation: LlmInvocation, signal: AbortSignal | undefined): Effect.Effect<Response, RouteFailed> => {
  const reply = invocation.reply
  const requestId = `req_sim_${invocation.seq}`
  switch (reply._tag) {
    case "Reply":
      return Effect.succeed(renderReply(invocation, reply))
    case "HttpError":
      return Effect.succeed(errorResponse(reply.status, reply.message, requestId, retryHeaders(reply.retryAfterMs)))
    case "Raw": {
      const headers = { "content-type": reply.contentType, "x-request-id": requestId }
      if (!reply.contentType.startsWith("text/event-stream")) {
        return Effect.succeed(new Response(reply.bytes as Uint8Array<ArrayBuffer>, { status: reply.status, headers }))
      }
      const events = splitEvents(new TextDecoder().decode(reply.bytes))
      return Effect.succeed(new Response(framesBody(events[Symbol.iterator]()), { status: reply.status, headers }))
    }
    case "Hang":
      return untilAborted(signal, "openai", invocation.id)
    case "Driven":
      return awaitDriver(invocation, reply.invocation, signal)
  }
}

const refusal = (provider: SimulatedProviderApi, error: NoScriptQueued | UnmatchedLlmRequest): Response =>
  errorResponse(500, error.message, `req_sim_${provider.callCount}`, { "x-should-retry": "false" }, {
    type: "simnet_error",
    code: error._tag
  })

const decodeRequest = Schema.decodeUnknownExit(ChatCompletionRequest)

const invalidRequest = (seq: number, cause: unknown): Response =>
  errorResponse(400, `simnet: the body is not a chat completion request: ${String(cause)}`, `req_sim_${seq}`)

/**
 * The responder of `POST {base}/chat/completions`, answered by the network's `SimulatedProvider`.
 * A body that is not a chat request is a 400, logged and counted by the provider with outcome
 * `invalid-request`; a refusal (`NoScriptQueued`, `UnmatchedLlmRequest`) is a 500 whose error
 * body names the reason, with `x-should-retry: false` since retrying cannot help.
 */
export const chatCompletionsResponder: Responder = (request: SimRequest, context) =>
  Effect.flatMap(routeService(context, SimulatedProvider), (provider) => {
    const raw = request.json()
    const decoded = decodeRequest(raw)
    if (Exit.isFailure(decoded)) {
      return Effect.map(provider.recordInvalid(request.url.href, raw), (seq) => invalidRequest(seq, decoded.cause))
    }
    const llmRequest = readRequest(request.url.href, decoded.value, raw)
    return provider.invoke(llmRequest, request.signal).pipe(
      Effect.flatMap((invocation) => render(invocation, request.signal)),
      Effect.catchTags({
        NoScriptQueued: (error) => Effect.succeed(refusal(provider, error)),
        UnmatchedLlmRequest: (error) => Effect.succeed(refusal(provider, error))
      })
    )
  })

/**
 * The responder of `GET {base}/models`: the configured model ids as an OpenAI model list.
 */
export const modelsResponder = (models: ReadonlyArray<string> = DEFAULT_OPENAI_MODELS): Responder => () =>
  Effect.sync(() => {
    const list: ModelList = {
      object: "list",
      data: models.map((id) => ({ id, object: "model", created: 1_715_367_049, owned_by: "simnet" }))
    }
    return jsonResponse(list, 200, {})
  })

/**
 * The OpenAI routes: `POST {base}/chat/completions` and `GET {base}/models`, answered by the
 * network's `SimulatedProvider` (`network.llm`), with ids `openai.chat` and `openai.models`
 * (suffixed by the base URL when it is not the default) and source `openai`.
 */
export const openaiRoutes = (options: OpenAiRoutesOptions = {}): ReadonlyArray<Route> => {
  const base = (options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, "")
  const suffix = options.baseUrl === undefined ? "" : ` ${base}`
  return [
    makeRoute("openai", `POST ${base}/chat/completions`, {
      respond: chatCompletionsResponder,
      describe: { family: "openai", endpoint: "chat/completions" }
    }, { id: `openai.chat${suffix}`, source: "openai" }),
    makeRoute("openai", `GET ${base}/models`, {
      respond: modelsResponder(options.models),
      describe: { family: "openai", endpoint: "models" }
    }, { id: `openai.models${suffix}`, source: "openai" })
  ]
}
