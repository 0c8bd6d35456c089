/**
 * Record mode streams and loses nothing (issue 31): a child `simnet serve --record` forwards a
 * generated 300 MB upstream answer to its client as it arrives, holding a bounded amount of it
 * (peak RSS under 600 MB), while what it recorded before is already in the file, and stays there
 * when the process is killed outright.
 */
import { once } from "node:events"
import { mkdtempSync, readFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { serve, stopAll } from "./support/serve.ts"

afterAll(() => stopAll())

const CHUNK = Buffer.alloc(1024 * 1024, "x")
const BIG = 300

/** The child's peak resident set (VmHWM), in MB. */
const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

describe("record mode streams", () => {
  it("a 300 MB upstream answer reaches the client while it is still being sent, peak RSS stays under 600 MB, and what was recorded before is in the file even after SIGKILL", async () => {
    // The upstream sends the big answer's first MiB, then waits until the client has it: an
    // answer read whole before it is passed on never arrives.
    let clientHasFirstByte!: () => void
    const firstByteSeen = new Promise<void>((resolve) => (clientHasFirstByte = resolve))
    let sentWhenClientSawFirstByte = -1
    let sent = 0
    const upstream = http.createServer(async (req, res) => {
      if (req.url === "/small") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ small: true }))
        return
      }
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(BIG * CHUNK.length) })
      res.write(CHUNK)
      sent = 1
      await firstByteSeen
      for (; sent < BIG; sent++) {
        if (!res.write(CHUNK)) await once(res, "drain")
      }
      res.end()
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const dir = mkdtempSync(join(tmpdir(), "simnet-record-stream-"))
    const file = join(dir, "recorded.json")
    const served = await serve(["--record", file, "--upstream", `api.example.com=http://127.0.0.1:${port}`, "--quiet"])
    try {
      const small = await fetch(`${served.base}/api.example.com/small`)
      expect(await small.json()).toEqual({ small: true })
      // Written as it goes: the first exchange is in the file as soon as it has been answered.
      const early = JSON.parse(readFileSync(file, "utf8")) as { routes: Array<{ match: { url: string } }> }
      expect(early.routes.map((route) => route.match.url)).toEqual(["https://api.example.com/small"])

      const big = await fetch(`${served.base}/api.example.com/big`)
      const reader = big.body!.getReader()
      let received = 0
      for (;;) {
        const next = await reader.read()
        if (next.done) break
        if (received === 0) {
          sentWhenClientSawFirstByte = sent
          clientHasFirstByte()
        }
        received += next.value.byteLength
      }
      expect(received).toBe(BIG * CHUNK.length)
      expect(sentWhenClientSawFirstByte).toBe(1)
      expect(peakRss(served.child.pid!)).toBeLessThan(600)

      // Killed outright: nothing runs at exit, and the earlier exchange is still there.
      served.child.kill("SIGKILL")
      await once(served.child, "exit")
      const kept = JSON.parse(readFileSync(file, "utf8")) as {
        routes: Array<{ match: { url: string }; respond: { body?: string } }>
      }
      expect(kept.routes.map((route) => [route.match.url, route.respond.body])).toEqual([
        ["https://api.example.com/small", JSON.stringify({ small: true })]
      ])
    } finally {
      upstream.close()
    }
  }, 120_000)
})
