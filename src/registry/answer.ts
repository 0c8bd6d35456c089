/**
 * What a route answers a request with, the one value every door renders: the `fetch` door as a
 * WHATWG `Response` (or undici's rejection), the `HttpClient` door as an `HttpClientResponse` (or
 * an `HttpClientError`), the Node door (`simnet serve`, the proxy) as bytes on a socket, global
 * interception through the `fetch` door. Four cases:
 *
 * - `Whole`: the status, headers and body at once (a static or generated route). A body held
 *   whole is handed to a server as it is and to `fetch` without a stream. A `101` to a request
 *   that asked for a WebSocket carries the session (`upgrade`): the Node door hands it the
 *   upgraded socket; a door that cannot upgrade (`fetch`, `HttpClient`) renders its `refused`.
 * - `Streamed`: a web `Response` whose body arrives as it is read (a model's stream, a handler's
 *   own `Response`).
 * - `Pending`: an Effect that yields a `Whole` or `Streamed` later (a delay, a model waiting for
 *   its script, a handler's promise), or fails with the refusal's typed error.
 * - `Refused`: no answer, with its typed cause (an unregistered request, a route that failed).
 */
import { Effect } from "effect"
import { isSimnetError, RouteFailed, type SimnetError } from "../SimnetError.ts"
import { peekHeld } from "./heldResponse.ts"
import type { SocketSession } from "./socket.ts"

export interface Whole {
  readonly _tag: "Whole"
  readonly status: number
  /** The headers as the route gave them; a `Headers` when they came from a web response. */
  readonly headers: Readonly<Record<string, string>> | Headers
  /** The body, undefined for none. Shared by every request it answers: never changed. */
  readonly body: Uint8Array | string | undefined
  /** The same body as text, when the route has it so (what `fetch`'s `text()` hands back). */
  readonly text?: string | undefined
  /** For a `101`: the WebSocket session, and what a door that cannot upgrade answers instead (a `426`). */
  readonly upgrade?: Upgrade | undefined
}

/**
 * A WebSocket answer: its session, the `426` of a door that cannot upgrade, and (set by the
 * network) where the door writes what became of the socket into the request's log record: that
 * it stopped reading a client that was not reading, and how the socket closed (`SocketLog`).
 */
export interface Upgrade {
  readonly accept: SocketSession
  readonly refused: Whole
  readonly log?: ((event: SocketLog) => void) | undefined
}

/**
 * What the door logs of an upgraded socket, in its record's `detail.webSocket`: `paused`, how
 * many times it stopped reading a client that read nothing while more than the high-water mark
 * waited for it; `closed`, the code and reason it closed with (`by`: who closed it — the client,
 * the session, or simnet at its bound).
 */
export interface SocketLog {
  readonly paused?: number | undefined
  readonly closed?:
    | { readonly code: number; readonly reason: string; readonly by: "client" | "session" | "simnet" }
    | undefined
}

export interface Streamed {
  readonly _tag: "Streamed"
  readonly response: Response
}

/** An answer the route has now: what a `Pending` yields. */
export type Settled = Whole | Streamed

export interface Pending {
  readonly _tag: "Pending"
  /** The answer to come; the `HttpClient` door runs it in the caller's fiber. */
  readonly effect: Effect.Effect<Settled, SimnetError>
  /**
   * The same answer as a promise, when the route's engine is promise-based (a handler, the MCP
   * engine): a door outside Effect awaits it and costs no fiber. It rejects with a `SimnetError`.
   */
  readonly promise?: Promise<Settled> | undefined
}

export interface Refused {
  readonly _tag: "Refused"
  readonly error: SimnetError
}

export type Answer = Whole | Streamed | Pending | Refused

export const whole = (
  status: number,
  headers: Readonly<Record<string, string>> | Headers,
  body: Uint8Array | string | undefined,
  text?: string
): Whole =>
  text === undefined ? { _tag: "Whole", status, headers, body } : { _tag: "Whole", status, headers, body, text }

/** A `101` that upgrades to a WebSocket and runs `accept` on it; `refused` where no upgrade can happen. */
export const upgraded = (accept: SocketSession, refused: Whole): Whole => ({
  _tag: "Whole",
  status: 101,
  headers: {},
  body: undefined,
  upgrade: { accept, refused }
})

/** What a door that cannot upgrade renders for an answer had now: a WebSocket's `refused`, else the answer. */
export const withoutUpgrade = <A extends Settled>(answer: A): A | Whole =>
  answer._tag === "Whole" && answer.upgrade !== undefined ? answer.upgrade.refused : answer

export const streamed = (response: Response): Streamed => ({ _tag: "Streamed", response })

export const refused = (error: SimnetError): Refused => ({ _tag: "Refused", error })

/**
 * A web `Response` as an answer. The one place a body simnet built whole (`heldResponse.ts`) is
 * taken back out of a `Response`: a route kind whose engine answers with `Response`s (the MCP
 * engine, a model's JSON answer) still answers whole.
 */
export const fromResponse = (response: Response): Settled => {
  const held = peekHeld(response)
  return held === undefined ? streamed(response) : whole(response.status, held.headers ?? response.headers, held.body)
}

/** An answer to come, from an Effect yielding a `Response` or an answer. */
export const pending = (effect: Effect.Effect<Response | Settled, SimnetError>): Pending => ({
  _tag: "Pending",
  effect: Effect.map(effect, settle)
})

/** A `Response` as an answer had now (`fromResponse`); an answer as it is. */
export const settle = (value: Response | Settled): Settled => (value instanceof Response ? fromResponse(value) : value)

/**
 * An answer to come from a promise of a `Response` (or of an answer), rejecting with a
 * `SimnetError`; a rejection that is not one becomes a `RouteFailed` naming `route`.
 */
export const later = (promise: PromiseLike<Response | Settled>, route: string): Pending => {
  const settled = Promise.resolve(promise).then(settle, (error: unknown) => Promise.reject(asSimnetError(error, route)))
  return {
    _tag: "Pending",
    promise: settled,
    effect: Effect.tryPromise({ try: () => settled, catch: (error) => asSimnetError(error, route) })
  }
}

/** A rejection as a typed error: itself when it is one, else a `RouteFailed` naming `route`. */
export const asSimnetError = (error: unknown, route: string): SimnetError =>
  isSimnetError(error)
    ? error
    : new RouteFailed({
        route,
        reason: "handler",
        message: `the route failed: ${error instanceof Error ? error.message : String(error)}`,
        cause: error
      })

/** An answer from what a route's engine returned: a `Response` now, or a promise of one. */
export const fromResult = (result: Response | PromiseLike<Response>, route: string): Answer =>
  result instanceof Response ? fromResponse(result) : later(result, route)

/** Any answer as an Effect: what the `HttpClient` door and chaos build on. */
export const toEffect = (answer: Answer): Effect.Effect<Settled, SimnetError> => {
  switch (answer._tag) {
    case "Whole":
    case "Streamed":
      return Effect.succeed(answer)
    case "Pending":
      return answer.effect
    case "Refused":
      return Effect.fail(answer.error)
  }
}

/** An answer had now as a plain web `Response` (a body held whole is copied into it). */
export const toResponse = (answer: Settled): Response =>
  answer._tag === "Streamed"
    ? answer.response
    : new Response((answer.body ?? null) as BodyInit | null, { status: answer.status, headers: answer.headers })

/** The status of an answer had now. */
export const statusOf = (answer: Settled): number => (answer._tag === "Whole" ? answer.status : answer.response.status)
