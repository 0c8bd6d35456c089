/**
 * Fixture files: routes as RouteSpec JSON, model scripts and rules, read and checked before
 * anything registers. A public face: reading lives in `network/fixture.ts`.
 */
export { decodeFixture, loadFixture, parseFixtureText } from "./network/fixture.ts"
export type { Fixture } from "./network/fixture.ts"

import { Effect } from "effect"
import { loadFixture, type Fixture } from "./network/fixture.ts"

/**
 * A fixture file read and decoded, as a Promise (`loadFixture` is the Effect): its seed, routes,
 * model scripts, rules and chaos, ready for `SimulationNetwork.start`. A file that cannot be read
 * or decoded rejects with the typed error naming the file or the field. To start a network from a
 * file, `SimulationNetwork.start({ fixture: PATH })` does both.
 */
export const load = (path: string): Promise<Fixture> => Effect.runPromise(loadFixture(path))

import { defaultRedactor } from "./registry/redact.ts"

/**
 * A HAR 1.2 file (a browser's devtools export, or any tool's) as a fixture: `{ routes }` of
 * RouteSpec JSON, one route per distinct request with its answer (answers that differ become a
 * sequence), credentials left out, and `skipped`: each entry left out, with a line naming it and
 * why (`entries[7]: method "G ET" is not a token`). An entry is left out when it is not a valid HAR
 * entry, when its status cannot be served (a blocked request's 0), or when its route would be
 * refused by the fixture loader: what is imported always loads. `simnet har import FILE.har >
 * fixture.json` does the same and prints the skipped lines on standard error.
 * (A Promise: the importer's module loads on first use, not with `import("simnet")`.)
 */
export const fromHar = async (
  har: unknown
): Promise<{
  readonly routes: ReadonlyArray<Record<string, unknown>>
  readonly imported: number
  readonly skipped: ReadonlyArray<{ readonly entry: number; readonly reason: string }>
}> => {
  const harImport = await import("./network/harImport.ts")
  return harImport.fromHar(har, defaultRedactor)
}
