/**
 * The package as its users get it: `npm pack` (which builds `dist/` through `prepack`), then the
 * tarball installed with `effect` into a fresh project outside this repository, and used there on
 * plain Node 22 (the Node running this test): from a `node` ESM script, through `npx simnet serve`,
 * under `node --import simnet/register`, and from TypeScript with the config `tsc --init` writes.
 *
 * The install goes through the npm registry client (`--prefer-offline`: the cache `npm ci` filled
 * answers it without the network when the versions match). Linking this repository's
 * node_modules instead would be faster but would hide a dependency missing from `dependencies`.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..")
const node = process.execPath
const nodeDir = path.dirname(node)
// npm and the `simnet` bin (`#!/usr/bin/env node`) run on the Node running this test.
const env = { ...process.env, PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ""}`, npm_config_update_notifier: "false" }
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")
const effectVersion = (JSON.parse(fs.readFileSync(path.join(root, "node_modules", "effect", "package.json"), "utf8")) as { version: string }).version

let work = ""
let project = ""
let tarball = ""

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

const typecheck = (config: object): string => {
  fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(config, null, 2))
  try {
    run(node, [tsc, "--noEmit", "-p", "tsconfig.json"], project)
    return ""
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error)
  }
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-pack-"))
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], root)) as Array<{ filename: string; files: Array<{ path: string }> }>
  tarball = path.join(work, packed[0].filename)
  fs.writeFileSync(path.join(work, "files.json"), JSON.stringify(packed[0].files.map((f) => f.path)))
  project = path.join(work, "consumer")
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, `effect@${effectVersion}`], project)
}, 240_000)

afterAll(() => {
  if (work !== "") fs.rmSync(work, { recursive: true, force: true })
}, 60_000)

// Each step runs tsc, npm or a child Node: generous timeouts for a loaded 2-core machine.
describe("the packed package", { timeout: 180_000 }, () => {
  it("ships dist/, fixtures/, the bin, README and LICENSE, and no sources, tests, benches or CI", () => {
    const files = JSON.parse(fs.readFileSync(path.join(work, "files.json"), "utf8")) as Array<string>
    for (const f of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/register.js", "dist/cli.js", "fixtures/default.json", "bin/simnet.js", "README.md", "LICENSE", "package.json"]) {
      expect(files).toContain(f)
    }
    expect(files.filter((f) => /^(src|test|bench|\.ci)\//.test(f))).toEqual([])
  })

  it("a plain node ESM script imports simnet and gets an answer through network.fetch", () => {
    fs.writeFileSync(
      path.join(project, "app.mjs"),
      [
        `import { Route, SimulationNetwork, UnregisteredRequest } from "simnet"`,
        `const network = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/hello", "hi from simnet")] })`,
        `const response = await network.fetch("https://api.example.com/hello")`,
        `const denied = await network.fetch("https://api.example.com/nope").catch((e) => e)`,
        `console.log(JSON.stringify({ status: response.status, body: await response.text(), denied: denied.cause instanceof UnregisteredRequest }))`
      ].join("\n")
    )
    expect(JSON.parse(run(node, ["app.mjs"], project))).toEqual({ status: 200, body: "hi from simnet", denied: true })
  })

  it("node --import simnet/register answers an unmodified app from SIMNET_FIXTURE and writes SIMNET_LOG", () => {
    fs.writeFileSync(path.join(project, "plain.mjs"), `const r = await fetch("https://api.example.com/items/1"); console.log(r.status, await r.text())`)
    const log = path.join(project, "log.jsonl")
    const out = execFileSync(node, ["--import", "simnet/register", "plain.mjs"], {
      cwd: project,
      env: { ...env, SIMNET_FIXTURE: "node_modules/simnet/fixtures/default.json", SIMNET_LOG: log },
      encoding: "utf8"
    })
    expect(out.trim()).toBe(`200 {"id":"sim-item","name":"Simulated item"}`)
    const records = fs.readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { url: string; status: number })
    expect(records.map((r) => [r.url, r.status])).toEqual([["https://api.example.com/items/1", 200]])
  })

  it("npx simnet serve --port 0 starts from any directory on the package's own fixture, answers a request and serves the inspector", async () => {
    // A process group of its own: SIGTERM to `npx` alone would leave its `simnet serve` running.
    const child = spawn("npx", ["--no-install", "simnet", "serve", "--port", "0"], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    try {
      let out = ""
      const base = await new Promise<string>((resolve, reject) => {
        const onData = (d: Buffer) => {
          out += d.toString()
          const m = /network:\s+(http:\/\/127\.0\.0\.1:\d+)\/HOST\/PATH/.exec(out)
          if (m) resolve(m[1])
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
        child.on("exit", (code) => reject(new Error(`simnet serve exited with ${code}: ${out}`)))
      })
      expect(out).toContain(path.join("node_modules", "simnet", "fixtures", "default.json"))
      const item = await fetch(`${base}/api.example.com/items/42`)
      expect(item.status).toBe(200)
      expect(await item.json()).toEqual({ id: "sim-item", name: "Simulated item" })
      // The inspector's browser files, found beside the bundled chunk that serves the page.
      const page = await fetch(`${base}/experimental/simulation/ui`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("Export HAR")
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      process.kill(-child.pid!, "SIGTERM")
      await exited
    }
  })

  describe("typechecks in a consumer project", () => {
    const consumer = [
      `import { Effect, Schema } from "effect"`,
      `import * as HttpClient from "effect/http/HttpClient"`,
      `import * as HttpClientResponse from "effect/http/HttpClientResponse"`,
      `import { GlobalInstallConflict, InvalidRouteSpec, Route, SimulationNetwork, UnregisteredRequest, type SimnetError } from "simnet"`,
      ``,
      `const User = Schema.Struct({ id: Schema.String, name: Schema.String })`,
      `const TestNetwork = SimulationNetwork.layer({ seed: 1, routes: [Route.json("GET https://api.example.com/users/:id", User)] })`,
      `const program = HttpClient.get("https://api.example.com/users/1").pipe(Effect.flatMap(HttpClientResponse.schemaBodyJson(User)))`,
      `export const user: Effect.Effect<{ readonly id: string; readonly name: string }, unknown> = program.pipe(Effect.provide(TestNetwork))`,
      `export const describe = (error: SimnetError | GlobalInstallConflict): string =>`,
      `  error instanceof UnregisteredRequest ? error.candidates.map((c) => c.reason).join(",") : error instanceof InvalidRouteSpec ? error.path : error._tag`,
      `export const global = SimulationNetwork.layerGlobal({ onUnmatched: "passthrough", passthroughHosts: ["localhost"] })`
    ].join("\n")

    it("with the config tsc --init writes (strict, module/moduleResolution nodenext)", () => {
      fs.writeFileSync(path.join(project, "consumer.ts"), consumer)
      fs.rmSync(path.join(project, "tsconfig.json"), { force: true })
      run(node, [tsc, "--init"], project)
      const written = fs.readFileSync(path.join(project, "tsconfig.json"), "utf8")
      expect(written).toMatch(/"module": "nodenext"/)
      expect(written).toMatch(/"strict": true/)
      expect(run(node, [tsc, "--noEmit", "-p", "tsconfig.json"], project)).toBe("")
    })

    it("with moduleResolution bundler, and without skipLibCheck", () => {
      const base = { compilerOptions: { module: "preserve", moduleResolution: "bundler", target: "esnext", strict: true, types: [], noEmit: true, skipLibCheck: true }, files: ["consumer.ts"] }
      expect(typecheck(base)).toBe("")
      // Without skipLibCheck every .d.ts is checked: simnet's own declarations must hold (errors
      // inside other packages' declarations are theirs, so only simnet's are counted).
      const strictLibs = typecheck({ ...base, compilerOptions: { ...base.compilerOptions, skipLibCheck: false, types: ["node"] } })
      expect(strictLibs.split("\n").filter((line) => line.includes("node_modules/simnet/"))).toEqual([])
    })
  })
})
