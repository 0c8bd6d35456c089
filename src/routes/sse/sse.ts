/**
 * The `sse` route kind: a fixed list of server-sent events (`event`, `data`, `id`), framed as the
 * HTML standard's event stream by Effect's `Sse` encoder, with the `retry` a client should wait
 * before it reconnects. A client that reconnects with `Last-Event-ID` gets the events after that
 * id; one that has seen the last event gets `204`, which tells an `EventSource` to stop
 * reconnecting. Pacing (`interval`, or an event's own `delay`) sleeps on the network's `Clock`,
 * so `TestClock` moves it. A handler returns an event stream of its own with `eventStream`.
 */
import { Duration, Effect, Schema, Stream } from "effect"
import * as Sse from "effect/encoding/Sse"
import { pending, refused, whole } from "../../registry/answer.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import type { RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { checked as checkedRoute, codeOptions } from "../codeOptions.ts"
import { make, type RouteOptions, type RouteParts, usable } from "../make.ts"
import { RespondHeaders, RespondMillis, RespondStatus } from "../spec.ts"

/**
 * One event of a stream. `data` is sent as it is when it is a string, else as its JSON; `event`
 * names it (a listener's type; `message` when absent); `id` is what a reconnecting client sends
 * back as `Last-Event-ID`; `delay` waits that long on the network's `Clock` before the event
 * (instead of the stream's `interval`).
 */
export interface SseEvent {
  readonly data: unknown
  readonly event?: string | undefined
  readonly id?: string | undefined
  readonly delay?: Duration.Input | undefined
}

/**
 * Options of an event stream: `retry`, the reconnection time sent to the client first (as SSE's
 * `retry:` field, in whole milliseconds); `interval`, the wait before each event after the first
 * on the network's `Clock`; `status` (default 200) and extra `headers`.
 */
export interface SseOptions {
  readonly retry?: Duration.Input | undefined
  readonly interval?: Duration.Input | undefined
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The most events one `sse` route may hold, and the most bytes their frames may take. */
export const SSE_LIMITS = { events: 10_000, bytes: 8 * 1024 * 1024 } as const

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

/** A duration as whole milliseconds, or the reason it is not one (finite and not negative). */
const millisAt = (input: Duration.Input | undefined, path: string): number | undefined | InvalidRouteSpec => {
  if (input === undefined) return undefined
  try {
    const parsed = Duration.fromInput(input)
    if (parsed._tag === "Some" && Duration.isFinite(parsed.value) && !Duration.isNegative(parsed.value))
      return Math.round(Duration.toMillis(parsed.value))
  } catch {
    // Reported below, as any other value that is not a duration.
  }
  return invalid(
    path,
    `${path.split(".").at(-1)} must be a finite, non-negative duration (a number of milliseconds or such as "2 seconds")`
  )
}

/** A field an event line carries must not break the line: SSE ends a field at CR or LF (and an id with NUL is ignored). */
const BREAKS_LINE = /[\r\n\0]/

/** An event checked and framed once: its text on the wire and its wait in milliseconds. */
interface Framed {
  readonly id: string | undefined
  readonly frame: string
  readonly delayMs: number | undefined
}

/** The text of an event's data: a string as it is, anything else as its JSON. */
const dataText = (data: unknown, path: string): string | InvalidRouteSpec => {
  if (data === undefined) return invalid(path, "an event needs data (a string, or any JSON value)")
  if (typeof data === "string") return data
  try {
    const json = JSON.stringify(data)
    if (json !== undefined) return json
  } catch {
    // A value with no JSON form (a cycle, a BigInt) is refused below.
  }
  return invalid(path, `an event's data must be a string or a JSON value, got ${typeof data}`)
}

/**
 * Checks one event and frames it with Effect's `Sse` encoder, or says what is wrong with it,
 * naming `path` (`respond.events[2].data`).
 */
export const frameEvent = (event: SseEvent, path: string): Framed | InvalidRouteSpec => {
  if (typeof event !== "object" || event === null)
    return invalid(path, "an event is an object { data, event?, id?, delay? }")
  const data = dataText(event.data, `${path}.data`)
  if (data instanceof InvalidRouteSpec) return data
  if (
    event.event !== undefined &&
    (typeof event.event !== "string" || event.event === "" || BREAKS_LINE.test(event.event))
  ) {
    return invalid(`${path}.event`, "an event name is a non-empty string without line breaks")
  }
  if (event.id !== undefined && (typeof event.id !== "string" || BREAKS_LINE.test(event.id))) {
    return invalid(`${path}.id`, "an event id is a string without line breaks or NUL")
  }
  const delayMs = millisAt(event.delay, `${path}.delay`)
  if (delayMs instanceof InvalidRouteSpec) return delayMs
  const frame = Sse.encoder.write({ _tag: "Event", event: event.event ?? "message", id: event.id, data })
  return { id: event.id, frame, delayMs }
}

/** The checked options: the `retry:` frame (if any), the interval and the head of the answer. */
interface Checked {
  readonly retryFrame: string | undefined
  readonly intervalMs: number
  readonly status: number
  readonly headers: Record<string, string>
}

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }

