/**
 * What each input that once froze or filled `simnet serve` costs now (issue 18's audit): every
 * case runs against a fresh server, and the line gives the answer, the time to it and the
 * server's peak resident memory (`VmHWM`, Linux). A case still running after its limit is
 * reported as such and the server killed.
 *
 *   node bench/freezes.ts                 # this checkout
 *   node bench/freezes.ts --repo DIR      # another checkout (a worktree of an older commit)
 *
 * Not part of `npm run bench` (it measures refusals, not speed against the anchors).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { join, resolve } from "node:path"
import { peakMb, raw } from "../test/support/serve.ts"

const repoAt = process.argv.indexOf("--repo")
const repo = resolve(repoAt === -1 ? "." : process.argv[repoAt + 1])
const LIMIT_MS = Number(process.env.FREEZE_LIMIT_MS ?? 30_000)
const CONTROL = "/experimental/simulation"
const JSON_TYPE = { "content-type": "application/json" }

const start = async (): Promise<{ child: ChildProcess; port: number }> => {
  const child = spawn(
    process.execPath,
    [join(repo, "bin/simnet.js"), "serve", "--port", "0", "--quiet", "--fixture", join(repo, "fixtures/default.json")],
    { cwd: repo, stdio: ["ignore", "pipe", "pipe"] }
  )
  let out = ""
  const port = await new Promise<number>((res, rej) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /driver:\s+ws:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) res(Number(m[1]))
    })
    child.on("exit", (code) => rej(new Error(`exited ${code}: ${out}`)))
  })
  return { child, port }
}

/** The server's peak resident memory in MB, or NaN once it is gone. */
const peak = (pid: number) => {
  try {
    return Math.round(peakMb(pid))
  } catch {
    return Number.NaN
  }
}

