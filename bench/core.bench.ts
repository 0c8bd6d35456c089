/**
 * Core registry benchmark (issue "Core: the simulated network").
 *
 * Workload: sequential `fetch` + `json()` of a ~150-byte JSON body; N routes of the form
 * `GET https://api.example.com/items/{i}`; requests spread over all N routes in a fixed
 * pseudo-random order. The same workload runs, in this one process, against a bare `fetch`
 * returning a prebuilt `Response` (the floor), undici `MockAgent`, `msw` and `nock`. Then the
 * Effect `HttpClient` path against a bare `HttpClient.make`, network creation cost, heap
 * growth over 1 000 000 requests, the cost of an unmatched request (candidate ranking) with 10 and
 * 10 000 routes, and the heap per distinct request key (occurrence counts of a generated route and
 * the model's per-key counts).
 *
 * Run: `npm run bench -- core` (or `node bench/core.bench.ts`); `--only=fetch,unmatched,keys,log` runs
 * the simnet fetch rounds and those sections alone.
 */
import { Effect, Exit, Layer, Schema, Scope } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import { http as mswHttp, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import nock from "nock"
import { fetch as undiciFetch, MockAgent } from "undici"
import { Route, Routes, SimulationNetwork } from "../src/index.ts"
import { itemBody, measure, permutation, report, type Measure } from "./harness.ts"

const ORIGIN = "https://api.example.com"
const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000

const best = (runs: ReadonlyArray<Measure>): Measure => runs.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a))

const bodies = new Map<number, string>()
const bodyOf = (i: number) => {
  let b = bodies.get(i)
  if (b === undefined) bodies.set(i, (b = itemBody(i)))
  return b
}
const urls = (n: number) => permutation(n).map((i) => `${ORIGIN}/items/${i}`)

const simnetRoutes = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    Route.text(`GET ${ORIGIN}/items/${i}`, bodyOf(i), { contentType: "application/json" })
  )

const fetchLoop = (
  name: string,
  doFetch: (url: string) => Promise<Response>,
  order: ReadonlyArray<string>,
  opts = {}
) =>
  measure(
    name,
    async (i) => {
      const response = await doFetch(order[i % order.length])
      return response.json()
    },
    { minMs, ...opts }
  )

const floor = async (): Promise<Measure> => {
  const prebuilt: Array<Response> = []
  const refill = () => {
    for (let k = 0; k < 512; k++)
      prebuilt.push(new Response(bodyOf(k), { headers: { "content-type": "application/json" } }))
  }
  // The prebuilt responses are made outside the timed calls as far as possible: a refill runs
  // only when the stock is empty, once per 512 requests.
  const bare = (_url: string) => {
    if (prebuilt.length === 0) refill()
    return Promise.resolve(prebuilt.pop()!)
  }
  return fetchLoop("floor: bare fetch, prebuilt Response", bare, urls(100))
}

/**
 * The lookup floor: a bare `Map` from each of `n` URLs to its held answer, whose `json()` parses
 * the held text (no `Response` made: nothing but the lookup and the parse). Over 10 000 URLs it
 * reads slower than over one (caches), as any lookup does.
 */
const mapFloor = async (n: number): Promise<Measure> => {
  const order = urls(n)
  const held = new Map(
    order.map((url) => {
      const text = bodyOf(Number(url.slice(url.lastIndexOf("/") + 1)))
      return [url, { json: () => Promise.resolve(JSON.parse(text) as unknown) } as unknown as Response]
    })
  )
  return fetchLoop(`floor: bare Map of held answers, ${n} URLs`, (url) => Promise.resolve(held.get(url)!), order)
}

const simnet = async (n: number): Promise<Measure> => {
  const net = await SimulationNetwork.start({ routes: simnetRoutes(n) })
  return fetchLoop(`simnet fetch, ${n} routes`, net.fetch, urls(n))
}

