/**
 * What a templated answer costs against a static one (issue 59, target: at most 2×), and what a
 * scenario's state check costs a lookup.
 *
 * Workload: sequential `network.fetch` + `text()` in process, one route each:
 * - static: `Route.text` with a fixed ~100-byte JSON body;
 * - templated: the same body shape written from the request (`request.params.id`,
 *   `request.query.q`, `now`), JSON-escaped and re-parsed as a JSON template is;
 * - templated + random: the same with `randomInt` and `randomValue`, so the route derives a seed
 *   per request (its request key hashed, its occurrence counted);
 * - scenario: a route on a network that also holds 1 000 routes gated on 1 000 scenarios' states
 *   under other paths (the index never reaches them), and one under which 1 000 such routes are
 *   filed on its own path, of a higher priority (each is passed over, a state read apiece, as an
 *   exhausted route is), against a lone route on a network of its own.
 * The contenders run interleaved, one round each in turn; the best round of each and the ratios
 * are printed.
 *
 * Run: `npm run bench -- template` (or `node bench/template.bench.ts`; `--quick` for short rounds).
 */
import { Route, SimulationNetwork } from "../src/index.ts"
import { measure, type Measure } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000
const ROUNDS = quick ? 3 : 5
const ORIGIN = "https://api.example.com"

const network = await SimulationNetwork.start({
  routes: [
    Route.text(`GET ${ORIGIN}/static/:id`, `{"id":"42","q":"tea","at":"2030-01-02T03:04:05.000Z","kind":"item"}`, {
      contentType: "application/json"
    }),
    Route.text(
      `GET ${ORIGIN}/templated/:id`,
      `{"id":"{{request.params.id}}","q":"{{request.query.q}}","at":"{{now}}","kind":"item"}`,
      { contentType: "application/json", template: true }
    ),
    Route.text(
      `GET ${ORIGIN}/random/:id`,
      `{"id":"{{request.params.id}}","n":{{randomInt lower=1 upper=100}},"ticket":"{{randomValue length=8}}","kind":"item"}`,
      { contentType: "application/json", template: true }
    ),
    Route.text(`GET ${ORIGIN}/plain`, "ok"),
    Route.text(`GET ${ORIGIN}/gated`, "ok", { id: "gated" }),
    ...Array.from({ length: 1_000 }, (_, i) =>
      Route.text(`GET ${ORIGIN}/gated`, "waiting", {
        id: `state-${i}`,
        scenario: `s${i}`,
        requiredState: "Elsewhere",
        priority: 1
      })
    ),
    ...Array.from({ length: 1_000 }, (_, i) =>
      Route.text(`GET ${ORIGIN}/cart/${i}`, "waiting", {
        id: `elsewhere-${i}`,
        scenario: `c${i}`,
        requiredState: "Elsewhere"
      })
    )
  ]
})

const alone = await SimulationNetwork.start({ routes: [Route.text(`GET ${ORIGIN}/lone`, "ok")] })

const loop = (name: string, url: (i: number) => string) => {
  const on = url(0).endsWith("/lone") ? alone : network
  return measure(name, async (i) => (await on.fetch(url(i))).text(), { minMs, warmup: 500 })
}

const contenders: ReadonlyArray<readonly [string, (i: number) => string]> = [
  ["static text route", (i) => `${ORIGIN}/static/${i % 100}?q=tea`],
  ["templated (params, query, now)", (i) => `${ORIGIN}/templated/${i % 100}?q=tea`],
  ["templated + randomInt, randomValue (seeded)", (i) => `${ORIGIN}/random/${i % 100}`],
  ["a lone route on a network of its own", () => `${ORIGIN}/lone`],
  ["a route, 1 000 scenario-gated routes elsewhere", () => `${ORIGIN}/plain`],
  ["a route behind 1 000 gated routes on its path", () => `${ORIGIN}/gated`]
]

const best = new Map<string, Measure>()
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, url] of contenders) {
    const m = await loop(name, url)
    const before = best.get(name)
    if (before === undefined || m.opsPerSec > before.opsPerSec) best.set(name, m)
  }
}
await Promise.all([network.close(), alone.close()])

const ops = (name: string) => best.get(name)!.opsPerSec
console.log(
  `\ntemplated answers against static ones, in process (network.fetch + text(), best of ${ROUNDS} interleaved rounds)`
)
for (const [name] of contenders)
  console.log(`  ${name.padEnd(48)} ${Math.round(ops(name)).toLocaleString("en-US").padStart(9)} req/s`)
const templated = ops(contenders[0][0]) / ops(contenders[1][0])
const random = ops(contenders[0][0]) / ops(contenders[2][0])
const lone = ops(contenders[3][0]) / ops(contenders[4][0])
const gated = ops(contenders[3][0]) / ops(contenders[5][0])
console.log(
  `  cost of a template: ${templated.toFixed(2)}× a static route (target ≤ 2×); with seeded draws ${random.toFixed(2)}×`
)
console.log(
  `  1 000 scenario-gated routes on other paths: ${lone.toFixed(2)}× a lone route (the index never reaches them)`
)
console.log(
  `  1 000 scenario-gated routes on the route's own path: ${gated.toFixed(2)}× a lone route (each passed over with a state read, as exhausted routes are)`
)
process.exitCode = templated <= 2 ? 0 : 1