const driverBatch = (port: number) =>
  new Promise<{ status: number; body: string }>((res, rej) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${CONTROL}/drive`)
    ws.onerror = () => rej(new Error("socket refused"))
    ws.onopen = () =>
      ws.send(
        JSON.stringify(
          Array.from({ length: 100 }, (_, i) => ({
            jsonrpc: "2.0",
            id: i,
            method: "network.log",
            params: { since: 0 }
          }))
        )
      )
    ws.onmessage = (event) => {
      const text = String(event.data)
      ws.close()
      const replies = JSON.parse(text) as Array<{ result?: unknown; error?: { code: number } }>
      res({
        status: 101,
        body: `${replies.filter((r) => r.result !== undefined).length} calls ran, ${replies.filter((r) => r.error !== undefined).length} refused, reply ${Math.round(text.length / 1024)} KB`
      })
    }
  })

const redosDocument = {
  openapi: "3.1.0",
  info: { title: "redos", version: "1" },
  paths: {
    "/search": {
      get: {
        parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^(a+)+$" } }],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } }
      }
    }
  }
}

interface Case {
  readonly name: string
  readonly prepare?: (port: number) => Promise<void>
  readonly run: (port: number) => Promise<{ status: number; body: string }>
}

const fill = async (port: number, n: number, bodyBytes: number) => {
  const body = JSON.stringify({ text: "x".repeat(bodyBytes) })
  for (let i = 0; i < n; i += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, n - i) }, (_, j) =>
        raw(port, "POST", `/api.example.com/items/${i + j}`, { ...JSON_TYPE, "x-filler": "y".repeat(1000) }, body)
      )
    )
  }
}

const register = (port: number, spec: unknown) =>
  raw(port, "POST", `${CONTROL}/network/register`, JSON_TYPE, JSON.stringify(spec))
const jsonSchema = (document: unknown) => ({
  match: "GET https://gen.example/",
  respond: { kind: "jsonSchema", schema: { jsonSchema: document } }
})

const cases: ReadonlyArray<Case> = [
  {
    name: "driver batch of 100 network.log over 2 000 logged requests",
    prepare: (port) => fill(port, 2000, 2000),
    run: driverBatch
  },
  {
    name: "register JSON Schema minItems 5e7",
    run: (port) => register(port, jsonSchema({ type: "array", minItems: 5e7 }))
  },
  {
    name: "register JSON Schema minLength 10 000",
    run: (port) => register(port, jsonSchema({ type: "string", minLength: 10_000 }))
  },
  {
    name: "register JSON Schema minProperties 1 000",
    run: (port) => register(port, jsonSchema({ type: "object", minProperties: 1000 }))
  },
  {
    name: "register JSON Schema nested 30 deep",
    run: (port) =>
      register(
        port,
        jsonSchema(
          JSON.parse(
            '{"type":"object","required":["a"],"properties":{"a":'.repeat(30) + '{"type":"string"}' + "}}".repeat(30)
          )
        )
      )
  },
  {
    name: "OpenAPI query ^(a+)+$ against 28 characters",
    prepare: async (port) =>
      void (await register(port, { family: "openapi", baseUrl: "https://redos.example", document: redosDocument })),
    run: (port) => raw(port, "GET", `/redos.example/search?q=${"a".repeat(27)}!`, {})
  },
  {
    name: "model request of 200 MB",
    run: (port) =>
      raw(
        port,
        "POST",
        "/api.openai.com/v1/chat/completions",
        JSON_TYPE,
        JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "x".repeat(200 * 1024 * 1024) }] })
      )
  },
  {
    name: "MCP tools/call of 50 MB",
    run: (port) =>
      raw(
        port,
        "POST",
        "/mcp.example.com/mcp",
        { ...JSON_TYPE, accept: "application/json, text/event-stream" },
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "search", arguments: { q: "x".repeat(50 * 1024 * 1024) } }
        })
      )
  },
  {
    name: "llm/enqueue of a tool input nested 100 000 deep, then a model call",
    run: async (port) => {
      const deep = `${'{"d":'.repeat(100_000)}1${"}".repeat(100_000)}`
      const enqueue = await raw(
        port,
        "POST",
        `${CONTROL}/llm/enqueue`,
        JSON_TYPE,
        `{"steps":[[{"type":"tool_call","name":"f","input":${deep}}]]}`
      )
      // The default fixture queues one answer first: the second call takes the enqueued script.
      const call = () =>
        raw(
          port,
          "POST",
          "/api.openai.com/v1/chat/completions",
          JSON_TYPE,
          JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] })
        )
      const first = await call()
      const second = await call()
      return {
        status: enqueue.status,
        body: `enqueue ${enqueue.status}; model calls ${first.status}, ${second.status} ${second.body.slice(0, 80)}`
      }
    }
  },
  {
    name: "snapshot round trip after 10 000 requests",
    prepare: (port) => fill(port, 10_000, 10),
    run: async (port) => {
      const snapshot = (await raw(port, "GET", `${CONTROL}/snapshot`)).body
      const restored = await raw(port, "POST", `${CONTROL}/snapshot`, JSON_TYPE, snapshot)
      return {
        status: restored.status,
        body: `snapshot ${Math.round(snapshot.length / 1024)} KB; restore ${restored.status}`
      }
    }
  }
]

const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7)
console.log(`freezes: ${repo} (limit ${LIMIT_MS / 1000} s a case)`)
for (const c of cases) {
  if (only !== undefined && !c.name.includes(only)) continue
  const { child, port } = await start()
  try {
    await c.prepare?.(port)
    const started = performance.now()
    const outcome = await Promise.race([
      c.run(port).then(
        (r) => ({ ...r, ms: Math.round(performance.now() - started) }),
        (e: unknown) => ({ status: 0, body: String(e), ms: Math.round(performance.now() - started) })
      ),
      new Promise<undefined>((res) => setTimeout(res, LIMIT_MS, undefined))
    ])
    const peakNow = peak(child.pid!)
    console.log(
      outcome === undefined
        ? `${c.name}: still running after ${LIMIT_MS / 1000} s; peak ${peakNow} MB`
        : `${c.name}: ${outcome.status} in ${outcome.ms} ms; peak ${peakNow} MB; ${outcome.body.replace(/\s+/g, " ").slice(0, 140)}`
    )
  } finally {
    child.kill("SIGKILL")
  }
}
process.exit(0)
