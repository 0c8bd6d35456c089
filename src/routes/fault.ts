/**
 * The `fault` route kind: answers that break the way real networks break.
 * - `reset`: headers arrive, then the connection drops mid-body (the body stream errors);
 * - `timeout`: no answer ever comes; the client's own timeout or abort decides;
 * - `malformed-body`: status 200, `application/json`, and a truncated JSON document.
 */
import { Effect } from "effect"
import type { Responder } from "../registry/route.ts"

/**
 * The faults a route can inject.
 */
export type Fault = "reset" | "timeout" | "malformed-body"

/**
 * Every fault, for validation and listing.
 */
export const FAULTS: ReadonlyArray<Fault> = ["reset", "timeout", "malformed-body"]

const encoder = new TextEncoder()
const PARTIAL_BODY = '{"id":"sim_0001","object":"partial","data":[{"index":0,"value":"trunc'

/**
 * The error a reset connection raises while the body is read, shaped as undici's
 * (`TypeError: terminated` caused by `ECONNRESET`).
 */
export const connectionReset = (): TypeError =>
  new TypeError("terminated", {
    cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" })
  })

/**
 * The responder for a fault.
 */
export const faultResponder = (fault: Fault): Responder => {
  switch (fault) {
    case "timeout":
      return () => Effect.never
    case "malformed-body":
      return () => Effect.sync(() => new Response(PARTIAL_BODY, { status: 200, headers: { "content-type": "application/json" } }))
    case "reset":
      return () =>
        Effect.sync(() => {
          let sent = false
          const body = new ReadableStream<Uint8Array>({
            pull(controller) {
              if (!sent) {
                sent = true
                controller.enqueue(encoder.encode(PARTIAL_BODY))
              } else {
                controller.error(connectionReset())
              }
            }
          })
          return new Response(body, { status: 200, headers: { "content-type": "application/json" } })
        })
  }
}
