/**
 * Rest, detected rather than waited for (`src/terminal/rest.ts`): with no floor (`quietMs: 0`),
 * an app that computes for 300 ms without a byte of output is not taken for one at rest, and an
 * answer that comes after a request round trip through simnet's proxy (a CONNECT tunnel, a TLS
 * handshake, a route's delay) is on the screen when the step comes to rest, and so is the rest of a
 * line a throttled redraw draws 40 ms later; an app that computes
 * without end is never at rest, and the wait ends at its timeout. The probe that reads a process
 * tree sees a computing tree busy and an idle one asleep.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { decodeFixture } from "../../src/network/fixture.ts"
import { caDirectory, loadCa } from "../../src/serve/ca.ts"
import { uiCall } from "../../src/control/ui.ts"
import { walkProbe } from "../../src/terminal/rest.ts"
import { spawnTerminal } from "../../src/terminal/terminal.ts"
import { runCase } from "../../src/explore/exploreRun.ts"

const busy = join(import.meta.dirname, "busy.mjs")
const dir = mkdtempSync(join(tmpdir(), "simnet-rest-"))

describe.skipIf(process.platform !== "linux")("rest, detected (Linux: read from the app's processes)", () => {
  it("an app computing silently for 300 ms is not at rest; an answer after a request round trip, or after a timer due soon, is seen", async () => {
    const fixture = await Effect.runPromise(
      decodeFixture({
        routes: [
          { match: "GET https://api.example.com/answer", respond: { kind: "text", body: "forty-two" }, delayMs: 150 }
        ]
      })
    )
    const setup = {
      command: process.execPath,
      args: [busy],
      fixture,
      seed: 1,
      cols: 60,
      rows: 12,
      quietMs: 0,
      timeoutMs: 20_000,
      ready: "busy ready",
      env: { NODE_NO_WARNINGS: "1" },
      authority: loadCa(caDirectory(join(dir, "ca"))),
      properties: []
    }
    const actions = [
      { type: "type", text: "c" },
      { type: "type", text: "f" },
      { type: "type", text: "c" },
      { type: "type", text: "f" },
      { type: "type", text: "t" }
    ] as const
    const outcome = await Effect.runPromise(runCase(setup, { actions, scripts: [], chaos: undefined }))
    expect(outcome.failure).toBeUndefined()
    const shown = outcome.steps.map((step) => step.screen.lines.filter((line) => line !== "").at(-1))
    expect(shown).toEqual([
      "busy ready",
      "computed 1",
      "fetched 1: forty-two",
      "computed 2",
      "fetched 2: forty-two",
      "throttled: first half, then the rest"
    ])
    expect(outcome.steps.every((step) => step.settled)).toBe(true)
    // Each fetch step caused its request; the compute steps none.
    expect(outcome.steps.map((step) => step.requests.length)).toEqual([0, 0, 1, 0, 1, 0])
  }, 60_000)

  it("an app that computes without end is never at rest: ui.wait { quiescent: true } ends at its timeout, saying so", async () => {
    const refused = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const terminal = yield* spawnTerminal(process.execPath, ["-e", "console.log('spinning'); for (;;) {}"], {
            cols: 40,
            rows: 5
          })
          yield* terminal.wait({ text: "spinning" })
          return yield* Effect.flip(uiCall(terminal, "ui.wait", { quiescent: true, quietMs: 0, timeoutMs: 1_000 }))
        })
      )
    )
    expect(refused).toMatchObject({
      code: -32004,
      message: expect.stringContaining("the app was not at rest within 1000 ms"),
      data: { reason: "timeout" }
    })
  }, 30_000)

  it("a process tree read by walking it: busy while it computes, asleep when idle, gone when it ended", async () => {
    const child = spawn(
      process.execPath,
      [
        "-e",
        "process.stdin.on('data', () => { const t = performance.now() + 400; while (performance.now() < t); console.log('done') })"
      ],
      { stdio: ["pipe", "pipe", "inherit"] }
    )
    const probe = walkProbe(child.pid!)
    // Node started: its threads settle asleep waiting for input (a scan may catch one running at first).
    await Effect.runPromise(
      Effect.repeat(
        Effect.sync(() => probe.scan()),
        { until: (state) => state === "asleep" }
      )
    )
    const before = probe.usage()
    child.stdin!.write("go\n")
    await Effect.runPromise(
      Effect.repeat(
        Effect.sync(() => probe.scan()),
        { until: (state) => state === "busy" }
      )
    )
    // 400 ms of computing later, its CPU time shows it.
    await once(child.stdout!, "data")
    expect(probe.usage()).not.toBe(before)
    child.kill("SIGKILL")
    await once(child, "exit")
    expect(probe.scan()).toBe("gone")
  }, 30_000)
})
