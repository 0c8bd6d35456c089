/**
 * The package as its users get it, installed by the README's own commands: `npm pack` in this
 * checkout (which builds `dist/` through `prepack`), then the tarball installed into a fresh
 * project outside this repository beside the newest `effect` the peer range allows (asked of the
 * registry when the test runs, so a new `effect` release is met here first). The project must hold
 * one copy of `effect`; the package is used there on plain Node 22 (the Node running this test):
 * from a TypeScript program run by `node` (`Route.json` over `Schema.Int` fields through
 * `SimulationNetwork.layer` and the app's `HttpClient`), a `node` ESM script, `npx simnet serve`,
 * `node --import simnet/register`, and `tsc` with the config `tsc --init` writes.
 *
 * The install goes through the npm registry client, as a user's does (`--prefer-online`: the
 * metadata is asked again, so "newest" means newest now; the tarballs come from npm's cache when
 * it holds them). Linking this repository's node_modules instead would be faster but would hide a
 * dependency missing from `dependencies`, and a second copy of `effect`.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = path.resolve(import.meta.dirname, "..")
const node = process.execPath
const nodeDir = path.dirname(node)
// npm and the `simnet` bin (`#!/usr/bin/env node`) run on the Node running this test.
const env = {
  ...process.env,
  PATH: `${nodeDir}${path.delimiter}${process.env.PATH ?? ""}`,
  npm_config_update_notifier: "false"
}
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string
  peerDependencies: { effect: string }
}

let work = ""
let project = ""
let tarball = ""
/** The newest `effect` in the package's peer range, as the registry answered when the test ran. */
let newestEffect = ""

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

/**
 * The README's install commands: the lines of the first two `sh` blocks of its "Install" section,
 * comments and blank lines left out. The first runs in a checkout of simnet, the second in the
 * user's project.
 */
const readmeInstall = (): { readonly checkout: ReadonlyArray<string>; readonly project: ReadonlyArray<string> } => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
  const from = readme.indexOf("\n## Install\n")
  const section = readme.slice(from, readme.indexOf("\n## ", from + 1))
  const [checkout = [], project = []] = Array.from(section.matchAll(/```sh\n([\s\S]*?)```/g), (m) =>
    m[1]
      .split("\n")
      .map((line) => line.replace(/#.*/, "").trim())
      .filter((line) => line !== "")
  )
  return { checkout, project }
}

/** The highest of versions without prerelease parts (`npm view` promises no order). */
const highest = (versions: ReadonlyArray<string>): string =>
  versions.reduce((best, v) => {
    const [a, b] = [v, best].map((x) => x.split(".").map(Number))
    const later = a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
    return later > 0 ? v : best
  })

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-pack-"))
  const commands = readmeInstall()
  // This repository is a checkout whose `npm install` has run (the suite runs in it): `npm pack`
  // is what remains, written beside the project rather than into the checkout.
  expect(commands.checkout, "the README's commands in a checkout").toEqual(["npm install", "npm pack"])
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], root)) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  tarball = path.join(work, packed[0].filename)
  fs.writeFileSync(path.join(work, "files.json"), JSON.stringify(packed[0].files.map((f) => f.path)))
  const viewed = JSON.parse(
    run("npm", ["view", `effect@${manifest.peerDependencies.effect}`, "version", "--json"], work)
  ) as string | Array<string>
  newestEffect = highest(typeof viewed === "string" ? [viewed] : viewed)
  // The README's one line in the user's project, with the tarball's path where it names the file.
  expect(commands.project, "the README's command in the project").toHaveLength(1)
  const [command, ...args] = commands.project[0].split(/\s+/)
  expect(command).toBe("npm")
  expect(args, "the README installs the tarball npm pack wrote, with effect in the peer range").toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`(^|/)${packed[0].filename.replaceAll(".", "\\.")}$`)),
      `effect@${manifest.peerDependencies.effect}`
    ])
  )
  project = path.join(work, "consumer")
  fs.mkdirSync(project)
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" })
  )
  const install = args.map((arg) => (arg.endsWith(packed[0].filename) ? tarball : arg))
  run("npm", [...install, "--prefer-online", "--no-audit", "--no-fund"], project)
}, HEAVY_WORK)

