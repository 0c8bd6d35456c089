/**
 * One model call through the official SDK, as the serve benches make it (`serveCpu`,
 * `instructions`): `kind` non-streamed or streamed (read to the end), to `base`, a server of
 * `modelServer.ts` (`simnet` takes `/HOST/PATH`; aimock and the bare server answer the API paths
 * at their root). `fetch`: the SDK's, or one of the bench's own (a pool of its own, say).
 */
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { ANTHROPIC_MESSAGES, OPENAI_CHAT } from "./requests.ts"

export type Kind = "openai" | "openai stream" | "anthropic" | "anthropic stream"

export const sdkCall = (
  kind: Kind,
  server: string,
  base: string,
  fetch?: typeof globalThis.fetch
): (() => Promise<void>) => {
  const openai = kind.startsWith("openai")
  const prefix = server !== "simnet" ? "" : openai ? "/api.openai.com" : "/api.anthropic.com"
  const stream = kind.endsWith("stream")
  if (openai) {
    const client = new OpenAI({
      apiKey: "sk-bench",
      baseURL: `${base}${prefix}/v1`,
      maxRetries: 0,
      timeout: 600_000,
      ...(fetch === undefined ? {} : { fetch })
    })
    const body = OPENAI_CHAT
    return async () => {
      if (!stream) {
        await client.chat.completions.create(body)
        return
      }
      for await (const _chunk of await client.chat.completions.create({ ...body, stream: true })) {
        // read to the end
      }
    }
  }
  const client = new Anthropic({
    apiKey: "sk-ant-bench",
    baseURL: `${base}${prefix}`,
    maxRetries: 0,
    timeout: 600_000,
    ...(fetch === undefined ? {} : { fetch })
  })
  const body = ANTHROPIC_MESSAGES
  return async () => {
    if (!stream) {
      await client.messages.create(body)
      return
    }
    for await (const _event of await client.messages.create({ ...body, stream: true })) {
      // read to the end
    }
  }
}

/** `calls` calls of `call`, `concurrency` at a time (each of those waits for its last before the next). */
export const callsAtOnce = async (call: () => Promise<void>, calls: number, concurrency: number): Promise<void> => {
  let i = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i++ < calls) await call()
    })
  )
}