const checkOptions = (options: SseOptions): Checked | InvalidRouteSpec => {
  const retry = millisAt(options.retry, "respond.retry")
  if (retry instanceof InvalidRouteSpec) return retry
  const interval = millisAt(options.interval, "respond.interval")
  if (interval instanceof InvalidRouteSpec) return interval
  const status = options.status ?? 200
  if (!Number.isInteger(status) || status < 200 || status > 299 || status === 204) {
    return invalid("respond.status", `an event stream's status is a 2xx other than 204, got ${status}`)
  }
  const headers: Record<string, string> = { ...SSE_HEADERS }
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value
  return {
    retryFrame:
      retry === undefined
        ? undefined
        : Sse.encoder.write(new Sse.Retry({ duration: Duration.millis(retry), lastEventId: undefined })),
    intervalMs: interval ?? 0,
    status,
    headers
  }
}

/** The events of a stream checked and framed, or the first problem, naming its index. */
const frameAll = (events: ReadonlyArray<SseEvent>): ReadonlyArray<Framed> | InvalidRouteSpec => {
  if (!Array.isArray(events)) return invalid("respond.events", "the events are an array of { data, event?, id? }")
  if (events.length > SSE_LIMITS.events)
    return invalid(
      "respond.events",
      `at most ${SSE_LIMITS.events} events a route (SSE_LIMITS.events), got ${events.length}`
    )
  const framed: Array<Framed> = []
  let bytes = 0
  for (let i = 0; i < events.length; i++) {
    const one = frameEvent(events[i], `respond.events[${i}]`)
    if (one instanceof InvalidRouteSpec) return one
    bytes += one.frame.length
    if (bytes > SSE_LIMITS.bytes)
      return invalid(
        `respond.events[${i}]`,
        `the events take more than ${SSE_LIMITS.bytes} characters (SSE_LIMITS.bytes)`
      )
    framed.push(one)
  }
  return framed
}

/**
 * The events a reconnecting client has not seen: those after the last one whose id is
 * `lastEventId`, or all of them when no event has that id (a client of another stream's ids
 * starts over).
 */
const resumeAfter = (framed: ReadonlyArray<Framed>, lastEventId: string | null): ReadonlyArray<Framed> => {
  if (lastEventId === null) return framed
  const at = framed.findLastIndex((event) => event.id === lastEventId)
  return at === -1 ? framed : framed.slice(at + 1)
}

/** What a client that has seen every event gets: `204`, so an `EventSource` stops reconnecting. */
const caughtUp = whole(204, { "cache-control": "no-cache" }, undefined)

const paced = (framed: ReadonlyArray<Framed>, intervalMs: number): boolean =>
  framed.some((event, i) => (event.delayMs ?? (i === 0 ? 0 : intervalMs)) > 0)

/**
 * A body of frames, each after its wait, on the `Clock` of the Effect that makes it: an event
 * after the first waits `intervalMs` unless it has its own `delay`.
 */
const pacedBody = (
  frames: Stream.Stream<Framed, unknown>,
  first: string | undefined,
  intervalMs: number
): Effect.Effect<ReadableStream<Uint8Array>> =>
  Stream.toReadableStreamEffect(
    Stream.concat(
      Stream.fromIterable(first === undefined ? [] : [first]),
      frames.pipe(
        Stream.zipWithIndex,
        Stream.mapEffect(([event, i]) => {
          const wait = event.delayMs ?? (i === 0 ? 0 : intervalMs)
          return wait > 0 ? Effect.as(Effect.sleep(Duration.millis(wait)), event.frame) : Effect.succeed(event.frame)
        })
      )
    ).pipe(Stream.encodeText),
    { strategy: { highWaterMark: 0 } }
  )

/**
 * Builds the parts of an `sse` route. Every event is checked and framed once, here: an event
 * without data, or with an id or name that would break its line, fails the registration naming
 * its index (`respond.events[2].data`). An unpaced stream is answered whole (the same bytes for
 * every request); a paced one is written event by event on the network's `Clock`.
 */
