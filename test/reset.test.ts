/**
 * A reset is logged with no status and `fault: "reset"` (issue 53): whether a `fault` route or
 * chaos (`reset`, `streamCut`) dropped the connection, every view of the request says so and none
 * says 200 — the in-process log, `simnet serve`'s line per request, its trace, `GET network/log`,
 * the inspector's feed and a request's details (no status, no first byte: the request is over,
 * not streaming). The browser's view of the same rows is in `test/internal/inspector.test.ts`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import OpenAI from "openai"
import { Route, Routes, SimulationNetwork } from "simnet"
import { afterEach, describe, expect, it } from "vitest"
import { serve, stopAll } from "./support/serve.ts"

afterEach(stopAll)

const FIXTURE = {
  chaos: { rate: 1, faults: ["reset"], routes: ["chaotic"] },
  routes: [
    { id: "dropped", match: "GET https://faults.example/dropped", respond: { kind: "fault", fault: "reset" } },
    { id: "chaotic", match: "GET https://faults.example/chaotic", respond: { kind: "text", body: "hello" } },
    { id: "fine", match: "GET https://faults.example/fine", respond: { kind: "text", body: "fine" } }
  ]
}

/** Reads a request's body to its end: "read", or how it broke. */
const read = (request: Promise<Response>) =>
  request
    .then((r) => r.text())
    .then(
      () => "read",
      (error: Error) => `broke: ${String(error.cause ?? error)}`
    )

