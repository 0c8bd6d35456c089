/**
 * The model call, the same for every API: a request read by the route's wire format is served by
 * the network's `SimulatedProvider`, and its answer — scripted parts, an HTTP error, raw bytes, a
 * timeout or a driver's feed — is written back in that format (`Renderer`), a refusal as its 422.
 * `callModel` is the one call, at a given time; `modelAnswerer` answers a model endpoint with it at
 * the engine's clock, at once where nothing waits; `modelResponder` is the same call as an Effect,
 * at the `Clock`'s time.
 */
import { Clock, Context, Effect, Exit, Result } from "effect"
import { fromResponse, pending, whole, type Whole } from "../../registry/answer.ts"
import { defaultRedactor } from "../../registry/redact.ts"
import {
  type Answerer,
  type RespondContext,
  routeService,
  type Responder,
  type SimRequest
} from "../../registry/route.ts"
import { untilAborted } from "../../registry/transport.ts"
import { NoScriptQueued, RouteFailed, UnmatchedLlmRequest } from "../../SimnetError.ts"
import { framesBody, pacedBody, paceDelays, scriptedFrames, splitEvents } from "../provider/body.ts"
import { readConversation } from "../provider/conversation.ts"
import type { DrivenInvocation, Opening } from "../provider/invocation.ts"
import { type Finish, gather, type Part, type TokenUsage, usageOf } from "../provider/parts.ts"
import { type LlmInvocation, SimulatedProvider, type SimulatedProviderApi } from "../provider/SimulatedProvider.ts"
import { JsonText } from "./jsonTemplate.ts"
import type { ModelWire } from "./wire.ts"

const JSON_TYPE = "application/json"
const jsonHeaders: Readonly<Record<string, string>> = { "content-type": JSON_TYPE }
const NO_HEADERS: Readonly<Record<string, string>> = {}

/**
 * A JSON answer as the doors take it (`Whole`), with no `Response` made for it: the Node door
 * writes it in one write with its length, `fetch` hands its text to `json()`.
 */
export const jsonWhole = (
  value: unknown,
  status: number,
  headers: Readonly<Record<string, string>> = NO_HEADERS
): Whole => {
  // Copied member by member: a spread of two objects made a third on every model call.
  const all: Record<string, string> = { "content-type": JSON_TYPE }
  for (const name in headers) all[name] = headers[name]
  return jsonOn(value, status, all)
}

/**
 * `jsonWhole` on headers made for this answer alone, its content type among them: they become
 * the answer's as they are (a model call's answer copied its headers once more for nothing).
 */
const jsonOn = (value: unknown, status: number, headers: Record<string, string>): Whole =>
  whole(status, headers, JsonText.of(value))

/**
 * The `retry-after-ms` and `retry-after` (whole seconds, rounded up) headers of a wait.
 */
export const retryHeaders = (retryAfterMs: number | undefined): Record<string, string> =>
  retryAfterMs === undefined
    ? {}
    : { "retry-after-ms": String(retryAfterMs), "retry-after": String(Math.ceil(retryAfterMs / 1000)) }

const sseHeaders = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }

const abortError = () => new DOMException("The client aborted the request.", "AbortError")

class Renderer {
  readonly wire: ModelWire
  readonly invocation: LlmInvocation
  /** The request's signal, asked for only where it is needed (a signal made for nothing costs an AbortController). */
  readonly #signal: () => AbortSignal | undefined
  get signal(): AbortSignal | undefined {
    return this.#signal()
  }
  readonly requestId: string

  readonly run: RespondContext["run"]

  constructor(
    wire: ModelWire,
    invocation: LlmInvocation,
    signal: () => AbortSignal | undefined,
    run: RespondContext["run"]
  ) {
    this.wire = wire
    this.invocation = invocation
    this.#signal = signal
    this.requestId = `req_sim_${invocation.seq}`
    this.run = run
  }

  /** Sleeps on the network's `Clock` (a paced stream's gaps, outside any fiber). */
  sleep(ms: number): Promise<void> {
    return this.run(Effect.sleep(ms), this.signal)
  }