export const sseResponder = (events: ReadonlyArray<SseEvent>, options: SseOptions): RouteParts => {
  const checked = checkOptions(options)
  const framed = checked instanceof InvalidRouteSpec ? checked : frameAll(events)
  const problem =
    checked instanceof InvalidRouteSpec ? checked : framed instanceof InvalidRouteSpec ? framed : undefined
  if (problem !== undefined) return { answer: () => refused(problem), prepare: Effect.fail(problem) }
  const head = checked as Checked
  const all = framed as ReadonlyArray<Framed>
  const text = (list: ReadonlyArray<Framed>) => (head.retryFrame ?? "") + list.map((event) => event.frame).join("")
  const everything = whole(head.status, head.headers, text(all))
  const answer = (request: SimRequest, _context: RespondContext) => {
    const left = resumeAfter(all, request.headers.get("last-event-id"))
    if (left.length === 0 && all.length > 0) return caughtUp
    if (!paced(left, head.intervalMs)) return left === all ? everything : whole(head.status, head.headers, text(left))
    return pending(
      Effect.map(
        pacedBody(Stream.fromIterable(left), head.retryFrame, head.intervalMs),
        (body) => new Response(body, { status: head.status, headers: head.headers })
      )
    )
  }
  // No `reproduce`: what a request got depends on its `Last-Event-ID`, which a logged seed does not say.
  return {
    answer,
    describe: { events: all.length, ...(head.intervalMs > 0 ? { intervalMs: head.intervalMs } : {}) }
  }
}

/**
 * An event stream as a handler's answer: `Route.handler(match, () => Route.eventStream(events))`.
 * `events` is an array (or any iterable) or an Effect `Stream` of events, written one by one
 * with the options' `retry` first and `interval` between them, on the `Clock` of the Effect that
 * runs it (the network's, or the caller's for `HttpClient`: `TestClock` moves it). Bad options
 * fail the answer with `InvalidRouteSpec`; an event that is not one (no data, an id with a line
 * break) or a failure of the source ends the stream there with an error, so the client sees the
 * connection break, as from a server that could not write the rest.
 *
 * @example Route.handler("GET https://api.example.com/progress", () => Route.eventStream(Stream.make({ data: "1" }, { data: "2" })))
 */
export const eventStream = <E = never>(
  events: Iterable<SseEvent> | Stream.Stream<SseEvent, E>,
  options: SseOptions = {}
): Effect.Effect<Response, InvalidRouteSpec> =>
  Effect.suspend(() => {
    const checked = checkOptions(options)
    if (checked instanceof InvalidRouteSpec) return Effect.fail(checked)
    const source: Stream.Stream<SseEvent, unknown> = Stream.isStream(events) ? events : Stream.fromIterable(events)
    const framed = source.pipe(
      Stream.zipWithIndex,
      Stream.mapEffect(([event, i]) => {
        const one = frameEvent(event, `events[${i}]`)
        return one instanceof InvalidRouteSpec ? Effect.fail(one) : Effect.succeed(one)
      })
    )
    return Effect.map(
      pacedBody(framed, checked.retryFrame, checked.intervalMs),
      (body) => new Response(body, { status: checked.status, headers: checked.headers })
    )
  })

/**
 * `sse`'s `respond` fields beside its `events`: its options in code too, `retryMs` and
 * `intervalMs` as `retry` and `interval` (`sseSpec.ts` spreads them into `SseRespond`).
 */
export const SSE_FIELDS = {
  retryMs: Schema.optional(RespondMillis),
  intervalMs: Schema.optional(RespondMillis),
  status: Schema.optional(RespondStatus),
  headers: Schema.optional(RespondHeaders)
}

const SSE_OPTIONS = codeOptions(SSE_FIELDS)

/**
 * Answers with server-sent events (kind `sse`): `events` (`{ data, event?, id?, delay? }`, data a
 * string or any JSON value) framed as an event stream, `retry` first when given. A client that
 * reconnects with `Last-Event-ID` gets the events after that id, and `204` once it has seen the
 * last one (an `EventSource` then stops). `interval` (or an event's `delay`) paces the events on
 * the network's `Clock`. An event without data, or with an id or name that would break its line,
 * fails the registration naming its index.
 *
 * @example Route.sse("GET https://api.example.com/events", [{ event: "progress", data: { done: 1 }, id: "1" }], { retry: 1000 })
 */
export const sse = (
  match: MatcherInput,
  events: ReadonlyArray<SseEvent>,
  options: RouteOptions & SseOptions = {}
): Route =>
  checkedRoute("sse", SSE_OPTIONS, options, () => make("sse", match, sseResponder(events, usable(options)), options))
