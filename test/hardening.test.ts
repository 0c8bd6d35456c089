/**
 * The fourth audit's cases (issue 31), each as the user meets it: a CA directory that cannot be
 * trusted is refused at start with how to fix it, never a crash at the first CONNECT; new host
 * certificates are made once and cached, and they and every tunnel's handshake run on the proxy's
 * TLS thread, never the one that answers the routes; no file simnet writes follows a planted
 * link, and a run's directory is removed whatever its program did to it; a path that cannot exist
 * fails at once; HAR import skips bad entries naming each; the
 * command line never prints a terminal escape it was handed; `simnet/testing` refuses options
 * that would make values the network refuses.
 */
import { spawn, spawnSync } from "node:child_process"
import { createPrivateKey, generateKeyPairSync } from "node:crypto"
import { once } from "node:events"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { threadId } from "node:worker_threads"
import { Effect, Exit, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { Fixture, Route, SimulationNetwork } from "simnet"
import { chaos, llmRule, llmScript, routeSpec } from "simnet/testing"
import { checkCa, loadCa } from "../src/serve/ca.ts"
import { serveLayer } from "../src/serve/serve.ts"
import { terminatorOf } from "../src/serve/tls.ts"
import { hostContexts } from "../src/serve/tlsThread.ts"
import { removeTree, writeFileAtomic } from "../src/fileSystem/files.ts"
import { serve, stopAll } from "./support/serve.ts"

afterAll(() => stopAll())

const root = join(import.meta.dirname, "..")
const simnet = (args: ReadonlyArray<string>, options: { readonly cwd?: string } = {}) =>
  spawnSync(process.execPath, [join(root, "bin/simnet.js"), ...args], {
    encoding: "utf8",
    timeout: 15_000,
    cwd: options.cwd
  })
const dir = mkdtempSync(join(tmpdir(), "simnet-hardening-"))

/** A fresh CA directory (made by simnet), copied to `name` for a test to spoil. */
const good = join(dir, "good-ca")
loadCa(good)
const spoilable = (name: string) => {
  const target = join(dir, name)
  cpSync(good, target, { recursive: true })
  return target
}

describe("the proxy's CA is checked before it is used", () => {
  const cases: ReadonlyArray<readonly [string, (ca: string) => void, RegExp]> = [
    [
      "a corrupt certificate",
      (ca) =>
        writeFileSync(
          join(ca, "simnet-ca.pem"),
          "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"
        ),
      /simnet-ca\.pem is not a PEM certificate.*remove .* and simnet makes a new CA/
    ],
    [
      "an EC key",
      (ca) =>
        writeFileAtomic(
          join(ca, "simnet-ca-key.pem"),
          generateKeyPairSync("ec", { namedCurve: "P-256" })
            .privateKey.export({ type: "pkcs8", format: "pem" })
            .toString(),
          0o600
        ),
      /is an EC key; simnet's CA signs with RSA/
    ],
    [
      "a key that is not the certificate's",
      (ca) => {
        const other = join(dir, `other-${Math.random()}`)
        loadCa(other)
        copyFileSync(join(other, "simnet-ca-key.pem"), join(ca, "simnet-ca-key.pem"))
      },
      /simnet-ca-key\.pem is not the key of .*simnet-ca\.pem/
    ],
    [
      "a key others can read",
      (ca) => chmodSync(join(ca, "simnet-ca-key.pem"), 0o644),
      /the CA key .* can be read by others \(mode 0644\); run: chmod 600 /
    ],
    [
      "a directory others can write",
      (ca) => chmodSync(ca, 0o777),
      /the CA directory .* can be written by others \(mode 0777\).*chmod go-w/
    ],
    [
      "another user's key",
      (ca) => {
        chownSync(join(ca, "simnet-ca-key.pem"), 4242, 4242)
      },
      /belongs to another user \(uid 4242\)/
    ],
    [
      "a key that is a symbolic link",
      (ca) => {
        const elsewhere = join(dir, `key-${Math.random()}.pem`)
        copyFileSync(join(ca, "simnet-ca-key.pem"), elsewhere)
        chmodSync(elsewhere, 0o600)
        const key = join(ca, "simnet-ca-key.pem")
        spawnSync("rm", [key])
        symlinkSync(elsewhere, key)
      },
      /simnet-ca-key\.pem is a symbolic link/
    ]
  ]
  for (const [what, spoil, message] of cases) {
    it(`${what}: simnet ca and simnet serve refuse it at start, exit 2, saying how to fix it`, () => {
      const ca = spoilable(what.replace(/\W+/g, "-"))
      spoil(ca)
      const printed = simnet(["ca", "--ca-dir", ca])
      expect([printed.status, printed.stdout]).toEqual([2, ""])
      expect(printed.stderr).toMatch(message)
      const served = simnet(["serve", "--port", "0", "--quiet", "--ca-dir", ca])
      expect(served.status).toBe(2)
      expect(served.stderr).toMatch(message)
      expect(() => checkCa(ca)).toThrow(message)
    })
  }

  it("a CA that breaks after start refuses the CONNECT with 502 saying why; the server goes on answering", async () => {
    const ca = join(dir, "made-later")
    const { port, base } = await serve(["--quiet", "--ca-dir", ca])
    // Made unusable after the start-up check: a file where the directory would be made.
    writeFileSync(ca, "not a directory")
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request({
        host: "127.0.0.1",
        port,
        method: "CONNECT",
        path: "api.example.com:443",
        agent: false
      })
      request.on("connect", (response, socket, head) => {
        let body = head.toString()
        socket.on("data", (d: Buffer) => (body += d))
        socket.on("end", () => resolve({ status: response.statusCode!, body }))
      })
      request.on("error", reject)
      request.end()
    })
    expect(answer.status).toBe(502)
    expect(answer.body).toMatch(/simnet: the proxy's CA cannot be used: .*made-later.* is not a directory/)
    expect((await fetch(`${base}/experimental/simulation/network/routes`)).status).toBe(200)
  })

  it("`simnet ca --ca-dir /proc/nope/ca` fails at once naming the part that cannot be made", () => {
    const printed = simnet(["ca", "--ca-dir", "/proc/nope/ca"])
    expect(printed.error).toBeUndefined()
    expect(printed.status).toBe(2)
    expect(printed.stderr).toMatch(/cannot make \/proc\/nope\/ca: \/proc\/nope: it cannot be made there/)
  })
})

