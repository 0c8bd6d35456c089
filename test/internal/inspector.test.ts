import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import OpenAI from "openai"
import type { Browser, Page } from "puppeteer-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inspectorPage } from "../../src/control/inspector/page.ts"
import { download, launchSecureChromium } from "../support/chromium.ts"
import { serve as serveChild, stopAll } from "../support/serve.ts"

// One browser for the whole file; each test opens its own page. Timeouts are generous: CI is a
// loaded 2-core machine running the server, the browser and the test at once.
const LONG = 90_000
let browser: Browser
const pageErrors: Array<string> = []

/** `simnet serve --quiet` with no token unless one is given (the shared helper, `test/support/serve.ts`). */
const serve = (args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  serveChild(["--quiet", ...args], { SIMNET_TOKEN: "", ...env })

const open = async (url: string) => {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  const consoleErrors: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text())
  })
  page.on("pageerror", (error) => pageErrors.push(String(error)))
  await page.goto(url)
  await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 20_000 })
  return { page, consoleErrors }
}

/** Opens `ui/events` and reads until the `hello` event; returns its rows and the way to close. */
const hello = async (control: string) => {
  const abort = new AbortController()
  const response = await fetch(`${control}/ui/events`, { signal: abort.signal })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  for (;;) {
    const m = /event: hello\ndata: (.*)\n\n/.exec(text)
    if (m)
      return {
        rows: (JSON.parse(m[1]) as { rows: Array<{ url: string; ttfb?: number; ms?: number }> }).rows,
        close: () => abort.abort()
      }
    const chunk = await reader.read()
    if (chunk.done) throw new Error(`the stream ended before hello: ${text}`)
    text += chunk.value
  }
}

const routesOf = async (control: string) =>
  ((await (await fetch(`${control}/network/routes`)).json()) as { routes: Array<{ id: string; hits: number }> }).routes

/** The status of a GET sent with a Host header of our choosing (fetch will not send one). */
const statusWithHost = (url: string, host: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const request = http.get(url, { headers: { ...headers, host } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on("error", reject)
  })

/** How long each of the page's frames took to come, probed every 100 ms for `ms`. */
const frameLags = async (page: Page, ms: number) => {
  const lags: Array<number> = []
  const started = Date.now()
  while (Date.now() - started < ms) {
    const t = Date.now()
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)))
    lags.push(Date.now() - t)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return lags
}

/** Starts recording the page's long tasks (main-thread work over 50 ms). */
const watchLongTasks = async (page: Page) => {
  expect(await page.evaluate(() => PerformanceObserver.supportedEntryTypes)).toContain("longtask")
  await page.evaluate(() => {
    const w = window as unknown as { longest: number }
    w.longest = 0
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.longest = Math.max(w.longest, entry.duration)
    }).observe({ type: "longtask", buffered: false })
  })
}

/** The longest task recorded since `watchLongTasks`, in ms. */
const longestTask = (page: Page) => page.evaluate(() => (window as unknown as { longest: number }).longest)

let server: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  ;[browser, server] = await Promise.all([launchSecureChromium(), serve()])
}, LONG)

afterAll(async () => {
  await browser?.close()
  stopAll()
})

