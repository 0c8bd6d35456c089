import { Effect, Exit, Layer, Scope } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { describe, expect, it } from "vitest"
import { serveLayer } from "../../src/serve/serve.ts"
import { Redaction, Route, SimulationNetwork, type UnregisteredRequest } from "simnet"

const SECRET = "sk-live-0123456789abcdef"

const credentialHeaders = Object.fromEntries(
  [
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "x-auth-token",
    "private-token",
    "x-amz-security-token",
    "cookie"
  ].map((name) => [name, `${name === "authorization" ? "Bearer " : ""}${SECRET}`])
)

const rejection = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (e: Error) => e.cause
  )) as UnregisteredRequest

describe("credentials stay out of everything a request is shown in", () => {
  it("the log redacts credential headers, URL userinfo, credential query values and body fields", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.text("https://api.example.com/{*path}", "ok")] })
    await network.fetch(`https://user:${SECRET}@api.example.com/a?access_token=${SECRET}&page=2&sig=${SECRET}`, {
      method: "POST",
      headers: { ...credentialHeaders, "x-trace": "visible" },
      body: JSON.stringify({
        user: "ann",
        password: SECRET,
        nested: { refresh_token: SECRET, client_secret: SECRET },
        note: "visible"
      })
    })
    await network.fetch("https://api.example.com/form", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=password&username=ann&password=${SECRET}&client_secret=${SECRET}`
    })
    const log = network.log()
    expect(JSON.stringify(log)).not.toContain(SECRET)
    expect(log[0].url).toBe("https://api.example.com/a?access_token=<redacted>&page=2&sig=<redacted>")
    expect(log[0].headers["x-trace"]).toBe("visible")
    for (const name of Object.keys(credentialHeaders)) expect(log[0].headers[name]).toBe("<redacted>")
    expect(log[0].body!.preview).toContain('"note":"visible"')
    expect(log[0].body!.preview).toContain('"password":"<redacted>"')
    expect(log[1].body!.preview).toBe("grant_type=password&username=ann&password=<redacted>&client_secret=<redacted>")
    // A form's fields are read against the query parameters' names too: an OAuth `code`, a `sig`.
    expect(Redaction.defaultRedactor.bodyText("grant_type=authorization_code&code=abc123&sig=zz&page=2")).toBe(
      "grant_type=authorization_code&code=<redacted>&sig=<redacted>&page=2"
    )
  })

  it("a candidate says which header or query parameter differs, never its value; the message carries no credential", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.text({ url: "https://api.example.com/me", headers: { authorization: "Bearer test-token" } }, "me"),
        Route.text({ url: "https://api.example.com/search", query: { api_key: "expected-key" } }, "found")
      ]
    })
    const me = await rejection(
      network.fetch("https://api.example.com/me", { headers: { authorization: `Bearer ${SECRET}` } })
    )
    expect(me._tag).toBe("UnregisteredRequest")
    expect(me.candidates[0]).toMatchObject({
      reason: "header",
      detail: expect.stringContaining('header "authorization" differs')
    })
    const search = await rejection(network.fetch(`https://api.example.com/search?api_key=${SECRET}`))
    expect(search.candidates[0]).toMatchObject({
      reason: "query",
      detail: expect.stringContaining('"api_key" differs')
    })
    expect(search.url).toBe("https://api.example.com/search?api_key=<redacted>")
    for (const error of [me, search]) {
      expect(error.message).not.toContain(SECRET)
      expect(JSON.stringify(error.candidates)).not.toContain(SECRET)
      expect(error.message).not.toContain("test-token")
      expect(error.message).not.toContain("expected-key")
    }
  })

  it("the lists extend per network", async () => {
    const network = await SimulationNetwork.start({
      redact: { headers: ["X-Session"], query: ["sessionid"], bodyFields: ["pin"] },
      routes: [Route.text({ url: "https://api.example.com/x", headers: { "x-session": "a" } }, "ok")]
    })
    const error = await rejection(
      network.fetch(`https://api.example.com/x?sessionid=${SECRET}`, {
        method: "POST",
        headers: { "x-session": SECRET },
        body: JSON.stringify({ pin: SECRET })
      })
    )
    expect(error.message).not.toContain(SECRET)
    expect(JSON.stringify(network.log())).not.toContain(SECRET)
    expect(network.log()[0].headers["x-session"]).toBe("<redacted>")
    await expect(SimulationNetwork.start({ redact: { headers: "authorization" } as never })).rejects.toMatchObject({
      _tag: "InvalidNetworkOption",
      option: "redact.headers"
    })
  })

  it("messages are bounded: an 8M-character URL makes a short message", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.text("GET https://api.example.com/a", "ok")] })
    const error = await rejection(network.fetch(`https://api.example.com/${"x".repeat(8_000_000)}`))
    expect(error.message.length).toBeLessThan(4 * Redaction.MAX_SHOWN_URL)
    expect(error.url.length).toBeLessThan(Redaction.MAX_SHOWN_URL + 32)
    expect(network.log()[0].url.length).toBeLessThan(Redaction.MAX_SHOWN_URL + 32)
  })

  it("a RouteFailed message shows the redacted URL", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.text(
          {
            url: () => {
              throw new Error("predicate broke")
            }
          },
          "never"
        )
      ]
    })
    const error = (await network.fetch(`https://api.example.com/?token=${SECRET}`).then(
      () => undefined,
      (e: Error) => e.cause
    )) as Error
    expect(error).toMatchObject({ _tag: "RouteFailed" })
    expect(error.message).toContain("token=<redacted>")
    expect(error.message).not.toContain(SECRET)
  })

  it("simnet serve's 502 bodies carry no credential", async () => {
    const network = await Effect.runPromise(
      SimulationNetwork.make({
        routes: [
          Route.text({ url: "https://api.example.com/me", headers: { authorization: "Bearer test-token" } }, "me")
        ]
      })
    )
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(serveLayer(network, 0), scope))
    const server = Effect.runSync(Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context)))
    const base = HttpServer.formatAddress(server.address)
    try {
      const response = await fetch(`${base}/api.example.com/me?access_token=${SECRET}`, {
        headers: { authorization: `Bearer ${SECRET}`, cookie: `s=${SECRET}` }
      })
      expect(response.status).toBe(502)
      const text = await response.text()
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain("test-token")
      expect(JSON.parse(text).error).toMatchObject({
        tag: "UnregisteredRequest",
        url: "https://api.example.com/me?access_token=<redacted>"
      })
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})