/** As an SDK calls it: every request with an `AbortSignal` (the openai SDK makes one per request). */
const simnetWithSignal = async (n: number): Promise<Measure> => {
  const net = await SimulationNetwork.start({ routes: simnetRoutes(n) })
  const signal = new AbortController().signal
  return fetchLoop(`simnet fetch, ${n} routes, with a signal`, (url) => net.fetch(url, { signal }), urls(n))
}

const mockAgent = async (n: number): Promise<Measure> => {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  for (let i = 0; i < n; i++) {
    pool
      .intercept({ path: `/items/${i}`, method: "GET" })
      .reply(200, bodyOf(i), { headers: { "content-type": "application/json" } })
      .persist()
  }
  const doFetch = (url: string) => undiciFetch(url, { dispatcher: agent }) as unknown as Promise<Response>
  const result = await fetchLoop(`undici MockAgent, ${n} routes`, doFetch, urls(n), { warmup: 200, minIterations: 200 })
  await agent.close()
  return result
}

const msw = async (n: number): Promise<Measure> => {
  const server = setupServer(
    ...Array.from({ length: n }, (_, i) =>
      mswHttp.get(`${ORIGIN}/items/${i}`, () =>
        HttpResponse.text(bodyOf(i), { headers: { "content-type": "application/json" } })
      )
    )
  )
  server.listen({ onUnhandledRequest: "error" })
  try {
    return await fetchLoop(`msw setupServer, ${n} routes`, (url) => globalThis.fetch(url), urls(n), {
      warmup: 100,
      minIterations: 100
    })
  } finally {
    server.close()
  }
}

const nockBench = async (n: number): Promise<Measure> => {
  if (!nock.isActive()) nock.activate()
  nock.disableNetConnect()
  const scope = nock(ORIGIN)
  for (let i = 0; i < n; i++)
    scope.get(`/items/${i}`).reply(200, bodyOf(i), { "content-type": "application/json" }).persist()
  try {
    return await fetchLoop(`nock, ${n} routes`, (url) => globalThis.fetch(url), urls(n), {
      warmup: 100,
      minIterations: 100
    })
  } finally {
    nock.cleanAll()
    nock.enableNetConnect()
    nock.restore()
  }
}

const effectClient = async (): Promise<Array<Measure>> => {
  const order = urls(100)
  const batch = 512
  const loop = (client: HttpClient.HttpClient, start: number) =>
    Effect.gen(function* () {
      for (let k = 0; k < batch; k++) {
        const response = yield* client.get(order[(start + k) % order.length])
        yield* response.json
      }
    })
  const bare = HttpClient.make((request) =>
    Effect.succeed(
      HttpClientResponse.fromWeb(request, new Response(bodyOf(7), { headers: { "content-type": "application/json" } }))
    )
  )
  const network = await SimulationNetwork.start({ routes: simnetRoutes(100) })
  const sim = network.network.httpClient
  const perBatch = (name: string, client: HttpClient.HttpClient) =>
    measure(name, (i) => Effect.runPromise(loop(client, i * batch)), { warmup: 5, minMs, minIterations: 10 }).then(
      (m) => ({
        ...m,
        opsPerSec: m.opsPerSec * batch
      })
    )
  const floors: Array<Measure> = []
  const sims: Array<Measure> = []
  for (let round = 0; round < 3; round++) {
    floors.push(await perBatch("floor: bare HttpClient.make", bare))
    sims.push(await perBatch("simnet HttpClient, 100 routes", sim))
  }
  return [best(floors), best(sims)]
}

