/**
 * Whole-process interception benchmark (issue "simnet where its users are").
 *
 * Workload: the core bench's (sequential request + JSON body of ~150 bytes; N routes
 * `GET https://api.example.com/items/{i}`; requests spread over all N in a fixed pseudo-random
 * order), at 10, 100 and 1 000 routes, in this one process:
 * - the global `fetch` through `SimulationNetwork.layerGlobal` against undici's `MockAgent`
 *   installed with `setGlobalDispatcher` (and `network.fetch` itself: the interception overhead);
 * - axios (its Node http adapter) through simnet against axios through msw's `setupServer`, through
 *   nock, and against a real `node:http` server on 127.0.0.1 in this process answering the same
 *   bytes (keep-alive, as axios's default agent keeps it).
 *
 * Run: `npm run bench -- global` (or `node bench/global.bench.ts`; `--quick` for shorter runs).
 */
import axios from "axios"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Exit, Layer, Scope } from "effect"
import { http as mswHttp, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import nock from "nock"
import { getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici"
import { Route, SimulationNetwork } from "../src/index.ts"
import { itemBody, measure, permutation, report, type Measure } from "./harness.ts"

const ORIGIN = "https://api.example.com"
const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000
const SIZES = [10, 100, 1_000]

const best = (runs: ReadonlyArray<Measure>): Measure => runs.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a))
const bodies = Array.from({ length: 1_000 }, (_, i) => itemBody(i))
const urls = (n: number) => permutation(n).map((i) => `${ORIGIN}/items/${i}`)
const simnetRoutes = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    Route.text(`GET ${ORIGIN}/items/${i}`, bodies[i], { contentType: "application/json" })
  )

const fetchLoop = (
  name: string,
  doFetch: (url: string) => Promise<Response>,
  order: ReadonlyArray<string>,
  opts = {}
) => measure(name, async (i) => (await doFetch(order[i % order.length])).json(), { minMs, ...opts })
// 500 requests to warm up: each contender starts cold (a fresh installation, server or
// interceptor), and a path through node:http takes a few hundred requests to settle.
const axiosLoop = (name: string, order: ReadonlyArray<string>) =>
  measure(name, async (i) => (await axios.get(order[i % order.length])).data, {
    minMs,
    warmup: 500,
    minIterations: 300
  })

/** Runs `body` with the network installed for the whole process (the scoped layer), then restores. */
const withGlobal = async <A>(n: number, body: () => Promise<A>): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(SimulationNetwork.layerGlobal({ routes: simnetRoutes(n) }), scope))
  try {
    return await body()
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const simnetDirect = async (n: number) => {
  const net = await SimulationNetwork.start({ routes: simnetRoutes(n) })
  return fetchLoop(`simnet network.fetch, ${n} routes`, net.fetch, urls(n))
}
const simnetGlobalFetch = (n: number) =>
  withGlobal(n, () => fetchLoop(`simnet global fetch, ${n} routes`, (url) => fetch(url), urls(n)))
const simnetAxios = (n: number) => withGlobal(n, () => axiosLoop(`simnet axios, ${n} routes`, urls(n)))

const mockAgent = async (n: number): Promise<Measure> => {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  for (let i = 0; i < n; i++) {
    pool
      .intercept({ path: `/items/${i}`, method: "GET" })
      .reply(200, bodies[i], { headers: { "content-type": "application/json" } })
      .persist()
  }
  const original = getGlobalDispatcher()
  setGlobalDispatcher(agent)
  try {
    return await fetchLoop(`undici MockAgent global fetch, ${n} routes`, (url) => fetch(url), urls(n), {
      warmup: 200,
      minIterations: 200
    })
  } finally {
    setGlobalDispatcher(original)
    await agent.close()
  }
}

const mswAxios = async (n: number): Promise<Measure> => {
  const server = setupServer(
    ...Array.from({ length: n }, (_, i) =>
      mswHttp.get(`${ORIGIN}/items/${i}`, () =>
        HttpResponse.text(bodies[i], { headers: { "content-type": "application/json" } })
      )
    )
  )
  server.listen({ onUnhandledRequest: "error" })
  try {
    return await axiosLoop(`msw setupServer axios, ${n} routes`, urls(n))
  } finally {
    server.close()
  }
}

const nockAxios = async (n: number): Promise<Measure> => {
  if (!nock.isActive()) nock.activate()
  nock.disableNetConnect()
  const scope = nock(ORIGIN)
  for (let i = 0; i < n; i++)
    scope.get(`/items/${i}`).reply(200, bodies[i], { "content-type": "application/json" }).persist()
  try {
    return await axiosLoop(`nock axios, ${n} routes`, urls(n))
  } finally {
    nock.cleanAll()
    nock.enableNetConnect()
    nock.restore()
  }
}

/** A real loopback server answering each URL's bytes, started once for every round. */
const loopbackServer = async (): Promise<{ readonly origin: string; readonly close: () => void }> => {
  const server = http.createServer((req, res) => {
    const body = bodies[Number(req.url?.slice("/items/".length))] ?? "{}"
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

const loopbackAxios = (n: number, origin: string) =>
  axiosLoop(
    `axios to a real loopback server, ${n} routes`,
    urls(n).map((url) => url.replace(ORIGIN, origin))
  )

const run = async (): Promise<void> => {
  const local = await loopbackServer()
  console.log(
    `global interception bench (node ${process.version}${quick ? ", --quick" : ""}); every figure is the best of 3 interleaved rounds`
  )
  const verdicts: Array<string> = []
  for (const n of SIZES) {
    // Every figure is the best of 3 interleaved rounds, so a burst of load on this shared machine
    // does not land on one tool only.
    const rounds: Array<Array<Measure>> = [[], [], [], [], [], [], []]
    for (let round = 0; round < 3; round++) {
      rounds[0].push(await simnetDirect(n))
      rounds[1].push(await simnetGlobalFetch(n))
      rounds[2].push(await mockAgent(n))
      rounds[3].push(await simnetAxios(n))
      rounds[4].push(await loopbackAxios(n, local.origin))
      rounds[5].push(await mswAxios(n))
      rounds[6].push(await nockAxios(n))
    }
    const [d, g, ma, a, lo, ms, nk] = rounds.map(best)
    report(`${n} routes: fetch + json() / axios.get, ~150-byte body`, [d, g, ma, a, lo, ms, nk], d.name)
    const ratio = (x: Measure, y: Measure) => `${(x.opsPerSec / y.opsPerSec).toFixed(2)}×`
    verdicts.push(
      `  ${String(n).padStart(5)} routes: global fetch vs MockAgent ${ratio(g, ma)}; axios vs a real loopback server ${ratio(a, lo)}, vs msw ${ratio(a, ms)}, vs nock ${ratio(a, nk)}; interception overhead: global fetch runs at ${ratio(g, d)} of network.fetch`
    )
  }
  local.close()
  console.log(`\nsummary (simnet's throughput as a multiple of each peer's)`)
  for (const line of verdicts) console.log(line)
}

await run()