describe("a reset, wherever a request is shown", () => {
  it("in process: the log has no status and no time of answer, fault reset, counted as faulted; a streamCut too", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.fault("GET https://faults.example/dropped", "reset", { id: "dropped" }),
        Route.text("GET https://faults.example/chaotic", "hello", { id: "chaotic" }),
        ...Routes.openai()
      ],
      chaos: { rate: 1, faults: ["reset"], routes: ["chaotic"] },
      llm: [
        {
          steps: [
            [
              {
                type: "text",
                content:
                  "A long answer that the network will cut somewhere in the middle of its stream, well before the end."
              }
            ]
          ]
        }
      ]
    })
    expect(await read(network.fetch("https://faults.example/dropped"))).toMatch(/^broke: .*ECONNRESET/)
    expect(await read(network.fetch("https://faults.example/chaotic"))).toMatch(/^broke: .*ECONNRESET/)
    expect(network.log().map((r) => [r.route?.id, r.status, r.fault, r.answeredMs])).toEqual([
      ["dropped", undefined, "reset", undefined],
      ["chaotic", undefined, "reset", undefined]
    ])
    expect(network.log().every((r) => !("status" in r) || r.status === undefined)).toBe(true)

    const cut = await SimulationNetwork.start({
      routes: Routes.openai(),
      chaos: { rate: 1, faults: ["streamCut"] },
      llm: [
        {
          steps: [
            [
              {
                type: "text",
                content:
                  "A long answer that the network will cut somewhere in the middle of its stream, well before the end."
              }
            ]
          ]
        }
      ]
    })
    const client = new OpenAI({ apiKey: "sk-test", fetch: cut.fetch, maxRetries: 0 })
    await expect(
      (async () => {
        for await (const _ of await client.chat.completions.create({
          model: "gpt-4o",
          messages: [{ role: "user", content: "hi" }],
          stream: true
        }))
          void _
      })()
    ).rejects.toThrow()
    await cut.quiescent()
    expect(cut.log().map((r) => [r.chaos, r.status, r.fault])).toEqual([[{ effect: "streamCut" }, undefined, "reset"]])
  })

  it("simnet serve: its line, its trace, GET network/log and the inspector's feed and details say reset and no status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-reset-"))
    const fixture = join(dir, "fixture.json")
    const traceFile = join(dir, "trace.jsonl")
    writeFileSync(fixture, JSON.stringify(FIXTURE))
    const s = await serve(["--fixture", fixture, "--trace", traceFile], { SIMNET_TOKEN: "" })
    // A page listens while the first two requests are made: the feed sees their heads and ends.
    const abort = new AbortController()
    const events = await fetch(`${s.control}/ui/events`, { signal: abort.signal })
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader()
    let feed = ""
    const rows = new Map<number, Record<string, unknown>>()
    const untilRows = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read()
        if (chunk.done) throw new Error(`the feed ended: ${feed}`)
        feed += chunk.value
        for (const [, event, data] of feed.matchAll(/event: (hello|batch)\ndata: (.*)\n\n/g)) {
          const batch = JSON.parse(data) as { rows: Array<{ seq: number }>; updates?: Array<{ seq: number }> }
          for (const row of [...batch.rows, ...(batch.updates ?? [])])
            rows.set(row.seq, { ...rows.get(row.seq), ...row, event })
        }
      }
    }
    expect(await read(fetch(`${s.base}/faults.example/dropped`))).toMatch(/^broke:/)
    expect(await read(fetch(`${s.base}/faults.example/chaotic`))).toMatch(/^broke:/)
    expect(await read(fetch(`${s.base}/faults.example/fine`))).toBe("read")
    await untilRows(() => rows.size >= 3 && rows.get(3)?.["ms"] !== undefined)
    abort.abort()
    for (const seq of [1, 2]) {
      expect(rows.get(seq)).toMatchObject({ fault: "reset" })
      expect(rows.get(seq)!["status"]).toBeUndefined()
      expect(rows.get(seq)!["ttfb"]).toBeUndefined()
    }
    expect(rows.get(3)).toMatchObject({ status: 200 })

    // The line per request says what broke it where a status would be.
    await expect.poll(() => s.output()).toMatch(/GET https:\/\/faults\.example\/fine -> fine 200 \d+ms/)
    const lines = s
      .output()
      .split("\n")
      .filter((line) => line.includes("faults.example"))
    expect(lines.slice(0, 2).map((line) => line.replace(/\d+ms$/, "Nms"))).toEqual([
      "GET https://faults.example/dropped -> dropped reset Nms",
      "GET https://faults.example/chaotic -> chaotic reset Nms"
    ])

    const log = (await (await fetch(`${s.control}/network/log?since=0`)).json()) as {
      records: Array<Record<string, unknown>>
    }
    expect(log.records.map((r) => [r["seq"], r["status"], r["fault"], r["answeredMs"] === undefined])).toEqual([
      [1, undefined, "reset", true],
      [2, undefined, "reset", true],
      [3, 200, undefined, false]
    ])

    // A page opened after the fact: the hello rows and the details hold no status and no first byte.
    const later = await fetch(`${s.control}/ui/events`)
    const laterReader = later.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ""
    while (!/event: hello\n/.test(text)) text += (await laterReader.read()).value ?? ""
    await laterReader.cancel()
    const hello = JSON.parse(/event: hello\ndata: (.*)\n\n/.exec(text)![1]) as { rows: Array<Record<string, unknown>> }
    expect(hello.rows.filter((r) => r["fault"] === "reset").map((r) => [r["seq"], r["status"], r["ttfb"]])).toEqual([
      [1, undefined, undefined],
      [2, undefined, undefined]
    ])
    for (const seq of [1, 2]) {
      const detail = (await (await fetch(`${s.control}/ui/requests/${seq}`)).json()) as {
        record: Record<string, unknown>
        extra: Record<string, unknown>
      }
      expect([detail.record["status"], detail.record["fault"], detail.extra["status"], detail.extra["ttfb"]]).toEqual([
        undefined,
        "reset",
        undefined,
        undefined
      ])
    }

    s.child.kill("SIGTERM")
    await new Promise((resolve) => s.child.once("exit", resolve))
    const traced = readFileSync(traceFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line["type"] === "request" && line["route"] !== "control")
    expect(traced.map((line) => [line["route"], line["status"], line["outcome"]])).toEqual([
      ["dropped", undefined, "reset"],
      ["chaotic", undefined, "reset"],
      ["fine", 200, "answered"]
    ])
    expect(traced.slice(0, 2).every((line) => !("status" in line))).toBe(true)
  }, 60_000)
})
