/**
 * `simnet serve` as a forward proxy, and `simnet run -- COMMAND`: programs that simnet does not
 * live in — curl, Python's standard library, Node children with no simnet import — reach the
 * fixture's routes through `HTTP_PROXY`/`HTTPS_PROXY` and the local CA, over `http://` and
 * `https://` (TLS terminated by simnet), streams included. Each runs inside a network namespace
 * with loopback only (`unshare -n`), so a request simnet failed to catch fails at once instead of
 * leaving the machine. A test is skipped, saying why, only where its tool is missing.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { serve, stopAll } from "./support/serve.ts"

const root = join(import.meta.dirname, "..")
const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0
const namespaces = process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0
const dir = mkdtempSync(join(tmpdir(), "simnet-proxy-"))
const caDir = join(dir, "ca")

afterAll(() => stopAll())

/**
 * `simnet run [flags] -- COMMAND...` inside a fresh network namespace with only loopback up; its
 * exit status, standard output and standard error.
 */
const simnetRun = (
  flags: ReadonlyArray<string>,
  command: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {}
) => {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const line = [process.execPath, join(root, "bin/simnet.js"), "run", ...flags, "--", ...command].map(quote).join(" ")
  const exports = Object.entries(env)
    .map(([name, value]) => `export ${name}=${quote(value)}\n`)
    .join("")
  const script = `set -u\nip link set lo up\nexport SIMNET_CA_DIR=${quote(caDir)}\n${exports}cd ${quote(root)}\nexec ${line}\n`
  const run = spawnSync("unshare", ["-n", "bash", "-c", script], { encoding: "utf8", timeout: 60_000 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

const fixture = join(dir, "fixture.json")
writeFileSync(
  fixture,
  JSON.stringify({
    routes: [
      {
        id: "item",
        match: "GET https://api.example.com/items/:id",
        respond: { kind: "text", body: '{"id":"sim-item"}', contentType: "application/json" }
      },
      { id: "plain", match: "GET http://plain.example.com/hello", respond: { kind: "text", body: "hello over http" } },
      { family: "openai" },
      // Answered only when the body was read: the JSON body matcher reads it.
      {
        id: "upload",
        match: { method: "POST", url: "https://api.example.com/upload", json: { kind: "upload" } },
        respond: { kind: "text", body: "stored" }
      },
      {
        id: "plain-upload",
        match: { method: "POST", url: "http://plain.example.com/upload", json: { kind: "upload" } },
        respond: { kind: "text", body: "stored" }
      }
    ],
    llm: [{ steps: [[{ type: "text", content: "streamed through the proxy" }]] }]
  })
)

/** A JSON body of about 2 MB (curl sends `Expect: 100-continue` for any body over 1 MB). */
const upload = join(dir, "upload.json")
writeFileSync(upload, JSON.stringify({ kind: "upload", pad: "x".repeat(2 * 1024 * 1024) }))

describe.skipIf(!namespaces)(
  `simnet run -- COMMAND${namespaces ? "" : " (skipped: no network namespace here; unshare -n needs root on Linux)"}`,
  () => {
    it.skipIf(!has("curl"))(
      "curl gets the route's body over https:// and http://; an unregistered host fails curl and the summary names it",
      () => {
        const secure = simnetRun(["--fixture", fixture, "--quiet"], ["curl", "-sS", "https://api.example.com/items/1"])
        expect(secure.status, secure.stderr).toBe(0)
        expect(secure.stdout).toBe('{"id":"sim-item"}')
        expect(secure.stderr).toMatch(/simnet: 1 answered, 0 refused, 0 model calls/)
        const plain = simnetRun(["--fixture", fixture, "--quiet"], ["curl", "-sS", "http://plain.example.com/hello"])
        expect(plain.stdout).toBe("hello over http")
        const missing = simnetRun(
          ["--fixture", fixture],
          ["curl", "-sSf", "https://nothing.example.org/x?token=secret-value"]
        )
        expect(missing.status).toBe(22) // curl -f: the refusal's 404 (simnet run's, which no client retries) is an HTTP error
        expect(missing.stderr).toMatch(
          /simnet: 0 answered, 1 refused \(first: GET https:\/\/nothing\.example\.org\/x\?token=/
        )
        expect(missing.stderr).not.toContain("secret-value")
        expect(missing.stderr).toMatch(/GET https:\/\/nothing\.example\.org\/x.* -> UnregisteredRequest 404/)
        // --refusal-status gives serve's 502 back.
        const gateway = simnetRun(
          ["--fixture", fixture, "--refusal-status", "502"],
          ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "https://nothing.example.org/x"]
        )
        expect(gateway.stdout).toBe("502")
        expect(simnetRun(["--refusal-status", "200"], ["true"]).stderr).toMatch(
          /--refusal-status must be a status from 400 to 599, got "200"/
        )
        // curl -s shrugs the refusal off (exit 0); --strict does not.
        const lenient = simnetRun(
          ["--fixture", fixture, "--quiet"],
          ["curl", "-s", "-o", "/dev/null", "https://nothing.example.org/x"]
        )
        expect(lenient.status).toBe(0)
        const strict = simnetRun(
          ["--fixture", fixture, "--quiet", "--strict"],
          ["curl", "-s", "-o", "/dev/null", "https://nothing.example.org/x?token=secret-value"]
        )
        expect(strict.status).toBe(1)
        expect(strict.stderr).toMatch(
          /simnet: refused GET https:\/\/nothing\.example\.org\/x\?token=<redacted> \(UnregisteredRequest\)/
        )
        expect(strict.stderr).toMatch(/simnet: --strict: 1 request was refused/)
        expect(strict.stderr).not.toContain("secret-value")
        const answered = simnetRun(
          ["--fixture", fixture, "--quiet", "--strict"],
          ["curl", "-sS", "https://api.example.com/items/1"]
        )
        expect(answered.status).toBe(0)
        // A route marked required that the command never called fails --strict too, by name.
        const required = join(dir, "required.json")
        writeFileSync(
          required,
          JSON.stringify({
            routes: [
              { id: "item", match: "GET https://api.example.com/items/:id", respond: { kind: "text", body: "{}" } },
              {
                id: "health",
                match: "GET https://api.example.com/health",
                respond: { kind: "text", body: "ok" },
                required: true
              }
            ]
          })
        )
        const unused = simnetRun(
          ["--fixture", required, "--quiet", "--strict"],
          ["curl", "-sS", "https://api.example.com/items/1"]
        )
        expect(unused.status).toBe(1)
        expect(unused.stderr).toMatch(/simnet: required route health was never used/)
        expect(unused.stderr).toMatch(/simnet: --strict: 1 required route was never used/)
        const used = simnetRun(
          ["--fixture", required, "--quiet", "--strict"],
          ["curl", "-sS", "https://api.example.com/health"]
        )
        expect(used.status, used.stderr).toBe(0)
      },
      90_000
    )

    it.skipIf(!has("curl"))(
      "curl's Expect: 100-continue (a 2 MB body) gets 100 Continue, then the route's answer, through the proxy's CONNECT tunnel and in absolute form; each is logged",
      () => {
        for (const url of ["https://api.example.com/upload", "http://plain.example.com/upload"]) {
          const run = simnetRun(
            ["--fixture", fixture],
            [
              "curl",
              "-sS",
              "-v",
              "-H",
              "content-type: application/json",
              "--data-binary",
              `@${upload}`,
              "-w",
              "\n%{http_code}",
              url
            ]
          )
          expect(run.status, run.stderr).toBe(0)
          expect(run.stdout).toBe("stored\n200")
          // curl asked, and was told to go on (curl -v writes the exchange to standard error).
          expect(run.stderr).toMatch(/> Expect: 100-continue/i)
          expect(run.stderr).toMatch(/< HTTP\/1\.1 100 Continue/)
          expect(run.stderr).toMatch(
            new RegExp(`POST ${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} -> (plain-)?upload 200`)
          )
          expect(run.stderr).toMatch(/simnet: 1 answered, 0 refused/)
        }
      },
      90_000
    )

    it.skipIf(!has("curl"))(
      "a model's SSE stream passes through the proxy as it does through /HOST/PATH",
      () => {
        const body = JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "hi" }] })
        const run = simnetRun(
          ["--fixture", fixture, "--quiet"],
          [
            "curl",
            "-sSN",
            "https://api.openai.com/v1/chat/completions",
            "-H",
            "content-type: application/json",
            "-H",
            "authorization: Bearer sk-test",
            "-d",
            body
          ]
        )
        expect(run.status, run.stderr).toBe(0)
        const text = run.stdout
          .split("\n")
          .filter((l) => l.startsWith("data: {"))
          .map((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.content ?? "")
          .join("")
        expect(text).toBe("streamed through the proxy")
        expect(run.stdout.trim().endsWith("data: [DONE]")).toBe(true)
        expect(run.stderr).toMatch(/1 model call/)
      },
      60_000
    )

    it.skipIf(!has("python3"))(
      "Python's urllib.request (standard library) over https://",
      () => {
        const script = join(dir, "get.py")
        writeFileSync(
          script,
          "import urllib.request\nprint(urllib.request.urlopen('https://api.example.com/items/7').read().decode())\n"
        )
        const run = simnetRun(["--fixture", fixture, "--quiet"], ["python3", script])
        expect(run.status, run.stderr).toBe(0)
        expect(run.stdout.trim()).toBe('{"id":"sim-item"}')
      },
      60_000
    )

    it("a Node child with global fetch and one with node:https, neither importing simnet; nothing simnet sets prints into them, their own warnings print", () => {
      const viaFetch = join(dir, "fetch.mjs")
      writeFileSync(
        viaFetch,
        [
          "process.emitWarning('the app\\'s own', { code: 'APP-1' })",
          "const r = await fetch('https://api.example.com/items/2'); console.log(r.status, await r.text())"
        ].join("\n")
      )
      const viaHttps = join(dir, "https.mjs")
      writeFileSync(
        viaHttps,
        [
          "import https from 'node:https'",
          "https.get('https://api.example.com/items/3', (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => console.log(res.statusCode, b)) })",
          "  .on('error', (e) => { console.error(e.message); process.exit(3) })"
        ].join("\n")
      )
      // The caller's NODE_OPTIONS is kept: simnet adds its flag after it.
      for (const script of [viaFetch, viaHttps]) {
        const run = simnetRun(["--fixture", fixture, "--quiet"], [process.execPath, script], {
          NODE_OPTIONS: "--max-http-header-size=32768"
        })
        expect(run.status, run.stderr).toBe(0)
        expect(run.stdout.trim()).toBe('200 {"id":"sim-item"}')
        expect(run.stderr).not.toContain("UNDICI-EHPA")
        expect(run.stderr.includes("[APP-1] Warning: the app's own")).toBe(script === viaFetch)
      }
      const kept = simnetRun(["--quiet"], [process.execPath, "-p", "process.env.NODE_OPTIONS"], {
        NODE_OPTIONS: "--max-http-header-size=32768"
      })
      expect(kept.stdout.trim()).toBe("--max-http-header-size=32768 --disable-warning=UNDICI-EHPA")
    }, 60_000)

    it("exits with the command's status, and says so when the command cannot start", () => {
      expect(simnetRun(["--fixture", fixture, "--quiet"], ["sh", "-c", "exit 7"]).status).toBe(7)
      const missing = simnetRun(["--fixture", fixture, "--quiet"], ["no-such-command-here"])
      expect(missing.status).not.toBe(0)
      expect(missing.stderr).toMatch(/cannot run no-such-command-here/)
    }, 60_000)
  }
)

