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
export const untilAborted = (signal: AbortSignal | undefined, route: string, what: string): Effect.Effect<never, RouteFailed> =>
  Effect.callback<never, RouteFailed>((resume) => {
    if (signal === undefined) return
    const abort = () => resume(Effect.fail(new RouteFailed({ route, message: `simnet: the client abandoned ${what}` })))
    if (signal.aborted) return abort()
    signal.addEventListener("abort", abort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", abort))
  })
