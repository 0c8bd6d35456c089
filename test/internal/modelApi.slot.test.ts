/**
 * Model APIs are slots (issue 32): an API defined only here, through the public kit
 * (`simnet/models`, issue 55) — its wire (reader, writer, errors, base URL, family name, record
 * sniffing and read-back) and its family — given to a network
 * through `NetworkOptions.models` is answered by the network's one `SimulatedProvider`, named in
 * its model log, listed with its routes, restored from a snapshot, loaded from a fixture, and
 * recorded into a family and a model rule that replay with the upstream gone. A network not given
 * it refuses the family by name, listing the ones it knows.
 */
import { once } from "node:events"
import { mkdtempSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { SimulationNetwork } from "simnet"
import {
  dataFrame,
  eventData,
  type ModelFamily,
  type ModelWire,
  modelApi,
  type Part,
  readWith,
  requestKeyOf,
  type StreamWriter,
  truncatedFrame
} from "simnet/models"

const BASE = "https://api.echo.test"
const EchoRequest = Schema.Struct({
  model: Schema.String,
  input: Schema.String,
  tools: Schema.optional(Schema.Array(Schema.String)),
  stream: Schema.optional(Schema.Boolean)
})
const textOf = (parts: ReadonlyArray<Part>): string =>
  parts.map((part) => (part.kind === "text" ? part.text : "")).join("")
const callsOf = (parts: ReadonlyArray<Part>) =>
  parts.flatMap((part) => (part.kind === "toolCall" ? [{ name: part.name, args: part.fragments.join("") }] : []))

/** A made-up model API, "echo": `POST {base}/v1/generate` with `{ model, input, tools?, stream? }`. */
const echoWire: ModelWire = {
  api: "echo.generate",
  name: "echo",
  defaultBaseUrl: BASE,
  calls: (method, pathname) => method === "POST" && pathname.endsWith("/v1/generate"),
  baseUrlAt: (origin) => (origin === BASE ? undefined : origin),
  requestIdHeader: "x-echo-request",
  read: readWith("echo.generate", EchoRequest, "echo", (body, _request, raw) => ({
    model: body.model,
    stream: body.stream === true,
    turns: [{ role: "user", text: body.input }],
    tools: body.tools ?? [],
    key: requestKeyOf(raw)
  })),
  writer: (): StreamWriter => ({
    open: () => [],
    content: (part) =>
      part.kind === "text"
        ? [dataFrame({ delta: part.text })]
        : part.kind === "toolCall"
          ? [dataFrame({ call: part.name, args: part.fragments.join("") })]
          : [],
    error: (message) => [dataFrame({ error: message })],
    chunk: (value) => dataFrame(value),
    finish: (finish, usage) => [dataFrame({ finish, usage })],
    malformed: () => truncatedFrame({ delta: "cut off" })
  }),
  answer: (_invocation, parts, finish, usage) => ({ output: textOf(parts), calls: callsOf(parts), finish, usage }),
  errorBody: (status, message, reason) => ({ status, message, reason }),
  readBack: (text, streamed) => {
    const events = streamed ? eventData(text) : [JSON.parse(text) as Record<string, any>]
    const output = events.map((event) => event.delta ?? event.output ?? "").join("")
    const calls = events.flatMap((event) => [
      ...(event.call === undefined ? [] : [{ name: event.call, args: event.args }]),
      ...(event.calls ?? [])
    ])
    return {
      actions: [
        ...(output === "" ? [] : [{ type: "text" as const, content: output }]),
        ...calls.map((call) => ({
          type: "tool_call" as const,
          name: String(call.name),
          input: JSON.parse(String(call.args))
        }))
      ],
      finish: calls.length > 0 ? "tool-calls" : "stop",
      usage: events.find((event) => event.usage !== undefined)?.usage
    }
  }
}

const echoFamily: ModelFamily = {
  name: "echo",
  apis: [echoWire],
  routes: (spec) =>
    modelApi("echo", BASE, spec.baseUrl, [
      { name: "generate", method: "POST", path: "/v1/generate", endpoint: "generate", wire: echoWire }
    ])
}

const generate = (fetch: typeof globalThis.fetch, body: Record<string, unknown>, base = BASE) =>
  fetch(`${base}/v1/generate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "echo-1", ...body })
  })

describe("a model API added in a test file", () => {
  it("is not simnet's own: a network not given it refuses the family, naming the ones it knows", async () => {
    const network = await SimulationNetwork.start()
    const refused = await network.registerSpec({ family: "echo" }).catch((error: unknown) => error)
    expect(refused).toMatchObject({ _tag: "InvalidRouteSpec", path: "family" })
    expect((refused as Error).message).toMatch(
      /unknown family "echo"; known families: a2a, account, ag-ui, anthropic, .*gemini.*openai/
    )
    await network.close()
  })

  it("is answered from the one script queue and rules, whole and streamed, listed, logged and restored from a snapshot", async () => {
    const network = await SimulationNetwork.start({ models: [echoFamily] })
    await network.registerSpec({ family: "echo" })
    expect(network.routes().map((route) => route.id)).toEqual(["echo.generate"])
    network.llm.enqueue({ steps: [[{ type: "text", content: "Hello from the queue." }]] })
    network.llm.rule(
      { lastUserMessage: "weather?" },
      { type: "respond", steps: [[{ type: "tool_call", name: "weather", input: { city: "Paris" } }]] }
    )

    const whole = await generate(network.fetch, { input: "hi" })
    expect(whole.status).toBe(200)
    expect(await whole.json()).toMatchObject({ output: "Hello from the queue.", calls: [], finish: "stop" })

    const streamed = await generate(network.fetch, { input: "weather?", stream: true, tools: ["weather"] })
    expect(streamed.headers.get("content-type")).toContain("text/event-stream")
    const frames = eventData(await streamed.text())
    expect(frames[0]).toEqual({ call: "weather", args: JSON.stringify({ city: "Paris" }) })
    expect(frames.at(-1)).toMatchObject({ finish: "tool_calls" })

    const refused = await generate(network.fetch, { input: "nothing scripted" })
    expect(refused.status).toBe(422)
    expect(await refused.json()).toMatchObject({ status: 422, reason: "UnmatchedLlmRequest" })
    const invalid = await network.fetch(`${BASE}/v1/generate`, { method: "POST", body: JSON.stringify({ prompt: 1 }) })
    expect(invalid.status).toBe(400)
    expect(invalid.headers.get("x-echo-request")).toMatch(/^req_sim_/)

    expect(network.llm.log.map((entry) => [entry.api, entry.outcome])).toEqual([
      ["echo.generate", "answer"],
      ["echo.generate", "answer"],
      ["echo.generate", "refused"],
      ["echo.generate", "invalid-request"]
    ])
    expect(network.log().map((record) => record.route?.id)).toEqual([
      "echo.generate",
      "echo.generate",
      "echo.generate",
      "echo.generate"
    ])

    const state = JSON.parse(JSON.stringify(Effect.runSync(network.network.state)))
    const again = await SimulationNetwork.start({ models: [echoFamily] })
    await Effect.runPromise(again.network.restore(state))
    expect(again.routes().map((route) => route.id)).toEqual(["echo.generate"])
    expect(again.llm.log.map((entry) => entry.api)).toEqual([
      "echo.generate",
      "echo.generate",
      "echo.generate",
      "echo.generate"
    ])
    await Promise.all([network.close(), again.close()])
  })

  it("is loaded from a fixture that names its family", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "simnet-echo-")), "echo.json")
    writeFileSync(
      file,
      JSON.stringify({
        routes: [{ family: "echo", baseUrl: "https://echo.internal" }],
        llm: [{ steps: [[{ type: "text", content: "From the fixture." }]] }]
      })
    )
    const network = await SimulationNetwork.start({ fixture: file, models: [echoFamily] })
    expect(network.routes().map((route) => route.id)).toEqual(["echo.generate https://echo.internal"])
    expect(await (await generate(network.fetch, { input: "hi" }, "https://echo.internal")).json()).toMatchObject({
      output: "From the fixture."
    })
    await network.close()
  })

  it("is recorded into its family and a model rule, which replay the upstream's answer with it gone", async () => {
    const upstream = http.createServer((req, res) => {
      let raw = ""
      req.on("data", (d: Buffer) => (raw += d))
      req.on("end", () => {
        const body = JSON.parse(raw) as { input: string; stream?: boolean }
        if (body.stream === true) {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.end(
            dataFrame({ delta: "Recorded, " }) +
              dataFrame({ delta: "streamed." }) +
              dataFrame({ finish: "stop", usage: { inputTokens: 2, outputTokens: 2, totalTokens: 4 } })
          )
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            output: `Recorded: ${body.input}`,
            calls: [],
            finish: "stop",
            usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
          })
        )
      })
    })
    upstream.listen(0, "127.0.0.1")
    await once(upstream, "listening")
    const port = (upstream.address() as { port: number }).port
    const live = await SimulationNetwork.start({
      models: [echoFamily],
      record: { upstream: { "api.echo.test": `http://127.0.0.1:${port}` } }
    })
    expect(await (await generate(live.fetch, { input: "first" })).json()).toMatchObject({ output: "Recorded: first" })
    await (await generate(live.fetch, { input: "second", stream: true })).text()
    const recording = live.recording()
    await live.close()
    upstream.close()
    expect(recording.routes).toEqual([{ family: "echo" }])
    expect(recording.llm?.rules).toMatchObject([
      {
        match: { lastUserMessage: "first", toolResult: false },
        behaviour: {
          type: "respond",
          steps: [[{ type: "text", content: "Recorded: first" }]],
          usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
        }
      },
      {
        match: { lastUserMessage: "second", toolResult: false },
        behaviour: { type: "respond", steps: [[{ type: "text", content: "Recorded, streamed." }]] }
      }
    ])

    const replay = await SimulationNetwork.start({ models: [echoFamily], llmRules: recording.llm?.rules })
    await replay.registerSpec(recording.routes)
    expect(await (await generate(replay.fetch, { input: "first" })).json()).toMatchObject({
      output: "Recorded: first",
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }
    })
    const frames = eventData(await (await generate(replay.fetch, { input: "second", stream: true })).text())
    expect(frames.map((frame) => frame.delta ?? "").join("")).toBe("Recorded, streamed.")
    expect(replay.llm.log.map((entry) => entry.api)).toEqual(["echo.generate", "echo.generate"])
    await replay.close()
  })
})