describe("simnet serve as a proxy", () => {
  const raw = (port: number, method: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (response) => {
        let body = ""
        response.on("data", (d: Buffer) => (body += d))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
      })
      request.on("error", reject)
      request.end()
    })

  it("refuses a proxy request for its own control endpoint: it is a request for that host, which no route answers", async () => {
    const { port } = await serve(["--quiet"], { SIMNET_CA_DIR: caDir })
    const own = await raw(port, "GET", `http://127.0.0.1:${port}/experimental/simulation/network/routes`, {
      host: `127.0.0.1:${port}`
    })
    expect(own.status).toBe(502)
    expect(JSON.parse(own.body).error).toMatchObject({
      tag: "UnregisteredRequest",
      url: `http://127.0.0.1:${port}/experimental/simulation/network/routes`
    })
    // The same path asked directly is the control endpoint.
    expect((await raw(port, "GET", "/experimental/simulation/network/routes")).status).toBe(200)
  })

  it("a WebSocket client's handshake through a CONNECT tunnel reaches the network like any request: no route answers it, and it is refused by name", async () => {
    const caDir4 = join(dir, "ca4")
    spawnSync(process.execPath, [join(root, "bin/simnet.js"), "ca", "--ca-dir", caDir4])
    const { port, output } = await serve(["--ca-dir", caDir4])
    const { ProxyAgent, WebSocket } = await import("undici")
    const dispatcher = new ProxyAgent({
      uri: `http://127.0.0.1:${port}`,
      requestTls: { ca: readFileSync(join(caDir4, "simnet-ca.pem"), "utf8") }
    })
    const outcome = await new Promise<string>((resolve) => {
      const socket = new WebSocket("wss://ws.example.com/live", { dispatcher } as never)
      socket.addEventListener("open", () => resolve("open"))
      socket.addEventListener("error", () => resolve("error"))
    })
    expect(outcome).toBe("error")
    await expect.poll(() => output()).toMatch(/GET https:\/\/ws\.example\.com\/live -> UnregisteredRequest 502/)
    await dispatcher.close()
  })

  it("keeps the scheme the client used: http:// for an https:// route misses, and the route is named first, only the scheme differing", async () => {
    const { port } = await serve(["--quiet", "--fixture", fixture], { SIMNET_CA_DIR: caDir })
    const plain = await raw(port, "GET", "http://plain.example.com/hello", { host: "plain.example.com" })
    expect([plain.status, plain.body]).toEqual([200, "hello over http"])
    const missed = await raw(port, "GET", "http://api.example.com/items/1", { host: "api.example.com" })
    expect(missed.status).toBe(502)
    const error = JSON.parse(missed.body).error
    expect(error.url).toBe("http://api.example.com/items/1")
    expect(error.candidates[0]).toMatchObject({
      id: "item",
      reason: "host",
      detail: expect.stringContaining("only the scheme differs")
    })
  })

  it("forwards nothing unless asked: --passthrough HOST sends only what no route answers for HOST, to --upstream here", async () => {
    const seen: Array<string> = []
    const upstream = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      res.writeHead(200, { "content-type": "text/plain" })
      res.end(`upstream saw ${req.url}`)
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    const upstreamPort = (upstream.address() as { port: number }).port
    try {
      const plain = await serve(["--quiet", "--fixture", fixture], { SIMNET_CA_DIR: caDir })
      expect((await raw(plain.port, "GET", "/api.example.com/unknown")).status).toBe(502)
      expect(seen).toEqual([])
      const { port } = await serve(
        [
          "--quiet",
          "--fixture",
          fixture,
          "--passthrough",
          "api.example.com",
          "--upstream",
          `api.example.com=http://127.0.0.1:${upstreamPort}`
        ],
        { SIMNET_CA_DIR: caDir }
      )
      const passed = await raw(port, "GET", "/api.example.com/unknown?x=1")
      expect([passed.status, passed.body]).toEqual([200, "upstream saw /unknown?x=1"])
      // A route still answers what it matches; the upstream never sees it.
      expect((await raw(port, "GET", "/api.example.com/items/1")).body).toBe('{"id":"sim-item"}')
      // Another host is not passed through.
      expect((await raw(port, "GET", "/other.example.com/x")).status).toBe(502)
      expect(seen).toEqual(["GET /unknown?x=1"])
    } finally {
      upstream.close()
    }
  })

  it("answers a CONNECT without host:port with 400; a CA is made on first use, its key for its owner only", async () => {
    const { port } = await serve(["--quiet", "--ca-dir", join(dir, "ca2")])
    const answer = await new Promise<string>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port, method: "CONNECT", path: "no-port", agent: false })
      request.on("response", (response) => resolve(String(response.statusCode)))
      request.on("connect", (response) => resolve(String(response.statusCode)))
      request.on("error", reject)
      request.end()
    })
    expect(answer).toBe("400")
    const ca = spawnSync(process.execPath, [join(root, "bin/simnet.js"), "ca", "--ca-dir", join(dir, "ca3")], {
      encoding: "utf8"
    })
    expect(ca.stdout.trim()).toBe(join(dir, "ca3", "simnet-ca.pem"))
    expect(readFileSync(ca.stdout.trim(), "utf8")).toMatch(/^-----BEGIN CERTIFICATE-----/)
    const pem = spawnSync(
      process.execPath,
      [join(root, "bin/simnet.js"), "ca", "--pem", "--ca-dir", join(dir, "ca3")],
      { encoding: "utf8" }
    )
    expect(pem.stdout.trim()).toBe(readFileSync(ca.stdout.trim(), "utf8").trim())
    const mode = spawnSync("stat", ["-c", "%a", join(dir, "ca3", "simnet-ca-key.pem")], {
      encoding: "utf8"
    }).stdout.trim()
    expect(mode).toBe("600")
  })
})