describe("host certificates", () => {
  it("are made once per host however many ask at once, and verify against the CA", async () => {
    const authority = loadCa(good)
    const contextFor = hostContexts(authority.certPem, createPrivateKey(authority.keyPem))
    const names = Array.from({ length: 50 }, (_, i) => `host-${i}.example.com`)
    let turns = 0
    const spin = setInterval(() => turns++, 0)
    const contexts = await Promise.all([...names, ...names].map((name) => contextFor(name)))
    clearInterval(spin)
    // The thread kept turning while 50 certificates were signed.
    expect(turns).toBeGreaterThan(1)
    expect(contexts.slice(0, 50)).toEqual(contexts.slice(50))
    expect(contextFor("host-7.example.com")).toBe(contexts[7])
    // A client that trusts only the CA accepts each host's certificate.
    const server = https.createServer(
      { SNICallback: (name, done) => void Promise.resolve(contextFor(name)).then((c) => done(null, c), done) },
      (_req, res) => res.end("ok")
    )
    server.listen(0, "127.0.0.1")
    await once(server, "listening")
    const port = (server.address() as { port: number }).port
    try {
      for (const name of ["host-3.example.com", "fresh.example.org"]) {
        const body = await new Promise<string>((resolve, reject) => {
          https
            .get(
              {
                host: "127.0.0.1",
                port,
                servername: name,
                headers: { host: name },
                ca: authority.certPem,
                agent: false
              },
              (res) => {
                let text = ""
                res.on("data", (d: Buffer) => (text += d))
                res.on("end", () => resolve(text))
              }
            )
            .on("error", reject)
        })
        expect(body).toBe("ok")
      }
    } finally {
      server.close()
    }
  })

  it("the proxy's TLS runs on a thread of its own: every tunnel's handshake, none on the thread that answers the routes", async () => {
    const authority = loadCa(good)
    const network = await Effect.runPromise(
      SimulationNetwork.make({ routes: [Route.text({ url: (url: URL) => url.pathname === "/hello" }, "hello")] })
    )
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(
      Layer.buildWithScope(serveLayer(network, 0, Layer.empty, { ca: authority }), scope)
    )
    const port = Number(
      new URL(
        HttpServer.formatAddress(
          Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))).address
        )
      ).port
    )
    try {
      const hosts = Array.from({ length: 20 }, (_, i) => `thread-${i}.example.com`)
      const bodies = await Promise.all(
        hosts.map(
          (host) =>
            new Promise<string>((resolve, reject) => {
              const connect = http.request({
                host: "127.0.0.1",
                port,
                method: "CONNECT",
                path: `${host}:443`,
                agent: false
              })
              connect.once("connect", (_res, socket) => {
                https
                  .get(
                    {
                      host,
                      path: "/hello",
                      socket,
                      servername: host,
                      ca: authority.certPem,
                      agent: false
                    } as https.RequestOptions,
                    (res) => {
                      let text = ""
                      res.on("data", (d: Buffer) => (text += d))
                      res.on("end", () => resolve(text))
                    }
                  )
                  .on("error", reject)
              })
              connect.once("error", reject)
              connect.end()
            })
        )
      )
      expect(bodies).toEqual(hosts.map(() => "hello"))
      const { count, threadIds } = terminatorOf(authority).handshakes()
      expect(count).toBe(hosts.length)
      expect([...threadIds]).not.toContain(threadId)
      expect(threadIds.size).toBe(1)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("a flood of 200 new host names through simnet serve: each tunnel verifies, and a plain request made during it is answered", async () => {
    const { port } = await serve(["--quiet", "--ca-dir", good])
    const ca = readFileSync(join(good, "simnet-ca.pem"), "utf8")
    const tunnel = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const agent = new https.Agent({ ca, keepAlive: false })
        const connect = http.request({ host: "127.0.0.1", port, method: "CONNECT", path: `${host}:443`, agent: false })
        connect.on("connect", (_res, socket) => {
          https
            .get({ host, path: "/nothing", socket, agent, servername: host, ca } as https.RequestOptions, (res) => {
              res.resume()
              res.on("end", () => resolve(res.statusCode!))
            })
            .on("error", reject)
        })
        connect.on("error", reject)
        connect.end()
      })
    const flood = Promise.all(Array.from({ length: 200 }, (_, i) => tunnel(`new-${i}.flood.example`)))
    const plain = await fetch(`http://127.0.0.1:${port}/experimental/simulation/network/routes`)
    expect(plain.status).toBe(200)
    // No route answers those hosts: each is refused by name, over TLS the client verified.
    expect(new Set(await flood)).toEqual(new Set([502]))
  }, 60_000)
})

