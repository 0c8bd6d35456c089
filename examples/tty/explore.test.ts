/**
 * `simnet explore` against the terminal agent (`repl.mjs`), in a network namespace with loopback
 * only: with a crash planted on one input it finds the crash, shrinks the run to the one action
 * that causes it and writes the file; the same seed writes the same bytes; `--replay` fails again
 * where the bug is and holds where it is not; `simnet show` opens the file in headless Chromium
 * (web security on) with the screens as frames, the failing step marked. Without the bug the
 * agent passes 50 runs. And `explore()` from `simnet/testing` checks a property of the caller's.
 * A run that takes no action exits 2 saying why; the fixture's files are each run's working
 * directory; a refusal is answered as under `simnet run`.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { explore, ExploreFailed, exploreResult } from "../../src/testing.ts"
import { namespaces } from "../../test/support/agentJudge.ts"
import { launchSecureChromium } from "../../test/support/chromium.ts"

const root = join(import.meta.dirname, "..", "..")
const repl = join(import.meta.dirname, "repl.mjs")
const simnet = join(root, "bin", "simnet.js")
const dir = mkdtempSync(join(tmpdir(), "simnet-explore-"))
const caDir = join(dir, "ca")
const fixture = join(dir, "fixture.json")
writeFileSync(
  fixture,
  JSON.stringify({
    routes: [{ family: "openai" }],
    prompts: ["What is the capital of France?", "crash"],
    llm: {
      rules: [
        {
          match: { contains: "capital of France" },
          behaviour: { type: "respond", steps: [[{ type: "text", content: "Paris." }]] }
        }
      ]
    }
  })
)

/** Runs `simnet ARGS` in a namespace of its own with loopback only: its exit code and output. */
const inNamespace = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const quoted = [process.execPath, simnet, ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")
  const child = spawn("unshare", ["-n", "bash", "-c", `ip link set lo up && exec ${quoted}`], {
    cwd: root,
    // Node's warnings are left on: nothing simnet sets may make the app print one (its pid would
    // make two runs' screens differ).
    env: { ...process.env, SIMNET_CA_DIR: caDir, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (data: Buffer) => (out += data.toString()))
  child.stderr!.on("data", (data: Buffer) => (out += data.toString()))
  const [code] = await once(child, "exit")
  return { code: code as number, out }
}

const exploreArgs = (out: string, runs: number, actions: number) => [
  "explore",
  "--fixture",
  fixture,
  "--seed",
  "7",
  "--runs",
  String(runs),
  "--actions",
  String(actions),
  "--quiet-ms",
  "100",
  "--cols",
  "80",
  "--rows",
  "16",
  "--out",
  out,
  "--",
  process.execPath,
  repl
]

describe.skipIf(!namespaces)(
  `simnet explore on a terminal agent${namespaces ? "" : " (skipped: no network namespace here)"}`,
  () => {
    it("finds a planted crash, shrinks it to one action, writes the same file for the same seed, replays it and shows it", async () => {
      const first = await inNamespace(exploreArgs(join(dir, "a"), 20, 4), { REPL_CRASH_ON: "crash" })
      expect(first.code, first.out).toBe(1)
      expect(first.out).toContain("simnet explore: a run failed: the program exited with code 1")
      expect(first.out).toContain(`to 1 action; it fails at step 1: submit "crash"`)
      const file = join(dir, "a", "explore-7.json")
      expect(first.out).toContain(`simnet show ${file}`)
      const saved = JSON.parse(readFileSync(file, "utf8"))
      expect(saved).toMatchObject({
        simnet: "explore-failure/v1",
        seed: 7,
        case: { actions: [{ type: "submit", text: "crash" }] },
        failure: { step: 1, action: 'submit "crash"' }
      })
      expect(saved.steps[1].screen.lines.join("\n")).toContain("TypeError: cannot read the answer to crash")
      expect(saved.steps[1].exit).toEqual({ code: 1 })

      // The same seed, the same bytes.
      const second = await inNamespace(exploreArgs(join(dir, "b"), 20, 4), { REPL_CRASH_ON: "crash" })
      expect(second.code, second.out).toBe(1)
      expect(readFileSync(join(dir, "b", "explore-7.json"), "utf8")).toBe(readFileSync(file, "utf8"))

      // --replay: the bug is still there, then gone.
      const again = await inNamespace(["explore", "--replay", file, "--", process.execPath, repl], {
        REPL_CRASH_ON: "crash"
      })
      expect(again.code, again.out).toBe(1)
      expect(again.out).toContain(`failed again at step 1 (submit "crash"): the program exited with code 1`)
      const fixed = await inNamespace(["explore", "--replay", file])
      expect(fixed.code, fixed.out).toBe(0)
      expect(fixed.out).toContain("every step held")

      // simnet show: the screens as frames, the failing step marked and shown first.
      const shown = spawn(process.execPath, [simnet, "show", file], { stdio: ["ignore", "pipe", "pipe"] })
      try {
        const ui = await new Promise<string>((resolve, reject) => {
          let out = ""
          shown.stdout.on("data", (d: Buffer) => {
            out += d
            const found = /inspector:\s+(\S+)/.exec(out)
            if (found) resolve(found[1]!)
          })
          shown.on("exit", (code) => reject(new Error(`simnet show exited ${code}: ${out}`)))
        })
        const browser = await launchSecureChromium()
        try {
          const page = await browser.newPage()
          await page.goto(ui)
          await page.waitForSelector("#panel-screen:not([hidden]) #frames button.failed", { timeout: 20_000 })
          const frames = await page.$$eval("#frames button", (nodes) =>
            nodes.map((n) => `${n.textContent}${n.classList.contains("failed") ? " (failed)" : ""}`)
          )
          expect(frames).toEqual(["0 start", '1 submit "crash" (failed)'])
          expect(await page.$eval("#screen", (n) => n.textContent ?? "")).toContain(
            "TypeError: cannot read the answer to crash"
          )
          expect(await page.$eval("#case", (n) => n.textContent ?? "")).toContain(`simnet explore --replay ${file}`)
          // The start frame, with the request list beside it (none before the first action).
          await page.click("#frames li:first-child button")
          expect(await page.$eval("#screen", (n) => n.textContent ?? "")).toContain("repl ready")
          expect(await page.$eval("#screen-status", (n) => n.textContent ?? "")).toBe("Step 0: start")
        } finally {
          await browser.close()
        }
      } finally {
        shown.kill("SIGTERM")
      }
    }, 180_000)

    it("the agent without the bug passes 50 runs", async () => {
      const passed = await inNamespace(exploreArgs(join(dir, "c"), 50, 3))
      expect(passed.code, passed.out).toBe(0)
      expect(passed.out).toMatch(/simnet explore: 50 runs, \d+ actions, no failure \(seed 7\)/)
    }, 180_000)
  }
)

describe("explore() in simnet/testing", () => {
  it("checks the caller's property after each step, and a failing one is shrunk and written", async () => {
    // The property: the agent never shows a model error. Chaos makes the model answer 5xx.
    const error = await explore([process.execPath, repl], {
      fixture: { routes: [{ family: "openai" }], prompts: ["hello"], chaos: { rate: 1, faults: ["serverError"] } },
      runs: 5,
      actions: 3,
      seed: 3,
      scripts: false,
      quietMs: 100,
      out: join(dir, "d"),
      caDir,
      property: ({ screen }) =>
        !screen.lines.some((line) => line.includes("agent> (error")) || "the agent showed a model error"
    }).then(
      () => undefined,
      (e: unknown) => e
    )
    expect(error).toBeInstanceOf(ExploreFailed)
    const failed = (error as ExploreFailed).result.failure
    expect(failed.reason).toBe("the agent showed a model error")
    expect(failed.actions).toHaveLength(1)
    expect(failed.actions[0]!.type).toBe("submit")
    expect(
      JSON.parse(readFileSync((error as ExploreFailed).file, "utf8")).trace.filter(
        (line: { type: string }) => line.type === "request"
      ).length
    ).toBeGreaterThan(0)
  }, 120_000)
})

describe("simnet explore refuses bad input, naming it (exit 2)", () => {
  it("a command that is not found, a fixture's bad field, a file it did not write, a rate out of range", async () => {
    const bad = join(dir, "bad.json")
    writeFileSync(bad, JSON.stringify({ routes: [{ match: "GET https://api.example.com/x" }] }))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["explore", "--runs", "2", "--", "/nonexistent/agent"], `"/nonexistent/agent" was not found`],
      [["explore", "--fixture", bad, "--", process.execPath, repl], "the fixture: routes[0].respond: Missing key"],
      [["explore", "--replay", bad], "is not a failing run simnet explore wrote"],
      [["explore", "--chaos-rate", "2", "--", process.execPath, repl], "--chaos-rate must be a rate from 0 to 1"],
      [["explore"], "simnet explore needs a command"]
    ]
    for (const [args, said] of cases) {
      const child = spawn(process.execPath, [simnet, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
      let err = ""
      child.stderr!.on("data", (data: Buffer) => (err += data.toString()))
      const [code] = await once(child, "exit")
      expect([code, err]).toEqual([2, expect.stringContaining(said)])
    }
  }, 60_000)
})

/** Runs `simnet ARGS` here: its exit code and output. */
const simnetHere = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [simnet, ...args], {
    cwd: root,
    env: { ...process.env, SIMNET_CA_DIR: caDir, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (data: Buffer) => (out += data.toString()))
  child.stderr!.on("data", (data: Buffer) => (out += data.toString()))
  const [code] = await once(child, "exit")
  return { code: code as number, out }
}

const fixtures = join(root, "test", "fixtures", "tty")

describe("simnet explore: a run that took no action exits 2, saying why", () => {
  it("a command that exits before the first action (its code and last screen), and a ready text that never appears (named)", async () => {
    const showsFile = join(dir, "shows.json")
    writeFileSync(showsFile, JSON.stringify({ files: { "notes/hello.txt": "hello from the workspace" } }))
    const [exited, crashed, notReady] = await Promise.all([
      simnetHere(["explore", "--runs", "3", "--out", join(dir, "idle"), "--", "true"]),
      simnetHere([
        "explore",
        "--runs",
        "3",
        "--out",
        join(dir, "idle"),
        "--",
        process.execPath,
        "-e",
        "console.log('cannot start'); process.exit(4)"
      ]),
      // The timeout of a step (--timeout-ms) bounds the wait for the ready text.
      simnetHere([
        "explore",
        "--fixture",
        showsFile,
        "--runs",
        "3",
        "--ready",
        "never shown",
        "--timeout-ms",
        "2000",
        "--out",
        join(dir, "idle"),
        "--",
        process.execPath,
        join(fixtures, "workspace.mjs")
      ])
    ])
    expect(exited).toEqual({
      code: 2,
      out: "simnet: a run took no action: before its first action, the program exited with code 0; its last screen:\n(a blank screen)\n"
    })
    expect(crashed).toEqual({
      code: 2,
      out: "simnet: a run took no action: before its first action, the program exited with code 4; its last screen:\ncannot start\n"
    })
    expect(notReady.code, notReady.out).toBe(2)
    // What the screen shows by then depends on the machine's speed: the message ends with it.
    expect(notReady.out).toMatch(
      /^simnet: a run took no action: the ready text \(--ready\) "never shown" did not appear within 2000 ms; the screen shows:\n/
    )
    expect(existsSync(join(dir, "idle"))).toBe(false)
  }, 60_000)
})

describe("simnet explore: the fixture's files are each run's working directory", () => {
  it("a program shows a file of its workspace; each run's directory is removed after it, a failing run's kept", async () => {
    const files = { "notes/hello.txt": "hello from the workspace" }
    const fixture = join(dir, "files.json")
    writeFileSync(fixture, JSON.stringify({ files }))
    // Without the file in its working directory the program cannot start: the run would take no action.
    const shown = await simnetHere([
      "explore",
      "--fixture",
      fixture,
      "--runs",
      "2",
      "--actions",
      "1",
      "--ready",
      "hello from the workspace",
      "--quiet-ms",
      "50",
      "--out",
      join(dir, "files"),
      "--",
      process.execPath,
      join(fixtures, "workspace.mjs")
    ])
    expect(shown.code, shown.out).toBe(0)
    expect(shown.out).toContain("simnet explore: 2 runs, 2 actions, no failure")

    // In code: each run's own directory, gone after the run.
    const seen = new Set<string>()
    await explore([process.execPath, join(fixtures, "workspace.mjs")], {
      fixture: { files },
      runs: 3,
      actions: 1,
      quietMs: 50,
      caDir,
      ready: "hello from the workspace",
      property: ({ screen, shows }) => {
        const cwd = screen.lines.find((line) => line.startsWith("cwd "))?.slice(4)
        if (cwd !== undefined) seen.add(cwd)
        return shows("> ") || "no prompt at the end of the line"
      }
    })
    expect(seen.size).toBe(3)
    for (const cwd of seen) expect(existsSync(cwd)).toBe(false)

    // A failing run's directory is kept as the program left it, and named.
    const failed = await exploreResult([process.execPath, join(fixtures, "workspace.mjs")], {
      fixture: { files },
      runs: 5,
      actions: 3,
      quietMs: 50,
      caDir,
      seed: 5,
      out: join(dir, "kept"),
      env: { WORKSPACE_FAIL: "1" },
      ready: "hello from the workspace"
    })
    const workspace = failed.failure?.workspace
    expect(failed.failure?.reason).toBe("the program exited with code 1")
    expect(workspace).toBeDefined()
    expect([
      readFileSync(join(workspace!, "notes", "hello.txt"), "utf8"),
      readFileSync(join(workspace!, "left.txt"), "utf8")
    ]).toEqual(["hello from the workspace", "left behind"])
    expect(JSON.parse(readFileSync(failed.failure!.file, "utf8")).steps[0].screen.lines[1]).toBe(`cwd ${workspace}`)
  }, 120_000)
})

describe.skipIf(!namespaces)(
  `simnet explore answers refusals as simnet run does${namespaces ? "" : " (skipped: no network namespace here)"}`,
  () => {
    it("the same status and the same body for a request no route answers", async () => {
      const fixture = join(dir, "no-routes.json")
      writeFileSync(fixture, JSON.stringify({ routes: [] }))
      const program = join(fixtures, "refused.mjs")
      const seen = async (args: ReadonlyArray<string>, out: string) => {
        const done = await inNamespace(args, { REFUSAL_OUT: out })
        expect(done.code, done.out).toBe(0)
        return JSON.parse(readFileSync(out, "utf8")) as unknown
      }
      const underRun = await seen(
        ["run", "--fixture", fixture, "--", process.execPath, program],
        join(dir, "refused-run.json")
      )
      const underExplore = await seen(
        [
          "explore",
          "--fixture",
          fixture,
          "--runs",
          "1",
          "--actions",
          "1",
          "--ready",
          "asked",
          "--out",
          join(dir, "refused"),
          "--",
          process.execPath,
          program
        ],
        join(dir, "refused-explore.json")
      )
      // One expectation for both.
      for (const answer of [underRun, underExplore]) {
        expect(answer).toEqual({
          status: 404,
          body: {
            error: {
              tag: "UnregisteredRequest",
              message:
                "simnet: no route for GET https://nowhere.example/refused (no routes registered for this method and host)",
              method: "GET",
              url: "https://nowhere.example/refused",
              candidates: []
            }
          }
        })
      }
    }, 60_000)
  }
)
