/**
 * The judges of issue 33: Claude Code, Codex and Gemini CLI as shipped and unmodified (each
 * pinned, installed by the repo into `node_modules/.cache`), each on its default model, from a
 * fixture that holds only its model family, its side-call family and rules in the script
 * vocabulary (no raw streams). Every run is in a network namespace with loopback only, so a
 * request simnet does not catch fails at once instead of leaving the machine.
 *
 * For each app: a one-shot "hi" through `simnet run` (no configuration: the proxy and CA
 * environment) and through the app's base-URL setting, each exiting 0 with the scripted answer
 * and 0 refused requests; and a tool round in which the app's own tool (Claude Code's `Write`,
 * Codex's `exec`, Gemini CLI's `write_file`) creates `hello.txt` with the scripted content, the
 * next model call carries the tool's result, and the scripted answer is printed. Codex speaks the
 * Responses WebSocket, with no HTTPS fallback. Skipped, saying why, where an app's platform binary
 * or the namespace cannot be had.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { judgeRun, namespaces, type Traced } from "./support/agentJudge.ts"
import { AGENT_APPS, type AgentApp, type Dirs, type Via } from "./support/agentApps.ts"

const HELLO = "hello from simnet\n"
const say = (content: string) => ({ type: "respond", steps: [[{ type: "text", content }]] })
const call = (name: string, input: unknown) => ({ type: "respond", steps: [[{ type: "tool_call", name, input }]] })

const CODEX_EXEC = `const r = await tools.exec_command({ cmd: "printf 'hello from simnet\\\\n' > hello.txt && echo simnet-wrote" }); text(r)`

/** What each app is judged on besides running: its tool round and the wire as it speaks it today. */
interface Judged {
  /** The tool call that writes `hello.txt`, and what the next call's body shows of its result. */
  readonly write: (dirs: Dirs) => { readonly rule: unknown; readonly result: RegExp }
  /** The route ids of its model calls. */
  readonly modelRoutes: RegExp
  /** What its first model call's body shows of the wire as the app speaks it today (issue 33's findings). */
  readonly firstCall: (body: any) => void
}

const JUDGED: Readonly<Record<string, Judged>> = {
  "Claude Code": {
    write: ({ work }) => ({
      rule: {
        id: "write",
        match: { tool: "Write", toolResult: false },
        behaviour: call("Write", { file_path: join(work, "hello.txt"), content: HELLO })
      },
      result: /"type":"tool_result"/
    }),
    modelRoutes: /^anthropic\.messages$/,
    // Its default model sends a `role: "system"` turn inside `messages`: read, not refused.
    firstCall: (body) => expect(body.messages.map((m: { role: string }) => m.role)).toContain("system")
  },
  Codex: {
    write: () => ({
      rule: { id: "write", match: { tool: "exec", toolResult: false }, behaviour: call("exec", CODEX_EXEC) },
      result: /"type":"custom_tool_call_output"/
    }),
    modelRoutes: /^openai\.responses(\.socket)?$/,
    // No `tools` field: its tools come in an `additional_tools` input item.
    firstCall: (body) => {
      expect(body.tools ?? null).toBeNull()
      expect(body.input.some((item: { type?: string }) => item.type === "additional_tools")).toBe(true)
    }
  },
  "Gemini CLI": {
    write: ({ work }) => ({
      rule: {
        id: "write",
        match: { tool: "write_file", toolResult: false },
        behaviour: call("write_file", { file_path: join(work, "hello.txt"), content: HELLO })
      },
      result: /"functionResponse"/
    }),
    modelRoutes: /^gemini\.models\.call$/,
    // Its hidden router call asks for JSON in Gemini's spelling; the `structured` rule answers it.
    firstCall: (body) =>
      expect(body.generationConfig).toMatchObject({
        responseMimeType: "application/json",
        responseJsonSchema: { type: "OBJECT" }
      })
  }
}

type App = AgentApp & Judged
const apps: ReadonlyArray<App> = AGENT_APPS.map((app) => ({ ...app, ...JUDGED[app.name]! }))

const refusals = (requests: ReadonlyArray<Traced>) =>
  requests.filter((r) => r.outcome !== "answered").map((r) => `${r.method} ${r.url} ${r.outcome}`)

