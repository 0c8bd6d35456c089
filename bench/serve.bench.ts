/**
 * `simnet serve` requests/second for a static JSON route over loopback, 32 keep-alive
 * connections, side by side with the peers serving the same route: `mockttp`, `@mockoon/cli` and
 * WireMock (the standalone jar of the `wiremock` dev dependency, or the one `WIREMOCK_JAR` names,
 * when `java` runs; nothing is downloaded), and a bare `node:http` server writing the same bytes
 * (the floor). Every server
 * runs in its own process and so does the load generator (`bench/load.ts`, raw sockets,
 * 127.0.0.1 only, bounded in requests and time). Rounds are interleaved and each server keeps its
 * best round, so a busy moment on a shared machine does not decide a ratio.
 *
 * `simnet serve` is measured twice: `--quiet`, and printing its line per request to a pipe this
 * process drains.
 *
 * Then the proxy phase: the same route as `https://api.example.com/item`, asked through a proxy
 * over kept-alive `CONNECT` tunnels (TLS inside each, the client trusting a local CA): `simnet
 * serve` against mockttp's HTTPS-intercepting proxy given the same CA, and a bare `node:https`
 * server answered directly (the floor: TLS, no proxy). `--proxy-only` runs this phase alone.
 *
 * Then the new-hosts phase (`--hosts-only` runs it alone): what a host seen for the first time
 * costs — simnet's CA making its certificate (laid out by node-forge, signed by Node's crypto on
 * the thread pool) against the same certificate signed by node-forge's JavaScript RSA (how simnet
 * signed before), interleaved — and a flood of 200 new host names through `CONNECT` while a plain
 * request is asked again and again on its own kept-alive connection: its latency during the flood,
 * simnet serve against mockttp's HTTPS proxy given the same CA.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { createPrivateKey } from "node:crypto"
import { createRequire } from "node:module"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadCa } from "../src/serve/ca.ts"
import { hostContexts } from "../src/serve/tlsThread.ts"

const quick = process.argv.includes("--quick")
const REQUESTS = quick ? 10_000 : 40_000
const ROUNDS = quick ? 2 : 4
const MAX_MS = 20_000
const CONNECTIONS = 32
const BODY = JSON.stringify({ id: "sim-item", name: "Simulated item" })

const dir = mkdtempSync(join(tmpdir(), "simnet-bench-"))

/** A free loopback port, for servers that need one named. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** Resolves once the server answers a GET of `path` on `port`. */
const answering = async (child: ChildProcess, port: number, path: string, name: string) => {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    const ok = await fetch(`http://127.0.0.1:${port}${path}`).then(
      (r) => r.ok,
      () => false
    )
    if (ok) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${name} did not answer on ${port}`)
}

interface Server {
  readonly name: string
  readonly child: ChildProcess
  readonly port: number
  readonly path: string
}

/** Starts `command` and waits until it answers; its output is drained (and discarded). */
const start = async (
  name: string,
  command: string,
  args: ReadonlyArray<string>,
  port: number,
  path: string
): Promise<Server> => {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
  child.stdout!.resume()
  let errors = ""
  child.stderr!.on("data", (d: Buffer) => (errors = (errors + d.toString()).slice(-2000)))
  try {
    await answering(child, port, path, name)
  } catch (error) {
    child.kill("SIGKILL")
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${errors}`)
  }
  return { name, child, port, path }
}

const fixture = join(dir, "static.json")
writeFileSync(
  fixture,
  JSON.stringify({
    routes: [
      {
        id: "item",
        match: "GET https://api.example.com/item",
        respond: { kind: "text", body: BODY, contentType: "application/json" }
      }
    ]
  })
)

const floorSource = `const http = require("node:http"); const body = Buffer.from(${JSON.stringify(BODY)});
http.createServer((q, r) => { r.writeHead(200, { "content-type": "application/json", "content-length": body.length }); r.end(body) }).listen(${"PORT"}, "127.0.0.1")`