describe("credential names are matched by their words, whatever their case, separators or encoding", () => {
  const camel = {
    accessToken: SECRET,
    clientSecret: SECRET,
    refreshToken: SECRET,
    privateKey: SECRET,
    apiSecret: SECRET,
    credentials: { user: "ann", value: SECRET },
    visible: "shown",
    author: "Jane"
  }
  const vendorHeaders = {
    "x-api-token": SECRET,
    "ocp-apim-subscription-key": SECRET,
    "x-rapidapi-key": SECRET,
    "X-Session-Id": SECRET,
    "idempotency-key": "shown-key"
  }
  const query = `access-token=${SECRET}&auth_token=${SECRET}&apiSecret=${SECRET}&page=2`
  // A JSON key written with an escape, and a percent-encoded form key.
  const escaped = `{"pass\\u0077ord":"${SECRET}","acce\\u0073s_token":"${SECRET}","note":"shown"}`
  const form = `user=ann&pass%77ord=${SECRET}&client%5Fsecret=${SECRET}&x=shown`

  it("the log, the candidates and the snapshot show none of them", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.text("https://api.example.com/{*path}", "ok"),
        Route.text(
          {
            method: "POST",
            url: "https://match.example/login",
            body: { accessToken: "expected-secret-value", user: "ann" }
          },
          "in"
        )
      ]
    })
    await network.fetch(`https://api.example.com/a?${query}`, {
      method: "POST",
      headers: { ...vendorHeaders, "content-type": "application/json" },
      body: JSON.stringify(camel)
    })
    await network.fetch("https://api.example.com/b", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: escaped
    })
    await network.fetch("https://api.example.com/c", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form
    })
    const miss = await rejection(
      network.fetch("https://match.example/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ accessToken: SECRET, user: "bob" })
      })
    )
    const log = network.log()
    const state = await Effect.runPromise(network.network.state)
    for (const shown of [JSON.stringify(log), JSON.stringify(state), miss.message, JSON.stringify(miss.candidates)]) {
      expect(shown).not.toContain(SECRET)
      expect(shown).not.toContain("expected-secret-value")
    }
    expect(log[0].url).toBe(
      "https://api.example.com/a?access-token=<redacted>&auth_token=<redacted>&apiSecret=<redacted>&page=2"
    )
    expect(log[0].headers["idempotency-key"]).toBe("shown-key")
    for (const name of Object.keys(vendorHeaders).filter((n) => n !== "idempotency-key"))
      expect(log[0].headers[name.toLowerCase()]).toBe("<redacted>")
    expect(log[0].body!.preview).toContain('"visible":"shown"')
    expect(log[0].body!.preview).toContain('"author":"Jane"')
    expect(log[0].body!.preview).toContain('"credentials":"<redacted>"')
    expect(log[1].body!.preview).toContain('"note":"shown"')
    expect(log[2].body!.preview).toBe("user=ann&pass%77ord=<redacted>&client%5Fsecret=<redacted>&x=shown")
  })

  it("words extend per network, and the matcher is the one redactor: Redaction.defaultRedactor decides names the same way", () => {
    const redactor = new Redaction.Redactor({ words: ["pin"] })
    expect(redactor.isCredentialName("cardPin")).toBe(true)
    expect(Redaction.defaultRedactor.isCredentialName("cardPin")).toBe(false)
    for (const name of [
      "accessToken",
      "client_secret",
      "X-Api-Token",
      "ocp-apim-subscription-key",
      "apiSecret",
      "AUTH-TOKEN",
      "privateKey",
      "sessionId",
      "x-amz-signature",
      "authtoken"
    ]) {
      expect([name, Redaction.defaultRedactor.isCredentialName(name)]).toEqual([name, true])
    }
    for (const name of [
      "author",
      "page",
      "keyboardLayout",
      "monkeys",
      "idempotency-key",
      "content-type",
      "tokenizer_model"
    ]) {
      expect([name, Redaction.defaultRedactor.isCredentialName(name)]).toEqual([name, false])
    }
  })

  it("simnet serve's 502 body, its line per request, its trace, its snapshot and the inspector's request detail show none of them", async () => {
    const { mkdtempSync, readFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const { serve, raw, stopAll } = await import("../support/serve.ts")
    const trace = join(mkdtempSync(join(tmpdir(), "simnet-redact-")), "trace.jsonl")
    try {
      const served = await serve(["--trace", trace])
      const miss = await raw(
        served.port,
        "POST",
        `/nowhere.example/x?${query}`,
        { ...vendorHeaders, "content-type": "application/json" },
        JSON.stringify(camel)
      )
      expect(miss.status).toBe(502)
      await raw(served.port, "POST", "/api.example.com/items/1", { "content-type": "application/json" }, escaped)
      const snapshot = await raw(served.port, "GET", "/experimental/simulation/snapshot")
      const detail = await raw(served.port, "GET", "/experimental/simulation/ui/requests/1")
      expect(detail.status).toBe(200)
      // Each request's trace line is written when it ends: wait until the last one is there.
      await expect
        .poll(
          () =>
            readFileSync(trace, "utf8")
              .split("\n")
              .filter((line) => line.includes('"type":"request"')).length,
          { timeout: 5_000 }
        )
        .toBeGreaterThanOrEqual(2)
      for (const shown of [miss.body, snapshot.body, detail.body, readFileSync(trace, "utf8"), served.output()])
        expect(shown).not.toContain(SECRET)
    } finally {
      stopAll()
    }
  }, 30_000)

  it("SIMNET_LOG, written by an unmodified app under --import simnet/register, shows none of them", async () => {
    const { execFileSync } = await import("node:child_process")
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const dir = mkdtempSync(join(tmpdir(), "simnet-log-"))
    const fixture = join(dir, "fixture.json")
    const log = join(dir, "requests.jsonl")
    writeFileSync(
      fixture,
      JSON.stringify({
        routes: [{ match: "POST https://api.example.com/{*rest}", respond: { kind: "text", body: "ok" } }]
      })
    )
    const app = `
      await fetch("https://api.example.com/a?${query}", { method: "POST", headers: ${JSON.stringify({ ...vendorHeaders, "content-type": "application/json" })}, body: ${JSON.stringify(JSON.stringify(camel))} })
      await fetch("https://api.example.com/b", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: ${JSON.stringify(form)} })
    `
    execFileSync(
      process.execPath,
      ["--conditions=simnet-source", "--import", "simnet/register", "--input-type=module", "-e", app],
      { env: { ...process.env, SIMNET_FIXTURE: fixture, SIMNET_LOG: log }, cwd: process.cwd() }
    )
    const written = readFileSync(log, "utf8")
    expect(written.trim().split("\n")).toHaveLength(2)
    expect(written).not.toContain(SECRET)
    expect(written).toContain("shown")
  }, 30_000)
})

