import { defineConfig } from "vitest/config"

// `simnet` (and `simnet/register`) resolve to the TypeScript sources in this repository through
// the package's "simnet-source" export condition; the published package resolves to `dist/`.
const conditions = ["simnet-source", "node", "import", "default"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["simnet-source"] } },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 20_000
  }
})
