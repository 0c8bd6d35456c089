/**
 * A new user's day, as one scripted walk against the packed package (issue 37): `npm pack`, the
 * tarball installed in a fresh folder with `effect`, `openai` and `fast-check`, and then, in that
 * folder, with only what the package ships:
 *
 * 1. an Effect program, as a test would write it: an answer from the app's own Schema, and an
 *    unregistered request whose error names the nearest route and why it missed;
 * 2. an SDK test from a JSON fixture with model rules: the `openai` SDK answered by a rule, and a
 *    call no rule takes refused at once, naming the nearest rule;
 * 3. `simnet serve` on that fixture, and its inspector;
 * 4. `simnet run --strict` with curl and Python, in a network namespace with loopback only;
 * 5. record, then replay with the upstream gone;
 * 6. a chaos property that fails, opened with `simnet show`.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serve, stopAll } from "./support/serve.ts"
import { HEAVY_WORK } from "./support/timeouts.ts"

const root = path.resolve(import.meta.dirname, "..")
const node = process.execPath
const env = {
  ...process.env,
  PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ""}`,
  npm_config_update_notifier: "false"
}
const versionOf = (name: string) =>
  (JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version
const namespaces = process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0
const has = (command: string) => spawnSync("bash", ["-c", `command -v ${command}`]).status === 0

let work = ""
let project = ""
let bin = ""

const run = (command: string, args: ReadonlyArray<string>, cwd = project) =>
  execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
const script = (name: string, lines: ReadonlyArray<string>) => {
  fs.writeFileSync(path.join(project, name), lines.join("\n"))
  return JSON.parse(run(node, [name]).trim().split("\n").at(-1)!) as Record<string, any>
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "simnet-journeys-"))
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], root)) as Array<{
    filename: string
  }>
  project = path.join(work, "my-app")
  fs.mkdirSync(project)
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "my-app", private: true, type: "module" })
  )
  run("npm", [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    path.join(work, packed[0].filename),
    `effect@${versionOf("effect")}`,
    `openai@${versionOf("openai")}`,
    `fast-check@${versionOf("fast-check")}`
  ])
  bin = path.join(project, "node_modules", "simnet", "bin", "simnet.js")
  fs.writeFileSync(
    path.join(project, "fixture.json"),
    JSON.stringify({
      routes: [
        { family: "openai" },
        {
          id: "item",
          match: "GET https://api.example.com/items/:id",
          respond: { kind: "text", body: '{"id":"sim-item"}', contentType: "application/json" }
        }
      ],
      llm: {
        rules: [
          {
            id: "greet",
            match: { lastUserMessage: "hello" },
            behaviour: { type: "respond", steps: [[{ type: "text", content: "Hello from the fixture." }]] }
          }
        ]
      }
    })
  )
}, HEAVY_WORK)

afterAll(() => {
  stopAll()
  if (work !== "") fs.rmSync(work, { recursive: true, force: true })
}, 60_000)

describe("a new user's journeys, from the packed package in a fresh folder", { timeout: HEAVY_WORK }, () => {
  it("1. an Effect program: the app's Schema answers, an unregistered request names the nearest route and why", () => {
    const result = script("effect.mjs", [
      `import { Effect, Schema } from "effect"`,
      `import * as HttpClient from "effect/http/HttpClient"`,
      `import { Route, SimulationNetwork } from "simnet"`,
      `const User = Schema.Struct({ id: Schema.Number, name: Schema.String })`,
      `const program = Effect.gen(function* () {`,
      `  const client = yield* HttpClient.HttpClient`,
      `  const user = yield* Effect.flatMap(client.get("https://api.example.com/users/1"), (r) => r.json)`,
      `  const missing = yield* Effect.flip(client.get("https://api.example.com/user/1"))`,
      `  const cause = missing.reason?.cause ?? missing.cause`,
      `  return { decodes: Schema.is(User)(user), tag: cause._tag, message: cause.message }`,
      `})`,
      `const layer = SimulationNetwork.layer({ seed: 1, routes: [Route.json("GET https://api.example.com/users/:id", User, { id: "user" })] })`,
      `console.log(JSON.stringify(await Effect.runPromise(Effect.provide(program, layer))))`
    ])
    expect(result).toMatchObject({ decodes: true, tag: "UnregisteredRequest" })
    expect(result.message).toContain("simnet: no route for GET https://api.example.com/user/1; nearest routes:")
    expect(result.message).toMatch(/- user \(GET https:\/\/api\.example\.com\/users\/:id\): path/)
  })

  it("2. the openai SDK from a JSON fixture with rules: a rule answers, a call no rule takes is refused at once naming the nearest rule", () => {
    const result = script("sdk.mjs", [
      `import OpenAI from "openai"`,
      `import { SimulationNetwork } from "simnet"`,
      `const network = await SimulationNetwork.start({ fixture: "fixture.json" })`,
      `const openai = new OpenAI({ apiKey: "sk-test", fetch: network.fetch })`,
      `const answer = await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] })`,
      `const miss = await openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }).catch((e) => e)`,
      `console.log(JSON.stringify({ text: answer.choices[0].message.content, status: miss.status, message: miss.message, calls: network.llm.callCount }))`,
      `await network.close()`
    ])
    expect(result).toMatchObject({ text: "Hello from the fixture.", status: 422, calls: 2 })
    expect(result.message).toContain(`nearest rule "greet": lastUserMessage expects "hello", got "hi"`)
  })

  it("3. simnet serve on the fixture answers over HTTP, and its inspector opens", async () => {
    const served = await serve(["--quiet", "--fixture", "fixture.json"], {}, { bin, cwd: project })
    expect(await (await fetch(`${served.base}/api.example.com/items/1`)).json()).toEqual({ id: "sim-item" })
    const page = await fetch(served.ui)
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"])
    const state = (await (await fetch(`${served.ui}/state`)).json()) as { routes: Array<{ id: string }> }
    expect(state.routes.map((route) => route.id)).toContain("item")
    served.child.kill("SIGTERM")
    await once(served.child, "exit")
  })

  it.skipIf(!namespaces || !has("curl") || !has("python3"))(
    "4. simnet run --strict with curl and Python, loopback only: answered; a refusal fails the run by name",
    () => {
      const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
      const simnetRun = (command: ReadonlyArray<string>) => {
        const line = [node, bin, "run", "--fixture", "fixture.json", "--quiet", "--strict", "--", ...command]
          .map(quote)
          .join(" ")
        const shell = `set -u\nip link set lo up\nexport SIMNET_CA_DIR=${quote(path.join(work, "ca"))}\ncd ${quote(project)}\nexec ${line}\n`
        return spawnSync("unshare", ["-n", "bash", "-c", shell], { encoding: "utf8", timeout: 60_000, env })
      }
      const curl = simnetRun(["curl", "-sS", "https://api.example.com/items/1"])
      expect(curl.status, curl.stderr).toBe(0)
      expect(curl.stdout).toBe('{"id":"sim-item"}')
      const python = simnetRun([
        "python3",
        "-c",
        "import urllib.request; print(urllib.request.urlopen('https://api.example.com/items/2').read().decode())"
      ])
      expect(python.status, python.stderr).toBe(0)
      expect(python.stdout.trim()).toBe('{"id":"sim-item"}')
      const refused = simnetRun(["curl", "-s", "-o", "/dev/null", "https://nowhere.example.org/x"])
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain("simnet: refused GET https://nowhere.example.org/x (UnregisteredRequest)")
    }
  )

  it("5. record through a local upstream, then replay the same bytes with the upstream gone", async () => {
    let hits = 0
    const upstream = http.createServer((req, res) => {
      hits++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ path: req.url, n: hits }))
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const flags = ["--quiet", "--record", "cassette.json", "--upstream", `api.example.com=http://127.0.0.1:${port}`]
    const first = await serve(flags, {}, { bin, cwd: project })
    const live = await (await fetch(`${first.base}/api.example.com/orders/7`)).text()
    first.child.kill("SIGTERM")
    await once(first.child, "exit")
    upstream.close()
    await once(upstream, "close")
    const again = await serve(flags, {}, { bin, cwd: project })
    expect(await (await fetch(`${again.base}/api.example.com/orders/7`)).text()).toBe(live)
    const lacking = await fetch(`${again.base}/api.example.com/orders/8`)
    expect([lacking.status, ((await lacking.json()) as { error: { reason: string } }).error.reason]).toEqual([
      502,
      "upstream"
    ])
    again.child.kill("SIGTERM")
    await once(again.child, "exit")
    expect(hits).toBe(1)
  })

  it("6. a chaos property fails, writes its case, and simnet show opens it read-only with the failure first", async () => {
    const result = script("property.mjs", [
      `import fc from "fast-check"`,
      `import { Route } from "simnet"`,
      `import { property } from "simnet/testing"`,
      `try {`,
      `  await property("items survive chaos", [fc.integer({ min: 1, max: 5 })], async (network, id) => {`,
      `    const response = await network.fetch("https://api.example.com/items/" + id)`,
      `    if (response.status !== 200) throw new Error("items/" + id + " answered " + response.status)`,
      `  }, { network: () => ({ seed: 3, routes: [Route.text("GET https://api.example.com/items/:id", "{}")], chaos: { rate: 1, faults: ["serverError"] } }), numRuns: 5, seed: 1, failures: "failures" })`,
      `  console.log(JSON.stringify({ failed: false }))`,
      `} catch (error) {`,
      `  console.log(JSON.stringify({ failed: true, file: error.file }))`,
      `}`
    ])
    expect(result).toMatchObject({ failed: true, file: expect.stringContaining("failures") })
    const shown = await new Promise<{ ui: string; stop: () => void }>((resolve, reject) => {
      const child = spawn(node, [bin, "show", result.file], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout!.on("data", (d: Buffer) => {
        out += d
        const found = /inspector:\s+(\S+)/.exec(out)
        if (found) resolve({ ui: found[1], stop: () => child.kill("SIGTERM") })
      })
      child.on("exit", (code) => reject(new Error(`simnet show exited ${code}: ${out}`)))
    })
    try {
      const { case: failing } = (await (await fetch(`${shown.ui}/case`)).json()) as {
        case: { name: string; error: string; step: string; seed: number }
      }
      expect(failing).toMatchObject({ name: "items survive chaos", error: expect.stringContaining("answered 500") })
      expect(failing.step).toMatch(/GET https:\/\/api\.example\.com\/items\/\d → 500/)
      expect((await fetch(shown.ui.replace(/\/ui$/, "/reset"), { method: "POST" })).status).toBe(403)
    } finally {
      shown.stop()
    }
  })
})
