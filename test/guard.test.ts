/**
 * The network guard (issue 18): after `installGlobal` (and under `--import simnet/register`), a
 * connection that interception cannot read fails at once with `ConnectionDenied` naming the host,
 * whatever library opened it. The target is a real TCP server on loopback, which counts the
 * connections that reach it: before the guard every one of these reached it.
 */
import { execFile } from "node:child_process"
import * as http2 from "node:http2"
import * as net from "node:net"
import * as tls from "node:tls"
import { promisify } from "node:util"
import { Agent, Client, Pool, request } from "undici"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { Route, SimulationNetwork } from "simnet"

let server: net.Server
let port = 0
let reached = 0
const open = new Set<net.Socket>()

beforeAll(async () => {
  server = net.createServer((socket) => {
    reached++
    open.add(socket)
    socket.on("close", () => open.delete(socket))
    // The clients here hang up at once; their resets are expected.
    socket.on("error", () => {})
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nreal")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as net.AddressInfo).port
})

afterAll(
  () =>
    new Promise<void>((resolve) => {
      for (const socket of open) socket.destroy()
      server.close(() => resolve())
    })
)

let restore: (() => void) | undefined
afterEach(() => {
  restore?.()
  restore = undefined
})

/** The error a socket emits, or "connected". */
const connectOutcome = (socket: net.Socket, event = "connect") =>
  new Promise<unknown>((resolve) => {
    socket.once(event, () => {
      socket.destroy()
      resolve("connected")
    })
    socket.once("error", resolve)
  })

const denied = (error: unknown, host: string) => {
  const e = (error as { cause?: unknown })?.cause ?? error
  expect(e).toMatchObject({ _tag: "ConnectionDenied", host })
  expect(String((e as Error).message)).toContain(host)
}

describe("the network guard", () => {
  it("refuses undici's own Agent, Client and Pool, net.connect and tls.connect at once, naming the host, and answers http2.connect from the network; the real server sees nothing", async () => {
    const network = await SimulationNetwork.start({
      routes: [Route.text("GET https://api.example.com/ok", "simulated")]
    })
    restore = await network.installGlobal()
    const url = `http://127.0.0.1:${port}/`

    denied(await request(url, { dispatcher: new Agent() }).catch((e) => e), "127.0.0.1")
    denied(await new Client(url).request({ path: "/", method: "GET" }).catch((e) => e), "127.0.0.1")
    denied(await new Pool(url).request({ path: "/", method: "GET" }).catch((e) => e), "127.0.0.1")
    // HTTP/2 is answered by the network over an in-memory session: a route's answer, or a 404 naming the request.
    const h2 = async (origin: string, path: string) => {
      const session = http2.connect(origin)
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ":path": path })
        let status = 0
        let body = ""
        stream.on("response", (headers) => (status = Number(headers[":status"])))
        stream.setEncoding("utf8")
        stream.on("data", (chunk: string) => (body += chunk))
        stream.on("end", () => resolve({ status, body }))
        stream.on("error", reject)
      })
      session.close()
      return answer
    }
    const refusedH2 = await h2(url, "/")
    expect(refusedH2.status).toBe(404)
    expect(refusedH2.body).toContain(`no route for GET http://127.0.0.1:${port}/`)
    expect(await h2("https://api.example.com", "/ok")).toEqual({ status: 200, body: "simulated" })
    denied(await connectOutcome(net.connect(port, "127.0.0.1")), "127.0.0.1")
    denied(await connectOutcome(net.connect({ port, host: "localhost" })), "localhost")
    denied(
      await connectOutcome(tls.connect({ host: "api.example.com", port: 443 }), "secureConnect"),
      "api.example.com"
    )
    expect(reached).toBe(0)

    // What interception reads is still answered: the global fetch, undici's global dispatcher.
    expect(await (await fetch("https://api.example.com/ok")).text()).toBe("simulated")
    expect(await (await request("https://api.example.com/ok")).body.text()).toBe("simulated")
  })

  it('reads connect\'s arguments as Node does: { path: "" }, " PORT", "0xPORT" and "PORT.0" are TCP to localhost, and refused', async () => {
    const network = await SimulationNetwork.start()
    restore = await network.installGlobal()
    const before = reached
    // Each of these connects to localhost:PORT over TCP in Node; none is a pipe.
    denied(await connectOutcome(net.connect({ path: "", port } as net.NetConnectOpts)), "localhost")
    denied(await connectOutcome(new net.Socket().connect(` ${port}` as unknown as number)), "localhost")
    denied(await connectOutcome(new net.Socket().connect(`0x${port.toString(16)}` as unknown as number)), "localhost")
    denied(await connectOutcome(new net.Socket().connect(`${port}.0` as unknown as number)), "localhost")
    denied(await connectOutcome(net.connect(`${port}` as unknown as number, "127.0.0.1")), "127.0.0.1")
    expect(reached).toBe(before)
    // Without the guard the same calls reach the server: they are TCP connections, not pipes.
    restore()
    restore = undefined
    expect(await connectOutcome(new net.Socket().connect(` ${port}` as unknown as number))).toBe("connected")
    expect(reached).toBe(before + 1)
  })

  it("allowHosts and passthrough hosts let listed hosts through; restoring takes the guard off", async () => {
    const network = await SimulationNetwork.start()
    const before = reached
    restore = await network.installGlobal({ allowHosts: [`127.0.0.1:${port}`] })
    expect(await connectOutcome(net.connect(port, "127.0.0.1"))).toBe("connected")
    denied(await connectOutcome(net.connect(port + 1 === 65536 ? 1 : port + 1, "127.0.0.1")), "127.0.0.1")
    restore()
    restore = await network.installGlobal({ onUnmatched: "passthrough", passthroughHosts: [/^127\./] })
    expect(await connectOutcome(net.connect(port, "127.0.0.1"))).toBe("connected")
    restore()
    restore = await network.installGlobal({ guard: false })
    expect(await connectOutcome(net.connect(port, "127.0.0.1"))).toBe("connected")
    restore()
    restore = undefined
    expect(await connectOutcome(net.connect(port, "127.0.0.1"))).toBe("connected")
    expect(reached).toBe(before + 4)
  })

  it("the loopback route's own forward reaches the app's local server under the guard", async () => {
    const before = reached
    const network = await SimulationNetwork.start({ routes: [Route.loopback(`GET http://127.0.0.1:${port}/{*path}`)] })
    restore = await network.installGlobal()
    const response = await fetch(`http://127.0.0.1:${port}/hello`)
    expect(await response.text()).toBe("real")
    expect(reached).toBe(before + 1)
  })

  it("under --import simnet/register a raw connection from an unmodified script fails with ConnectionDenied", async () => {
    const script = `
      const net = require("node:net")
      const socket = net.connect(${port}, "127.0.0.1")
      socket.on("connect", () => { console.log("connected"); process.exit(0) })
      socket.on("error", (e) => { console.log(e._tag + " " + e.host); process.exit(0) })
    `
    const before = reached
    const run = (env: Record<string, string> = {}) =>
      promisify(execFile)(
        process.execPath,
        ["--conditions=simnet-source", "--import", "simnet/register", "-e", script],
        { cwd: process.cwd(), env: { ...process.env, ...env } }
      )
    expect((await run()).stdout.trim()).toBe("ConnectionDenied 127.0.0.1")
    expect(reached).toBe(before)
    // A local database, say, named in SIMNET_ALLOW_HOSTS; or the guard off.
    expect((await run({ SIMNET_ALLOW_HOSTS: `localhost, 127.0.0.1:${port}` })).stdout.trim()).toBe("connected")
    expect((await run({ SIMNET_GUARD: "off" })).stdout.trim()).toBe("connected")
    expect(reached).toBe(before + 2)
  })
})
