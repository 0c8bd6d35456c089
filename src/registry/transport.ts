/**
 * Transport errors, shaped as undici's: what a client sees when the simulated connection fails.
 * Fault routes, the simulated model and the `fetch` and `HttpClient` adapters all raise them from
 * here, so one failure looks the same whichever door it came through.
 */
import { Effect } from "effect"
import { RouteFailed, type SimnetError } from "../SimnetError.ts"

/**
 * The error a reset connection raises while the body is read: `TypeError: terminated` caused by
 * `ECONNRESET`, as undici raises it.
 */
export const connectionReset = (): TypeError =>
  new TypeError("terminated", {
    cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" })
  })

/**
 * The rejection of `fetch` for a request the network did not answer: `TypeError("fetch failed")`
 * whose `cause` is the typed error.
 */
export const fetchFailed = (cause: SimnetError | Error): TypeError => new TypeError("fetch failed", { cause })

/**
 * The reason an aborted request rejects with: the signal's own reason, else an `AbortError`.
 */
export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError")

/**
 * Fails with `RouteFailed` when the client aborts (`signal`); never completes otherwise. Raced
 * against latency, a timeout or a driver, it ends the wait as soon as nobody is listening.
 * `route` and `what` name the route and the request in the error.
 */
export const untilAborted = (
  signal: AbortSignal | undefined,
  route: string,
  what: string
): Effect.Effect<never, RouteFailed> =>
  Effect.callback<never, RouteFailed>((resume) => {
    if (signal === undefined) return
    const abort = () =>
      resume(
        Effect.fail(new RouteFailed({ route, reason: "abandoned", message: `simnet: the client abandoned ${what}` }))
      )
    if (signal.aborted) return abort()
    signal.addEventListener("abort", abort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", abort))
  })

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(["CONNECT", "TRACE", "TRACK"])
const NORMALIZED_METHODS: ReadonlySet<string> = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"])

/**
 * The `TypeError` undici's `fetch` (its `Request` constructor) throws for a method it refuses, or
 * for a body sent with GET or HEAD; undefined when the request may be sent. The messages are
 * undici's own: `'G ET' is not a valid HTTP method.`, `'TRACE' HTTP method is unsupported.`,
 * `Request with GET/HEAD method cannot have body.`
 */
export const refusedRequest = (method: string, hasBody: boolean): TypeError | undefined => {
  if (!TOKEN.test(method)) return new TypeError(`'${method}' is not a valid HTTP method.`)
  const upper = method.toUpperCase()
  if (FORBIDDEN_METHODS.has(upper)) return new TypeError(`'${method}' HTTP method is unsupported.`)
  const normalized = NORMALIZED_METHODS.has(upper) ? upper : method
  if (hasBody && (normalized === "GET" || normalized === "HEAD"))
    return new TypeError("Request with GET/HEAD method cannot have body.")
  return undefined
}

/**
 * A response whose body errors with the abort reason when `signal` aborts before the body has
 * been read, as undici's does; the body it wraps is cancelled, so whatever feeds it (a loopback
 * upstream, a driven invocation) stops. Without a signal, or without a body, the response is
 * returned as it is.
 */
export const abortableResponse = (response: Response, signal: AbortSignal | undefined): Response => {
  if (signal === undefined) return response
  const bind = (response as { [BIND_SIGNAL]?: (signal: AbortSignal) => boolean })[BIND_SIGNAL]
  if (bind?.call(response, signal)) return response
  if (response.body === null) return response
  const reader = response.body.getReader()
  let onAbort: (() => void) | undefined
  const detach = () => {
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort)
    onAbort = undefined
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        detach()
        const reason = abortReason(signal)
        controller.error(reason)
        reader.cancel(reason).catch(() => undefined)
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener("abort", onAbort, { once: true })
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (signal.aborted) return
        if (done) {
          detach()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        detach()
        if (!signal.aborted) controller.error(error)
      }
    },
    cancel(reason) {
      detach()
      return reader.cancel(reason)
    }
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * A method of a response whose body can error on its request's abort by itself (a held
 * response): called with the request's signal, it answers true when the body does so (it was
 * made with the signal, or takes it now, nobody having touched the body yet), and
 * `abortableResponse` then leaves the response as it is rather than read it through a second
 * stream.
 */
export const BIND_SIGNAL: unique symbol = Symbol.for("simnet/bindSignal")