const creation = async (): Promise<void> => {
  // Each network gets its own 20 routes, built inside the timed loop. Time: networks are made in
  // batches of 100 and dropped after each batch (as a test runner does); heap: 20 000 networks
  // are kept alive (their scopes open) until the heap is measured after a full collection.
  const routesFor = (n: number) =>
    Array.from({ length: 20 }, (_, i) =>
      Route.text(`GET ${ORIGIN}/svc${n % 7}/items/${i}`, bodyOf(i), { contentType: "application/json" })
    )
  const build = (scope: Scope.Closeable, i: number) =>
    Effect.runSync(Layer.buildWithScope(SimulationNetwork.layer({ seed: i, routes: routesFor(i) }), scope))
  const timeBatches = async (batches: number) => {
    let elapsed = 0
    for (let b = 0; b < batches; b++) {
      const scope = Effect.runSync(Scope.make())
      const start = performance.now()
      for (let i = 0; i < 100; i++) build(scope, b * 100 + i)
      elapsed += performance.now() - start
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    return (elapsed * 1000) / (batches * 100)
  }
  await timeBatches(50)
  const perNetwork = Math.min(await timeBatches(200), await timeBatches(200), await timeBatches(200))
  const n = 20_000
  const scope = Effect.runSync(Scope.make())
  const keep: Array<unknown> = new Array(n)
  globalThis.gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  for (let i = 0; i < n; i++) keep[i] = build(scope, i)
  globalThis.gc?.()
  const heapAfter = process.memoryUsage().heapUsed
  console.log(`\nnetwork creation (a layer with 20 routes, the routes built per network)`)
  console.log(
    `  ${perNetwork.toFixed(1)} µs per network (best of 3 rounds of 20 000, batches of 100 dropped after use)`
  )
  console.log(
    `  ${((heapAfter - heapBefore) / n / 1024).toFixed(1)} KB heap per network (${n.toLocaleString("en-US")} kept alive)${globalThis.gc ? "" : " (run with --expose-gc for exact heap)"}`
  )
  await Effect.runPromise(Scope.close(scope, Exit.void))
  keep.length = 0
}

const heapSoak = async (): Promise<void> => {
  const total = quick ? 200_000 : 1_000_000
  const net = await SimulationNetwork.start({ routes: simnetRoutes(100) })
  const order = urls(100)
  for (let i = 0; i < 20_000; i++) await (await net.fetch(order[i % 100])).json()
  globalThis.gc?.()
  const before = process.memoryUsage().heapUsed
  let peak = before
  for (let i = 0; i < total; i++) {
    await (await net.fetch(order[i % 100])).json()
    if (i % 100_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed)
  }
  globalThis.gc?.()
  const after = process.memoryUsage().heapUsed
  console.log(
    `\nheap over ${total.toLocaleString("en-US")} requests (default logLimit 10 000, after 20 000 warm-up requests)`
  )
  console.log(
    `  growth ${((after - before) / 1024 / 1024).toFixed(1)} MB after GC; peak sample +${((peak - before) / 1024 / 1024).toFixed(1)} MB; log holds ${net.log().length} records`
  )
}

/**
 * What the request log holds for an SDK-style POST (a `Headers` of five, a small JSON body): the
 * heap and buffers of a network whose log keeps 10 000 such records, less those of one that keeps
 * none, per record.
 */
const logRecordCost = async (): Promise<void> => {
  const held = async (logLimit: number) => {
    const net = await SimulationNetwork.start({
      logLimit,
      logBytes: 1e9,
      routes: [Route.text(`POST ${ORIGIN}/chat`, "ok")]
    })
    const send = async (i: number) => {
      const headers = new Headers({
        accept: "application/json",
        "content-type": "application/json",
        "user-agent": "sdk/1.0",
        "x-request-id": `id-${i}`,
        authorization: "Bearer sk-bench"
      })
      await (
        await net.fetch(`${ORIGIN}/chat`, {
          method: "POST",
          headers,
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: `hello ${i}` }] })
        })
      ).text()
    }
    for (let i = 0; i < 20_000; i++) await send(i)
    globalThis.gc?.()
    const usage = process.memoryUsage()
    await net.close()
    return usage.heapUsed + usage.arrayBuffers
  }
  const none = await held(0)
  const kept = await held(10_000)
  console.log(`
request log, SDK-style POST (five headers in a Headers, a small JSON body), 10 000 records kept`)
  console.log(
    `  ${Math.round((kept - none) / 10_000).toLocaleString("en-US")} bytes of heap and buffers per record${globalThis.gc ? "" : " (run with --expose-gc for exact heap)"}`
  )
}

