/**
 * `refusals: "502"` (issue 20, in process): a request the network refuses resolves, through
 * `network.fetch`, as the 502 `simnet serve` answers, so every official model SDK and the AI SDK,
 * with their default retry settings, fail at once with simnet's message first. The default
 * (`"reject"`) stays undici's: `TypeError("fetch failed")` whose `cause` is the typed error, which
 * the SDKs report as a connection error after their retries (shown here too, as the contrast).
 */
import { createOpenAI } from "@ai-sdk/openai"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import { APICallError, generateText } from "ai"
import { Effect } from "effect"
import OpenAI from "openai"
import { SimulationNetwork } from "simnet"
import { describe, expect, it, vi } from "vitest"

const MESSAGE = "no route for POST https://api.nowhere.example/v1/chat/completions"

/** How many requests reached the network for `url`'s host: the SDK's attempts. */
const attempts = (network: { log: () => ReadonlyArray<{ url: string }> }, host: string) =>
  network.log().filter((r) => r.url.includes(host)).length

describe('refusals: "502"', () => {
  it("the openai SDK with its default retries fails once, at once, with simnet's message", async () => {
    const network = await SimulationNetwork.start({ refusals: "502" })
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: "https://api.nowhere.example/v1",
      fetch: network.fetch,
      logLevel: "off"
    })
    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502)
    expect((error as Error).message).toMatch(new RegExp(`^502 simnet: ${MESSAGE.replace(/[.?/]/g, "\\$&")}`))
    expect(attempts(network, "api.nowhere.example")).toBe(1)
    await network.close()
  })

  it("@anthropic-ai/sdk and @google/genai with their default retries fail once, with simnet's message", async () => {
    const network = await SimulationNetwork.start({ refusals: "502" })
    const anthropic = new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: "https://anthropic.nowhere.example",
      fetch: network.fetch,
      logLevel: "off"
    })
    const a = await anthropic.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(a).toBeInstanceOf(Anthropic.APIError)
    expect((a as Error).message).toContain("simnet: no route for POST https://anthropic.nowhere.example/v1/messages")
    expect(attempts(network, "anthropic.nowhere.example")).toBe(1)

    const gemini = new GoogleGenAI({
      apiKey: "gemini-test",
      httpOptions: { baseUrl: "https://gemini.nowhere.example", fetch: network.fetch }
    })
    const g = await gemini.models
      .generateContent({ model: "gemini-2.5-flash", contents: "hi" })
      .catch((e: unknown) => e)
    expect((g as Error).message).toContain("simnet: no route for POST https://gemini.nowhere.example/")
    expect(attempts(network, "gemini.nowhere.example")).toBe(1)
    await network.close()
  })

  it("the AI SDK retries a 5xx but waits what retry-after-ms says (0): it fails with simnet's message, its retries costing no time", async () => {
    const network = await SimulationNetwork.start({ refusals: "502" })
    const provider = createOpenAI({
      apiKey: "sk-test",
      baseURL: "https://api.nowhere.example/v1",
      fetch: network.fetch
    })
    // Every wait the SDK arms between its attempts.
    const timers = vi.spyOn(globalThis, "setTimeout")
    const error = await generateText({ model: provider.chat("gpt-4o"), prompt: "hi" })
      .catch((e: unknown) => e)
      .finally(() => timers.mockRestore())
    const waits = timers.mock.calls.map(([, ms]) => Number(ms ?? 0))
    const last = (error as { lastError?: unknown }).lastError ?? error
    expect(APICallError.isInstance(last)).toBe(true)
    expect((last as APICallError).statusCode).toBe(502)
    expect((last as Error).message).toContain(`simnet: ${MESSAGE}`)
    // Its default backoff would wait 2 s, then 4 s; it waits what retry-after-ms says: nothing.
    expect(waits.filter((ms) => ms >= 1_000)).toEqual([])
    await network.close()
  })

  it("a registered route still answers; an abort still rejects with the abort reason; httpClient still fails typed", async () => {
    const network = await SimulationNetwork.start({ refusals: "502" })
    await network.registerSpec({
      id: "ok",
      match: "GET https://api.example.com/ok",
      respond: { kind: "text", body: "fine" }
    })
    expect(await (await network.fetch("https://api.example.com/ok")).text()).toBe("fine")
    const refused = await network.fetch("https://api.example.com/missing?api_key=sk-live-123")
    expect(refused.status).toBe(502)
    expect(refused.headers.get("x-should-retry")).toBe("false")
    const body = (await refused.json()) as { error: { tag: string; url: string; candidates: Array<unknown> } }
    expect(body.error).toMatchObject({
      tag: "UnregisteredRequest",
      url: "https://api.example.com/missing?api_key=<redacted>"
    })
    expect(body.error.candidates.length).toBeGreaterThan(0)
    const abort = new AbortController()
    abort.abort(new Error("gave up"))
    await expect(network.fetch("https://api.example.com/missing", { signal: abort.signal })).rejects.toThrow("gave up")
    const typed = await Effect.runPromise(
      Effect.flip(network.network.httpClient.get("https://api.example.com/missing"))
    )
    expect(typed._tag).toBe("HttpClientError")
    await network.close()
  })

  it("is refused as an option when it is neither reject nor 502, naming it", async () => {
    const made = await Effect.runPromise(Effect.flip(SimulationNetwork.make({ refusals: "answer" as never })))
    expect(made).toMatchObject({ _tag: "InvalidNetworkOption", option: "refusals" })
  })
})

describe('refusals: "reject" (the default, undici\'s behaviour)', () => {
  it('fetch rejects TypeError("fetch failed") whose cause is the UnregisteredRequest; the openai SDK calls it a connection error', async () => {
    const network = await SimulationNetwork.start()
    const error = await network.fetch("https://api.example.com/missing").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).message).toBe("fetch failed")
    expect(((error as TypeError).cause as { _tag: string })._tag).toBe("UnregisteredRequest")
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: "https://api.nowhere.example/v1",
      fetch: network.fetch,
      maxRetries: 0,
      logLevel: "off"
    })
    const sdk = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(sdk).toBeInstanceOf(OpenAI.APIConnectionError)
    await network.close()
  })
})