describe("files simnet writes follow no planted link", () => {
  it("a recording, a CA key and a failing case are written through new files, never through a link at FILE.PID.tmp", async () => {
    const victim = join(dir, "victim.txt")
    writeFileSync(victim, "precious")
    // Record mode, in process.
    const file = join(dir, "recorded.json")
    writeFileSync(file, "{}\n")
    symlinkSync(victim, `${file}.${process.pid}.tmp`)
    const network = await SimulationNetwork.start({ record: { file } })
    await network.close()
    expect(readFileSync(victim, "utf8")).toBe("precious")
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ routes: [] })
    // The CA's key and certificate.
    const ca = join(dir, "planted-ca")
    mkdirSync(ca, { mode: 0o700 })
    symlinkSync(victim, join(ca, `simnet-ca-key.pem.${process.pid}.tmp`))
    symlinkSync(victim, join(ca, `simnet-ca.pem.${process.pid}.tmp`))
    loadCa(ca)
    expect(readFileSync(victim, "utf8")).toBe("precious")
    // A target that is itself a link is replaced, not written through.
    const linked = join(dir, "linked.json")
    symlinkSync(victim, linked)
    writeFileAtomic(linked, "{}")
    expect(readFileSync(victim, "utf8")).toBe("precious")
    expect(readFileSync(linked, "utf8")).toBe("{}")
    // Nothing is left behind.
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp") && !name.includes(String(process.pid)))).toEqual([])
  })

  // A program handed a directory (an explored run's) may close it to its own owner: as root that
  // stops nothing, so the removal runs as an ordinary user, the tree that user's.
  const asUser = process.platform === "linux" && process.getuid?.() === 0 && typeof process.seteuid === "function"
  it.runIf(asUser)("a run's directory is removed whatever the program did to its modes, no link followed", () => {
    const victim = join(dir, "outside.txt")
    writeFileSync(victim, "precious")
    chmodSync(victim, 0o600)
    const tree = mkdtempSync(join(tmpdir(), "simnet-tree-"))
    mkdirSync(join(tree, "closed", "deeper"), { recursive: true })
    writeFileSync(join(tree, "closed", "deeper", "file.txt"), "x")
    symlinkSync(victim, join(tree, "closed", "link"))
    for (const path of [
      tree,
      join(tree, "closed"),
      join(tree, "closed", "deeper"),
      join(tree, "closed", "deeper", "file.txt")
    ])
      chownSync(path, 65534, 65534)
    chmodSync(join(tree, "closed", "deeper"), 0o000)
    chmodSync(join(tree, "closed"), 0o000)
    process.seteuid!(65534)
    let removed: boolean
    try {
      removed = removeTree(tree)
    } finally {
      process.seteuid!(0)
    }
    expect(removed).toBe(true)
    expect(existsSync(tree)).toBe(false)
    expect([readFileSync(victim, "utf8"), statSync(victim).mode & 0o777]).toEqual(["precious", 0o600])
  })
})