/** mockttp sends no length for a reply given headers, and then closes the connection: it is given one. */
const mockttpSource = `import * as mockttp from "mockttp"
const server = mockttp.getLocal()
await server.start(${"PORT"})
await server.forGet("/item").thenReply(200, ${JSON.stringify(BODY)}, { "content-type": "application/json", "content-length": "${Buffer.byteLength(BODY)}" })`

/** A Mockoon environment serving the route (migration 33, the schema of @mockoon/cli 9). */
const mockoonEnvironment = {
  uuid: "simnet-bench",
  lastMigration: 33,
  name: "simnet bench",
  endpointPrefix: "",
  latency: 0,
  port: 3000,
  hostname: "127.0.0.1",
  folders: [],
  routes: [
    {
      uuid: "item",
      type: "http",
      documentation: "",
      method: "get",
      endpoint: "item",
      responses: [
        {
          uuid: "item-200",
          body: BODY,
          latency: 0,
          statusCode: 200,
          label: "",
          headers: [{ key: "content-type", value: "application/json" }],
          bodyType: "INLINE",
          filePath: "",
          databucketID: "",
          sendFileAsBody: false,
          rules: [],
          rulesOperator: "OR",
          disableTemplating: true,
          fallbackTo404: false,
          default: true,
          crudKey: "id",
          callbacks: []
        }
      ],
      responseMode: null,
      streamingMode: null,
      streamingInterval: 0
    }
  ],
  rootChildren: [{ type: "route", uuid: "item" }],
  proxyMode: false,
  proxyHost: "",
  proxyRemovePrefix: false,
  tlsOptions: { enabled: false, type: "CERT", pfxPath: "", certPath: "", keyPath: "", caPath: "", passphrase: "" },
  cors: false,
  headers: [],
  proxyReqHeaders: [],
  proxyResHeaders: [],
  data: [],
  callbacks: []
}

/** The standalone jar the `wiremock` dev dependency ships (WireMock's own npm package). */
const bundledWireMock = (): string | undefined => {
  const build = join("node_modules", "wiremock", "build")
  const jar = existsSync(build)
    ? readdirSync(build).find((name) => /^wiremock-standalone-.*\.jar$/.test(name))
    : undefined
  return jar === undefined ? undefined : join(build, jar)
}

/** Resolves once something accepts TCP connections on `port`. */
const listening = async (child: ChildProcess, port: number, name: string) => {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: "127.0.0.1", port }, () => {
        socket.destroy()
        resolve(true)
      })
      socket.on("error", () => resolve(false))
    })
    if (up) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${name} did not listen on ${port}`)
}

/**
 * The proxy phase: HTTPS through kept-alive CONNECT tunnels, simnet serve against mockttp's
 * HTTPS proxy, with a bare node:https server (no proxy) as the floor.
 */
const proxyPhase = async () => {
  const caDir = join(dir, "ca")
  const ca = loadCa(caDir)
  const caFile = ca.certFile
  const keyFile = join(caDir, "simnet-ca-key.pem")
  const children: Array<{
    readonly name: string
    readonly child: ChildProcess
    readonly port: number
    readonly proxy: boolean
  }> = []
  const launch = async (
    name: string,
    args: ReadonlyArray<string>,
    proxy: boolean,
    env: Record<string, string> = {}
  ) => {
    const port = await freePort()
    const child = spawn(
      node,
      args.map((a) => a.replace("PORT", String(port))),
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } }
    )
    child.stdout!.resume()
    child.stderr!.resume()
    await listening(child, port, name)
    children.push({ name, child, port, proxy })
  }
  const floorHttps = `import https from "node:https"; import { loadCa } from "./src/serve/ca.ts"
const ca = loadCa(${JSON.stringify(caDir)}); const body = Buffer.from(${JSON.stringify(BODY)})
https.createServer({ SNICallback: (name, done) => ca.contextFor(name).then((c) => done(null, c), done) }, (q, r) => { r.writeHead(200, { "content-type": "application/json", "content-length": body.length }); r.end(body) }).listen(PORT, "127.0.0.1")`
  const mockttpProxy = `import * as mockttp from "mockttp"