  /**
   * The answer's headers: `contentType` when given (a JSON answer's, first as `jsonWhole` puts
   * it; see `json`), the request id, the API's rate limits and `extra`, copied member by member (no spreads).
   */
  headers(
    extra: Readonly<Record<string, string>> = NO_HEADERS,
    exhausted = false,
    contentType?: string
  ): Record<string, string> {
    const out: Record<string, string> = contentType === undefined ? {} : { "content-type": contentType }
    out[this.wire.requestIdHeader] = this.requestId
    this.wire.rateLimits?.(this.invocation, exhausted, out)
    for (const name in extra) out[name] = extra[name]
    return out
  }

  /** A JSON answer with this call's headers, made for it alone (`jsonOn`: no copy of them). */
  json(value: unknown, status: number, extra: Readonly<Record<string, string>> = NO_HEADERS, exhausted = false): Whole {
    return jsonOn(value, status, this.headers(extra, exhausted, JSON_TYPE))
  }

  error(status: number, message: string, extra: Readonly<Record<string, string>> = NO_HEADERS): Whole {
    return this.json(this.wire.errorBody(status, message, undefined), status, extra, status === 429)
  }

  stream(body: ReadableStream<Uint8Array>): Response {
    const streaming = this.wire.streaming
    const headers = streaming === undefined ? sseHeaders : { "content-type": streaming.contentType }
    return new Response(body, { status: 200, headers: this.headers(headers) })
  }

  answer(parts: ReadonlyArray<Part>, finish: Finish, given: TokenUsage | undefined): unknown {
    const usage = usageOf(given, this.invocation.request.material, gather(parts).outputTokens)
    return this.wire.answer(this.invocation, parts, finish, usage)
  }

  reply(reply: Extract<LlmInvocation["reply"], { _tag: "Reply" }>): Response | Whole {
    const request = this.invocation.request
    if (request.stream) {
      const writer = this.wire.writer(this.invocation, reply.usage)
      const encode = this.wire.streaming?.encode
      if (reply.pace === undefined) {
        return this.stream(
          framesBody(scriptedFrames(writer, reply.parts, reply.finish, reply.usage, reply.fault), {
            reset: reply.fault === "reset",
            encode
          })
        )
      }
      const opening = writer.open()
      const frames = scriptedFrames(writer, reply.parts, reply.finish, reply.usage, reply.fault, opening)
      return this.stream(
        pacedBody(frames, paceDelays(reply.pace, opening.length, this.invocation.seq), (ms) => this.sleep(ms), {
          reset: reply.fault === "reset",
          encode
        })
      )
    }
    const failed = gather(reply.parts).error
    if (failed !== undefined) return this.error(500, failed)
    const value = this.answer(reply.parts, reply.finish, reply.usage)
    if (reply.fault === undefined) return this.json(value, 200)
    const whole = JsonText.of(value)
    const half = whole.slice(0, Math.floor(whole.length / 2))
    return new Response(framesBody([half].values(), { reset: reply.fault === "reset" }), {
      status: 200,
      headers: this.headers(jsonHeaders)
    })
  }

  opening(opening: Opening): Effect.Effect<Response | Whole, RouteFailed> {
    switch (opening._tag) {
      case "Stream":
        return Effect.succeed(
          this.stream(opening.mailbox.body(this.wire.writer(this.invocation, undefined), this.wire.streaming?.encode))
        )
      case "Answer":
        return Effect.succeed(this.json(this.answer(opening.parts, opening.finish, opening.usage), 200))
      case "HttpError":
        return Effect.succeed(this.error(opening.status, opening.message))
      case "Disconnected":
        return Effect.fail(
          new RouteFailed({
            route: this.wire.name,
            reason: "driver",
            message: `simnet: the driver disconnected ${this.invocation.id}`
          })
        )
    }
  }

