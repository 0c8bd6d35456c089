/**
 * The layout rule of simnet (see the README's "Layout" section). The folders under `src/` are the
 * layers, each importing only the ones below it:
 *
 *   registry < schemas < provider < routes < spec < families < network < control
 *
 * `registry/` is the floor (the route table, dispatch, the request log). No folder imports a
 * public face (`src/*.ts`) but `SimnetError.ts`: the faces sit on top and re-export. The network
 * never imports `control/`. No import circles anywhere. `test/internal/layout.test.ts` runs it in
 * the suite, so a change that breaks it fails CI. Type-only imports count.
 */
const LAYERS = require("./scripts/layers.cjs")

const above = (i) => LAYERS.slice(i + 1)

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import circles anywhere in src/.",
      from: { path: "^src/" },
      to: { circular: true }
    },
    ...LAYERS.map((layer, i) => ({
      name: `${layer}-imports-only-below`,
      severity: "error",
      comment: `${layer}/ imports only ${LAYERS.slice(0, i).join(", ") || "itself"}, and no public face but SimnetError.ts.`,
      from: { path: `^src/${layer}/` },
      to: {
        path: [
          ...(above(i).length > 0 ? [`^src/(${above(i).join("|")})/`] : []),
          "^src/(?!SimnetError\\.ts$)[^/]+\\.ts$"
        ]
      }
    })),
    {
      name: "folders-are-layers",
      severity: "error",
      comment: `Every folder under src/ is a layer: ${LAYERS.join(", ")}.`,
      from: { path: "^src/" },
      to: { path: `^src/(?!(${LAYERS.join("|")})/)[^/]+/` }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" }
  }
}
