/**
 * The judge of issue 36: opencode's TUI as a person meets it (no `run` subcommand), under `simnet
 * run --tty` with a fixture, its built-in `openai` provider keyed by `OPENAI_API_KEY=sk-test`, a
 * fresh home: a prompt typed through the driver socket's `ui.type`/`ui.press` gets the fixture's
 * answer on its screen; and `simnet explore` does 20 generated actions against it (two runs of
 * ten) without a crash. Everything runs in a network namespace with loopback only. Skipped,
 * saying why, where the binary or the namespace cannot be had.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { namespaces, type Traced } from "./support/agentJudge.ts"
import { opencodeBinary } from "./support/opencode.ts"

const root = join(import.meta.dirname, "..")
const found = opencodeBinary()
const binary = "path" in found ? found.path : undefined
const why =
  "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

const ANSWER = "Hello from the fixture, in the TUI."

/** A fresh run directory: home, work, the fixture; and a shell script running `line` in the namespace with opencode's environment. */
const prepare = () => {
  const dir = mkdtempSync(join(tmpdir(), "simnet-opencode-tui-"))
  const home = join(dir, "home")
  const work = join(dir, "work")
  mkdirSync(home)
  mkdirSync(work)
  const fixture = join(dir, "fixture.json")
  writeFileSync(
    fixture,
    JSON.stringify({
      routes: [{ family: "models" }, { family: "models", baseUrl: "https://models.opencode.ai" }, { family: "openai" }],
      prompts: ["say hello", "list the files"],
      llm: {
        rules: [
          {
            id: "title",
            match: { system: "title" },
            behaviour: { type: "respond", steps: [[{ type: "text", content: "Greeting" }]] }
          },
          { id: "answer", match: "any", behaviour: { type: "respond", steps: [[{ type: "text", content: ANSWER }]] } }
        ]
      }
    })
  )
  const script = (line: string) => {
    const file = join(dir, `run-${Math.random().toString(36).slice(2)}.sh`)
    writeFileSync(
      file,
      [
        "set -u",
        "ip link set lo up",
        `cd ${JSON.stringify(work)}`,
        ...[
          `HOME=${home}`,
          `XDG_CONFIG_HOME=${join(home, ".config")}`,
          `XDG_DATA_HOME=${join(home, ".local/share")}`,
          `XDG_CACHE_HOME=${join(home, ".cache")}`,
          `XDG_STATE_HOME=${join(home, ".local/state")}`,
          `SIMNET_CA_DIR=${join(dir, "ca")}`,
          "OPENAI_API_KEY=sk-test",
          "OPENCODE_DISABLE_AUTOUPDATE=1"
        ].map((e) => `export ${JSON.stringify(e)}`),
        line
      ].join("\n")
    )
    return spawnSync("unshare", ["-n", "bash", file], { encoding: "utf8", timeout: 170_000 })
  }
  return { dir, fixture, script }
}

describe.skipIf(why !== undefined)(
  `opencode's TUI under simnet run --tty${why === undefined ? "" : ` (skipped: ${why})`}`,
  () => {
    it("a prompt typed into its TUI gets the fixture's answer on screen; its requests are all in simnet's trace", () => {
      const { dir, fixture, script } = prepare()
      const trace = join(dir, "trace.jsonl")
      const drive = [
        process.execPath,
        join(root, "examples", "tty", "drive.mjs"),
        fixture,
        trace,
        "say hello",
        ANSWER,
        "ctrl+p commands",
        "120x40",
        "--",
        binary!
      ]
      const run = script(`timeout 150 ${drive.map((part) => JSON.stringify(part)).join(" ")}`)
      expect(run.status, run.stderr).toBe(0)
      const seen = JSON.parse(run.stdout.trim()) as {
        started: { error?: unknown }
        answered: { result?: { lines: Array<string> }; error?: unknown }
        rest: { error?: unknown }
        stderr: string
      }
      expect(seen.started.error).toBeUndefined()
      expect(seen.answered.error, seen.stderr).toBeUndefined()
      const screen = seen.answered.result!.lines.join("\n")
      expect(screen).toContain("say hello")
      expect(screen).toContain(ANSWER)
      expect(seen.rest.error).toBeUndefined()
      const requests = readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Traced)
        .filter((line) => line.type === "request")
      expect(
        requests.filter((r) => r.url === "https://api.openai.com/v1/responses" && r.outcome === "answered").length
      ).toBeGreaterThanOrEqual(1)
      expect(requests.every((r) => r.url.startsWith("https://"))).toBe(true)
    }, 180_000)

    // A fresh home's first start may be slow on a busy machine: a run that never shows the ready text takes no action (exit 2).
    it("simnet explore does 20 generated actions against it without a crash", () => {
      const { dir, fixture, script } = prepare()
      const explore = [
        process.execPath,
        join(root, "bin", "simnet.js"),
        "explore",
        "--fixture",
        fixture,
        "--seed",
        "1",
        "--runs",
        "2",
        "--actions",
        "10",
        "--min-actions",
        "10",
        "--cols",
        "120",
        "--rows",
        "40",
        "--ready",
        "ctrl+p commands",
        "--timeout-ms",
        "30000",
        "--out",
        join(dir, "out"),
        "--",
        binary!
      ]
      const run = script(`timeout 160 ${explore.map((part) => JSON.stringify(part)).join(" ")}`)
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
      expect(run.stdout).toContain("simnet explore: 2 runs, 20 actions, no failure (seed 1)")
    }, 180_000)
  }
)

if (why !== undefined) console.warn(`test/opencode.tui.test.ts skipped: ${why}`)
