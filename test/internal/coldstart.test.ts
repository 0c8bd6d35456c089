/**
 * What `import("simnet")` loads (issue 19's cold start): none of the heavy packages that only some
 * features need — the MCP SDK, undici, the `node:http` interceptor, Ajv, the `$ref` dereferencer, graphql-js,
 * the HTTP server's platform, `ws`, RE2, Effect's HTTP router (the control endpoint) and
 * `effect/ai`, Handlebars and jsonpath-plus (templated answers), prom-client (the metrics of the
 * control endpoint), and Node's own `node:http` (HAR export looks its status texts up when it
 * runs) — and each loads when its feature is first used; and what `import("simnet/testing")`
 * loads: no terminal, no server, no control plane and no exploration (`explore` loads them when
 * first called). Each script runs in a fresh Node process with a resolve hook that records every
 * module it loads.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

const DEFERRED = {
  "MCP SDK": "@modelcontextprotocol/sdk/",
  undici: "/node_modules/undici/",
  interceptors: "@mswjs/interceptors/",
  Ajv: "/node_modules/ajv/",
  "$ref dereferencer": "@apidevtools/json-schema-ref-parser/",
  "platform-node": "@effect/platform-node/",
  ws: "/node_modules/ws/",
  RE2: "/node_modules/re2js/",
  GraphQL: "/node_modules/graphql/",
  "HTTP router": "/effect/dist/http/HttpRouter.js",
  "effect/ai": "/effect/dist/ai/",
  "OpenAPI engine": "/routes/openapi/operation.",
  "node:http": "node:http",
  Handlebars: "/node_modules/handlebars/",
  "jsonpath-plus": "/node_modules/jsonpath-plus/",
  "prom-client": "/node_modules/prom-client/"
} as const

/** What only a program in a terminal needs: `simnet/testing`'s `explore` loads it on first use. */
const TERMINAL = {
  "the terminal": "/src/terminal/",
  "node-pty": "@lydell/node-pty/",
  xterm: "@xterm/headless/",
  servers: "/src/serve/",
  "control plane": "/src/control/",
  exploration: "/src/explore/explore.ts",
  "exploration's runs": "/src/explore/exploreRun.ts"
} as const

const dir = mkdtempSync(join(tmpdir(), "simnet-cold-"))
const hook = join(dir, "hook.mjs")
writeFileSync(
  hook,
  `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  if (r.url.startsWith("file:") || r.url === "node:http") process.stderr.write("LOADED " + r.url + "\\n")
  return r
}
`
)
const register = join(dir, "register.mjs")
writeFileSync(
  register,
  `import { register } from "node:module"\nregister(${JSON.stringify(pathToFileURL(hook).href)})\n`
)

/** Which of `watched` running `body` (after `import(entry)`) loaded, in the order `watched` lists them. */
const loadedBy = <W extends Readonly<Record<string, string>> = typeof DEFERRED>(
  body: string,
  entry = "simnet",
  watched: W = DEFERRED as unknown as W
): ReadonlyArray<keyof W> => {
  // In the repository, so that `simnet` and its dependencies resolve as in a test.
  const file = join(process.cwd(), `.coldstart-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`)
  // CommonJS loaded with `require` (undici, the interceptor, Ajv) passes no ESM hook: read the cache.
  const report = `for (const path of Object.keys((await import("node:module")).createRequire(import.meta.url).cache)) process.stderr.write("LOADED file://" + path + "\\n")`
  writeFileSync(file, `const simnet = await import(${JSON.stringify(entry)})\n${body}\n${report}\n`)
  try {
    const result = spawnSync(process.execPath, ["--conditions=simnet-source", "--import", register, file], {
      encoding: "utf8",
      timeout: 60_000
    })
    if (result.status !== 0)
      throw new Error(
        `the script failed (${result.status}): ${result.stderr
          .split("\n")
          .filter((l) => !l.startsWith("LOADED"))
          .join("\n")
          .slice(0, 2000)}`
      )
    const urls = result.stderr
      .split("\n")
      .filter((line) => line.startsWith("LOADED "))
      .map((line) => decodeURIComponent(line.slice(7)))
    return (Object.keys(watched) as Array<keyof W>).filter((name) => urls.some((url) => url.includes(watched[name]!)))
  } finally {
    rmSync(file, { force: true })
  }
}

describe("cold start: heavy packages load with the feature that needs them", () => {
  it("import('simnet') and a network answering a text route load none of them", () => {
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start({ routes: [simnet.Route.text("GET https://a.example/", "ok")] })
      if ((await (await network.fetch("https://a.example/")).text()) !== "ok") throw new Error("no answer")
    `)
    ).toEqual([])
  }, 60_000)

  it("each loads on first use: an MCP request the SDK, installGlobal undici and the interceptor, a JSON Schema from data Ajv, an OpenAPI document the dereferencer, a pattern from data RE2, a GraphQL route graphql-js", () => {
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start()
      await network.registerSpec({ match: "https://mcp.example/mcp", respond: { kind: "mcp", server: { name: "s", version: "1" } } })
      await network.fetch("https://mcp.example/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" })
    `)
    ).toEqual(["MCP SDK", "Ajv"]) // the SDK's server validates with Ajv
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start()
      const restore = await network.installGlobal()
      restore()
    `)
    ).toEqual(["undici", "interceptors"])
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start()
      await network.registerSpec({ match: "GET https://a.example/", respond: { kind: "jsonSchema", schema: { jsonSchema: { type: "string" } } } })
    `)
    ).toEqual(["Ajv"])
    expect(
      loadedBy(`
      const document = {
        openapi: "3.1.0",
        info: { title: "t", version: "1" },
        paths: { "/a": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } } } } } },
        components: { schemas: { A: { type: "object", properties: { id: { type: "string" } } } } }
      }
      const network = await simnet.SimulationNetwork.start({ routes: simnet.Routes.openapi(document, { baseUrl: "https://o.example" }) })
      await (await network.fetch("https://o.example/a")).text()
    `)
    ).toEqual(expect.arrayContaining(["$ref dereferencer", "OpenAPI engine"]))
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start()
      await network.registerSpec({ match: { method: "GET", regex: "^https://a\\.example/[0-9]+$" }, respond: { kind: "text", body: "ok" } })
    `)
    ).toEqual(["RE2"])
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start({ routes: [simnet.Route.text("GET https://a.example/:id", "{{request.params.id}}", { template: true })] })
      if ((await (await network.fetch("https://a.example/7")).text()) !== "7") throw new Error("no answer")
    `)
    ).toEqual(["Handlebars", "jsonpath-plus"])
    expect(
      loadedBy(`
      const network = await simnet.SimulationNetwork.start()
      await network.registerSpec({ match: "https://g.example/graphql", respond: { kind: "graphql", schema: "type Query { a: String }" } })
    `)
    ).toEqual(["GraphQL"])
  }, 120_000)

  it("import('simnet/testing') and a property's case load no terminal, no server and no exploration", () => {
    expect(
      loadedBy(
        `
      if (typeof simnet.explore !== "function" || !(new simnet.ExploreFailed({ runs: 1, actions: 1, seed: 0, failure: { file: "f", step: 1, action: "a", reason: "r", actions: [], shrinks: 0 } }) instanceof Error)) throw new Error("no explore")
      await simnet.property("holds", [simnet.chaos()], () => {}, { numRuns: 2 })
    `,
        "simnet/testing",
        TERMINAL
      )
    ).toEqual([])
  }, 60_000)
})
