/**
 * Throughput and per-call overhead of the simulated model, measured through the official `openai`
 * SDK. Anchors measured in the same run:
 * - the floor: the same SDK reading the same events from a bare `fetch` whose `ReadableStream`
 *   hands over one prebuilt event per read;
 * - the one-buffer shape: the same events arriving as one buffer (the SDK's decoder is far slower
 *   on it, so the shape simnet produces matters).
 *
 * Floor and simnet runs alternate and the best of each counts, so load on the machine hits both.
 *
 * Run: npm run bench -- llm (or node bench/llm.bench.ts [tokens] [--quick])
 */
import OpenAI from "openai"
import { Routes, SimulationNetwork } from "../src/index.ts"
import { perEventFetch } from "./harness.ts"

const numeric = process.argv.slice(2).find((a) => /^\d+$/.test(a))
const TOKENS = numeric !== undefined ? Number(numeric) : process.argv.includes("--quick") ? 20_000 : 100_000
const ONE_BUFFER_TOKENS = Math.min(TOKENS, 5_000)
const CALLS = 2_000
const RUNS = 5
const encoder = new TextEncoder()

const chunkEvent = (content: string, finish: string | null = null): string =>
  `data: ${JSON.stringify({
    id: "chatcmpl-floor",
    object: "chat.completion.chunk",
    created: 0,
    model: "gpt-4o",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }]
  })}\n\n`

const prebuiltEvents = (tokens: number): Array<Uint8Array> => {
  const events = [encoder.encode(chunkEvent(""))]
  for (let i = 0; i < tokens; i++) events.push(encoder.encode(chunkEvent(" tok")))
  events.push(encoder.encode(chunkEvent("", "stop")), encoder.encode("data: [DONE]\n\n"))
  return events
}

const oneBufferFetch = (events: ReadonlyArray<Uint8Array>): typeof globalThis.fetch => {
  const whole = new Uint8Array(events.reduce((n, e) => n + e.length, 0))
  let at = 0
  for (const event of events) {
    whole.set(event, at)
    at += event.length
  }
  return async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(whole)
        controller.close()
      }
    })
    return new Response(body, { headers: { "content-type": "text/event-stream" } })
  }
}

const client = (fetch: typeof globalThis.fetch) => new OpenAI({ apiKey: "sk-bench", fetch, maxRetries: 0 })

const streamTokens = async (openai: OpenAI): Promise<number> => {
  const stream = await openai.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "count" }],
    stream: true
  })
  let tokens = 0
  for await (const chunk of stream) if ((chunk.choices[0]?.delta.content ?? "").length > 0) tokens++
  return tokens
}

const tokensPerSecond = async (openai: OpenAI, expected: number, runs: number): Promise<number> => {
  let best = 0
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    const tokens = await streamTokens(openai)
    const seconds = (performance.now() - start) / 1000
    if (tokens !== expected) throw new Error(`expected ${expected} tokens, got ${tokens}`)
    best = Math.max(best, tokens / seconds)
  }
  return best
}

const microsPerCall = async (openai: OpenAI): Promise<number> => {
  for (let i = 0; i < 200; i++) await streamTokens(openai)
  const start = performance.now()
  for (let i = 0; i < CALLS; i++) await streamTokens(openai)
  return ((performance.now() - start) * 1000) / CALLS
}

/** A non-streamed completion as the OpenAI API writes it, prebuilt: the floor of a non-streamed call. */
const COMPLETION = JSON.stringify({
  id: "chatcmpl-floor",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o",
  choices: [
    { index: 0, message: { role: "assistant", content: "Hi", refusal: null }, logprobs: null, finish_reason: "stop" }
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
})
const prebuiltAnswer: typeof globalThis.fetch = async () =>
  new Response(COMPLETION, { headers: { "content-type": "application/json" } })

const complete = (openai: OpenAI) =>
  openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })

const microsPerCompletion = async (openai: OpenAI): Promise<number> => {
  for (let i = 0; i < 200; i++) await complete(openai)
  const start = performance.now()
  for (let i = 0; i < CALLS; i++) await complete(openai)
  return ((performance.now() - start) * 1000) / CALLS
}

/**
 * The first model call on each of `n` fresh networks, µs on average, against a warm call measured
 * the same way (one call timed at a time, on one network, `n` times). One SDK client serves every
 * network (its fetch leads to the current one), so the SDK's own first-call work is not counted:
 * only the network's. Making the network is not counted either.
 */
const firstAndWarmMicros = async (n: number): Promise<{ readonly first: number; readonly warm: number }> => {
  let current: typeof globalThis.fetch = globalThis.fetch
  const shared = client((input, init) => current(input, init))
  const timed = async () => {
    const start = performance.now()
    await complete(shared)
    return performance.now() - start
  }
  let first = 0
  for (let i = 0; i < n; i++) {
    // The network alone (no SDK client of its own: `shared` serves every network).
    const fresh = await network("Hi")
    current = fresh.handle.fetch
    first += await timed()
    await fresh.handle.close()
  }
  const warm = await network("Hi")
  current = warm.handle.fetch
  let warmTotal = 0
  for (let i = 0; i < n; i++) warmTotal += await timed()
  await warm.handle.close()
  return { first: (first * 1000) / n, warm: (warmTotal * 1000) / n }
}

