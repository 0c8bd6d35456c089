/**
 * `simnet/vitest`: vitest's `test`, extended with a `network` fixture. Each test that names
 * `network` gets a fresh simulated network (a `NetworkHandle`, as `SimulationNetwork.start` gives),
 * seeded from the test's name, closed after it. A request the network refused, or a route
 * registered with `required: true` that no request used, fails the test after it ran, even when
 * the test's own code caught the error: a swallowed refusal is a test that passed for the wrong
 * reason. vitest is a peer dependency of this entry only.
 *
 * ```ts
 * import { test } from "simnet/vitest"
 * test("reads the profile", async ({ network }) => { … await network.fetch(…) … })
 * ```
 *
 * Options are the fixture `simnet` (`VitestNetworkOptions`: any `NetworkOptions`, a fixture file
 * among them), given per file or per `describe` with `test.override({ simnet: { … } })` (vitest
 * before 5: `test.scoped`).
 *
 * The seed: `seed` in the options when given, else the test's name with its `describe` blocks',
 * outermost first, joined by ` > ` (`"cart > adds an item"`) as a string seed: the same test draws
 * the same values on every run, machine and worker count, and keeps them when its file moves.
 */
import { Effect } from "effect"
import { test as base } from "vitest"
import { SimulationNetwork, type NetworkHandle, type NetworkOptions } from "./SimulationNetwork.ts"
import { StrictViolation } from "./SimnetError.ts"

/**
 * The options of the `network` fixture: the network's (`NetworkOptions`), and what fails a test.
 * - `allowRefused`: a test during which a request was refused fails, unless this is true (a test
 *   that expects refusals checks them itself).
 * - `unused`: `"required"` (the default) fails a test that left a `required: true` route unused;
 *   `"all"` any unused route; `"allow"` none.
 */
export interface VitestNetworkOptions extends NetworkOptions {
  readonly allowRefused?: boolean | undefined
  readonly unused?: "required" | "all" | "allow" | undefined
}

/** How many refused requests the failure names one by one. */
const NAMED = 20

/** The seed of a test: its `describe` blocks' names and its own, outermost first, joined by ` > `. */
const seedOf = (task: { readonly name: string; readonly suite?: { readonly name: string; readonly suite?: unknown } | undefined }): string => {
  const names: Array<string> = []
  let at: { readonly name: string; readonly suite?: unknown } | undefined = task
  while (at !== undefined && names.length < 64) {
    if (at.name !== "") names.unshift(at.name)
    at = at.suite as typeof at
  }
  return names.join(" > ")
}

/**
 * What fails a test on `network` after it ran, per `options`: the refused requests and unused
 * routes as a `StrictViolation`, or undefined when there is none.
 */
const violation = (network: NetworkHandle, options: VitestNetworkOptions): StrictViolation | undefined => {
  const log = network.log()
  const refused = options.allowRefused === true ? [] : log.filter((record) => record.denial !== undefined)
  // The counters are exact past the log's bound; the records name the first refusals the log holds.
  const denied = options.allowRefused === true ? 0 : Effect.runSync(network.network.counters).denied
  const unused = options.unused === "allow" ? [] : network.unused().filter((route) => options.unused === "all" || route.required === true).map((route) => route.id)
  if (denied === 0 && unused.length === 0) return undefined
  return new StrictViolation({
    denied,
    refused: refused.slice(0, NAMED).map((record) => ({ method: record.method, url: record.url, tag: record.denial ?? "" })),
    unused
  })
}

/**
 * vitest's `test` with the fixtures `network` (a fresh network per test) and `simnet` (its options).
 */
export const test = base.extend<{ simnet: VitestNetworkOptions; network: NetworkHandle }>({
  simnet: [{}, { injected: false }],
  network: async ({ simnet, task }, use) => {
    const { allowRefused: _allowRefused, unused: _unused, ...options } = simnet
    const network = await SimulationNetwork.start({ ...options, seed: simnet.seed ?? seedOf(task) })
    let failure: StrictViolation | undefined
    try {
      await use(network)
      failure = violation(network, simnet)
    } finally {
      await network.close()
    }
    if (failure !== undefined) throw failure
  }
})
