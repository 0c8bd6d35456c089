/**
 * A hostile page in a real Chromium, web security and site isolation on (`support/chromium.ts`):
 * what the audit did from a browser, replayed against `simnet serve`.
 *
 * The attacker's page is served through simnet's own forwarder at `http://evil.test:PORT/evil.test/`
 * with `evil.test` resolved to 127.0.0.1 by the browser (`--host-resolver-rules`): the state of a
 * DNS rebinding attack once the name points at this machine. To the browser the page and the
 * control endpoint are then one origin, so it lets the page read every answer; only simnet's own
 * checks stand between them.
 */
import type { Browser } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchSecureChromium } from "./support/chromium.ts"
import { raw, serve, stopAll, type Served } from "./support/serve.ts"

const LONG = 60_000
const CONTROL = "/experimental/simulation"

let browser: Browser
let server: Served

beforeAll(async () => {
  ;[browser, server] = await Promise.all([
    launchSecureChromium(["--host-resolver-rules=MAP evil.test 127.0.0.1"]),
    serve(["--quiet"])
  ])
  // The attacker's page, and a marker route that a reset would remove.
  const register = await raw(
    server.port,
    "POST",
    `${CONTROL}/network/register`,
    { "content-type": "application/json" },
    JSON.stringify([
      {
        id: "attacker-page",
        match: "GET https://evil.test/",
        respond: { kind: "text", body: "<!doctype html><title>attacker</title>", contentType: "text/html" }
      },
      { id: "marker", match: "GET https://marker.example/", respond: { kind: "text", body: "still here" } }
    ])
  )
  expect(register.status).toBe(201)
}, LONG)

afterAll(async () => {
  await browser?.close()
  stopAll()
})

const routeIds = async () =>
  (JSON.parse((await raw(server.port, "GET", `${CONTROL}/network/routes`)).body).routes as Array<{ id: string }>).map(
    (r) => r.id
  )

const attackerPage = async () => {
  const page = await browser.newPage()
  await page.goto(`http://evil.test:${server.port}/evil.test/`)
  expect(await page.title()).toBe("attacker")
  return page
}

describe("a hostile page in Chromium (web security on)", () => {
  it(
    "after DNS rebinding the page reaches the control paths as its own origin, and every one refuses it",
    async () => {
      const page = await attackerPage()
      const results = await page.evaluate(async (control) => {
        const out: Record<string, number | string> = {}
        for (const [method, path, body] of [
          ["GET", "snapshot", undefined],
          ["GET", "network/log", undefined],
          ["GET", "ui/events", undefined],
          ["POST", "reset", undefined],
          ["POST", "llm/enqueue", JSON.stringify({ steps: [[{ type: "text", content: "pwned" }]] })],
          [
            "POST",
            "network/register",
            JSON.stringify({ match: "GET https://x.example/", respond: { kind: "text", body: "x" } })
          ]
        ] as const) {
          try {
            const response = await fetch(`${control}/${path}`, {
              method,
              body,
              headers: body === undefined ? {} : { "content-type": "application/json" }
            })
            out[`${method} ${path}`] = response.status
          } catch (error) {
            out[`${method} ${path}`] = `threw ${String(error)}`
          }
        }
        return out
      }, CONTROL)
      // The browser let the page read each status (same origin to it): simnet refused every one.
      for (const status of Object.values(results)) expect(status).toBe(403)
      const socket = await page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url)
            ws.onopen = () => resolve("open")
            ws.onerror = () => resolve("refused")
          }),
        `ws://evil.test:${server.port}${CONTROL}/drive`
      )
      expect(socket).toBe("refused")
      expect(await routeIds()).toContain("marker")
      await page.close()
    },
    LONG
  )

  it(
    "a page from another origin cannot open the driver socket (cross-site WebSocket hijacking) or reset the network (CSRF)",
    async () => {
      const page = await attackerPage()
      const socket = await page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url)
            ws.onopen = () => {
              ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "network.log" }))
              ws.onmessage = (event) => resolve(`read: ${String(event.data).slice(0, 80)}`)
            }
            ws.onerror = () => resolve("refused")
          }),
        `ws://127.0.0.1:${server.port}${CONTROL}/drive`
      )
      expect(socket).toBe("refused")
      // A no-cors POST is what a form or a hidden fetch can send: the page cannot read the answer,
      // so what matters is that nothing changed.
      await page.evaluate(async (url) => {
        await fetch(url, { method: "POST", mode: "no-cors" }).catch(() => undefined)
      }, `http://127.0.0.1:${server.port}${CONTROL}/reset`)
      expect(await routeIds()).toContain("marker")
      await page.close()
    },
    LONG
  )

  it(
    "the same checks let the inspector's own page (same origin) work: it reads its state",
    async () => {
      const page = await browser.newPage()
      await page.goto(`http://127.0.0.1:${server.port}${CONTROL}/ui`)
      const status = await page.evaluate(async (control) => (await fetch(`${control}/ui/state`)).status, CONTROL)
      expect(status).toBe(200)
      const socket = await page.evaluate(async (control) => {
        const { ticket } = (await (await fetch(`${control}/ui/ticket`, { method: "POST" })).json()) as {
          ticket: string
        }
        return new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}${control}/ui/drive?ticket=${ticket}`)
          ws.onopen = () => resolve("open")
          ws.onerror = () => resolve("refused")
        })
      }, CONTROL)
      expect(socket).toBe("open")
      await page.close()
    },
    LONG
  )
})