/** A network with the OpenAI family and one rule answering `text`. */
const network = async (text: string) => {
  const handle = await SimulationNetwork.start({ routes: Routes.openai() })
  const llm = handle.llm
  llm.rule("any", { type: "respond", steps: [[{ type: "text", content: text }]] })
  return { llm, handle }
}

const simnet = async (text: string) => {
  const made = await network(text)
  return { ...made, openai: client(made.handle.fetch) }
}

const readsPerEvent = async (fetch: typeof globalThis.fetch): Promise<{ reads: number; events: number }> => {
  const response = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "count" }], stream: true })
  })
  const reader = response.body!.getReader()
  let reads = 0
  let text = ""
  const decoder = new TextDecoder()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    reads++
    text += decoder.decode(value, { stream: true })
  }
  return { reads, events: text.split("\n\n").length - 1 }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

const main = async () => {
  const one = await simnet("Hi")
  const floorOne = client(perEventFetch(prebuiltEvents(1)))
  await microsPerCall(one.openai)
  await microsPerCall(floorOne)
  const floorCall = await microsPerCall(floorOne)
  const simCall = await microsPerCall(one.openai)

  const floorAnswer = client(prebuiltAnswer)
  await microsPerCompletion(floorAnswer)
  await microsPerCompletion(one.openai)
  const floorCompletion = await microsPerCompletion(floorAnswer)
  const simCompletion = await microsPerCompletion(one.openai)
  await firstAndWarmMicros(50)
  const { first: firstCall, warm: warmCall } = await firstAndWarmMicros(500)

  const text = " tok".repeat(TOKENS)
  const events = prebuiltEvents(TOKENS)
  const floorClient = client(perEventFetch(events))
  const { handle, openai } = await simnet(text)
  await tokensPerSecond(floorClient, TOKENS, 1)
  await tokensPerSecond(openai, TOKENS, 1)
  let floor = 0
  let simulated = 0
  for (let run = 0; run < RUNS; run++) {
    floor = Math.max(floor, await tokensPerSecond(floorClient, TOKENS, 1))
    simulated = Math.max(simulated, await tokensPerSecond(openai, TOKENS, 1))
  }
  const oneBuffer = await tokensPerSecond(
    client(oneBufferFetch(prebuiltEvents(ONE_BUFFER_TOKENS))),
    ONE_BUFFER_TOKENS,
    1
  )
  const shape = await readsPerEvent(handle.fetch)

  console.log(
    `simnet LLM bench (node ${process.version}, openai SDK, ${fmt(TOKENS)} text tokens, best of ${RUNS} interleaved runs)`
  )
  console.log(`  floor   bare fetch, one event per read      ${fmt(floor).padStart(9)} tokens/s`)
  console.log(
    `  simnet  network.fetch                       ${fmt(simulated).padStart(9)} tokens/s   ${(simulated / floor).toFixed(2)}x floor (target >= 0.5x)`
  )
  console.log(
    `  shape   bare fetch, whole body in one read  ${fmt(oneBuffer).padStart(9)} tokens/s   ${(oneBuffer / floor).toFixed(3)}x floor (${fmt(ONE_BUFFER_TOKENS)} tokens, one run)`
  )
  console.log(
    `  simnet's shape: ${shape.reads} reads for ${shape.events} SSE events (${shape.reads === shape.events ? "one event per read" : "batched"})`
  )
  console.log(`per-call overhead, one-chunk streamed completion (${fmt(CALLS)} sequential calls)`)
  console.log(`  floor   ${floorCall.toFixed(1).padStart(7)} µs/call`)
  console.log(
    `  simnet  ${simCall.toFixed(1).padStart(7)} µs/call   (+${(simCall - floorCall).toFixed(1)} µs for routing, logging, rendering)`
  )
  console.log(`per call, non-streamed completion (${fmt(CALLS)} sequential calls)`)
  console.log(`  floor   ${floorCompletion.toFixed(1).padStart(7)} µs/call   the SDK reading a prebuilt answer`)
  console.log(
    `  simnet  ${simCompletion.toFixed(1).padStart(7)} µs/call   ${(floorCompletion / simCompletion).toFixed(2)}x the floor's rate (target >= 0.5x)`
  )
  console.log(
    `  first   ${firstCall.toFixed(1).padStart(7)} µs/call   the first call on a fresh network, ${(firstCall / warmCall).toFixed(2)}x a warm one timed alike (${warmCall.toFixed(1)} µs; target <= 2x; 500 networks, one SDK client)`
  )
  await handle.close()
  await one.handle.close()
}

await main()
