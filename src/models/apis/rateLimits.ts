/**
 * The rate-limit headers the model APIs send with every answer, deterministic: OpenAI's and
 * Anthropic's, computed from the call's number and its prompt (`ModelWire.rateLimits`).
 */
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"

/** The requests and tokens a simulated key may use a minute, as the rate-limit headers report them. */
const REQUESTS_PER_MINUTE = 10_000
const TOKENS_PER_MINUTE = 30_000_000

/** What is left of a minute's allowance at the call numbered `seq`: requests by one a call, tokens by the prompt's (four characters a token); none on a 429. */
const left = (invocation: LlmInvocation, exhausted: boolean): { readonly requests: string; readonly tokens: string } =>
  exhausted
    ? { requests: "0", tokens: "0" }
    : {
      requests: String(REQUESTS_PER_MINUTE - (((invocation.seq - 1) % REQUESTS_PER_MINUTE) + 1)),
      tokens: String(Math.max(0, TOKENS_PER_MINUTE - Math.ceil(invocation.request.material.length / 4)))
    }

const REQUESTS_LIMIT = String(REQUESTS_PER_MINUTE)
const TOKENS_LIMIT = String(TOKENS_PER_MINUTE)

/**
 * OpenAI's rate-limit headers (`x-ratelimit-limit-requests`, `-remaining-requests`,
 * `-reset-requests` and the same for tokens), deterministic: the remaining requests fall by one a
 * call within each minute's allowance, the remaining tokens by the prompt's; a 429 reports none
 * left. Clients that pace themselves by them (or back off) can be tested.
 */
export const openAiRateLimits = (invocation: LlmInvocation, exhausted: boolean): Readonly<Record<string, string>> => {
  const { requests, tokens } = left(invocation, exhausted)
  return {
    "x-ratelimit-limit-requests": REQUESTS_LIMIT,
    "x-ratelimit-limit-tokens": TOKENS_LIMIT,
    "x-ratelimit-remaining-requests": requests,
    "x-ratelimit-remaining-tokens": tokens,
    "x-ratelimit-reset-requests": "6ms",
    "x-ratelimit-reset-tokens": "0s"
  }
}

/** The last `reset` written and the `created` it was for: answers dated the same second share it. */
let lastReset: { readonly created: number; readonly text: string } | undefined

/**
 * Anthropic's rate-limit headers (`anthropic-ratelimit-requests-limit`, `-remaining`, `-reset`
 * and the same for tokens), deterministic as OpenAI's; `reset` is an RFC 3339 time a minute
 * after the answer's `created` (the fixed epoch unless the network follows the clock).
 */
export const anthropicRateLimits = (invocation: LlmInvocation, exhausted: boolean): Readonly<Record<string, string>> => {
  const created = invocation.created
  if (lastReset?.created !== created) lastReset = { created, text: new Date((created + 60) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") }
  const reset = lastReset.text
  const { requests, tokens } = left(invocation, exhausted)
  return {
    "anthropic-ratelimit-requests-limit": REQUESTS_LIMIT,
    "anthropic-ratelimit-requests-remaining": requests,
    "anthropic-ratelimit-requests-reset": reset,
    "anthropic-ratelimit-tokens-limit": TOKENS_LIMIT,
    "anthropic-ratelimit-tokens-remaining": tokens,
    "anthropic-ratelimit-tokens-reset": reset
  }
}