afterAll(() => {
  if (work !== "") fs.rmSync(work, { recursive: true, force: true })
}, HEAVY_WORK)

// Each step runs tsc, npm or a child Node.
describe("the packed package", { timeout: HEAVY_WORK }, () => {
  it("ships dist/, fixtures/, the bin, README and LICENSE, and no sources, tests, benches or CI", () => {
    const files = JSON.parse(fs.readFileSync(path.join(work, "files.json"), "utf8")) as Array<string>
    for (const f of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/index.js.map",
      "dist/register.js",
      "dist/testing.js",
      "dist/vitest.js",
      "dist/vitest.d.ts",
      "dist/models.js",
      "dist/models.d.ts",
      "dist/cli.js",
      "fixtures/default.json",
      "bin/simnet.js",
      "README.md",
      "LICENSE",
      "package.json"
    ]) {
      expect(files).toContain(f)
    }
    expect(files.filter((f) => /^(src|test|bench|\.ci|\.github)\//.test(f))).toEqual([])
    // The virtual clock's hook, beside the chunk that loads it into apps.
    expect(files.filter((f) => /^dist\/(chunks\/)?clockHook\.mjs$/.test(f))).toHaveLength(1)
  })

  it("the virtual clock's hook loads from the installed package: a Node process on it reads simnet's time", () => {
    const hook = [
      path.join(project, "node_modules", "simnet", "dist", "chunks", "clockHook.mjs"),
      path.join(project, "node_modules", "simnet", "dist", "clockHook.mjs")
    ].find((file) => fs.existsSync(file))!
    const now = path.join(work, "clock-now")
    fs.writeFileSync(now, "1767225600000")
    const shown = execFileSync(node, ["--import", pathToFileURL(hook).href, "-e", "console.log(Date.now())"], {
      cwd: project,
      env: { ...env, SIMNET_CLOCK: path.join(work, "no-clock.sock"), SIMNET_CLOCK_NOW: now },
      encoding: "utf8"
    })
    expect(shown.trim()).toBe("1767225600000")
  })

  it("the README's install gives the project one copy of effect, the newest in the peer range", () => {
    // `npm ls` exits non-zero on an invalid tree (a peer range unmet), and lists every copy.
    const copies = new Set(run("npm", ["ls", "effect", "--all", "--parseable"], project).trim().split("\n"))
    expect([...copies]).toEqual([path.join(fs.realpathSync(project), "node_modules", "effect")])
    const installed = JSON.parse(
      fs.readFileSync(path.join(project, "node_modules", "effect", "package.json"), "utf8")
    ) as { version: string }
    expect(installed.version).toBe(newestEffect)
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
    fs.writeFileSync(
      path.join(project, "plain.mjs"),
      `const r = await fetch("https://api.example.com/items/1"); console.log(r.status, await r.text())`
    )
    const log = path.join(project, "log.jsonl")
    const out = execFileSync(node, ["--import", "simnet/register", "plain.mjs"], {
      cwd: project,
      env: { ...env, SIMNET_FIXTURE: "node_modules/simnet/fixtures/default.json", SIMNET_LOG: log },
      encoding: "utf8"
    })
    expect(out.trim()).toBe(`200 {"id":"sim-item","name":"Simulated item"}`)
    const records = fs
      .readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { url: string; status: number })
    expect(records.map((r) => [r.url, r.status])).toEqual([["https://api.example.com/items/1", 200]])
  })

  it("npx simnet serve --port 0 starts from any directory on the package's own fixture, answers a request and serves the inspector", async () => {
    // A process group of its own: SIGTERM to `npx` alone would leave its `simnet serve` running.
    const child = spawn("npx", ["--no-install", "simnet", "serve", "--port", "0"], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
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

  it("a vitest suite of the project uses simnet/vitest: a test whose code swallowed a refusal fails, naming it", () => {
    // vitest is a peer the project installs; this repository's copy stands in for it (linked, so
    // the runner and the kit's `import "vitest"` are one module).
    const linked = path.join(project, "node_modules", "vitest")
    fs.symlinkSync(path.join(root, "node_modules", "vitest"), linked, "dir")
    const suite = path.join(project, "kit")
    // Gone after it: the project's later typechecks compile every .ts file the project holds.
    onTestFinished(() => {
      fs.rmSync(linked, { force: true })
      fs.rmSync(suite, { recursive: true, force: true })
    })
    fs.mkdirSync(suite)
    fs.writeFileSync(
      path.join(suite, "kit.test.ts"),
      [
        `import { expect } from "vitest"`,
        `import { Route } from "simnet"`,
        `import { test } from "simnet/vitest"`,
        `test.override({ simnet: { routes: [Route.text("GET https://api.example.com/hi", "hi")] } })`,
        `test("answers", async ({ network }) => {`,
        `  expect(await (await network.fetch("https://api.example.com/hi")).text()).toBe("hi")`,
        `})`,
        `test("swallows a refusal", async ({ network }) => {`,
        `  await network.fetch("https://api.example.com/missing").catch(() => undefined)`,
        `})`
      ].join("\n")
    )
    const report = path.join(suite, "report.json")
    const ran = spawnSync(
      node,
      [
        path.join(root, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--root",
        suite,
        "--reporter=json",
        `--outputFile=${report}`
      ],
      { cwd: project, env, encoding: "utf8" }
    )
    expect(ran.status, ran.stderr).toBe(1)
    const results = (
      JSON.parse(fs.readFileSync(report, "utf8")) as {
        testResults: Array<{
          assertionResults: Array<{ title: string; status: string; failureMessages: Array<string> }>
        }>
      }
    ).testResults.flatMap((file) => file.assertionResults)
    expect(results.map((r) => [r.title, r.status])).toEqual([
      ["answers", "passed"],
      ["swallows a refusal", "failed"]
    ])
    expect(results[1].failureMessages.join("\n")).toContain(
      "StrictViolation: simnet: strict: 1 request was refused (GET https://api.example.com/missing: UnregisteredRequest)"
    )
  })

  describe("a TypeScript app in a consumer project", () => {
    // The app's own Schema, with `Int` fields (the first thing two copies of effect broke), served
    // by Route.json and decoded by the app's HttpClient; and the types an app names.
    const consumer = [
      `import { Effect, Schema } from "effect"`,
      `import * as HttpClient from "effect/http/HttpClient"`,
      `import * as HttpClientResponse from "effect/http/HttpClientResponse"`,
      `import { GlobalInstallConflict, InvalidRouteSpec, Route, SimulationNetwork, UnregisteredRequest, type SimnetError } from "simnet"`,
      `import { dataFrame, type ModelFamily } from "simnet/models"`,
      ``,
      `const Order = Schema.Struct({ id: Schema.Int, quantity: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 99 })), customer: Schema.String })`,
      `const TestNetwork = SimulationNetwork.layer({ seed: 1, routes: [Route.json("GET https://shop.example.com/orders/:id", Order)] })`,
      `const program = HttpClient.get("https://shop.example.com/orders/1").pipe(Effect.flatMap(HttpClientResponse.schemaBodyJson(Order)))`,
      `export const order: Effect.Effect<{ readonly id: number; readonly quantity: number; readonly customer: string }, unknown> = program.pipe(Effect.provide(TestNetwork))`,
      `export const describe = (error: SimnetError | GlobalInstallConflict): string =>`,
      `  error instanceof UnregisteredRequest ? error.candidates.map((c) => c.reason).join(",") : error instanceof InvalidRouteSpec ? error.path : error._tag`,
      `export const global = SimulationNetwork.layerGlobal({ onUnmatched: "passthrough", passthroughHosts: ["localhost"] })`,
      // The model kit's entry: its types and a frame writer, from the packed package.
      `export const families: ReadonlyArray<ModelFamily> = []`,
      `export const frame: string = dataFrame({ delta: "hi" })`,
      `console.log(JSON.stringify(await Effect.runPromise(order)))`
    ].join("\n")

    it("runs on node: Route.json answers the app's Schema with Int fields through SimulationNetwork.layer and its HttpClient", () => {
      fs.writeFileSync(path.join(project, "consumer.ts"), consumer)
      const order = JSON.parse(run(node, ["consumer.ts"], project)) as {
        id: number
        quantity: number
        customer: string
      }
      expect(Number.isInteger(order.id)).toBe(true)
      expect(Number.isInteger(order.quantity) && order.quantity >= 1 && order.quantity <= 99).toBe(true)
      expect(typeof order.customer).toBe("string")
    })

    it("typechecks with the config tsc --init writes (strict, module/moduleResolution nodenext)", () => {
      fs.writeFileSync(path.join(project, "consumer.ts"), consumer)
      fs.rmSync(path.join(project, "tsconfig.json"), { force: true })
      run(node, [tsc, "--init"], project)
      const written = fs.readFileSync(path.join(project, "tsconfig.json"), "utf8")
      expect(written).toMatch(/"module": "nodenext"/)
      expect(written).toMatch(/"strict": true/)
      expect(run(node, [tsc, "--noEmit", "-p", "tsconfig.json"], project)).toBe("")
    })

    it("typechecks with moduleResolution bundler, and without skipLibCheck", () => {
      const base = {
        compilerOptions: {
          module: "preserve",
          moduleResolution: "bundler",
          target: "esnext",
          strict: true,
          types: [],
          noEmit: true,
          skipLibCheck: true
        },
        files: ["consumer.ts"]
      }
      expect(typecheck(base)).toBe("")
      // Without skipLibCheck every .d.ts is checked: simnet's own declarations must hold (errors
      // inside other packages' declarations are theirs, so only simnet's are counted).
      const strictLibs = typecheck({
        ...base,
        compilerOptions: { ...base.compilerOptions, skipLibCheck: false, types: ["node"] }
      })
      expect(strictLibs.split("\n").filter((line) => line.includes("node_modules/simnet/"))).toEqual([])
    })
  })

  // Last in the file: it gives the installed package a copy of effect of its own for a while.
  it("given a second copy of effect, a Schema of the app's copy is refused (Route.json's schema and narrow, an MCP tool's input) with an InvalidRouteSpec naming both copies and the fix", () => {
    // What the package once installed (effect as its own dependency), made by hand.
    const nested = path.join(project, "node_modules", "simnet", "node_modules")
    fs.cpSync(path.join(project, "node_modules", "effect"), path.join(nested, "effect"), { recursive: true })
    try {
      fs.writeFileSync(
        path.join(project, "copies.mjs"),
        [
          `import { Schema } from "effect"`,
          `import { Schema as SimnetsSchema } from "./node_modules/simnet/node_modules/effect/dist/index.js"`,
          `import { Route, SimulationNetwork } from "simnet"`,
          `const Order = Schema.Struct({ id: Schema.Int })`,
          `const refusal = (route) => SimulationNetwork.start({ routes: [route] }).then(() => ({}), (e) => ({ tag: e._tag, path: e.path, message: e.message }))`,
          `console.log(JSON.stringify([`,
          `  await refusal(Route.json("GET https://shop.example.com/orders/:id", Order)),`,
          `  await refusal(Route.json("GET https://shop.example.com/orders/:id", SimnetsSchema.Struct({ id: SimnetsSchema.Int }), { narrow: Order })),`,
          `  await refusal(Route.mcp("https://mcp.example.com/mcp", { name: "shop", version: "1.0.0", tools: [{ name: "order", input: Order, result: "ok" }] }))`,
          `]))`
        ].join("\n")
      )
      const [refused, narrow, tool] = JSON.parse(run(node, ["copies.mjs"], project)) as Array<{
        tag: string
        path: string
        message: string
      }>
      expect(refused).toMatchObject({ tag: "InvalidRouteSpec", path: "[0].schema" })
      expect(narrow).toMatchObject({ tag: "InvalidRouteSpec", path: "[0].narrow" })
      expect(tool).toMatchObject({ tag: "InvalidRouteSpec", path: expect.stringMatching(/tools\[0\]\.input$/) })
      const real = fs.realpathSync(project)
      expect(refused.message).toContain(
        `two copies of effect are loaded (simnet's: effect ${newestEffect} at ${path.join(real, "node_modules", "simnet", "node_modules", "effect")}; this project's: effect ${newestEffect} at ${path.join(real, "node_modules", "effect")})`
      )
      expect(refused.message).toContain("simnet takes effect as a peer dependency")
      expect(refused.message).toContain("`npm ls effect`")
    } finally {
      fs.rmSync(nested, { recursive: true, force: true })
    }
  })
})
