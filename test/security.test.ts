/**
 * The control plane answers only the person who started it (issue 18, "a web page the developer
 * visits must not drive simnet"): each case is what a hostile page or client sent in the audit.
 * The browser cases are in `security.browser.test.ts`.
 */
import OpenAI from "openai"
import { afterAll, describe, expect, it } from "vitest"
import { opens, raw, rpc, serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const JSON_TYPE = { "content-type": "application/json" }
const CONTROL = "/experimental/simulation"

describe("a web page the developer visits cannot drive simnet serve", () => {
  it("DNS rebinding: every control path, the inspector's stream and the driver socket refuse a Host that does not name this machine", async () => {
    const { port } = await serve(["--quiet"])
    const evil = { host: `evil.attacker.com:${port}` }
    const route = JSON.stringify({
      id: "planted",
      match: "GET https://x.example/",
      respond: { kind: "text", body: "x" }
    })
    const paths: ReadonlyArray<readonly [string, string, string?]> = [
      ["GET", "snapshot"],
      ["GET", "network/routes"],
      ["GET", "network/log"],
      ["GET", "llm/pending"],
      ["POST", "network/register", route],
      ["POST", "llm/enqueue", JSON.stringify({ steps: [[{ type: "text", content: "x" }]] })],
      ["POST", "reset"],
      ["POST", "snapshot", "{}"],
      ["DELETE", "network/routes/health"],
      ["GET", "ui/events"],
      ["GET", "ui/state"],
      ["GET", "ui"],
      ["GET", "no/such/path"]
    ]
    for (const [method, path, body] of paths) {
      const response = await raw(port, method, `${CONTROL}/${path}`, { ...evil, ...JSON_TYPE }, body)
      expect([method, path, response.status]).toEqual([method, path, 403])
      expect(JSON.parse(response.body).error.message).toContain("DNS rebinding")
    }
    // A driver upgrade with the rebound name is refused before the handshake.
    const upgrade = await raw(port, "GET", `${CONTROL}/drive`, {
      ...evil,
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
    })
    expect(upgrade.status).toBe(403)
    // Nothing changed: the route planted above is not there, the fixture's routes all are.
    const routes = await raw(port, "GET", `${CONTROL}/network/routes`)
    const ids = (JSON.parse(routes.body).routes as Array<{ id: string }>).map((r) => r.id)
    expect(ids).not.toContain("planted")
    expect(ids).toContain("health")
    // Every name of this machine passes.
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `127.9.9.9:${port}`
    ]) {
      expect([host, (await raw(port, "GET", `${CONTROL}/network/routes`, { host })).status]).toEqual([host, 200])
    }
  })

  it("CSRF: a request from another origin, or marked cross-site, is refused and changes nothing; the server's own origin and tools that send none pass", async () => {
    const { port } = await serve(["--quiet"])
    const count = async () =>
      (JSON.parse((await raw(port, "GET", `${CONTROL}/network/routes`)).body).routes as Array<unknown>).length
    const before = await count()
    const foreign: ReadonlyArray<Record<string, string>> = [
      { origin: "http://evil.example" },
      { origin: `http://localhost:${port + 1}` },
      { origin: "null" },
      { origin: `https://127.0.0.1:${port}.evil.example` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" }
    ]
    for (const headers of foreign) {
      // `POST reset` with no body is what a form or `fetch(..., {mode: "no-cors"})` can send.
      expect((await raw(port, "POST", `${CONTROL}/reset`, headers)).status).toBe(403)
      const register = await raw(
        port,
        "POST",
        `${CONTROL}/network/register`,
        { ...headers, ...JSON_TYPE },
        JSON.stringify({ match: "GET https://x.example/", respond: { kind: "text", body: "x" } })
      )
      expect(register.status).toBe(403)
      expect(JSON.parse(register.body).error.tag).toBe("Forbidden")
    }
    expect(await count()).toBe(before)
    // The inspector page's own requests (same origin) and tools without an Origin pass.
    const own = await raw(
      port,
      "POST",
      `${CONTROL}/network/register`,
      { origin: `http://127.0.0.1:${port}`, "sec-fetch-site": "same-origin", ...JSON_TYPE },
      JSON.stringify({ match: "GET https://x.example/", respond: { kind: "text", body: "x" } })
    )
    expect(own.status).toBe(201)
    expect(
      (await raw(port, "POST", `${CONTROL}/reset`, { origin: `http://localhost:${port}`, host: `localhost:${port}` }))
        .status
    ).toBe(200)
    expect((await raw(port, "POST", `${CONTROL}/reset`, { "sec-fetch-site": "none" })).status).toBe(200)
    expect(await count()).toBe(before)
  })

  it("cross-site WebSocket hijacking: neither driver socket upgrades for another origin", async () => {
    const { port } = await serve(["--quiet"])
    const url = `ws://127.0.0.1:${port}${CONTROL}/drive`
    expect(await opens(url, { origin: "http://evil.example" })).toBe(false)
    expect(await opens(url, { origin: `http://localhost:${port + 1}` })).toBe(false)
    expect(await opens(url, { origin: `http://127.0.0.1:${port}` })).toBe(true)
    expect(await opens(url)).toBe(true)
    // The inspector's socket takes a ticket, and still refuses a foreign origin with a good one.
    const ticket = JSON.parse((await raw(port, "POST", `${CONTROL}/ui/ticket`)).body).ticket as string
    expect(
      await opens(`ws://127.0.0.1:${port}${CONTROL}/ui/drive?ticket=${ticket}`, { origin: "http://evil.example" })
    ).toBe(false)
  })

  it("only the attached driver commands invocations: a replaced socket and one that never attached get -32002 and change nothing", async () => {
    const { base, port } = await serve(["--quiet", "--drive", "--fixture", "test/fixtures/openai-only.json"])
    const url = `ws://127.0.0.1:${port}${CONTROL}/drive`
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${base}/api.openai.com/v1`, maxRetries: 0 })
    const answer = openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
    const first = await rpc(url)
    await first.call("llm.attach")
    const { params } = await first.take((m) => m.method === "llm.request")
    const id = params.id as string
    const stranger = await rpc(url)
    const refused = await stranger.call("llm.chunk", { id, items: [{ type: "textDelta", text: "injected" }] })
    expect(refused.error.code).toBe(-32002)
    expect(refused.error.message).toContain("llm.attach")
    const second = await rpc(url)
    await second.call("llm.attach")
    await first.take((m) => m.method === "llm.replaced")
    for (const method of ["llm.chunk", "llm.finish", "llm.fail", "llm.disconnect"]) {
      const params =
        method === "llm.chunk"
          ? { id, items: [{ type: "textDelta", text: "injected" }] }
          : method === "llm.fail"
            ? { id, status: 500 }
            : { id }
      const reply = await first.call(method, params)
      expect([method, reply.error?.code]).toEqual([method, -32002])
    }
    // Reading is not commanding: the replaced socket may still list and read the log.
    expect((await first.call("llm.pending")).result).toHaveLength(1)
    expect(
      (await second.call("llm.chunk", { id, items: [{ type: "textDelta", text: "from the driver" }] })).result
    ).toBe(true)
    expect((await second.call("llm.finish", { id })).result).toBe(true)
    expect((await answer).choices[0].message.content).toBe("from the driver")
    for (const socket of [first, second, stranger]) socket.ws.close()
  })

  it("the Authorization scheme is case-insensitive (RFC 9110): bearer, BEARER and Bearer all pass with the token", async () => {
    const { port } = await serve(["--quiet"], { SIMNET_TOKEN: "s3cret" })
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect([
        scheme,
        (await raw(port, "GET", `${CONTROL}/network/routes`, { authorization: `${scheme} s3cret` })).status
      ]).toEqual([scheme, 200])
    }
    expect((await raw(port, "GET", `${CONTROL}/network/routes`, { authorization: "bearer wrong" })).status).toBe(401)
    expect((await raw(port, "GET", `${CONTROL}/network/routes`, { authorization: "Basic czNjcmV0" })).status).toBe(401)
    // The token does not get a foreign Host or Origin past the checks.
    expect(
      (await raw(port, "GET", `${CONTROL}/network/routes`, { authorization: "Bearer s3cret", host: "evil.example" }))
        .status
    ).toBe(403)
    expect(
      (await raw(port, "POST", `${CONTROL}/reset`, { authorization: "Bearer s3cret", origin: "http://evil.example" }))
        .status
    ).toBe(403)
  })
})