const server = mockttp.getLocal({ https: { keyPath: ${JSON.stringify(keyFile)}, certPath: ${JSON.stringify(caFile)} } })
await server.start(PORT)
await server.forGet("https://api.example.com/item").thenReply(200, ${JSON.stringify(BODY)}, { "content-type": "application/json", "content-length": "${Buffer.byteLength(BODY)}" })`
  try {
    await launch(
      "node:https floor (direct, no proxy)",
      ["--input-type=module", "--conditions=simnet-source", "-e", floorHttps],
      false
    )
    await launch(
      "simnet serve --quiet (proxy)",
      ["bin/simnet.js", "serve", "--port", "PORT", "--quiet", "--fixture", fixture, "--ca-dir", caDir],
      true
    )
    await launch("mockttp (HTTPS proxy)", ["--input-type=module", "-e", mockttpProxy], true)
    const loadTls = (server: (typeof children)[number]) => {
      const args = [
        "bench/load.ts",
        String(server.port),
        "/item",
        String(CONNECTIONS),
        String(REQUESTS),
        String(MAX_MS),
        "--tls",
        "api.example.com",
        caFile,
        ...(server.proxy ? ["--proxy"] : [])
      ]
      const result = spawnSync(node, args, { encoding: "utf8" })
      if (result.status !== 0) throw new Error(`load generator failed against ${server.name}: ${result.stderr}`)
      const { requests, rate, errors } = JSON.parse(result.stdout) as { requests: number; rate: number; errors: number }
      if (errors > 0) throw new Error(`${server.name}: ${errors} of ${requests} answers were not 200`)
      return rate
    }
    const best = new Map<string, number>()
    for (const server of children) loadTls(server) // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of children) best.set(server.name, Math.max(best.get(server.name) ?? 0, loadTls(server)))
    }
    const rate = (n: number) => Math.round(n).toLocaleString("en-US").padStart(8)
    const simnet = best.get("simnet serve --quiet (proxy)") ?? Number.NaN
    console.log(
      `\nproxy bench: GET https://api.example.com/item through kept-alive CONNECT tunnels (TLS inside), ${CONNECTIONS} connections, up to ${REQUESTS} requests a round, best of ${ROUNDS} interleaved rounds`
    )
    for (const [name, r] of best)
      console.log(`  ${name.padEnd(36)} ${rate(r)} req/s   simnet / this ${(simnet / r).toFixed(2)}x`)
    console.log(
      `  goals: >= 3x mockttp: ${(simnet / (best.get("mockttp (HTTPS proxy)") ?? Number.NaN)).toFixed(2)}x; >= 0.5x the node:https floor: ${(simnet / (best.get("node:https floor (direct, no proxy)") ?? Number.NaN)).toFixed(2)}x`
    )
  } finally {
    for (const { child } of children) child.kill("SIGTERM")
  }
}