/** One run of `app` with `rules` after its preamble, via `simnet run` or its base URL. */
const judge = (app: App, via: Via, prompt: string, rules: (dirs: Dirs) => ReadonlyArray<unknown>, extra?: string) =>
  judgeRun({
    via,
    prepare: (dirs) => app.prepare(dirs, via, extra),
    fixture: (dirs) => ({
      routes: [{ family: app.model }, { family: app.family }],
      llm: { rules: [...app.preamble, ...rules(dirs)] }
    }),
    env: (dirs) => app.env(dirs, via),
    command: app.command((app.found as { path: string }).path, prompt)
  })

for (const app of apps) {
  const why =
    "why" in app.found
      ? app.found.why
      : !namespaces
        ? "no network namespace here (unshare -n needs root on Linux)"
        : undefined
  describe.skipIf(why !== undefined)(
    `${app.name}, unmodified, from a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`,
    () => {
      for (const via of ["run", "serve"] as const) {
        it(`says hi through ${via === "run" ? "simnet run, with no configuration" : "its base-URL setting"}: the scripted answer, nothing refused`, () => {
          const run = judge(app, via, "hi", () => [{ id: "hi", match: {}, behaviour: say("Hello from simnet.") }])
          expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
          expect(run.stdout.trim().split("\n").at(-1)).toBe("Hello from simnet.")
          expect(refusals(run.requests)).toEqual([])
          expect(run.requests.some((r) => app.modelRoutes.test(r.route ?? ""))).toBe(true)
          const first = run.requests.find((r) => app.modelRoutes.test(r.route ?? "") && r.method === "POST")
          if (via === "serve") app.firstCall(JSON.parse(first!.body!.text!))
          if (app.name === "Codex" && via === "run") {
            // With no configuration Codex speaks the Responses WebSocket, through the proxy's tunnel, and never falls back.
            expect(
              run.requests.filter((r) => r.url.endsWith("/v1/responses")).map((r) => `${r.method} ${r.status}`)
            ).toEqual(expect.arrayContaining(["GET 101"]))
            expect(run.requests.some((r) => r.method === "POST" && r.url.endsWith("/v1/responses"))).toBe(false)
          }
        }, 240_000)
      }

      it("creates hello.txt with its own tool for a rule; the next call carries the result and the answer is printed", () => {
        // The answer comes only from a call that carries the tool's result (Codex's: the command's own output).
        const done = {
          id: "done",
          match: { toolResult: true, ...(app.name === "Codex" ? { contains: "simnet-wrote" } : {}) },
          behaviour: say("Wrote hello.txt.")
        }
        const run = judge(app, "run", "write hello.txt", (dirs) => [app.write(dirs).rule, done])
        expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
        expect(run.stdout.trim().split("\n").at(-1)).toBe("Wrote hello.txt.")
        expect(
          existsSync(join(run.dirs.work, "hello.txt"))
            ? readFileSync(join(run.dirs.work, "hello.txt"), "utf8")
            : "(none)"
        ).toBe(HELLO)
        expect(refusals(run.requests)).toEqual([])
        // Over HTTP the trace holds the call's body; Codex's calls went over the WebSocket, where the `done` rule's match is the proof.
        const calls = run.requests.filter((r) => app.modelRoutes.test(r.route ?? "") && r.method === "POST")
        if (app.name !== "Codex") expect(calls.at(-1)?.body?.text ?? "").toMatch(app.write(run.dirs).result)
      }, 240_000)

      if (app.name === "Codex") {
        it("speaks the Responses WebSocket at its base URL when its provider supports it, with no HTTPS fallback", () => {
          const run = judge(
            app,
            "serve",
            "write hello.txt",
            (dirs) => [
              app.write(dirs).rule,
              { id: "done", match: { toolResult: true, contains: "simnet-wrote" }, behaviour: say("Wrote hello.txt.") }
            ],
            "supports_websockets = true"
          )
          expect(run.status, `${run.stdout}\n${run.stderr}\n${run.served}`).toBe(0)
          expect(run.stdout.trim().split("\n").at(-1)).toBe("Wrote hello.txt.")
          expect(readFileSync(join(run.dirs.work, "hello.txt"), "utf8")).toBe(HELLO)
          expect(refusals(run.requests)).toEqual([])
          expect(
            run.requests.map((r) => `${r.method} ${r.route} ${r.status}`).filter((line) => line.includes("openai."))
          ).toEqual(expect.arrayContaining(["GET openai.responses.socket 101"]))
          expect(run.requests.some((r) => r.route === "openai.responses")).toBe(false)
        }, 240_000)
      }
    }
  )
}