describe("redaction by meaning, not substring", () => {
  it("a model's token counts are shown (max_tokens, prompt_tokens, maxOutputTokens, token_count); tokens that are credentials are not", () => {
    for (const count of [
      "max_tokens",
      "maxTokens",
      "max_output_tokens",
      "maxOutputTokens",
      "prompt_tokens",
      "completion_tokens",
      "total_tokens",
      "input_tokens",
      "cached_tokens",
      "reasoning_tokens",
      "token_count",
      "budgetTokens",
      "tokens_per_second"
    ]) {
      expect(Redaction.defaultRedactor.isCredentialName(count), count).toBe(false)
    }
    for (const secret of [
      "access_token",
      "accessToken",
      "refresh_token",
      "id_token",
      "x-api-token",
      "tokens",
      "token",
      "tokenSecret",
      "max_secret"
    ]) {
      expect(Redaction.defaultRedactor.isCredentialName(secret), secret).toBe(true)
    }
    expect(
      Redaction.defaultRedactor.bodyText(
        JSON.stringify({ model: "gpt-4o", max_tokens: 256, access_token: "sk-live-1" })
      )
    ).toBe(JSON.stringify({ model: "gpt-4o", max_tokens: 256, access_token: "<redacted>" }))
  })

  it("a cache's key and a model's signatures are shown, so a trace sends the same bodies again; keys and URL signatures that grant access are not", () => {
    const r = Redaction.defaultRedactor
    const model = {
      model: "gpt-5",
      max_output_tokens: 64,
      prompt_cache_key: "session-42",
      contents: [{ parts: [{ text: "hi", thoughtSignature: "CiQB0e2Kb==" }] }],
      messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "…", signature: "EqQBCkYIBxgC" }] }],
      idempotency_key: "op-7"
    }
    // Every field of a model request is shown as it was: the body round-trips.
    expect(r.bodyText(JSON.stringify(model))).toBe(JSON.stringify(model))
    for (const secret of [
      "api_key",
      "apiKey",
      "password",
      "authorization",
      "x-api-key",
      "secret_key",
      "private_key",
      "session_key",
      "client_secret"
    ]) {
      expect(r.bodyText(JSON.stringify({ [secret]: "s3cr3t" })), secret).toBe(
        JSON.stringify({ [secret]: "<redacted>" })
      )
    }
    // In a URL or a header a signature grants access (a presigned URL, a webhook): hidden there.
    expect(r.url("https://bucket.example.com/o?X-Amz-Signature=abc&signature=def&prompt_cache_key=k")).toBe(
      "https://bucket.example.com/o?X-Amz-Signature=<redacted>&signature=<redacted>&prompt_cache_key=k"
    )
    expect(
      r.headers(new Headers({ "x-hub-signature-256": "sha256=abc", "x-api-key": "k", "idempotency-key": "op-7" }))
    ).toEqual({ "x-hub-signature-256": "<redacted>", "x-api-key": "<redacted>", "idempotency-key": "op-7" })
  })
})