describe("HAR import checks each entry", () => {
  const entry = (request: Record<string, unknown>, response: Record<string, unknown> = {}) => ({
    startedDateTime: "2026-12-01T00:00:00.000Z",
    time: 1,
    request: {
      method: "GET",
      url: "https://api.example.com/ok",
      httpVersion: "HTTP/1.1",
      headers: [],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
      ...request
    },
    response: {
      status: 200,
      statusText: "OK",
      httpVersion: "HTTP/1.1",
      headers: [],
      cookies: [],
      content: { size: 2, mimeType: "text/plain", text: "ok" },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
      ...response
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 }
  })
  const har = {
    log: {
      version: "1.2",
      creator: { name: "test", version: "1" },
      entries: [
        entry({}),
        null,
        entry({ method: 7 }),
        entry({ method: "G ET", url: "https://api.example.com/spaced" }),
        entry({ url: "https://api.example.com/crlf" }, { headers: [{ name: "x-a", value: "one\r\nx-injected: two" }] }),
        entry({ url: "ftp://files.example.com/x" }),
        entry({ url: "https://api.example.com/bad-name" }, { headers: [{ name: "bad name", value: "v" }] }),
        entry({ url: "https://api.example.com/second" }, { content: { size: 3, mimeType: "text/plain", text: "two" } })
      ]
    }
  }

  it("skips each bad entry with a line naming it, imports the rest, and every route it emits loads", async () => {
    const imported = await Fixture.fromHar(har)
    expect(imported.skipped.map((s) => s.reason)).toEqual([
      "entries[1]: must be object",
      "entries[2]: request.method: must be string",
      'entries[3]: method "G ET" is not a token',
      "entries[4]: response.headers[0] (x-a): the value has a line break or NUL",
      'entries[5]: url "ftp://files.example.com/x" is not an http(s) URL',
      'entries[6]: response.headers[0]: name "bad name" is not a token'
    ])
    expect(imported.imported).toBe(2)
    const network = await SimulationNetwork.start()
    await network.registerSpec(imported.routes)
    expect(await (await network.fetch("https://api.example.com/second")).text()).toBe("two")
    // The command line: the fixture on stdout, a line per skipped entry and a summary on stderr.
    const file = join(dir, "mixed.har")
    writeFileSync(file, JSON.stringify(har))
    const printed = simnet(["har", "import", file])
    expect(printed.status).toBe(0)
    expect(JSON.parse(printed.stdout)).toEqual({ routes: imported.routes })
    const lines = printed.stderr.trim().split("\n")
    expect(lines).toHaveLength(7)
    expect(lines[2]).toBe('simnet: skipped entries[3]: method "G ET" is not a token')
    expect(lines.at(-1)).toBe("simnet: imported 2 of 8 entries as 2 routes; 6 skipped")
  })
})

