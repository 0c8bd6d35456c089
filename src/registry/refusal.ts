/**
 * A refusal as an HTTP answer: the 502 that `simnet serve` sends for a request the network
 * refused, and that an in-process `fetch` resolves with when the network is made with
 * `refusals: "502"`. Its body is JSON in the shape model SDKs read errors from
 * (`{ error: { message, … } }`), so the message the user sees first is simnet's; its headers tell
 * every SDK not to retry (a refusal does not go away on a retry).
 */
import type { SimnetError } from "../SimnetError.ts"

/**
 * The headers of every such 502. The `openai` and Anthropic SDKs do not retry on
 * `x-should-retry: false`; the AI SDK retries any 5xx but waits what `retry-after-ms` says, so its
 * retries cost no time and the caller fails at once.
 */
export const NO_RETRY: Readonly<Record<string, string>> = {
  "x-should-retry": "false",
  "retry-after-ms": "0",
  "retry-after": "0"
}

/**
 * The 502 body of a request the network refused: the error's tag and message, the request
 * (`url` as shown: redacted), for an unregistered request its nearest candidates, and for a
 * route that failed its reason (`RouteFailedReason`).
 */
export const refusalBody = (error: SimnetError, method: string, url: string) => ({
  error: {
    tag: error._tag,
    message: error.message,
    method,
    url,
    ...(error._tag === "UnregisteredRequest" ? { candidates: error.candidates } : {}),
    ...(error._tag === "RouteFailed" ? { reason: error.reason } : {})
  }
})

/**
 * The headers of a refusal's 502: `NO_RETRY`, and the refusal's tag in `x-simnet-refusal`, which a
 * client that cannot read the body (a `HEAD`) still sees.
 */
export const refusalHeaders = (error: SimnetError): Readonly<Record<string, string>> => ({
  ...NO_RETRY,
  "x-simnet-refusal": error._tag
})

/** `refusalBody` as a `Response`. */
export const refusalResponse = (error: SimnetError, method: string, url: string): Response =>
  new Response(JSON.stringify(refusalBody(error, method, url)), {
    status: 502,
    headers: { ...refusalHeaders(error), "content-type": "application/json" }
  })
