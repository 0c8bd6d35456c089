/**
 * The layout rule of simnet (see the README's "Layout" section): `registry/` is the floor and
 * imports no route kind, no provider, no MCP route and no control plane; `control/` and the CLI
 * use only the public faces; no import circles anywhere. `test/internal/layout.test.ts` runs it
 * in the suite, so a change that breaks it fails CI. Type-only imports count.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import circles anywhere in src/.",
      from: { path: "^src/" },
      to: { circular: true }
    },
    {
      name: "registry-is-the-floor",
      severity: "error",
      comment: "registry/ imports nothing from routes/, provider/, mcp-route/ or control/, and no public face but SimnetError.ts.",
      from: { path: "^src/registry/" },
      to: { path: "^src/(routes|provider|mcp-route|control|schemas)/|^src/(?!SimnetError\\.ts$)[^/]+\\.ts$" }
    },
    {
      name: "control-uses-public-faces",
      severity: "error",
      comment: "control/ and cli.ts use only the public faces (src/*.ts).",
      from: { path: "^src/(control/|cli\\.ts$)" },
      to: { path: "^src/(registry|routes|provider|mcp-route|schemas)/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" }
  }
}
