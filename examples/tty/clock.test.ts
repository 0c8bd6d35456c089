/**
 * `simnet explore --clock virtual` (`src/terminal/virtualClock.ts`): an app that waits 30 s of
 * timers after every key (`backoff.mjs`) finishes each wait within the step that caused it, on
 * virtual time, which the result counts; a worker thread and a child Node process join the clock
 * at its current time; the network's delays sleep on it; what a hostile participant says is
 * dropped; a command with no Node process in it never joins the clock, and the result says so.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decodeFixture } from "../../src/network/fixture.ts"
import { caDirectory, loadCa } from "../../src/serve/ca.ts"
import { exploreResult } from "../../src/explore/explore.ts"
import { VIRTUAL_EPOCH } from "../../src/terminal/virtualClock.ts"
import { runCase } from "../../src/explore/exploreRun.ts"

const backoff = join(import.meta.dirname, "backoff.mjs")
const family = join(import.meta.dirname, "..", "..", "test", "fixtures", "tty", "clockFamily.mjs")
const dir = mkdtempSync(join(tmpdir(), "simnet-clock-"))
const caDir = join(dir, "ca")

describe("explore on a virtual clock", () => {
  it("an app that backs off 30 s per key is done with every wait at the end of each step, on virtual time", async () => {
    const lasts: Array<string> = []
    const result = await exploreResult([process.execPath, backoff], {
      clock: "virtual",
      runs: 2,
      actions: 3,
      minActions: 3,
      seed: 5,
      // A step ends once no timer is due within its timeout, counted in virtual time.
      timeoutMs: 60_000,
      ready: "backoff ready",
      caDir,
      out: join(dir, "out"),
      property: ({ step, screen }) => {
        const last = screen.lines.filter((line) => line !== "").at(-1) ?? ""
        lasts.push(last)
        if (step === 0) return undefined
        return (
          /^pending 0, done [1-9]\d*, last took 30000 ms$/.test(last) ||
          `a wait is still pending after the step: ${last}`
        )
      }
    })
    expect(result.failure).toBeUndefined()
    expect(result.actions).toBe(6)
    expect(result.clock?.joined).toBe(2)
    // Each step that gave the app input (a resize gives none) covered its 30 s wait, and no more:
    // waits a step started together (text and Enter read apart) end together.
    const dones = lasts.map((last) => Number(/done (\d+)/.exec(last)?.[1]))
    const waited = dones.filter((done, i) => i > 0 && done > dones[i - 1]!).length
    expect(dones.filter((done) => done === 0)).toHaveLength(2)
    expect(waited).toBeGreaterThan(0)
    expect(result.clock!.virtualMs).toBe(waited * 30_000)
  }, 120_000)

  it("a worker thread and a child Node process join the clock at its current time, their timers on it too", async () => {
    const screens: Array<ReadonlyArray<string>> = []
    const result = await exploreResult([process.execPath, family], {
      clock: "virtual",
      runs: 1,
      actions: 1,
      seed: 5,
      timeoutMs: 60_000,
      ready: "family ready",
      caDir,
      out: join(dir, "out"),
      property: ({ screen }) => void screens.push(screen.lines)
    })
    expect(result.failure).toBeUndefined()
    expect(
      [...screens.at(-1)!]
        .filter((line) => line !== "")
        .slice(1)
        .sort()
    ).toEqual(["child 35000", "main 35000", "worker 35000"])
    expect(result.clock).toEqual({ virtualMs: 35_000, joined: 1 })
  }, 60_000)

  it("the network runs on the clock too: a route's 5 s delay is virtual time", async () => {
    const fixture = await Effect.runPromise(
      decodeFixture({
        routes: [
          { match: "GET https://api.example.com/answer", respond: { kind: "text", body: "forty-two" }, delayMs: 5_000 }
        ]
      })
    )
    const setup = {
      command: process.execPath,
      args: [join(import.meta.dirname, "busy.mjs")],
      fixture,
      seed: 1,
      cols: 60,
      rows: 12,
      quietMs: 0,
      timeoutMs: 30_000,
      ready: "busy ready",
      authority: loadCa(caDirectory(caDir)),
      properties: [],
      clock: "virtual" as const
    }
    const outcome = await Effect.runPromise(
      runCase(setup, { actions: [{ type: "type", text: "f" }], scripts: [], chaos: undefined })
    )
    expect(outcome.steps[1]!.screen.lines).toContain("fetched 1: forty-two")
    // The request came at the clock's start and was answered 5 000 ms later, on the clock.
    expect(outcome.log.map((record) => [record.time, record.answeredMs])).toEqual([[VIRTUAL_EPOCH, 5_000]])
    // Node's fetch (undici) sets its own timers (keep-alive), which run on the clock too: the step
    // covers them, after the answer.
    expect(outcome.clock!.virtualMs).toBeGreaterThanOrEqual(5_000)
  }, 60_000)

  it("what a participant says that is not a report (not JSON, times not finite, a line without end) is dropped: each step comes to rest", async () => {
    const fixture = await Effect.runPromise(decodeFixture({}))
    const setup = {
      command: process.execPath,
      args: [join(import.meta.dirname, "..", "..", "test", "fixtures", "tty", "clockHostile.mjs")],
      fixture,
      seed: 1,
      cols: 60,
      rows: 12,
      quietMs: 0,
      timeoutMs: 5_000,
      ready: "hostile ready",
      authority: loadCa(caDirectory(caDir)),
      properties: [],
      clock: "virtual" as const
    }
    const outcome = await Effect.runPromise(
      runCase(setup, {
        actions: [
          { type: "type", text: "a" },
          { type: "type", text: "bc" }
        ],
        scripts: [],
        chaos: undefined
      })
    )
    expect(outcome.steps.map((step) => [step.settled, step.screen.lines.filter((line) => line !== "").at(-1)])).toEqual(
      [
        [true, "hostile ready"],
        [true, "got 1 bytes"],
        [true, "got 2 bytes"]
      ]
    )
    expect(outcome.clock).toEqual({ virtualMs: 0, joined: 1 })
  }, 60_000)

  it("a command with no Node process in it never joins the clock: the result says so", async () => {
    const result = await exploreResult(
      ["/bin/sh", "-c", 'echo shell ready; while read line; do echo "got $line"; done'],
      {
        clock: "virtual",
        runs: 1,
        actions: 2,
        seed: 5,
        ready: "shell ready",
        caDir,
        out: join(dir, "out")
      }
    )
    expect(result.failure).toBeUndefined()
    expect(result.clock).toEqual({ virtualMs: 0, joined: 0 })
  }, 60_000)
})