describe("the inspector in a browser", () => {
  it(
    "serve prints the inspector URL; the page loads with no console errors and works offline (no request leaves the server)",
    async () => {
      // The line comes after the driver's, which is what the helper waits for: it may be a write behind.
      await expect.poll(() => server.output()).toContain(`inspector: ${server.ui}`)
      const { page, consoleErrors } = await open(server.ui)
      const foreign: Array<string> = []
      page.on("request", (request) => {
        if (!request.url().startsWith(server.base) && !request.url().startsWith("blob:")) foreign.push(request.url())
      })
      await page.reload()
      await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 20_000 })
      await page.waitForFunction(() => (document.getElementById("stats")?.textContent ?? "").includes("seed"), {
        timeout: 10_000
      })
      expect(consoleErrors).toEqual([])
      expect(foreign).toEqual([])
      expect(pageErrors).toEqual([])
      await page.close()
    },
    LONG
  )

  it(
    "a request made while the page is open appears, with its route, status and duration",
    async () => {
      const { page } = await open(server.ui)
      const started = Date.now()
      expect((await fetch(`${server.base}/api.example.com/items/inspector-${started}`)).status).toBe(200)
      const url = `https://api.example.com/items/inspector-${started}`
      await page.waitForFunction(
        (u) => Array.from(document.querySelectorAll("#rows .row .url")).some((c) => (c as HTMLElement).title === u),
        { timeout: 10_000 },
        url
      )
      const row = await page.$$eval(
        "#rows .row:not([hidden])",
        (rows, u) => {
          const r = rows.find((x) => (x.querySelector(".url") as HTMLElement).title === u)!
          return Array.from(r.children).map((c) => c.textContent)
        },
        url
      )
      expect(row[1]).toBe("GET")
      expect(row[3]).toBe("item")
      expect(row[4]).toBe("text")
      expect(row[5]).toBe("200")
      await page.waitForFunction(
        (u) => {
          const r = Array.from(document.querySelectorAll("#rows .row")).find(
            (x) => (x.querySelector(".url") as HTMLElement).title === u
          )
          return r !== undefined && /ms$/.test(r.children[6].textContent ?? "")
        },
        { timeout: 5_000 },
        url
      )
      await page.close()
    },
    LONG
  )

  it(
    "a row found before the list redraws still opens its own request on element.click(): the virtual list is keyed",
    async () => {
      const { page } = await open(server.ui)
      const tag = `keyed-${Date.now()}`
      // Enough rows that the list scrolls, so new ones move the window.
      for (let i = 0; i < 60; i++)
        expect((await fetch(`${server.base}/api.example.com/items/${tag}-before-${i}`)).status).toBe(200)
      expect((await fetch(`${server.base}/api.example.com/items/${tag}-first`)).status).toBe(200)
      const url = `https://api.example.com/items/${tag}-first`
      await page.waitForFunction(
        (u) => Array.from(document.querySelectorAll("#rows .row .url")).some((c) => (c as HTMLElement).title === u),
        { timeout: 5_000 },
        url
      )
      const handle = await page.evaluateHandle(
        (u) =>
          Array.from(document.querySelectorAll("#rows .row")).find(
            (x) => (x.querySelector(".url") as HTMLElement).title === u
          )!,
        url
      )
      // More requests arrive and the list (following the tail) redraws under the found element.
      for (let i = 0; i < 5; i++)
        expect((await fetch(`${server.base}/api.example.com/items/${tag}-${i}`)).status).toBe(200)
      await page.waitForFunction(
        (t) =>
          Array.from(document.querySelectorAll("#rows .row .url")).some((c) =>
            (c as HTMLElement).title.endsWith(`${t}-4`)
          ),
        { timeout: 5_000 },
        tag
      )
      await page.evaluate((row) => (row as HTMLElement).click(), handle)
      await page.waitForFunction(
        (u) => (document.querySelector("#detail")?.textContent ?? "").includes(u),
        { timeout: 5_000 },
        url
      )
      await page.close()
    },
    LONG
  )

  it(
    "a request refused before the page opened shows as refused, not as still waiting",
    async () => {
      const url = `https://api.example.com/before-${Date.now()}`
      expect((await fetch(`${server.base}/${url.slice("https://".length)}`)).status).toBe(502)
      const { page } = await open(server.ui)
      const seen = await page
        .waitForFunction(
          (u) => {
            const row = Array.from(document.querySelectorAll("#rows .row")).find(
              (r) => !(r as HTMLElement).hidden && (r.children[2] as HTMLElement).title === u
            )
            return row?.children[5].textContent ?? false
          },
          { timeout: 5_000 },
          url
        )
        .then((handle) => handle.jsonValue() as Promise<string | false>)
        .catch((e: unknown) => String(e))
      await page.close()
      // "refused" when no page watched it; its 502 when an earlier test's page still did. Never "…".
      expect(["refused", "502"]).toContain(seen)
    },
    LONG
  )

  it(
    "a request made before the page opened is explained after the fact: its nearest candidates, when its answer came, a static route's answer made again, and that a model's body is not kept",
    async () => {
      const fresh = await serve()
      expect((await fetch(`${fresh.base}/api.example.com/itemz/9`)).status).toBe(502)
      expect((await fetch(`${fresh.base}/api.example.com/items/1`)).status).toBe(200)
      expect((await fetch(`${fresh.base}/api.openai.com/v1/models`)).status).toBe(200)
      const { page } = await open(fresh.ui)
      const show = async (url: string, text: string) => {
        await page.waitForFunction(
          (u) => Array.from(document.querySelectorAll("#rows .row .url")).some((c) => (c as HTMLElement).title === u),
          { timeout: 5_000 },
          url
        )
        await page.evaluate(
          (u) =>
            (
              Array.from(document.querySelectorAll("#rows .row")).find(
                (x) => (x.querySelector(".url") as HTMLElement).title === u
              ) as HTMLElement
            ).click(),
          url
        )
        await page.waitForFunction(
          (t) => (document.querySelector("#detail")?.textContent ?? "").includes(t),
          { timeout: 5_000 },
          text
        )
        return page.$eval("#detail", (d) => d.textContent ?? "")
      }
      const refused = await show("https://api.example.com/itemz/9", "Why it was refused")
      expect(refused).not.toContain("captured for requests made while this page is open")
      const candidates = await page.$$eval("#detail table.candidates tbody tr", (trs) =>
        trs.map((tr) => Array.from(tr.children).map((td) => td.textContent))
      )
      expect(candidates.find((c) => c[0] === "item")?.[2]).toMatch(/^path/)
      // A text route's answer is a pure function of the route: made again, though nothing was kept.
      const answered = await show("https://api.example.com/items/1", "sim-item")
      expect(answered).toMatch(/First byte\s*\d/)
      expect(answered).toContain("answer made again from route item (not kept)")
      const model = await show("https://api.openai.com/v1/models", "Body: ")
      expect(model).toContain(
        "Body: the answer's body is not kept: start the network with keepBodies (simnet serve --keep-bodies) to see it."
      )
      await page.close()
    },
    LONG
  )

  it(
    "a refused request shows the nearest candidates and why each missed; the keyboard opens it",
    async () => {
      const { page } = await open(server.ui)
      const response = await fetch(`${server.base}/api.example.com/itemz/7`, {
        headers: { authorization: "Bearer sk-never-shown" }
      })
      expect(response.status).toBe(502)
      const url = "https://api.example.com/itemz/7"
      await page.waitForFunction(
        (u) =>
          Array.from(document.querySelectorAll("#rows .row.refused .url")).some((c) => (c as HTMLElement).title === u),
        { timeout: 5_000 },
        url
      )
      // Keyboard: focus the list, go to the newest row, open it.
      await page.focus("#viewport")
      await page.keyboard.press("End")
      await page.keyboard.press("Enter")
      await page.waitForSelector("#detail table.candidates", { timeout: 5_000 })
      const detail = await page.$eval("#detail", (d) => d.textContent ?? "")
      expect(detail).toContain("UnregisteredRequest")
      const candidates = await page.$$eval("#detail table.candidates tbody tr", (trs) =>
        trs.map((tr) => Array.from(tr.children).map((td) => td.textContent))
      )
      expect(candidates.length).toBeGreaterThan(0)
      const item = candidates.find((c) => c[0] === "item")
      expect(item?.[1]).toBe("GET https://api.example.com/items/:id")
      expect(item?.[2]).toMatch(/^path/)
      expect(detail).toContain("<redacted>")
      expect(detail).not.toContain("sk-never-shown")
      await page.close()
    },
    LONG
  )

  it(
    "pasting a bad RouteSpec shows the error with its JSON path and changes nothing; a good one registers and can be removed",
    async () => {
      const { page } = await open(server.ui)
      await page.click("#tab-routes")
      const before = await routesOf(server.control)
      const bad = JSON.stringify([
        { id: "fine", match: "GET https://a.example/fine", respond: { kind: "text", body: "ok" } },
        { id: "broken", match: "GET https://a.example/broken", respond: { kind: "nope" } }
      ])
      await page.$eval("#register-json", (e, text) => ((e as HTMLTextAreaElement).value = text), bad)
      await page.click("#register-form button[type=submit]")
      await page.waitForFunction(() => (document.getElementById("register-error")?.textContent ?? "") !== "", {
        timeout: 5_000
      })
      expect(await page.$eval("#register-error", (e) => e.textContent)).toMatch(
        /^InvalidRouteSpec at \[1\]\.respond\.kind: /
      )
      expect(await routesOf(server.control)).toEqual(before)

      await page.$eval(
        "#register-json",
        (e) =>
          ((e as HTMLTextAreaElement).value =
            '{ "id": "from-page", "match": "GET https://a.example/page", "respond": { "kind": "text", "body": "hi" } }')
      )
      await page.click("#register-form button[type=submit]")
      await page.waitForSelector('tr[data-route="from-page"]', { timeout: 5_000 })
      expect((await routesOf(server.control)).some((r) => r.id === "from-page")).toBe(true)
      expect(await page.$eval('tr[data-route="from-page"]', (tr) => tr.textContent)).toContain("unused")
      await page.$eval('button[aria-label="Remove route from-page"]', (button) => (button as HTMLButtonElement).click())
      await page.waitForFunction(() => document.querySelector('tr[data-route="from-page"]') === null, {
        timeout: 5_000
      })
      expect((await routesOf(server.control)).some((r) => r.id === "from-page")).toBe(false)
      await page.close()
    },
    LONG
  )

  it(
    "a model call from the openai SDK appears as pending and the console answers it word by word; the SDK receives exactly that text",
    async () => {
      const { page } = await open(server.ui)
      await page.click("#tab-model")
      await page.click("#attach")
      await page.waitForFunction(
        () => (document.getElementById("driver-status")?.textContent ?? "").startsWith("Attached"),
        { timeout: 10_000 }
      )
      const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${server.base}/api.openai.com/v1`, maxRetries: 0 })
      // The default fixture's script answers the first call; this one waits for the page.
      await openai.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "the fixture answers" }]
      })
      const stream = openai.chat.completions.create({
        model: "gpt-4o",
        stream: true,
        messages: [{ role: "user", content: "answer me from the page" }],
        tools: [
          {
            type: "function",
            function: { name: "lookup", description: "Looks things up", parameters: { type: "object", properties: {} } }
          }
        ]
      })
      await page.waitForSelector("[data-invocation]", { timeout: 10_000 })
      const invocation = await page.$eval("#invocation", (e) => e.textContent ?? "")
      expect(invocation).toContain("answer me from the page")
      expect(invocation).toContain("lookup")
      const reply = "Forty-two,  said the page.\nDone."
      await page.$eval("#reply", (e, text) => ((e as HTMLTextAreaElement).value = text), reply)
      await page.$eval("#word-delay", (e) => ((e as HTMLInputElement).value = "20"))
      await page.click("#stream")
      const deltas: Array<string> = []
      let finish: string | null | undefined
      for await (const chunk of await stream) {
        const delta = chunk.choices[0]?.delta?.content
        if (delta) deltas.push(delta)
        finish = chunk.choices[0]?.finish_reason ?? finish
      }
      expect(deltas.join("")).toBe(reply)
      expect(deltas).toEqual(["Forty-two,  ", "said ", "the ", "page.\n", "Done."])
      expect(finish).toBe("stop")
      await page.waitForFunction(() => document.querySelector("[data-invocation]") === null, { timeout: 5_000 })
      await page.close()
    },
    LONG
  )

  it(
    "a structured call answered with scripted text that is not JSON is flagged in the model log",
    async () => {
      expect(
        (await server.post("llm/enqueue", { steps: [[{ type: "text", content: "plain words, not JSON" }]] })).ok
      ).toBe(true)
      const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${server.base}/api.openai.com/v1`, maxRetries: 0 })
      await openai.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "route this" }],
        response_format: { type: "json_object" }
      })
      const { page } = await open(server.ui)
      await page.click("#tab-model")
      await page.waitForFunction(
        () => (document.getElementById("model-log")?.textContent ?? "").includes("is not JSON"),
        { timeout: 10_000 }
      )
      expect(await page.$eval("#model-log td.flagged", (e) => e.textContent ?? "")).toContain(
        "the scripted text is not JSON, and the call asks for JSON"
      )
      // Each call shows the surface it came through.
      expect(await page.$eval("#model-log td.surface", (e) => e.textContent ?? "")).toBe("openai.chat")
      await page.close()
    },
    LONG
  )

  it(
    "an OpenAPI operation that cannot be served shows in the routes table as not served, with why",
    async () => {
      const { page } = await open(server.ui)
      const oddDocument = {
        openapi: "3.1.0",
        info: { title: "odd", version: "1" },
        paths: {
          "/odd": {
            get: {
              operationId: "odd",
              responses: {
                "200": {
                  description: "x",
                  content: { "application/json": { schema: { type: "string", pattern: "((" } } }
                }
              }
            }
          }
        }
      }
      const registered = await fetch(`${server.control}/network/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ family: "openapi", document: oddDocument, baseUrl: "https://odd-inspected.example.com" })
      })
      expect(registered.status).toBe(201)
      await page.click("#tab-routes")
      await page.waitForFunction(
        () => {
          const row = document.querySelector('[data-route="odd-inspected.example.com:odd"]')
          return row !== null && /not served: .*pattern/.test(row.textContent ?? "")
        },
        { timeout: 5_000 }
      )
      await page.close()
    },
    LONG
  )

  it(
    "a request seeded chaos hit says so in its details",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-chaos-ui-"))
      const fixture = join(dir, "chaos.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          chaos: { rate: 1, faults: [{ status: 503 }] },
          routes: [{ id: "hello", match: "GET https://api.example.com/hello", respond: { kind: "text", body: "hi" } }]
        })
      )
      const chaotic = await serve(["--fixture", fixture])
      const { page } = await open(chaotic.ui)
      expect((await fetch(`${chaotic.base}/api.example.com/hello`)).status).toBe(503)
      await page.waitForSelector("#rows .row:not([hidden])", { timeout: 5_000 })
      await page.$eval("#rows .row:not([hidden])", (row) => (row as HTMLElement).click())
      await page.waitForFunction(
        () => /Chaos\s*status 503/.test(document.querySelector("#detail")?.textContent ?? ""),
        { timeout: 5_000 }
      )
      await page.close()
    },
    LONG
  )

  it(
    "a graphql request's row names its operation beside the kind, and the filter finds it by name",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-graphql-ui-"))
      const fixture = join(dir, "graphql.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          routes: [
            {
              id: "api",
              match: "https://api.example.com/graphql",
              respond: { kind: "graphql", schema: "type Query { viewer: String }" }
            }
          ]
        })
      )
      const served = await serve(["--fixture", fixture])
      const { page } = await open(served.ui)
      const answered = await fetch(`${served.base}/api.example.com/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "query Viewer { viewer }" })
      })
      expect(answered.status).toBe(200)
      await page.waitForSelector("#rows .row:not([hidden])", { timeout: 5_000 })
      expect(await page.$eval("#rows .row:not([hidden])", (row) => row.children[4].textContent)).toBe("graphql Viewer")
      const filter = (text: string) =>
        page.$eval(
          "#filter",
          (input, value) => {
            ;(input as HTMLInputElement).value = value
            input.dispatchEvent(new Event("input", { bubbles: true }))
          },
          text
        )
      await filter("mutation")
      await page.waitForFunction(
        () => (document.getElementById("list-count")?.textContent ?? "").startsWith("0 of 1"),
        { timeout: 5_000 }
      )
      await filter("viewer")
      await page.waitForFunction(
        () => (document.getElementById("list-count")?.textContent ?? "").startsWith("1 requests"),
        { timeout: 5_000 }
      )
      await page.close()
    },
    LONG
  )

  it(
    "a reset, from a fault route or from chaos, shows as reset with no status, and is over: never streaming",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-reset-ui-"))
      const fixture = join(dir, "reset.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          chaos: { rate: 1, faults: ["reset"], routes: ["chaotic"] },
          routes: [
            { id: "dropped", match: "GET https://faults.example/:name", respond: { kind: "fault", fault: "reset" } },
            { id: "chaotic", match: "GET https://chaos.example/:name", respond: { kind: "text", body: "hello" } }
          ]
        })
      )
      const faulty = await serve(["--fixture", fixture])
      const broke = (path: string) =>
        fetch(`${faulty.base}/${path}`)
          .then((r) => r.text())
          .then(
            () => "read",
            () => "broke"
          )
      // Two before the page opens (the record alone tells of them), two while it listens.
      expect([await broke("faults.example/before"), await broke("chaos.example/before")]).toEqual(["broke", "broke"])
      const { page } = await open(faulty.ui)
      expect([await broke("faults.example/during"), await broke("chaos.example/during")]).toEqual(["broke", "broke"])
      const urls = [
        "https://faults.example/before",
        "https://chaos.example/before",
        "https://faults.example/during",
        "https://chaos.example/during"
      ]
      await page.waitForFunction(
        (us) =>
          us.every((u: string) =>
            Array.from(document.querySelectorAll("#rows .row .url")).some((c) => (c as HTMLElement).title === u)
          ),
        { timeout: 10_000 },
        urls
      )
      const cells = await page.$$eval("#rows .row:not([hidden])", (rows) =>
        rows.map((r) => [
          (r.querySelector(".url") as HTMLElement).title,
          r.children[5].textContent,
          r.children[6].textContent
        ])
      )
      for (const url of urls) {
        const [, status, took] = cells.find((c) => c[0] === url)!
        expect(status).toBe("reset")
        expect(took ?? "").not.toMatch(/…$/)
      }
      for (const url of urls) {
        await page.evaluate(
          (u) =>
            (
              Array.from(document.querySelectorAll("#rows .row")).find(
                (x) => (x.querySelector(".url") as HTMLElement).title === u
              ) as HTMLElement
            ).click(),
          url
        )
        await page.waitForFunction(
          (u) => (document.querySelector("#detail h2")?.textContent ?? "").includes(u),
          { timeout: 5_000 },
          url
        )
        const terms = await page.$$eval("#detail dl.kv dt", (dts) =>
          dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])
        )
        expect(Object.fromEntries(terms)).toMatchObject({ Fault: "reset" })
        expect(terms.map(([term]) => term)).not.toContain("Status")
        expect(terms.map(([, value]) => value)).not.toContain("streaming…")
      }
      await page.close()
    },
    LONG
  )

  it(
    "the page brings its own icon, and the browser's /favicon.ico is answered by the server, never listed as a request",
    async () => {
      const fresh = await serve()
      const asked: Array<string> = []
      const page = await browser.newPage()
      page.on("request", (request) => void asked.push(new URL(request.url()).pathname))
      await page.goto(fresh.ui)
      await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 20_000 })
      expect(await page.$eval("link[rel=icon]", (link) => (link as HTMLLinkElement).href)).toMatch(
        /^data:image\/svg\+xml,/
      )
      // A tab on a control path's JSON has no icon of its own: the browser may ask the server for one.
      await page.goto(`${fresh.control}/network/routes`)
      const icon = await fetch(`${fresh.base}/favicon.ico`)
      expect([icon.status, await icon.text()]).toEqual([204, ""])
      await page.goto(fresh.ui)
      await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 20_000 })
      await page.waitForFunction(() => (document.getElementById("stats")?.textContent ?? "").includes("seed"), {
        timeout: 10_000
      })
      const log = (await (await fetch(`${fresh.control}/network/log?since=0`)).json()) as {
        records: Array<{ url: string }>
      }
      expect(log.records.map((r) => r.url)).toEqual([])
      expect(
        await page.$$eval("#rows .row:not([hidden]) .url", (cells) => cells.map((c) => (c as HTMLElement).title))
      ).toEqual([])
      expect(asked.filter((path) => path === "/favicon.ico").length).toBeLessThanOrEqual(1)
      await page.close()
    },
    LONG
  )

  it(
    "the route table's use counts match GET network/routes",
    async () => {
      const { page } = await open(server.ui)
      await Promise.all([
        fetch(`${server.base}/api.example.com/health`),
        fetch(`${server.base}/api.example.com/health`),
        fetch(`${server.base}/api.example.com/items/1`),
        fetch(`${server.base}/models.dev/api.json`)
      ])
      await page.click("#tab-routes")
      const expected = Object.fromEntries((await routesOf(server.control)).map((r) => [r.id, String(r.hits)]))
      expect(Number(expected["health"])).toBeGreaterThanOrEqual(2)
      await page.waitForFunction(
        (want) => {
          const shown = Object.fromEntries(
            Array.from(document.querySelectorAll("tr[data-route]")).map((tr) => [
              tr.getAttribute("data-route"),
              tr.querySelector(".uses")?.textContent
            ])
          )
          return JSON.stringify(shown) === JSON.stringify(want)
        },
        { timeout: 5_000 },
        expected
      )
      await page.close()
    },
    LONG
  )

  it(
    "a generated answer shows its seed and regenerates the same body",
    async () => {
      const { page } = await open(server.ui)
      // A catalog generated with the seed (the default models family serves the real, fixed one).
      const registered = await fetch(`${server.control}/network/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ family: "models", baseUrl: "https://generated.models.example", generated: true })
      })
      expect(registered.status).toBe(201)
      const served = await (await fetch(`${server.base}/generated.models.example/api.json`)).text()
      const log = (
        (await (await fetch(`${server.control}/network/log?since=0`)).json()) as {
          records: Array<{ seq: number; url: string; seed?: number }>
        }
      ).records
      const record = log.filter((r) => r.url === "https://generated.models.example/api.json").at(-1)!
      expect(record.seed).toBeTypeOf("number")
      const seq = record.seq
      await page.waitForSelector(`#req-${seq}`, { timeout: 5_000 })
      await page.$eval(`#req-${seq}`, (row) => (row as HTMLElement).click())
      await page.waitForFunction(
        () => Array.from(document.querySelectorAll("#detail button")).some((b) => b.textContent === "Regenerate body"),
        { timeout: 5_000 }
      )
      expect(await page.$eval("#detail", (d) => d.textContent)).toMatch(/Seed/)
      const button = (await page.$$("#detail button")).at(-1)!
      await button.click()
      await page.waitForSelector("#detail pre.regenerated", { timeout: 10_000 })
      const regenerated = await page.$eval("#detail pre.regenerated", (e) => e.textContent ?? "")
      expect(JSON.parse(regenerated)).toEqual(JSON.parse(served))
      await page.close()
    },
    LONG
  )

  it(
    "under a burst of real requests every one is counted, the list stays bounded and the page keeps answering",
    async () => {
      const busy = await serve()
      const { page } = await open(busy.ui)
      let sent = 0
      let stop = false
      const worker = async () => {
        while (!stop) {
          sent++
          await (await fetch(`${busy.base}/api.example.com/items/${sent}`)).arrayBuffer()
        }
      }
      await watchLongTasks(page)
      const started = Date.now()
      const workers = Array.from({ length: 24 }, worker)
      const lags = await frameLags(page, 3_000)
      const longest = await longestTask(page)
      stop = true
      await Promise.all(workers)
      const rate = sent / ((Date.now() - started) / 1000)
      const counters = ((await (await fetch(`${busy.control}/ui/state`)).json()) as { counters: { requests: number } })
        .counters
      expect(counters.requests).toBe(sent)
      // The page keeps the newest 5 000 to 5 500 requests.
      await page.waitForFunction(
        (n) => {
          const shown = Number((document.getElementById("list-count")?.textContent ?? "").split(" ")[0])
          return n <= 5_000 ? shown === n : shown >= 5_000 && shown <= 5_500
        },
        { timeout: 20_000 },
        sent
      )
      expect(await page.$eval("#list-count", (e) => e.textContent)).not.toContain("not shown")
      expect(await page.$$eval("#rows .row", (rows) => rows.length)).toBeLessThan(120)
      // How long its tasks and frames took is printed, not asserted: timings belong in bench/.
      // That every probe got its frame is what shows the page kept answering.
      expect(lags.length).toBeGreaterThan(0)
      console.log(
        `inspector, real requests: ${sent} at ${Math.round(rate)}/s (as fast as this machine sends them); longest task ${Math.round(longest)} ms; slowest frame ${Math.max(...lags)} ms`
      )
      await page.close()
    },
    LONG
  )

  it(
    "keeps up with 1 000 requests a second: the rows of 5 000 requests in 5 s are all shown, the list stays bounded, no frame freezes",
    async () => {
      // A stand-in server that serves the page and streams 100 rows every 100 ms, so the page is
      // measured at the rate the issue names whatever this machine's HTTP throughput.
      const html = inspectorPage()
      let seq = 0
      const stand = http.createServer((request, response) => {
        if (request.url === "/experimental/simulation/ui") {
          response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": html.csp })
          response.end(html.html)
        } else if (request.url === "/experimental/simulation/ui/events") {
          response.writeHead(200, { "content-type": "text/event-stream" })
          const send = (event: string, data: unknown) =>
            response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
          send("hello", { latest: 0, rows: [] })
          send("state", {
            seed: 0,
            counters: { requests: 0, answered: 0, denied: 0, faulted: 0 },
            routes: [],
            routeCount: 0,
            mcp: [],
            llm: {
              attached: false,
              callCount: 0,
              queued: [],
              consumed: 0,
              rules: [],
              counts: [],
              keyCount: 0,
              log: [],
              pending: []
            }
          })
          const timer = setInterval(() => {
            const rows = Array.from({ length: 100 }, () => {
              seq++
              return {
                seq,
                time: Date.now(),
                method: "GET",
                url: `https://api.example.com/items/${seq}`,
                route: "item",
                kind: "text",
                status: seq % 10 === 0 ? 502 : 200,
                denial: seq % 10 === 0 ? "UnregisteredRequest" : undefined,
                ttfb: 0.4,
                ms: 0.5,
                seeded: false
              }
            })
            send("batch", { rows, updates: [] })
            if (seq >= 5_000) clearInterval(timer)
          }, 100)
          request.on("close", () => clearInterval(timer))
        } else {
          response.writeHead(404).end()
        }
      })
      await new Promise<void>((resolve) => stand.listen(0, "127.0.0.1", resolve))
      const port = (stand.address() as { port: number }).port
      const { page } = await open(`http://127.0.0.1:${port}/experimental/simulation/ui`)
      await watchLongTasks(page)
      const lags = await frameLags(page, 5_500)
      const longest = await longestTask(page)
      await page.waitForFunction(
        () => (document.getElementById("list-count")?.textContent ?? "").startsWith("5000 requests"),
        { timeout: 20_000 }
      )
      expect(await page.$eval("#list-count", (e) => e.textContent)).not.toContain("not shown")
      expect(await page.$$eval("#rows .row", (rows) => rows.length)).toBeLessThan(120)
      // Following the newest: the last row is on screen.
      await page.waitForSelector("#req-5000", { timeout: 5_000 })
      // Keyboard and filter still answer at once.
      await page.type("#filter", "items/4999")
      await page.waitForFunction(
        () => (document.getElementById("list-count")?.textContent ?? "").startsWith("1 of 5000"),
        { timeout: 5_000 }
      )
      // The page always answered (every probe got its frame); how long its tasks and frames took is
      // printed, not asserted (a loaded CI machine stretches them; timings belong in bench/).
      expect(lags.length).toBeGreaterThan(0)
      console.log(
        `inspector, 1 000 rows/s: longest task ${Math.round(longest)} ms; slowest frame ${Math.max(...lags)} ms over ${lags.length} probes`
      )
      await page.close()
      stand.closeAllConnections()
      stand.close()
    },
    LONG
  )

  it(
    "times requests only while a page listens: a page that goes away releases the feed",
    async () => {
      const quiet = await serve()
      /** The duration the server measured for the latest request (undefined: it was not timed). */
      const latestMs = async () => {
        const { records } = (await (await fetch(`${quiet.control}/network/log`)).json()) as {
          records: Array<{ seq: number }>
        }
        const detail = (await (await fetch(`${quiet.control}/ui/requests/${records.at(-1)!.seq}`)).json()) as {
          extra?: { ms?: number }
        }
        return detail.extra?.ms
      }
      const first = await hello(quiet.control)
      await fetch(`${quiet.base}/api.example.com/items/while-open`)
      await expect.poll(latestMs, { timeout: 10_000 }).toBeTypeOf("number")
      first.close()
      // Released once the server has seen the page go: a request then is no longer timed.
      await expect
        .poll(
          async () => {
            await fetch(`${quiet.base}/api.example.com/items/probe`)
            return latestMs()
          },
          { timeout: 10_000 }
        )
        .toBeUndefined()
      await fetch(`${quiet.base}/api.example.com/items/after-close`)
      const second = await hello(quiet.control)
      second.close()
      const open = second.rows.find((r) => r.url.endsWith("/while-open"))
      const closed = second.rows.find((r) => r.url.endsWith("/after-close"))
      expect(open?.ms).toBeTypeOf("number")
      expect(closed).toBeDefined()
      expect(closed?.ms).toBeUndefined()
    },
    LONG
  )

  it(
    "the MCP panel lists each MCP route's server, its tools and calls per tool; a call from the MCP SDK client shows in the count",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-inspector-mcp-"))
      const fixture = join(dir, "mcp.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          routes: [
            {
              family: "mcpFromConfig",
              config: {
                docs: { type: "remote", url: "https://mcp.docs.example/mcp" },
                git: { type: "local", command: ["uvx", "mcp-server-git"] }
              },
              servers: {
                docs: {
                  name: "docs-server",
                  version: "2.1.0",
                  tools: [
                    { name: "lookup", description: "Looks a page up", inputSchema: { type: "object" }, result: "page" },
                    {
                      name: "outline",
                      description: "Outlines a page",
                      inputSchema: { type: "object" },
                      result: "outline"
                    }
                  ]
                }
              }
            }
          ]
        })
      )
      const mcp = await serve(["--fixture", fixture])
      const { page } = await open(mcp.ui)
      await page.click("#tab-mcp")
      await page.waitForSelector('[data-mcp-route="mcp:docs"] tr[data-tool="lookup"]', { timeout: 5_000 })
      const server = await page.$eval('[data-mcp-route="mcp:docs"]', (e) => e.textContent ?? "")
      expect(server).toContain("docs-server")
      expect(server).toContain("v2.1.0")
      expect(
        await page.$$eval('[data-mcp-route="mcp:docs"] tr[data-tool]', (trs) =>
          trs.map((tr) => Array.from(tr.children).map((td) => td.textContent))
        )
      ).toEqual([
        ["lookup", "Looks a page up", "0"],
        ["outline", "Outlines a page", "0"]
      ])
      // The local entry is not a server here; it is listed as not simulated (banner and routes).
      expect(
        await page.$$eval("[data-mcp-route]", (cards) => cards.map((c) => c.getAttribute("data-mcp-route")))
      ).toEqual(["mcp:docs"])
      expect(mcp.output()).toContain("not simulated: mcp:git:")

      const client = new Client({ name: "inspector-test", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.base}/mcp.docs.example/mcp`)))
      expect((await client.callTool({ name: "lookup", arguments: {} })).content).toEqual([
        { type: "text", text: "page" }
      ])
      await client.callTool({ name: "lookup", arguments: { again: true } })
      await page.waitForFunction(
        () => document.querySelector('[data-mcp-route="mcp:docs"] tr[data-tool="lookup"] .calls')?.textContent === "2",
        { timeout: 5_000 }
      )
      expect(await page.$eval('[data-mcp-route="mcp:docs"] tr[data-tool="outline"] .calls', (e) => e.textContent)).toBe(
        "0"
      )
      expect(await page.$eval("#mcp-summary", (e) => e.textContent)).toContain("2 tool calls")
      expect(await page.$eval('[data-mcp-route="mcp:docs"]', (e) => e.textContent)).toContain("1 open session")
      await client.close()
      await page.close()
    },
    LONG
  )

  it(
    "resets the network, downloads a snapshot and restores it from a file",
    async () => {
      const { page } = await open(server.ui)
      const post = (path: string, body: unknown) =>
        fetch(`${server.control}/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
      expect(
        (
          await post("network/register", {
            id: "kept-in-snapshot",
            match: "GET https://snap.example/x",
            respond: { kind: "text", body: "x" }
          })
        ).status
      ).toBe(201)
      await fetch(`${server.base}/snap.example/x`)
      await page.waitForFunction(
        () =>
          Array.from(document.querySelectorAll("#rows .row .url")).some(
            (c) => (c as HTMLElement).title === "https://snap.example/x"
          ),
        { timeout: 5_000 }
      )

      const file = await download(page, "#snapshot-download", mkdtempSync(join(tmpdir(), "simnet-inspector-")))
      const snapshot = JSON.parse(readFileSync(file, "utf8")) as { routes: Array<{ spec: { id?: string } }> }
      expect(snapshot.routes.some((r) => r.spec.id === "kept-in-snapshot")).toBe(true)

      await page.click("#reset")
      await page.waitForFunction(
        () =>
          (document.getElementById("list-count")?.textContent ?? "") === "0 requests" ||
          document.getElementById("list-empty")?.hidden === false,
        { timeout: 5_000 }
      )
      expect((await routesOf(server.control)).some((r) => r.id === "kept-in-snapshot")).toBe(false)

      const input = await page.$("#snapshot-restore")
      await (input as unknown as { uploadFile: (path: string) => Promise<void> }).uploadFile(file)
      await page.click("#tab-routes")
      await page.waitForSelector('tr[data-route="kept-in-snapshot"]', { timeout: 10_000 })
      expect((await routesOf(server.control)).find((r) => r.id === "kept-in-snapshot")?.hits).toBe(1)
      expect(await page.$eval("#header-message", (e) => e.textContent)).toBe("")
      await page.close()
    },
    LONG
  )

  it(
    "takes the control endpoint's token: data paths need it, the page reads it from the fragment or asks for it",
    async () => {
      const secured = await serve([], { SIMNET_TOKEN: "tok-123" })
      expect(secured.output()).not.toContain("tok-123")
      expect((await fetch(`${secured.control}/ui/events`)).status).toBe(401)
      expect((await fetch(`${secured.control}/ui/state`)).status).toBe(401)
      expect((await fetch(`${secured.control}/ui/ticket`, { method: "POST" })).status).toBe(401)
      expect((await fetch(`${secured.control}/ui/drive`)).status).toBe(401)
      expect(
        (await fetch(`${secured.control}/ui/state`, { headers: { authorization: "Bearer tok-123" } })).status
      ).toBe(200)
      expect(await statusWithHost(secured.ui, "evil.example")).toBe(403)
      expect(
        await statusWithHost(`${secured.control}/ui/state`, "rebound.example:80", { authorization: "Bearer tok-123" })
      ).toBe(403)
      expect(await statusWithHost(secured.ui, "localhost")).toBe(200)

      const page = await browser.newPage()
      await page.goto(secured.ui)
      await page.waitForSelector("#token-form:not([hidden])", { timeout: 10_000 })
      await page.type("#token-input", "tok-123")
      await page.keyboard.press("Enter")
      await page.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 10_000 })
      await page.close()
      const fresh = await browser.newPage()
      await fresh.goto(`${secured.ui}#token=tok-123`)
      await fresh.waitForFunction(() => document.getElementById("conn")?.textContent === "live", { timeout: 10_000 })
      expect(fresh.url()).not.toContain("tok-123")
      await fresh.close()
      expect(pageErrors).toEqual([])
    },
    LONG
  )
})