/** What a host seen first costs, and what a flood of them does to the other requests of a proxy. */
const hostsPhase = async () => {
  const caDir = join(dir, "ca-hosts")
  const ca = loadCa(caDir)
  const caPem = readFileSync(ca.certFile, "utf8")
  const keyFile = join(caDir, "simnet-ca-key.pem")
  type Forge = typeof import("node-forge")
  const forge = createRequire(import.meta.url)("node-forge") as Forge
  const caKey = forge.pki.privateKeyFromPem(readFileSync(keyFile, "utf8"))
  const issuer = forge.pki.certificateFromPem(caPem)
  const leaf = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 })
  /** The old path: the same certificate, signed by node-forge's JavaScript RSA on the event loop. */
  const forgeSigned = (host: string) => {
    const cert = forge.pki.createCertificate()
    cert.publicKey = leaf.publicKey
    cert.serialNumber = "01"
    cert.validity.notBefore = new Date()
    cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000)
    cert.setSubject([{ name: "commonName", value: host }])
    cert.setIssuer(issuer.subject.attributes)
    cert.setExtensions([{ name: "subjectAltName", altNames: [{ type: 2, value: host }] }])
    cert.sign(caKey, forge.md.sha256.create())
    return forge.pki.certificateToPem(cert)
  }
  const HOSTS = quick ? 20 : 50
  const contextFor = hostContexts(ca.certPem, createPrivateKey(ca.keyPem))
  await contextFor("warm-up.example") // the leaf key, made once
  const perHost = { native: Number.POSITIVE_INFINITY, forge: Number.POSITIVE_INFINITY }
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now()
    for (let i = 0; i < HOSTS; i++) await contextFor(`native-${round}-${i}.example`)
    perHost.native = Math.min(perHost.native, (performance.now() - started) / HOSTS)
    started = performance.now()
    for (let i = 0; i < HOSTS; i++) forgeSigned(`forge-${round}-${i}.example`)
    perHost.forge = Math.min(perHost.forge, (performance.now() - started) / HOSTS)
  }
  console.log(`
new hosts: a certificate for a host seen first, ${HOSTS} hosts a round, best of ${ROUNDS} interleaved rounds`)
  console.log(
    `  simnet's CA (forge layout, Node crypto signing on the thread pool; on the proxy's TLS thread)   ${perHost.native.toFixed(2)} ms a host`
  )
  console.log(
    `  node-forge's JavaScript RSA (simnet before)                          ${perHost.forge.toFixed(2)} ms a host   ${(perHost.forge / perHost.native).toFixed(1)}x simnet`
  )

  const launchProxy = async (name: string, args: ReadonlyArray<string>) => {
    const port = await freePort()
    const child = spawn(
      node,
      args.map((a) => a.replace("PORT", String(port))),
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    child.stdout!.resume()
    child.stderr!.resume()
    await listening(child, port, name)
    return { name, child, port }
  }
  const mockttpProxy = `import * as mockttp from "mockttp"
const server = mockttp.getLocal({ https: { keyPath: ${JSON.stringify(keyFile)}, certPath: ${JSON.stringify(ca.certFile)} } })
await server.start(PORT)
await server.forGet("http://static.example/item").thenReply(200, ${JSON.stringify(BODY)}, { "content-type": "application/json", "content-length": "${Buffer.byteLength(BODY)}" })
await server.forAnyRequest().thenReply(404, "no")`
  writeFileSync(
    join(dir, "static-flood.json"),
    JSON.stringify({
      routes: [
        {
          id: "item",
          match: "GET http://static.example/item",
          respond: { kind: "text", body: BODY, contentType: "application/json" }
        }
      ]
    })
  )
  const proxies = [
    await launchProxy("simnet serve --quiet (proxy)", [
      "bin/simnet.js",
      "serve",
      "--port",
      "PORT",
      "--quiet",
      "--fixture",
      join(dir, "static-flood.json"),
      "--ca-dir",
      caDir
    ]),
    await launchProxy("mockttp (HTTPS proxy)", ["--input-type=module", "-e", mockttpProxy])
  ]
  /** The flood, from a process of its own (its 200 handshakes must not slow the client that measures). */
  const floodSource = `import * as http from "node:http"; const [port, round, ca] = [Number(process.argv[1]), process.argv[2], process.argv[3]]
const tunnel = (host) => new Promise((resolve) => {
  const connect = http.request({ host: "127.0.0.1", port, method: "CONNECT", path: host + ":443", agent: false })
  connect.on("connect", (_res, socket) => https.get({ host, path: "/", socket, servername: host, ca, agent: false }, (res) => { res.resume(); res.on("end", resolve) }).on("error", resolve))
  connect.on("error", resolve)
  connect.end()
})
await Promise.all(Array.from({ length: 200 }, (_, i) => tunnel("flood-" + round + "-" + i + ".example")))`
  /** One round: 200 new names tunnelled at once while the plain request repeats; its latencies in ms. */
  const flood = async (port: number, round: number) => {
    const plainAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const plain = () =>
      new Promise<number>((resolve, reject) => {
        const started = performance.now()
        http
          .get({ host: "127.0.0.1", port, path: "http://static.example/item", agent: plainAgent }, (res) => {
            res.resume()
            res.on("end", () => resolve(performance.now() - started))
          })
          .on("error", reject)
      })
    await plain()
    const flooding = spawn(node, ["--input-type=module", "-e", floodSource, String(port), String(round), caPem], {
      stdio: "ignore"
    })
    let done = false
    flooding.on("exit", () => void (done = true))
    const latencies: Array<number> = []
    while (!done) latencies.push(await plain())
    plainAgent.destroy()
    return latencies
  }
  const results = new Map<string, Array<number>>()
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const proxy of proxies)
        results.set(proxy.name, [...(results.get(proxy.name) ?? []), ...(await flood(proxy.port, round))])
    }
  } finally {
    for (const { child } of proxies) child.kill("SIGTERM")
  }
  const quantile = (values: ReadonlyArray<number>, q: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN
  console.log(`
CONNECT flood: 200 new host names at once through the proxy (sent by a process of their own), while one kept-alive connection asks a plain request again and again; ${ROUNDS} rounds`)
  const simnetMax = quantile(results.get(proxies[0]!.name) ?? [], 1)
  for (const [name, latencies] of results) {
    const max = quantile(latencies, 1)
    console.log(
      `  ${name.padEnd(30)} plain request: median ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, slowest ${max.toFixed(1)} ms (${latencies.length} asked)   this / simnet (slowest) ${(max / simnetMax).toFixed(2)}x`
    )
  }
}

