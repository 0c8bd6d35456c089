/**
 * The request bodies of the serve benches' model calls: what `sdkCall.ts` sends through the
 * official SDKs, and what the bare server of `modelServer.ts` takes simnet's answer to once at
 * start (so that it writes the bytes simnet answers that very call).
 */
export const OPENAI_CHAT = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] }
export const ANTHROPIC_MESSAGES = {
  model: "claude-opus-5-5",
  max_tokens: 512,
  messages: [{ role: "user" as const, content: "hi" }]
}