/** The Claude Code fixture docs/agents.md gives (its first JSON block under "### Claude Code"), as a user copies it. */
const docsFixture = (): unknown => {
  const page = readFileSync(join(import.meta.dirname, "..", "docs", "agents.md"), "utf8")
  const block = /```json\n([\s\S]*?)```/.exec(page.slice(page.indexOf("### Claude Code")))
  return JSON.parse(block![1])
}

const claude = apps.find((app) => app.name === "Claude Code")!
const claudeWhy =
  "why" in claude.found
    ? claude.found.why
    : !namespaces
      ? "no network namespace here (unshare -n needs root on Linux)"
      : undefined
describe.skipIf(claudeWhy !== undefined)(
  `Claude Code's interactive UI, unmodified${claudeWhy === undefined ? "" : ` (skipped: ${claudeWhy})`}`,
  () => {
    it("starts under simnet run --tty with docs/agents.md's fixture, through its first-run screens, and waits at its input prompt; nothing refused", () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-claude-tty-"))
      const dirs = { work: join(dir, "work"), home: join(dir, "home") }
      mkdirSync(dirs.work)
      mkdirSync(dirs.home)
      const fixture = join(dir, "claude.json")
      writeFileSync(fixture, JSON.stringify(docsFixture()))
      const trace = join(dir, "trace.jsonl")
      // A screen is answered once it is on screen and still, as a person reads it before a key: keys
      // sent while a dialog is still being drawn are lost.
      const wait = (text: string) => [
        { method: "ui.wait", params: { text, timeoutMs: 60_000 } },
        { method: "ui.wait", params: { quietMs: 500, timeoutMs: 30_000 } }
      ]
      const press = (key: string) => ({ method: "ui.press", params: { key } })
      // What a person meets on a first start with ANTHROPIC_API_KEY set: a theme, the key (its default
      // is "No"), the security notes, the folder's trust (its default is "No, exit"); then the prompt.
      const steps = [
        ...wait("Choose the text style"),
        press("enter"),
        ...wait("Do you want to use this API key?"),
        press("up"),
        press("enter"),
        ...wait("Press Enter to continue"),
        press("enter"),
        ...wait("Yes, I trust this folder"),
        press("down"),
        press("enter"),
        ...wait("shift+tab to cycle"),
        { method: "ui.type", params: { text: "typed into the prompt" } },
        ...wait("typed into the prompt"),
        { method: "ui.wait", params: { quiescent: true, quietMs: 500, timeoutMs: 30_000 } }
      ]
      const driver = [
        process.execPath,
        join(import.meta.dirname, "support", "ttySteps.ts"),
        JSON.stringify(steps),
        "--",
        "--quiet",
        "--cols",
        "120",
        "--rows",
        "40",
        "--fixture",
        fixture,
        "--trace",
        trace,
        "--",
        (claude.found as { path: string }).path
      ]
      const script = join(dir, "run.sh")
      writeFileSync(
        script,
        [
          "set -u",
          "ip link set lo up",
          ...Object.entries(claude.env(dirs, "run")).map(([name, value]) => `export ${name}=${JSON.stringify(value)}`),
          `cd ${JSON.stringify(dirs.work)}`,
          `timeout 200 ${driver.map((part) => JSON.stringify(part)).join(" ")}`
        ].join("\n")
      )
      const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 230_000 })
      expect(run.status, run.stderr).toBe(0)
      const seen = JSON.parse(run.stdout.trim()) as {
        replies: Array<{ method: string; error?: unknown; result?: { lines: Array<string> } }>
        running: boolean
        stderr: string
      }
      const failed = seen.replies.find((reply) => reply.error !== undefined)
      expect(failed, `${JSON.stringify(failed)}\n${seen.stderr}`).toBeUndefined()
      expect(seen.replies).toHaveLength(steps.length)
      expect(seen.running).toBe(true)
      // The text sits on the prompt's line, after its "❯".
      expect(seen.replies.at(-1)!.result!.lines.find((line) => line.includes("typed into the prompt"))).toMatch(
        /^❯\s+typed into the prompt\s*$/
      )
      const requests = readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Traced)
        .filter((line) => line.type === "request")
      expect(refusals(requests)).toEqual([])
      // The preflight that exited 1 before: both of its hellos answered 200.
      expect(
        requests
          .filter((r) => r.route === "claude-code.hello.get" || r.route === "claude-code.oauth_hello")
          .map((r) => `${r.route} ${r.status}`)
          .sort()
      ).toEqual(["claude-code.hello.get 200", "claude-code.oauth_hello 200"])
    }, 240_000)
  }
)