const node = process.execPath
if (process.argv.includes("--hosts-only")) {
  await hostsPhase()
  process.exit(0)
}
const servers: Array<Server> = []
const notMeasured: Array<string> = []
const attempt = async (name: string, make: (port: number) => Promise<Server>) => {
  try {
    servers.push(await make(await freePort()))
  } catch (error) {
    notMeasured.push(`${name}: not measured (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`)
  }
}

if (process.argv.includes("--proxy-only")) {
  await proxyPhase()
  await hostsPhase()
  process.exit(0)
}

try {
  await attempt("node:http floor", (port) =>
    start("node:http floor (own process)", node, ["-e", floorSource.replace("PORT", String(port))], port, "/item")
  )
  await attempt("simnet serve --quiet", (port) =>
    start(
      "simnet serve --quiet",
      node,
      ["bin/simnet.js", "serve", "--port", String(port), "--quiet", "--fixture", fixture],
      port,
      "/api.example.com/item"
    )
  )
  await attempt("simnet serve", (port) =>
    start(
      "simnet serve (a line per request)",
      node,
      ["bin/simnet.js", "serve", "--port", String(port), "--fixture", fixture],
      port,
      "/api.example.com/item"
    )
  )
  await attempt("mockttp", (port) =>
    start("mockttp", node, ["--input-type=module", "-e", mockttpSource.replace("PORT", String(port))], port, "/item")
  )
  await attempt("@mockoon/cli", (port) => {
    const file = join(dir, "mockoon.json")
    writeFileSync(file, JSON.stringify(mockoonEnvironment))
    const cli = join("node_modules", "@mockoon", "cli", "bin", "run.js")
    if (!existsSync(cli)) throw new Error("@mockoon/cli is not installed")
    return start(
      "@mockoon/cli",
      node,
      [
        cli,
        "start",
        "--data",
        file,
        "--port",
        String(port),
        "--hostname",
        "127.0.0.1",
        "--disable-log-to-file",
        "--disable-admin-api"
      ],
      port,
      "/item"
    )
  })
  const best = new Map<string, number>()
  const load = (server: Server) => {
    const result = spawnSync(
      node,
      ["bench/load.ts", String(server.port), server.path, String(CONNECTIONS), String(REQUESTS), String(MAX_MS)],
      { encoding: "utf8" }
    )
    if (result.status !== 0) throw new Error(`load generator failed against ${server.name}: ${result.stderr}`)
    const { requests, rate, errors } = JSON.parse(result.stdout) as { requests: number; rate: number; errors: number }
    if (errors > 0) throw new Error(`${server.name}: ${errors} of ${requests} answers were not 200`)
    return rate
  }
  for (const server of servers) load(server) // warm-up: JIT and caches
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) best.set(server.name, Math.max(best.get(server.name) ?? 0, load(server)))
  }

  // WireMock runs in a phase of its own, started only now: a JVM's threads (JIT, GC, Jetty's pool)
  // compete for this machine's cores with whatever else runs, so beside the Node servers it would
  // slow their rounds too. simnet serve is measured again beside it, for the ratio between them.
  const nodeServers = servers.length
  const jar = process.env["WIREMOCK_JAR"] ?? bundledWireMock()
  const java = spawnSync("java", ["-version"]).status === 0
  if (jar === undefined || !existsSync(jar) || !java) {
    notMeasured.push(
      `WireMock: not measured (${java ? "java runs, but" : "no java and"} no WireMock jar: the \`wiremock\` dev dependency carries one, or set WIREMOCK_JAR)`
    )
  } else {
    await attempt("WireMock", async (port) => {
      const root = join(dir, "wiremock")
      const mappings = join(root, "mappings")
      mkdirSync(mappings, { recursive: true })
      writeFileSync(
        join(mappings, "item.json"),
        JSON.stringify({
          request: { method: "GET", url: "/item" },
          response: { status: 200, body: BODY, headers: { "content-type": "application/json" } }
        })
      )
      return start(
        "WireMock",
        "java",
        [
          "-jar",
          jar,
          "--port",
          String(port),
          "--bind-address",
          "127.0.0.1",
          "--root-dir",
          root,
          "--disable-banner",
          "--no-request-journal"
        ],
        port,
        "/item"
      )
    })
  }
  const simnetServer = servers.find((server) => server.name === "simnet serve --quiet")
  const jvm = servers.slice(nodeServers)
  const beside = new Map<string, number>()
  if (jvm.length > 0 && simnetServer !== undefined) {
    for (let i = 0; i < 3; i++) for (const server of jvm) load(server) // a JVM warms up slowly
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of [simnetServer, ...jvm])
        beside.set(server.name, Math.max(beside.get(server.name) ?? 0, load(server)))
    }
  }

  const rate = (n: number) => Math.round(n).toLocaleString("en-US").padStart(8)
  const simnet = best.get("simnet serve --quiet") ?? Number.NaN
  const floor = best.get("node:http floor (own process)") ?? Number.NaN
  const peers = [...best].filter(([name]) => !name.startsWith("simnet") && !name.startsWith("node:http"))
  const bestPeer = peers.reduce((a, b) => (b[1] > a[1] ? b : a), ["none", 0] as [string, number])
  console.log(
    `\nserve bench: GET of a static JSON route, ${CONNECTIONS} keep-alive connections over 127.0.0.1, up to ${REQUESTS} requests a round, best of ${ROUNDS} interleaved rounds, every server and the load generator in its own process`
  )
  for (const [name, r] of best)
    console.log(`  ${name.padEnd(36)} ${rate(r)} req/s   simnet --quiet / this ${(simnet / r).toFixed(2)}x`)
  console.log(
    `  goals: >= 3x the best peer (${bestPeer[0]}): ${(simnet / bestPeer[1]).toFixed(2)}x; >= 0.5x the floor: ${(simnet / floor).toFixed(2)}x`
  )
  if (beside.size > 0) {
    const again = beside.get("simnet serve --quiet") ?? Number.NaN
    console.log(`\n  then, the JVM started, best of ${ROUNDS} interleaved rounds after 3 to warm it up:`)
    for (const [name, r] of beside)
      console.log(`  ${name.padEnd(36)} ${rate(r)} req/s   simnet --quiet / this ${(again / r).toFixed(2)}x`)
    for (const [name, r] of beside) {
      // 3x a peer that runs near half the floor is more than the floor itself.
      if (name !== "simnet serve --quiet")
        console.log(
          `  3x ${name} is ${((3 * r) / floor).toFixed(2)}x the floor (a node:http server that writes fixed bytes and does nothing else)`
        )
    }
  }
  for (const line of notMeasured) console.log(`  ${line}`)
} finally {
  for (const server of servers) server.child.kill("SIGTERM")
}
await proxyPhase()
await hostsPhase()
