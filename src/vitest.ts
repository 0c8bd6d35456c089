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
import "./registry/version.ts"

export { test, type VitestNetworkOptions } from "./testing/vitest.ts"
