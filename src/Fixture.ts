/**
 * Fixture files: routes as RouteSpec JSON, model scripts and rules, read and checked before
 * anything registers. A public face: reading lives in `network/fixture.ts`.
 */
export * from "./network/fixture.ts"

import { defaultRedactor } from "./registry/redact.ts"

/**
 * A HAR 1.2 file (a browser's devtools export, or any tool's) as a fixture: `{ routes }` of
 * RouteSpec JSON, one route per distinct request with its answer (answers that differ become a
 * sequence), credentials left out. `simnet har import FILE.har > fixture.json` does the same.
 * (A Promise: the recorder's module loads on first use, not with `import("simnet")`.)
 */
export const fromHar = async (har: unknown): Promise<{ readonly routes: ReadonlyArray<Record<string, unknown>> }> => {
  const record = await import("./families/record.ts")
  return { routes: record.fromHar(har, defaultRedactor) }
}
