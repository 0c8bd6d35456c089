/**
 * What replaying a recording costs next to hand-written routes: the same requests answered by the
 * routes `fixtureOf` writes from recorded exchanges (object matchers with the exact query, text
 * bodies with the recorded headers) and by the equivalent routes written by hand as strings.
 */
import { Route, SimulationNetwork } from "../src/index.ts"
import { fixtureOf } from "../src/network/record/record.ts"
import { defaultRedactor } from "../src/registry/redact.ts"
import { type Measure, measure, report } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 800 : 3_000
const N = 100
const body = (i: number) => JSON.stringify({ id: i, name: `item ${i}` })
const encoder = new TextEncoder()
const recorded = Array.from({ length: N }, (_, i) => ({
  method: "GET",
  url: `https://api.example.com/items/${i}?view=full`,
  requestBody: undefined,
  requestType: undefined,
  status: 200,
  headers: [["content-type", "application/json"]] as Array<readonly [string, string]>,
  body: encoder.encode(body(i))
}))
const replay = await SimulationNetwork.start({ routes: [] })
await replay.registerSpec(fixtureOf(recorded, defaultRedactor))
const hand = await SimulationNetwork.start({
  routes: Array.from({ length: N }, (_, i) =>
    Route.text(`GET https://api.example.com/items/${i}?view=full`, body(i), { contentType: "application/json" })
  )
})
const urls = Array.from({ length: N }, (_, i) => `https://api.example.com/items/${(i * 37) % N}?view=full`)
const run = (network: typeof replay) => async (i: number) => (await network.fetch(urls[i % N])).text()

const kept = await SimulationNetwork.start({
  keepBodies: true,
  routes: Array.from({ length: N }, (_, i) =>
    Route.text(`GET https://api.example.com/items/${i}?view=full`, body(i), { contentType: "application/json" })
  )
})
const handler = (keepBodies: boolean) =>
  SimulationNetwork.start({
    keepBodies,
    routes: [
      Route.handler(
        "GET https://api.example.com/items/:id",
        (request) =>
          new Response(body(Number(request.params["id"])), { headers: { "content-type": "application/json" } })
      )
    ]
  })
const [plainHandler, keptHandler] = [await handler(false), await handler(true)]

// Every contender is measured in each of 3 interleaved rounds; each figure is its best round,
// and each ratio is printed with its range over the rounds, so one burst of load on a shared
// machine does not land on one side only.
const CONTENDERS = [
  ["hand-written routes, 100 routes", hand],
  ["recorded routes (fixtureOf), 100 routes", replay],
  ["hand-written routes, keepBodies", kept],
  ["handler routes", plainHandler],
  ["handler routes, keepBodies", keptHandler]
] as const
const rounds: Array<Array<Measure>> = CONTENDERS.map(() => [])
for (let round = 0; round < 3; round++) {
  for (const [i, [name, network]] of CONTENDERS.entries()) rounds[i].push(await measure(name, run(network), { minMs }))
}
const best = rounds.map((r) => r.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a)))
const range = (a: number, b: number) => {
  const ratios = rounds[b].map((m, r) => m.opsPerSec / rounds[a][r].opsPerSec)
  return `  ${CONTENDERS[b][0]} / ${CONTENDERS[a][0]}, round by round: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`
}
report("replaying a recording vs hand-written routes, requests/s", [best[0], best[1]], best[0].name)
console.log(range(0, 1))
// What keeping bodies for a HAR export costs (`keepBodies`): the same hand-written routes, and a
// handler whose answer is a plain `Response` (its body passed through and copied as it is read).
report("keepBodies on vs off, static routes, requests/s", [best[0], best[2]], best[0].name)
console.log(range(0, 2))
report("keepBodies on vs off, handler routes (streamed bodies), requests/s", [best[3], best[4]], best[3].name)
console.log(range(3, 4))
await Promise.all([replay.close(), hand.close(), kept.close(), plainHandler.close(), keptHandler.close()])