describe("one redaction for URLs: credential query parameters by meaning, wherever a URL is kept or shown", () => {
  const SECRETS = {
    gemini: "AIzaSyGEMINIkey0secret0value",
    vertex: "AQ.VERTEXexpressKEY0secret",
    credential: "ASIAPRESIGNEDCREDENTIAL0",
    token: "IQoJb3JpZ2luPRESIGNEDsessionTOKEN",
    signature: "f00dfacec0ffee0presigned0signature",
    sas: "SASsig0secret0value0base64",
    verifier: "pkce0code0verifier0secret0value"
  }
  const presigned = `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${SECRETS.credential}%2F20260101%2Fus-east-1%2Fbedrock%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=${SECRETS.token}&X-Amz-Signature=${SECRETS.signature}`
  const gemini = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hello" }] }] })
  const converse = JSON.stringify({ messages: [{ role: "user", content: [{ text: "hello" }] }] })
  const calls: ReadonlyArray<readonly [string, string, string | undefined]> = [
    [
      "POST",
      `/generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=${SECRETS.gemini}`,
      gemini
    ],
    [
      "POST",
      `/aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.0-flash:generateContent?key=${SECRETS.vertex}`,
      gemini
    ],
    ["POST", `/bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/converse?${presigned}`, converse],
    [
      "POST",
      `/generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?code_verifier=${SECRETS.verifier}`,
      "not a request"
    ],
    ["GET", `/bucket.s3.amazonaws.com/report.csv?${presigned}`, undefined],
    [
      "GET",
      `/files.blob.core.windows.net/c/report.csv?sv=2024-05-04&se=2026-01-02T00%3A00%3A00Z&sr=b&sp=r&sig=${SECRETS.sas}`,
      undefined
    ]
  ]
  const fixture = {
    routes: [
      { family: "gemini" },
      { family: "vertex", baseUrl: "https://aiplatform.googleapis.com" },
      { family: "bedrock" },
      { match: "GET https://bucket.s3.amazonaws.com/{*key}", respond: { kind: "text", body: "a,b" } },
      { match: "GET https://files.blob.core.windows.net/{*key}", respond: { kind: "text", body: "a,b" } }
    ],
    llm: [1, 2, 3].map((n) => ({ steps: [[{ type: "text", content: `answer ${n}` }]] }))
  }
  const noSecret = (where: string, text: string) => {
    for (const [name, secret] of Object.entries(SECRETS))
      expect(text.includes(secret), `${where} shows the ${name} secret`).toBe(false)
  }

  it("Gemini's ?key=, Vertex's and a presigned URL reach no snapshot, log, model log, HAR, trace, inspector view or request line", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const { serve, raw, stopAll } = await import("../support/serve.ts")
    const dir = mkdtempSync(join(tmpdir(), "simnet-urls-"))
    const trace = join(dir, "trace.jsonl")
    writeFileSync(join(dir, "fixture.json"), JSON.stringify(fixture))
    try {
      const served = await serve(["--fixture", join(dir, "fixture.json"), "--trace", trace])
      const statuses = []
      for (const [method, path, body] of calls)
        statuses.push(
          (await raw(served.port, method, path, body === undefined ? {} : { "content-type": "application/json" }, body))
            .status
        )
      expect(statuses).toEqual([200, 200, 200, 400, 200, 200])
      const shown = {
        snapshot: (await raw(served.port, "GET", "/experimental/simulation/snapshot")).body,
        log: (await raw(served.port, "GET", "/experimental/simulation/network/log")).body,
        har: (await raw(served.port, "GET", "/experimental/simulation/network/log?format=har")).body,
        inspector: (await raw(served.port, "GET", "/experimental/simulation/ui/state")).body,
        request: (await raw(served.port, "GET", "/experimental/simulation/ui/requests/3")).body
      }
      await expect
        .poll(
          () =>
            readFileSync(trace, "utf8")
              .split("\n")
              .filter((line) => line.includes('"type":"request"')).length,
          { timeout: 10_000 }
        )
        .toBeGreaterThanOrEqual(calls.length)
      for (const [where, text] of Object.entries({
        ...shown,
        trace: readFileSync(trace, "utf8"),
        output: served.output()
      }))
        noSecret(where, text)
      // The model's log keeps each call, its URL as the request log shows it.
      const models = (JSON.parse(shown.snapshot) as { llm: { log: ReadonlyArray<{ url: string; outcome: string }> } })
        .llm.log
      expect(models.map((entry) => entry.url)).toEqual([
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=<redacted>",
        "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.0-flash:generateContent?key=<redacted>",
        expect.stringMatching(
          /^https:\/\/bedrock-runtime\.us-east-1\.amazonaws\.com\/model\/anthropic\.claude-3-haiku\/converse\?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=<redacted>&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=<redacted>&X-Amz-Signature=<redacted>$/
        ),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?code_verifier=<redacted>"
      ])
      expect(models.map((entry) => entry.outcome)).toEqual(["answer", "answer", "answer", "invalid-request"])
    } finally {
      stopAll()
    }
  }, 60_000)

  it("a failing property's file holds no secret of the URLs its case called", async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const fc = (await import("fast-check")).default
    const { property } = await import("simnet/testing")
    const failures = mkdtempSync(join(tmpdir(), "simnet-urls-failures-"))
    writeFileSync(join(failures, "fixture.json"), JSON.stringify(fixture))
    const run = property(
      "calls with keys in the URL",
      [fc.constant(0)],
      async (network) => {
        for (const [method, path, body] of calls)
          await network.fetch(`https:/${path}`, {
            method,
            headers: body === undefined ? {} : { "content-type": "application/json" },
            body
          })
        throw new Error("the case fails after its calls")
      },
      { numRuns: 1, failures, network: () => ({ fixture: join(failures, "fixture.json") }) }
    )
    const error = await run.then(
      () => undefined,
      (e: Error & { file?: string }) => e
    )
    expect(error?.file, error?.message).toBeDefined()
    const file = readFileSync(error!.file!, "utf8")
    noSecret("the failure file", file)
    expect(file).toContain("key=<redacted>")
  }, 60_000)

  it("property: whatever the URL, no value of a credential-named query parameter (or fragment field) survives, every other value does, and redacting again changes nothing", async () => {
    const fc = (await import("fast-check")).default
    const credentialNames = [
      "key",
      "api_key",
      "apiKey",
      "X-Amz-Signature",
      "x-amz-credential",
      "X-Amz-Security-Token",
      "X-Goog-Signature",
      "X-Goog-Credential",
      "sig",
      "Signature",
      "AWSAccessKeyId",
      "access_token",
      "refresh_token",
      "id_token",
      "client_secret",
      "password",
      "passwd",
      "code_verifier",
      "oauth_verifier",
      "token",
      "auth",
      "session",
      "sessionId",
      "x-api-key",
      "private_key",
      "secret",
      "jwt",
      "assertion"
    ]
    const plainNames = [
      "page",
      "model",
      "alt",
      "X-Amz-Date",
      "X-Amz-Expires",
      "X-Amz-SignedHeaders",
      "se",
      "sp",
      "sv",
      "sr",
      "prompt_cache_key",
      "max_tokens",
      "q",
      "limit",
      "state",
      "code_challenge"
    ]
    const word = fc.stringMatching(/^[a-z0-9]{1,12}$/)
    const spelled = (name: string) =>
      fc.constantFrom(name, name.toUpperCase(), name.toLowerCase(), encodeURIComponent(name).replace(/_/g, "%5F"))
    const param = fc.oneof(
      fc.record({
        secret: fc.constant(true),
        name: fc.constantFrom(...credentialNames).chain(spelled),
        value: fc.stringMatching(/^[A-Za-z0-9]{8,24}$/).map((v) => `SECRET${v}`)
      }),
      fc.record({
        secret: fc.constant(false),
        name: fc.constantFrom(...plainNames),
        value: word.map((v) => `plain${v}`)
      })
    )
    fc.assert(
      fc.property(
        fc.domain(),
        fc.array(word, { maxLength: 4 }),
        fc.array(param, { maxLength: 8 }),
        fc.array(param, { maxLength: 3 }),
        fc.boolean(),
        (host, segments, query, fragment, userinfo) => {
          const pairs = (list: ReadonlyArray<{ name: string; value: string }>) =>
            list.map(({ name, value }) => `${name}=${value}`).join("&")
          const url = `https://${userinfo ? "ann:SECRETuserinfo@" : ""}${host}/${segments.join("/")}${query.length === 0 ? "" : `?${pairs(query)}`}${fragment.length === 0 ? "" : `#${pairs(fragment)}`}`
          const shown = Redaction.defaultRedactor.url(url)
          for (const { secret, value } of [...query, ...fragment])
            expect(shown.includes(value), `${url} -> ${shown}`).toBe(!secret)
          expect(shown).not.toContain("SECRETuserinfo")
          expect(Redaction.defaultRedactor.url(shown)).toBe(shown)
          expect(new URL(shown).pathname).toBe(new URL(url).pathname)
        }
      ),
      { numRuns: 500, seed: 54 }
    )
  })
})