  driven(driven: DrivenInvocation): Effect.Effect<Response | Whole, RouteFailed> {
    const signal = this.signal
    const opened = Effect.callback<Opening>((resume) => {
      driven.whenOpen((opening) => resume(Effect.succeed(opening)))
      return Effect.sync(() => driven.abandon(abortError()))
    })
    const waited =
      signal === undefined ? opened : Effect.raceFirst(opened, untilAborted(signal, this.wire.name, this.invocation.id))
    return Effect.flatMap(
      Effect.onExit(waited, (exit) =>
        Exit.isFailure(exit) ? Effect.sync(() => driven.abandon(abortError())) : Effect.void
      ),
      (opening) => {
        if (signal !== undefined && opening._tag === "Stream") {
          const abandon = () => driven.abandon(signal.reason)
          signal.addEventListener("abort", abandon, { once: true })
          driven.whenClosed(() => signal.removeEventListener("abort", abandon))
        }
        return this.opening(opening)
      }
    )
  }

  /** The answer when it is had now (a reply with no pacing, an HTTP error), else undefined: `render` then. */
  renderNow(): Response | Whole | undefined {
    const reply = this.invocation.reply
    if (reply._tag === "HttpError") return this.error(reply.status, reply.message, retryHeaders(reply.retryAfterMs))
    return reply._tag === "Reply" && reply.pace === undefined ? this.reply(reply) : undefined
  }

  render(): Effect.Effect<Response | Whole, RouteFailed> {
    const reply = this.invocation.reply
    switch (reply._tag) {
      case "Reply": {
        const pace = reply.pace
        if (pace === undefined || this.invocation.request.stream) return Effect.succeed(this.reply(reply))
        // A non-streamed answer waits what its parts would have taken to stream.
        const delayOf = paceDelays(pace, 0, this.invocation.seq)
        let wait = 0
        for (let i = 0; i < reply.parts.length; i++) wait += delayOf(i)
        return Effect.andThen(
          Effect.sleep(wait),
          Effect.sync(() => this.reply(reply))
        )
      }
      case "HttpError":
        return Effect.succeed(this.error(reply.status, reply.message, retryHeaders(reply.retryAfterMs)))
      case "Raw": {
        const headers = this.headers({ "content-type": reply.contentType })
        if (!reply.contentType.startsWith("text/event-stream")) {
          return Effect.succeed(new Response(reply.bytes as Uint8Array<ArrayBuffer>, { status: reply.status, headers }))
        }
        const events = splitEvents(new TextDecoder().decode(reply.bytes))
        return Effect.succeed(new Response(framesBody(events[Symbol.iterator]()), { status: reply.status, headers }))
      }
      case "Hang":
        return untilAborted(this.signal, this.wire.name, this.invocation.id)
      case "Driven":
        return this.driven(reply.invocation)
    }
  }
}

/**
 * The status of a refusal: 422 (the request is well formed; the simulation has no answer for it).
 * No SDK retries it — the `openai` and Anthropic SDKs retry 408, 409, 429 and 5xx (unless told
 * `x-should-retry: false`), the AI SDK 408, 409, 429 and 5xx whatever the headers — so the caller
 * fails at once, with the reason as the error's message.
 */
const REFUSAL_STATUS = 422

const refusal = (wire: ModelWire, provider: SimulatedProviderApi, tag: string, message: string): Whole =>
  jsonWhole(wire.errorBody(REFUSAL_STATUS, message, tag), REFUSAL_STATUS, {
    [wire.requestIdHeader]: `req_sim_${provider.callCount}`,
    "x-should-retry": "false"
  })

/** A model request's URL as the model's log keeps it: through the network's redactor, as every URL simnet keeps or shows. */
const shownUrl = (request: SimRequest, context: RespondContext): string =>
  (context.redactor ?? defaultRedactor).url(request.url)

