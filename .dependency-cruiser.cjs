/**
 * The layout rule of simnet (see CONTRIBUTING.md, "Layout"). The folders under `src/` are the
 * layers, each importing only the ones below it (`scripts/layers.cjs`, which names each):
 *
 *   registry < fileSystem < terminal < doors < routes < mcp-route < schemas < models < families < network < testing < control < serve < explore < cli
 *
 * `registry/` is the floor (the route table, dispatch to one answer, the request log); `doors/` render
 * that answer to whoever asked. No folder imports a public face (`src/*.ts`) but `SimnetError.ts`:
 * the faces sit on top and re-export. Within `models/`, the simulated model (`provider/`) knows no
 * wire format, and the kit the APIs share (`wire/`) knows no API's folder. No import circles anywhere. `test/internal/layout.test.ts` runs it in the
 * suite, so a change that breaks it fails CI. Type-only imports count.
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
      name: "control-through-the-public-api",
      severity: "error",
      comment:
        "control/ and the CLI use the network through its public API (SimulationNetworkApi, SimulatedProviderApi and the types the faces export), never the engine, routes' internals or dispatch: those are the doors' and the network's.",
      from: { path: "^src/(control|cli)/" },
      to: {
        path: "^src/registry/(engine|route|routeTable|answer|matcher|matcherParts|keptBodies|keyCounts|chaos|faultAnswer|heldResponse|transport)\\.ts$"
      }
    },
    {
      name: "provider-knows-no-wire",
      severity: "error",
      comment: "The simulated model (models/provider/) knows no wire format: it imports nothing else of models/.",
      from: { path: "^src/models/provider/" },
      to: { path: "^src/models/(?!provider/)" }
    },
    {
      name: "wire-knows-no-api",
      severity: "error",
      comment:
        "The kit every model API shares (models/wire/) imports no API's folder, so every API reads the same kit.",
      from: { path: "^src/models/wire/" },
      to: { path: "^src/models/(?!provider/|wire/)" }
    },
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
