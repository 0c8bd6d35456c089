/**
 * What replaying a recording costs next to hand-written routes: the same requests answered by the
 * routes `fixtureOf` writes from recorded exchanges (object matchers with the exact query, text
 * bodies with the recorded headers) and by the equivalent routes written by hand as strings.
 */
import { Route, SimulationNetwork } from "../src/index.ts"
import { fixtureOf } from "../src/families/record.ts"
import { defaultRedactor } from "../src/core/redact.ts"
import { measure, report } from "./harness.ts"

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
  routes: Array.from({ length: N }, (_, i) => Route.text(`GET https://api.example.com/items/${i}?view=full`, body(i), { contentType: "application/json" }))
})
const urls = Array.from({ length: N }, (_, i) => `https://api.example.com/items/${(i * 37) % N}?view=full`)
const run = (network: typeof replay) => async (i: number) => (await network.fetch(urls[i % N])).text()
const recordedMeasure = await measure("recorded routes (fixtureOf), 100 routes", run(replay), { minMs })
const handMeasure = await measure("hand-written routes, 100 routes", run(hand), { minMs })
report("replaying a recording vs hand-written routes, requests/s", [handMeasure, recordedMeasure], handMeasure.name)

// What keeping bodies for a HAR export costs (`keepBodies`): the same hand-written routes, and a
// handler whose answer is a plain `Response` (its body passed through and copied as it is read).
const kept = await SimulationNetwork.start({
  keepBodies: true,
  routes: Array.from({ length: N }, (_, i) => Route.text(`GET https://api.example.com/items/${i}?view=full`, body(i), { contentType: "application/json" }))
})
const keptMeasure = await measure("hand-written routes, keepBodies", run(kept), { minMs })
report("keepBodies on vs off, static routes, requests/s", [handMeasure, keptMeasure], handMeasure.name)
const handler = (keepBodies: boolean) =>
  SimulationNetwork.start({
    keepBodies,
    routes: [Route.handler("GET https://api.example.com/items/:id", (request) => new Response(body(Number(request.params["id"])), { headers: { "content-type": "application/json" } }))]
  })
const [plainHandler, keptHandler] = [await handler(false), await handler(true)]
const plainHandlerMeasure = await measure("handler routes", run(plainHandler), { minMs })
const keptHandlerMeasure = await measure("handler routes, keepBodies", run(keptHandler), { minMs })
report("keepBodies on vs off, handler routes (streamed bodies), requests/s", [plainHandlerMeasure, keptHandlerMeasure], plainHandlerMeasure.name)
await Promise.all([kept.close(), plainHandler.close(), keptHandler.close()])