const unmatched = async (): Promise<void> => {
  // An unmatched request fails closed and ranks its nearest candidates; with 10 000 routes of the
  // request's own origin that ranking is a bounded scan, so it costs what it costs with 10.
  console.log(`\nunmatched request (UnregisteredRequest with its 3 nearest candidates), median of 2 000`)
  for (const n of [10, 10_000]) {
    const net = await SimulationNetwork.start({ routes: simnetRoutes(n) })
    const times: Array<number> = []
    for (let i = 0; i < 2_200; i++) {
      const start = performance.now()
      await net.fetch(`${ORIGIN}/orders/${i}`).catch((error: Error) => error)
      if (i >= 200) times.push(performance.now() - start)
    }
    times.sort((a, b) => a - b)
    console.log(
      `  ${n.toLocaleString("en-US")} routes: ${(times[times.length >> 1] * 1000).toFixed(0)} µs per unmatched request (p99 ${(times[Math.floor(times.length * 0.99)] * 1000).toFixed(0)} µs)`
    )
  }
}

const perKey = async (): Promise<void> => {
  // Determinism counts occurrences per distinct canonical request key, for every key ever seen.
  // The log is off here (logLimit 0) so the growth is the per-key state alone.
  const keys = quick ? 50_000 : 200_000
  const Item = Schema.Struct({ id: Schema.String })
  const net = await SimulationNetwork.start({
    logLimit: 0,
    routes: [Route.json(`GET ${ORIGIN}/gen/:id`, Item), ...Routes.openai()]
  })
  // Heap and ArrayBuffer memory both: the counts live in typed arrays. Collected twice, a turn
  // apart, so garbage from before a phase is not taken off the phase's growth.
  const used = async () => {
    globalThis.gc?.()
    await new Promise((resolve) => setImmediate(resolve))
    globalThis.gc?.()
    const m = process.memoryUsage()
    return m.heapUsed + m.arrayBuffers
  }
  /** Bytes per key, or what the heap cannot tell apart at this many keys (it moves by more than the state grew). */
  const shown = (bytes: number) =>
    bytes >= 1
      ? `${bytes.toFixed(0)} bytes per key`
      : `under 1 byte per key (the heap moved by more than the state grew; run without --quick for more keys)`
  for (let i = 0; i < 1_000; i++) await (await net.fetch(`${ORIGIN}/gen/warm${i}`)).arrayBuffer()
  let before = await used()
  for (let i = 0; i < keys; i++) await (await net.fetch(`${ORIGIN}/gen/${i}?q=${"x".repeat(40)}`)).arrayBuffer()
  const generated = ((await used()) - before) / keys
  const chat = (i: number) =>
    JSON.stringify({
      model: "gpt-4o",
      messages: [{ role: "user", content: `question number ${i}, padded ${"y".repeat(60)}` }]
    })
  for (let i = 0; i < 2_000; i++)
    await (
      await net.fetch("https://api.openai.com/v1/chat/completions", { method: "POST", body: chat(-i - 1) })
    ).arrayBuffer()
  before = await used()
  for (let i = 0; i < keys; i++)
    await (
      await net.fetch("https://api.openai.com/v1/chat/completions", { method: "POST", body: chat(i) })
    ).arrayBuffer()
  const model = ((await used()) - before) / keys
  const exact = globalThis.gc ? "" : " (run with --expose-gc for exact heap)"
  console.log(`\nper-key state over ${keys.toLocaleString("en-US")} distinct keys (logLimit 0)${exact}`)
  console.log(`  generated route, distinct URLs: ${shown(generated)}`)
  console.log(`  model, distinct calls: ${shown(model)}`)
}

