/**
 * `simnet serve` in a child process for a test, and the raw requests a hostile client makes
 * (Node's `http.request`, so `Host`, `Origin` and `Sec-Fetch-Site` are sent as written).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import * as http from "node:http"

const children: Array<ChildProcess> = []

/** Stops every server this file started (call from `afterEach`/`afterAll`). */
export const stopAll = () => {
  for (const child of children.splice(0)) child.kill("SIGTERM")
}

export interface Served {
  readonly child: ChildProcess
  readonly port: number
  readonly base: string
  readonly control: string
  /** The inspector's page. */
  readonly ui: string
  /** A JSON `POST` to a control path (`llm/enqueue`), with `fetch`. */
  readonly post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Response>
  readonly output: () => string
}

/**
 * Starts `simnet serve --port 0 ARGS` and waits for its URLs: this checkout's command, or `bin`
 * (an installed package's) run in `cwd`.
 */
export const serve = async (
  args: ReadonlyArray<string> = [],
  env: Record<string, string> = {},
  where: { readonly bin?: string; readonly cwd?: string } = {}
): Promise<Served> => {
  const child = spawn(process.execPath, [where.bin ?? "bin/simnet.js", "serve", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
    cwd: where.cwd
  })
  children.push(child)
  let out = ""
  child.stdout!.setEncoding("utf8")
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (d: string) => {
      out += d
      const m = /driver:\s+ws:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.on("exit", (code) => reject(new Error(`simnet serve exited with ${code}: ${out}`)))
  })
  const base = `http://127.0.0.1:${port}`
  const control = `${base}/experimental/simulation`
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${control}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
  return { child, port, base, control, ui: `${control}/ui`, post, output: () => out }
}

/** Runs `simnet serve --port 0 ARGS` until it exits by itself (a bad fixture, a bad flag): its code and everything it printed. */
export const serveToExit = async (
  args: ReadonlyArray<string>
): Promise<{ readonly code: number | null; readonly out: string }> => {
  const child = spawn(process.execPath, ["bin/simnet.js", "serve", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let out = ""
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()))
  const [code] = (await once(child, "exit")) as [number | null]
  return { code, out }
}

export interface RawResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** One request with exactly these headers (a `host` given here replaces Node's). */
export const raw = (
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (c: Buffer) => chunks.push(c))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8")
        })
      )
      response.on("error", reject)
    })
    request.on("error", reject)
    request.end(body)
  })

/** Whether a WebSocket opens at `url` with these handshake headers (Node's undici `WebSocket`). */
export const opens = (url: string, headers: Record<string, string> = {}): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = new WebSocket(url, { headers } as never)
    socket.onopen = () => {
      socket.close()
      resolve(true)
    }
    socket.onerror = () => resolve(false)
  })

/** A JSON-RPC client over Node's own WebSocket. */
export const rpc = async (url: string, headers: Record<string, string> = {}) => {
  const ws = new WebSocket(url, { headers } as never)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  const inbox: Array<any> = []
  const waiters: Array<() => void> = []
  ws.onmessage = (event) => {
    inbox.push(JSON.parse(String(event.data)))
    for (const w of waiters.splice(0)) w()
  }
  let next = 1
  const take = async (pred: (m: any) => boolean) => {
    for (;;) {
      const i = inbox.findIndex(pred)
      if (i >= 0) return inbox.splice(i, 1)[0]
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  const call = async (method: string, params?: unknown) => {
    const id = next++
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
    return take((m) => m.id === id)
  }
  /** Every message received and not yet taken, taken now. */
  const drain = () => inbox.splice(0)
  return { ws, call, take, drain, send: (text: string) => ws.send(text) }
}

/** The peak resident memory of a process, in MB (Linux's `VmHWM`). */
export const peakMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024
