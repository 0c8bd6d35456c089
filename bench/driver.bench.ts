/**
 * A driver streaming one word per `llm.chunk` to the official `openai` SDK: over the driver
 * socket of a `simnet serve --drive` in its own process (the driver is a Node `WebSocket` client
 * in this process, sending each chunk as a JSON-RPC notification, the finish as a request),
 * against the same driver in process (`SimulatedProvider.layerDrive`, the SDK on `network.fetch`).
 * Rounds alternate and each side keeps its best, so load on the machine hits both.
 *
 * Run: npm run bench -- driver (or node bench/driver.bench.ts [--quick])
 */
import { spawn } from "node:child_process"
import { Effect, Fiber, Layer } from "effect"
import OpenAI from "openai"
import { Routes, SimulatedProvider, SimulationNetwork } from "../src/index.ts"

const quick = process.argv.includes("--quick")
const WORDS = quick ? 1_000 : 5_000
const ROUNDS = quick ? 3 : 5
const WARMUP = quick ? 1 : 3

const word = (i: number) => `w${i} `

/** Streams one call and counts the content deltas the SDK yields. */
const streamed = async (openai: OpenAI): Promise<number> => {
  const stream = await openai.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "count" }],
    stream: true
  })
  let tokens = 0
  for await (const chunk of stream) if ((chunk.choices[0]?.delta.content ?? "").length > 0) tokens++
  return tokens
}

const timed = async (run: () => Promise<number>): Promise<number> => {
  const started = performance.now()
  const tokens = await run()
  if (tokens !== WORDS) throw new Error(`expected ${WORDS} tokens, got ${tokens}`)
  return (tokens * 1000) / (performance.now() - started)
}

// In process: layerDrive on the network's own model.
const network = await SimulationNetwork.start({ routes: Routes.openai(), drive: true })
const inProcessDriver = SimulatedProvider.layerDrive((request, llm) =>
  Effect.gen(function* () {
    for (let i = 0; i < WORDS; i++) yield* llm.chunk({ id: request.id, items: [{ type: "textDelta", text: word(i) }] })
    yield* llm.finish({ id: request.id })
  })
)
const driverFiber = Effect.runFork(
  Layer.launch(inProcessDriver).pipe(Effect.provideService(SimulatedProvider, network.llm))
)
const inProcessClient = new OpenAI({
  apiKey: "sk-bench",
  baseURL: "https://api.openai.com/v1",
  fetch: network.fetch,
  maxRetries: 0
})

// Over the socket: a server in its own process, the driver here.
const server = spawn(
  process.execPath,
  ["bin/simnet.js", "serve", "--port", "0", "--quiet", "--drive", "--fixture", "test/fixtures/openai-only.json"],
  { stdio: ["ignore", "pipe", "inherit"] }
)
const base = await new Promise<string>((resolve, reject) => {
  let out = ""
  server.stdout!.on("data", (d: Buffer) => {
    out += d.toString()
    const m = /driver:\s+ws:\/\/127\.0\.0\.1:(\d+)/.exec(out)
    if (m) resolve(`127.0.0.1:${m[1]}`)
  })
  server.on("exit", (code) => reject(new Error(`simnet serve exited with ${code}: ${out}`)))
})
const socket = new WebSocket(`ws://${base}/experimental/simulation/drive`)
await new Promise((resolve, reject) => {
  socket.onopen = resolve
  socket.onerror = reject
})
let next = 1
socket.onmessage = (event) => {
  const message = JSON.parse(String(event.data)) as { method?: string; params?: { id: string }; error?: unknown }
  if (message.error !== undefined) console.error("driver socket error:", JSON.stringify(message.error))
  if (message.method !== "llm.request" || message.params === undefined) return
  const id = message.params.id
  for (let i = 0; i < WORDS; i++) {
    socket.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "llm.chunk",
        params: { id, items: [{ type: "textDelta", text: word(i) }] }
      })
    )
  }
  socket.send(JSON.stringify({ jsonrpc: "2.0", id: next++, method: "llm.finish", params: { id } }))
}
socket.send(JSON.stringify({ jsonrpc: "2.0", id: next++, method: "llm.attach" }))
const socketClient = new OpenAI({ apiKey: "sk-bench", baseURL: `http://${base}/api.openai.com/v1`, maxRetries: 0 })

try {
  // Warm-up: a server fresh from its start runs its first calls while its code is still being
  // compiled (17k tokens/s for the first over the socket, near 60k by the fifth in one run), and
  // this measures the steady state of both sides.
  for (let round = 0; round < WARMUP; round++) {
    await timed(() => streamed(inProcessClient))
    await timed(() => streamed(socketClient))
  }
  let inProcess = 0
  let overSocket = 0
  for (let round = 0; round < ROUNDS; round++) {
    inProcess = Math.max(inProcess, await timed(() => streamed(inProcessClient)))
    overSocket = Math.max(overSocket, await timed(() => streamed(socketClient)))
  }
  console.log(
    `\ndriver bench: one word per llm.chunk, ${WORDS} words a call, read through the openai SDK (stream: true), best of ${ROUNDS} alternating rounds after ${WARMUP} to warm up`
  )
  console.log(
    `  in process (SimulatedProvider.layerDrive)       ${Math.round(inProcess).toLocaleString("en-US").padStart(9)} tokens/s`
  )
  console.log(
    `  driver socket (simnet serve --drive, own process) ${Math.round(overSocket).toLocaleString("en-US").padStart(7)} tokens/s   ${(overSocket / inProcess).toFixed(2)}x in process (goal >= 0.5x)`
  )
} finally {
  socket.close()
  server.kill("SIGTERM")
  await Effect.runPromise(Fiber.interrupt(driverFiber))
  await network.close()
}
process.exit(0)
