/**
 * The rate-limit headers the model APIs send with every answer, deterministic: OpenAI's and
 * Anthropic's, computed from the call's number and its prompt (`ModelWire.rateLimits`).
 */
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"

/** The requests and tokens a simulated key may use a minute, as the rate-limit headers report them. */
const REQUESTS_PER_MINUTE = 10_000
const TOKENS_PER_MINUTE = 30_000_000

/** The requests left of a minute's allowance at the call numbered `seq`: one fewer a call; none on a 429. */
const requestsLeft = (invocation: LlmInvocation, exhausted: boolean): string =>
  exhausted ? "0" : String(REQUESTS_PER_MINUTE - (((invocation.seq - 1) % REQUESTS_PER_MINUTE) + 1))

/** The tokens left of a minute's allowance: fewer by the prompt's (four characters a token); none on a 429. */
const tokensLeft = (invocation: LlmInvocation, exhausted: boolean): string =>
  exhausted ? "0" : String(Math.max(0, TOKENS_PER_MINUTE - Math.ceil(invocation.request.material.length / 4)))

const REQUESTS_LIMIT = String(REQUESTS_PER_MINUTE)
const TOKENS_LIMIT = String(TOKENS_PER_MINUTE)

/**
 * OpenAI's rate-limit headers (`x-ratelimit-limit-requests`, `-remaining-requests`,
 * `-reset-requests` and the same for tokens), deterministic: the remaining requests fall by one a
 * call within each minute's allowance, the remaining tokens by the prompt's; a 429 reports none
 * left. Clients that pace themselves by them (or back off) can be tested. Written into `into`
 * (the answer's headers as they are built: no object of their own made on every call).
 */
export const openAiRateLimits = (invocation: LlmInvocation, exhausted: boolean, into: Record<string, string>): void => {
  into["x-ratelimit-limit-requests"] = REQUESTS_LIMIT
  into["x-ratelimit-limit-tokens"] = TOKENS_LIMIT
  into["x-ratelimit-remaining-requests"] = requestsLeft(invocation, exhausted)
  into["x-ratelimit-remaining-tokens"] = tokensLeft(invocation, exhausted)
  into["x-ratelimit-reset-requests"] = "6ms"
  into["x-ratelimit-reset-tokens"] = "0s"
}

/** The last `reset` written and the `created` it was for: answers dated the same second share it. */
let lastReset: { readonly created: number; readonly text: string } | undefined

/**
 * Anthropic's rate-limit headers (`anthropic-ratelimit-requests-limit`, `-remaining`, `-reset`
 * and the same for tokens), deterministic as OpenAI's, written into `into` as they are; `reset`
 * is an RFC 3339 time a minute after the answer's `created` (the fixed epoch unless the network
 * follows the clock).
 */
export const anthropicRateLimits = (
  invocation: LlmInvocation,
  exhausted: boolean,
  into: Record<string, string>
): void => {
  const created = invocation.created
  if (lastReset?.created !== created)
    lastReset = { created, text: new Date((created + 60) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") }
  const reset = lastReset.text
  into["anthropic-ratelimit-requests-limit"] = REQUESTS_LIMIT
  into["anthropic-ratelimit-requests-remaining"] = requestsLeft(invocation, exhausted)
  into["anthropic-ratelimit-requests-reset"] = reset
  into["anthropic-ratelimit-tokens-limit"] = TOKENS_LIMIT
  into["anthropic-ratelimit-tokens-remaining"] = tokensLeft(invocation, exhausted)
  into["anthropic-ratelimit-tokens-reset"] = reset
}