/** Route lookup flat: what simnet loses over 10 000 routes against one, beside what a bare Map loses. */
const lookupLine = (s1: Measure, s10k: Measure, map1: Measure, map10k: Measure) => {
  const simnetSpread = s10k.opsPerSec / s1.opsPerSec
  const floorSpread = map10k.opsPerSec / map1.opsPerSec
  console.log(
    `\n  route lookup over 10 000 URLs against one: simnet ${simnetSpread.toFixed(2)}× its one-route rate, a bare Map of held answers ${floorSpread.toFixed(2)}× its one-URL rate; simnet keeps ${(simnetSpread / floorSpread).toFixed(2)}× the floor's ratio (goal >= 0.85)`
  )
}

const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",")

const run = async (): Promise<void> => {
  console.log(
    `core bench (node ${process.version}${quick ? ", --quick" : ""}); simnet figures are the best of 3 interleaved rounds`
  )
  if (only !== undefined) {
    if (only.includes("fetch")) {
      const rounds: Array<Array<Measure>> = [[], [], [], [], [], []]
      for (let round = 0; round < 3; round++) {
        rounds[0].push(await floor())
        rounds[1].push(await simnet(100))
        rounds[2].push(await simnet(10_000))
        rounds[3].push(await simnet(1))
        rounds[4].push(await mapFloor(1))
        rounds[5].push(await mapFloor(10_000))
      }
      const measured = rounds.map(best)
      report("fetch + json(), ~150-byte body, requests spread over N routes", measured, measured[0].name)
      lookupLine(measured[3], measured[2], measured[4], measured[5])
    }
    if (only.includes("unmatched")) await unmatched()
    if (only.includes("keys")) await perKey()
    if (only.includes("log")) await logRecordCost()
    return
  }
  const rounds: Array<Array<Measure>> = [[], [], [], [], [], [], [], []]
  for (let round = 0; round < 3; round++) {
    rounds[0].push(await floor())
    rounds[1].push(await simnet(10))
    rounds[2].push(await simnet(100))
    rounds[3].push(await simnet(10_000))
    rounds[4].push(await simnetWithSignal(100))
    rounds[5].push(await simnet(1))
    rounds[6].push(await mapFloor(1))
    rounds[7].push(await mapFloor(10_000))
  }
  const [fl, s10, s100, s10k, s100signal, s1, map1, map10k] = rounds.map(best)
  const ma100 = await mockAgent(100)
  const ma10k = await mockAgent(10_000)
  const msw100 = await msw(100)
  const msw10k = await msw(10_000)
  const nock100 = await nockBench(100)
  const nock10k = await nockBench(10_000)
  report(
    "fetch + json(), ~150-byte body, requests spread over N routes",
    [fl, s1, s10, s100, s10k, s100signal, map1, map10k, ma100, ma10k, msw100, msw10k, nock100, nock10k],
    fl.name
  )
  lookupLine(s1, s10k, map1, map10k)
  console.log(
    `\n  simnet 100 routes vs MockAgent: ${(s100.opsPerSec / ma100.opsPerSec).toFixed(1)}×, vs msw: ${(s100.opsPerSec / msw100.opsPerSec).toFixed(1)}×, vs nock: ${(s100.opsPerSec / nock100.opsPerSec).toFixed(1)}×`
  )
  console.log(
    `  10 000 routes vs fewer: simnet ${(s10k.opsPerSec / s10.opsPerSec).toFixed(2)}× its 10-route figure; MockAgent ${(ma10k.opsPerSec / ma100.opsPerSec).toFixed(3)}×, msw ${(msw10k.opsPerSec / msw100.opsPerSec).toFixed(3)}×, nock ${(nock10k.opsPerSec / nock100.opsPerSec).toFixed(3)}× their 100-route figures`
  )
  const client = await effectClient()
  report("Effect HttpClient: get + json, 100 routes", client, client[0].name)
  await creation()
  await heapSoak()
  await logRecordCost()
  await unmatched()
  await perKey()
}

await run()