/** A refused model call (`NoScriptQueued`, `UnmatchedLlmRequest`) answered as its 422. */
const refusals = (wire: ModelWire, provider: SimulatedProviderApi) => {
  const answer = (error: NoScriptQueued | UnmatchedLlmRequest) =>
    Effect.succeed(refusal(wire, provider, error._tag, error.message))
  return <A>(
    effect: Effect.Effect<A, NoScriptQueued | UnmatchedLlmRequest | RouteFailed>
  ): Effect.Effect<A | Whole, RouteFailed> =>
    Effect.catchTags(effect, { NoScriptQueued: answer, UnmatchedLlmRequest: answer })
}

/**
 * A model call's answer: had now (`Whole`, or a streamed `Response`), or the Effect of one still
 * to come (a rule's latency, a driver, pacing, a hang).
 */
type CallAnswer = Response | Whole | Effect.Effect<Response | Whole, RouteFailed>

/**
 * One model call in `wire`'s format, the only place one is read, refused, decided and rendered:
 * a body that is not a request of the API is a 400, logged and counted by the provider with
 * outcome `invalid-request`; the provider decides at `now` (the network's clock); a refusal
 * (`NoScriptQueued`, `UnmatchedLlmRequest`) is a 422 whose error body names the reason, which no
 * SDK retries (retrying cannot help); the answer is rendered now when nothing waits, else it is
 * the Effect of it. Nothing here waits and no fiber runs.
 */
const callModel = (
  wire: ModelWire,
  provider: SimulatedProviderApi,
  request: SimRequest,
  context: RespondContext,
  now: number
): CallAnswer => {
  const raw = request.json()
  const read = wire.read(request, raw)
  const bodySize = request.body?.length ?? 0
  if (Result.isFailure(read)) {
    const seq = provider.recordInvalidAt(shownUrl(request, context), raw, wire.api, bodySize, now)
    return jsonWhole(wire.errorBody(400, `simnet: ${read.failure}`, undefined), 400, {
      [wire.requestIdHeader]: `req_sim_${seq}`
    })
  }
  // The signal is asked for only where it is needed (a signal made for nothing costs an AbortController).
  const signal = () => request.signal
  const served = provider.invokeAt(readConversation(read.success, bodySize, shownUrl(request, context)), now, signal)
  // Checked first: a refusal is an error, and an error is also an Effect (one that fails with it).
  if (served instanceof NoScriptQueued || served instanceof UnmatchedLlmRequest)
    return refusal(wire, provider, served._tag, served.message)
  if (Effect.isEffect(served)) {
    return refusals(
      wire,
      provider
    )(Effect.flatMap(served, (invocation) => new Renderer(wire, invocation, signal, context.run).render()))
  }
  const renderer = new Renderer(wire, served, signal, context.run)
  return renderer.renderNow() ?? renderer.render()
}

/**
 * The responder of a model endpoint in `wire`'s format, answered by the network's
 * `SimulatedProvider` (`callModel`) at the `Clock`'s time: what a route answering in Effect (a
 * WebSocket turn, a multipart upload read first) calls. A network without the provider fails the
 * request with `RouteFailed` naming it.
 */
export const modelResponder =
  (wire: ModelWire): Responder =>
  (request, context) =>
    Effect.flatMap(routeService(context, SimulatedProvider), (provider) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const answer = callModel(wire, provider, request, context, now)
        return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
      })
    )

/**
 * `callModel` as a route's answer at the engine's clock (`context.now`), had at once where
 * nothing waits: a `Whole` or streamed answer with no fiber run for it; what waits (a rule's
 * latency, a driver, a hang, pacing) is handed to the doors as the Effect it is. A context without
 * the engine's clock or the provider (a route used outside a network) goes through
 * `modelResponder`, which reads the `Clock` and names what is missing.
 */
export const modelAnswerer = (wire: ModelWire): Answerer => {
  const responder = modelResponder(wire)
  return (request, context) => {
    const provider = context.now === undefined ? undefined : Context.getOption(context.services, SimulatedProvider)
    if (provider === undefined || provider._tag === "None") return pending(responder(request, context))
    const answer = callModel(wire, provider.value, request, context, context.now!())
    return Effect.isEffect(answer) ? pending(answer) : answer instanceof Response ? fromResponse(answer) : answer
  }
}
