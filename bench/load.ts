/**
 * A small HTTP/1.1 load generator for `serve.bench.ts`, run in a process of its own so that it
 * never shares an event loop with a server it measures: `node bench/load.ts PORT PATH CONNECTIONS
 * REQUESTS MAX_MS` opens CONNECTIONS keep-alive sockets to 127.0.0.1:PORT, sends GET PATH on each
 * as soon as the previous answer has arrived (no pipelining), stops after REQUESTS answers or
 * MAX_MS milliseconds, whichever comes first, and prints one JSON line
 * `{ requests, ms, rate, errors }`. Raw sockets and a minimal parser (content-length or chunked)
 * keep the generator cheap, so the server is what is measured. Every answer must be a 200.
 *
 * With `--tls HOST CA_FILE` each connection speaks HTTPS to HOST (trusting CA_FILE), and with
 * `--proxy` too it first asks PORT to `CONNECT HOST:443` and speaks HTTPS inside the tunnel: the
 * proxy phase of `serve.bench.ts`. Connections are set up before the clock starts.
 */
import * as net from "node:net"
import * as tls from "node:tls"
import { readFileSync } from "node:fs"

const argv = process.argv.slice(2)
const flag = (name: string, arity: number): Array<string> | undefined => {
  const at = argv.indexOf(name)
  if (at < 0) return undefined
  return argv.splice(at, arity + 1).slice(1)
}
const secure = flag("--tls", 2)
const viaProxy = flag("--proxy", 0) !== undefined
const [portArg, path = "/", connectionsArg = "32", requestsArg = "40000", maxMsArg = "20000"] = argv
const port = Number(portArg)
const connections = Number(connectionsArg)
const total = Number(requestsArg)
const maxMs = Number(maxMsArg)
const host = secure === undefined ? `127.0.0.1:${port}` : secure[0]
const request = Buffer.from(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\naccept: */*\r\n\r\n`)

let sent = 0
let done = 0
let errors = 0
let start = 0
let finished = false

const HEAD_END = Buffer.from("\r\n\r\n")
const CHUNK_END = Buffer.from("0\r\n\r\n")

/**
 * The length of the first complete response in `buffer`, or -1 while it is incomplete. Counts a
 * non-200 answer as an error.
 */
const responseLength = (buffer: Buffer): number => {
  const headEnd = buffer.indexOf(HEAD_END)
  if (headEnd < 0) return -1
  const head = buffer.toString("latin1", 0, headEnd).toLowerCase()
  const status = Number(head.slice(9, 12))
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head)
  let end: number
  if (length !== null) {
    end = headEnd + 4 + Number(length[1])
    if (buffer.length < end) return -1
  } else if (head.includes("transfer-encoding: chunked")) {
    const terminator = buffer.indexOf(CHUNK_END, headEnd + 4)
    if (terminator < 0) return -1
    end = terminator + CHUNK_END.length
  } else {
    end = headEnd + 4
  }
  if (status !== 200) errors++
  return end
}

const finish = (sockets: ReadonlyArray<net.Socket>) => {
  if (finished) return
  finished = true
  const ms = performance.now() - start
  for (const socket of sockets) socket.destroy()
  process.stdout.write(`${JSON.stringify({ requests: done, ms, rate: (done * 1000) / ms, errors })}\n`)
}

const sockets: Array<net.Socket> = []
const plain = () =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, noDelay: true }, () => resolve(socket))
    socket.on("error", (error) => (finished ? undefined : reject(error)))
  })

/** A socket to the proxy that has been answered `200` to `CONNECT HOST:443`. */
const tunnel = async (target: string) => {
  const socket = await plain()
  return new Promise<net.Socket>((resolve, reject) => {
    let head = ""
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1")
      if (!head.includes("\r\n\r\n")) return
      socket.off("data", onData)
      if (!/^HTTP\/1\.[01] 200/.test(head)) reject(new Error(`CONNECT refused: ${head.split("\r\n")[0]}`))
      else resolve(socket)
    }
    socket.on("data", onData)
    socket.write(`CONNECT ${target}:443 HTTP/1.1\r\nhost: ${target}:443\r\n\r\n`)
  })
}

const open = async (): Promise<net.Socket> => {
  if (secure === undefined) return plain()
  const [name, caFile] = secure
  const ca = readFileSync(caFile)
  const carrier = viaProxy ? await tunnel(name) : undefined
  return new Promise<net.Socket>((resolve, reject) => {
    const socket = tls.connect(
      { ...(carrier === undefined ? { host: "127.0.0.1", port } : { socket: carrier }), servername: name, ca },
      () => resolve(socket)
    )
    socket.setNoDelay(true)
    socket.on("error", (error) => (finished ? undefined : reject(error)))
  })
}

const drive = (socket: net.Socket) => {
  let buffer: Buffer = Buffer.alloc(0)
  const next = () => {
    if (finished) return
    if (sent >= total) {
      if (done >= total) finish(sockets)
      return
    }
    sent++
    socket.write(request)
  }
  socket.on("data", (data: Buffer) => {
    buffer = buffer.length === 0 ? data : Buffer.concat([buffer, data])
    for (;;) {
      const length = responseLength(buffer)
      if (length < 0) break
      buffer = buffer.subarray(length)
      done++
      next()
    }
  })
  socket.on("close", () => {
    if (!finished) {
      errors++
      finish(sockets)
    }
  })
  next()
}

for (let i = 0; i < connections; i++) sockets.push(await open())
start = performance.now()
setTimeout(() => finish(sockets), maxMs).unref()
for (const socket of sockets) drive(socket)