describe("the command line prints no terminal escape it was handed", () => {
  it("simnet show prints a failure file's error with its control characters escaped", async () => {
    const file = join(dir, "hostile-failure.json")
    const network = await Effect.runPromise(SimulationNetwork.make({}))
    writeFileSync(
      file,
      JSON.stringify({
        simnet: "property-failure/v1",
        name: "evil\u001b]0;owned\u0007",
        error: "boom \u001b[2J\u001b]0;title\u0007\r overwritten \u009b31m",
        end: await Effect.runPromise(network.state)
      })
    )
    const child = spawn(process.execPath, [join(root, "bin/simnet.js"), "show", file], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString("latin1")))
    await new Promise<void>((resolve) => child.stdout.on("data", () => out.includes("inspector:") && resolve()))
    child.kill("SIGTERM")
    await once(child, "exit")
    expect(out).not.toMatch(/[\u001b\u0007\u009b]|\r(?!\n)/)
    expect(out).toContain("boom \\u001b[2J\\u001b]0;title\\u0007\\u000d overwritten \\u009b31m")
  })

  it("a fixture's refusal naming a hostile route id is printed escaped", () => {
    const file = join(dir, "hostile-fixture.json")
    writeFileSync(
      file,
      JSON.stringify({ routes: [{ id: "x\u001b[2J", match: "GET https://a.example.com/", respond: { kind: "nope" } }] })
    )
    const printed = simnet(["serve", "--port", "0", "--fixture", file])
    expect(printed.status).not.toBe(0)
    expect(printed.stderr).not.toContain("\u001b")
  })
})

describe("simnet/testing's options", () => {
  it("refuses options that would make values the network refuses, naming the option", () => {
    expect(() => chaos({ maxRate: 5 })).toThrow(/chaos\.maxRate: must be a rate from 0 to 1, got 5/)
    expect(() => routeSpec({ loopbackPort: 70_000 })).toThrow(
      /routeSpec\.loopbackPort: must be a port from 1 to 65535, got 70000/
    )
    expect(() => routeSpec({ handlers: [""] })).toThrow(/routeSpec\.handlers\[0\]/)
    expect(() => llmScript({ maxSteps: 0 })).toThrow(/llmScript\.maxSteps/)
    expect(() => llmScript({ tools: [{ name: "" }] })).toThrow(/llmScript\.tools\[0\]\.name/)
    expect(() => chaos({ maxRat: 0.5 } as never)).toThrow(/chaos/)
    expect(() => chaos({ maxRate: 5 })).toThrow(
      expect.objectContaining({ _tag: "InvalidArbitraryOption", option: "chaos.maxRate" })
    )
  })

  it("for any options it accepts, every value it yields is accepted by the network", async () => {
    const options = fc.record({
      maxRate: fc.double({ min: 0, max: 1, noNaN: true }),
      loopbackPort: fc.integer({ min: 1, max: 65_535 }),
      maxSteps: fc.integer({ min: 1, max: 6 }),
      handlers: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { maxLength: 2 })
    })
    await fc.assert(
      fc.asyncProperty(options, async (o) => {
        const handlers = Object.fromEntries(o.handlers.map((name) => [name, () => new Response("h")]))
        const [chaosValue] = fc.sample(chaos({ maxRate: o.maxRate }), 1)
        const network = await SimulationNetwork.start({ chaos: chaosValue, handlers })
        const routes = fc
          .sample(routeSpec({ loopbackPort: o.loopbackPort, handlers: o.handlers }), 5)
          .map((route, i) => ({ ...route, id: `r${i}` }))
        await network.registerSpec(routes)
        network.llm.enqueue(
          fc.sample(
            llmScript({
              maxSteps: o.maxSteps,
              tools: [{ name: "read", inputSchema: { type: "object", properties: { path: { type: "string" } } } }]
            }),
            1
          )[0]!
        )
        network.llm.addRules(
          fc.sample(llmRule({ tools: [{ name: "read" }] }), 2).map((rule, i) => ({ ...rule, id: `rule${i}` }))
        )
        await network.close()
      }),
      { numRuns: 25 }
    )
  })
})
