/**
 * The kit of `simnet/vitest` (its face, `src/vitest.ts`, says how a test uses it): vitest's `test`
 * with a `network` fixture, a fresh network per test seeded from the test's name, and the check
 * that fails a test after it ran when a request was refused or a required route went unused.
 */
import { Effect } from "effect"
import { test as base } from "vitest"
import { type NetworkHandle, startHandle } from "../network/handle.ts"
import type { NetworkOptions } from "../network/network.ts"
import { StrictViolation } from "../SimnetError.ts"

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
const seedOf = (task: {
  readonly name: string
  readonly suite?: { readonly name: string; readonly suite?: unknown } | undefined
}): string => {
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
  const unused =
    options.unused === "allow"
      ? []
      : network
          .unused()
          .filter((route) => options.unused === "all" || route.required === true)
          .map((route) => route.id)
  if (denied === 0 && unused.length === 0) return undefined
  return new StrictViolation({
    denied,
    refused: refused
      .slice(0, NAMED)
      .map((record) => ({ method: record.method, url: record.url, tag: record.denial ?? "" })),
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
    const network = await startHandle({ ...options, seed: simnet.seed ?? seedOf(task) })
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
