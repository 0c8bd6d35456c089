/**
 * The files `simnet show` opens and `simnet explore --replay` runs again are input like any other:
 * each is decoded by Schema and bounded, a bad one refused with exit 2 and a message naming the bad
 * value's path; a replay says which command it runs when that command is the file's own, and
 * SIGTERM ends it at once, its program reaped.
 */
import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { FAILURE_FILE_BOUNDS } from "../src/testing/failureFiles.ts"

const root = join(import.meta.dirname, "..")
const simnet = join(root, "bin", "simnet.js")
const dir = mkdtempSync(join(tmpdir(), "simnet-failure-files-"))

/** A program that shows a line and waits for nothing it will ever get; a hang-up (its terminal gone) does not end it. */
const idle = [
  process.execPath,
  "-e",
  "process.on('SIGHUP', () => {}); process.stdout.write('idling\\n'); setInterval(() => {}, 1000)"
]

/** A well-formed failing run's file, with `over` in place of its values. */
const exploreFile = (over: Record<string, unknown> = {}) => ({
  simnet: "explore-failure/v1",
  command: idle,
  seed: 1,
  cols: 80,
  rows: 24,
  quietMs: 50,
  timeoutMs: 10_000,
  fixture: {},
  case: { actions: [{ type: "submit", text: "hello" }], scripts: [] },
  failure: { step: 1, action: 'submit "hello"', reason: "the program exited with code 1" },
  steps: [],
  trace: [],
  end: { seed: 1, routes: [] },
  ...over
})

const write = (name: string, value: unknown) => {
  const file = join(dir, name)
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value))
  return file
}

/** Runs `simnet ARGS` to its end: its exit code and standard error. */
const simnetTo = async (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [simnet, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let err = ""
  child.stderr!.on("data", (data: Buffer) => (err += data.toString()))
  const [code] = (await once(child, "exit")) as [number | null]
  return { code, err }
}

/** Whether process `pid` is gone (signal 0 reaches nothing; a zombie is reaped by init soon after its parent ends). */
const gone = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

describe("failure files are decoded and bounded", () => {
  it("simnet show and --replay refuse a malformed file with exit 2, naming the bad value", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["show", write("steps.json", exploreFile({ steps: 5 }))], /steps\.json at steps: Expected array/],
      [
        [
          "show",
          write(
            "step-lines.json",
            exploreFile({ steps: [{ step: 0, action: "start", screen: { lines: "x" }, requests: [], settled: true }] })
          )
        ],
        /at steps\[0\]\.screen\.lines: /
      ],
      [["show", write("not-json.json", "{ no")], /not-json\.json: is not JSON/],
      [
        ["show", write("other.json", { simnet: "something-else" })],
        /at simnet: is not a failing run simnet explore or simnet\/testing's property wrote/
      ],
      [
        [
          "show",
          write("property-end.json", {
            simnet: "property-failure/v1",
            name: "p",
            seed: 1,
            counterexample: [],
            error: "e",
            start: {},
            end: { seed: "one", routes: [] },
            trace: []
          })
        ],
        /property-end\.json at end\.seed: /
      ],
      [
        ["explore", "--replay", write("quiet.json", exploreFile({ quietMs: 1e12 }))],
        new RegExp(`at quietMs: .*${FAILURE_FILE_BOUNDS.quietMs}`)
      ],
      [["explore", "--replay", write("command.json", exploreFile({ command: [] }))], /at command: /],
      [
        [
          "explore",
          "--replay",
          write(
            "too-many.json",
            exploreFile({
              case: {
                actions: Array.from({ length: FAILURE_FILE_BOUNDS.actions + 1 }, () => ({
                  type: "press",
                  key: "enter"
                })),
                scripts: []
              }
            })
          )
        ],
        /at case\.actions: /
      ]
    ]
    for (const [args, said] of cases) {
      const { code, err } = await simnetTo(args)
      expect([args[args.length - 1], code, err]).toEqual([args[args.length - 1], 2, expect.stringMatching(said)])
    }
  }, 120_000)

  it("a 50 MB typed action is refused at once, naming it, before anything runs", async () => {
    const file = write(
      "typed.json",
      exploreFile({ case: { actions: [{ type: "type", text: "x".repeat(50 * 1024 * 1024) }], scripts: [] } })
    )
    const { code, err } = await simnetTo(["explore", "--replay", file])
    expect(code).toBe(2)
    expect(err).toMatch(new RegExp(`at case\\.actions\\[0\\]\\.text: .*${FAILURE_FILE_BOUNDS.text}`))
    expect(err).not.toContain("runs the command")
  }, 60_000)

  it("--replay says when it runs the file's own command, and SIGTERM ends it at once, its program reaped", async () => {
    // A file whose program never shows what the replay waits for: the replay would wait the whole step.
    const file = write("idle.json", exploreFile({ ready: "never shown", timeoutMs: FAILURE_FILE_BOUNDS.timeoutMs }))
    const child = spawn(process.execPath, [simnet, "explore", "--replay", file], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let err = ""
    child.stderr!.on("data", (data: Buffer) => (err += data.toString()))
    await vi.waitFor(
      () => expect(err).toContain(`simnet explore --replay: runs the command ${file} names: ${process.execPath} -e`),
      { timeout: 20_000, interval: 50 }
    )
    let program = 0
    await vi.waitFor(
      () => {
        const found = execFileSync("ps", ["-o", "pid=", "--ppid", String(child.pid)], { encoding: "utf8" })
          .split("\n")
          .map((line) => Number(line.trim()))
          .filter((pid) => pid > 0)
        expect(found.length).toBeGreaterThan(0)
        program = found[0]!
      },
      { timeout: 20_000, interval: 50 }
    )
    const exited = once(child, "exit")
    child.kill("SIGTERM")
    await exited
    await vi.waitFor(() => expect(gone(program)).toBe(true), { timeout: 10_000, interval: 50 })
    // Given a command of its own, nothing is said about the file's.
    const given = await simnetTo([
      "explore",
      "--replay",
      write("given.json", exploreFile({ quietMs: 0, timeoutMs: 2_000 })),
      "--",
      process.execPath,
      "-e",
      "process.exit(0)"
    ])
    expect(given.err).not.toContain("runs the command")
  }, 60_000)
})
