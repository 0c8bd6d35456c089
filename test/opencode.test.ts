/**
 * The judge (issue 20): opencode, as shipped (`opencode-ai`'s platform binary, run directly and
 * installed by `test/support/opencode.ts`),
 * against `simnet serve` with a fixture alone — no control calls, no driver. `opencode run "read
 * notes.txt"`: its hidden title call is answered by one rule, the main call by a rule that calls
 * the `read` tool, and the round after it by a rule that quotes what the tool read. opencode must
 * exit 0 and print the answer, and simnet's trace must hold no refused request and no error.
 *
 * Both processes run in a network namespace with loopback only (`unshare -n`, then
 * `ip link set lo up`): a request simnet does not catch fails at once instead of leaving the
 * machine. Skipped, saying why, where the binary or the namespace cannot be had.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { judgeRun, namespaces, type Traced } from "./support/agentJudge.ts"
import { opencodeBinary } from "./support/opencode.ts"

const root = join(import.meta.dirname, "..")

const found = opencodeBinary()
const binary = "path" in found ? found.path : undefined

const why =
  "why" in found ? found.why : !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : undefined

/** Runs `opencode run PROMPT` against `simnet serve` with its fixture, both in a loopback-only namespace (`judgeRun`). */
const judge = (provider: {
  readonly id: string
  readonly baseURL: string
  readonly apiKey?: string
  readonly model: string
  readonly env?: Readonly<Record<string, string>>
}) =>
  judgeRun({
    prepare: ({ work }) => {
      writeFileSync(join(work, "notes.txt"), "buy milk\n")
      writeFileSync(
        join(work, "opencode.json"),
        JSON.stringify({
          $schema: "https://opencode.ai/config.json",
          provider: {
            [provider.id]: {
              options: {
                baseURL: provider.baseURL,
                ...(provider.apiKey === undefined ? {} : { apiKey: provider.apiKey })
              }
            }
          },
          model: provider.model,
          autoupdate: false,
          share: "disabled"
        })
      )
    },
    fixture: ({ work }) => ({
      routes: [{ family: "models" }, { family: "openai" }, { family: "anthropic" }, { family: "bedrock" }],
      llm: {
        rules: [
          {
            id: "title",
            match: { system: "title" },
            behaviour: { type: "respond", steps: [[{ type: "text", content: "Reading notes" }]] }
          },
          {
            id: "read",
            match: { tool: "read", toolResult: false },
            behaviour: {
              type: "respond",
              steps: [[{ type: "tool_call", name: "read", input: { filePath: join(work, "notes.txt") } }]]
            }
          },
          {
            id: "answer",
            match: { toolResult: true, contains: "buy milk" },
            behaviour: { type: "respond", steps: [[{ type: "text", content: "The notes say: buy milk." }]] }
          }
        ]
      }
    }),
    env: ({ home }) => ({
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      OPENCODE_MODELS_URL: "http://127.0.0.1:4747/models.dev",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      ...provider.env
    }),
    command: `${JSON.stringify(binary!)} run "read notes.txt"`
  })

describe.skipIf(why !== undefined)(
  `opencode against simnet serve, a fixture alone${why === undefined ? "" : ` (skipped: ${why})`}`,
  () => {
    const check = (seen: ReturnType<typeof judge>, api: string) => {
      expect(seen.status, seen.stderr).toBe(0)
      expect(seen.stdout).toContain("The notes say: buy milk.")
      expect(seen.requests.filter((request) => request.url.includes(api)).length).toBe(3)
      expect(
        seen.requests
          .map((request) => [request.url, request.status, request.outcome])
          .filter(([, status, outcome]) => status !== 200 || outcome !== "answered")
      ).toEqual([])
      expect(seen.requests.some((request) => request.url === "https://models.dev/api.json")).toBe(true)
    }

    it("over the OpenAI provider (the Responses API): the title call, a read tool call, and an answer quoting the file", () => {
      check(
        judge({
          id: "openai",
          baseURL: "http://127.0.0.1:4747/api.openai.com/v1",
          apiKey: "sk-test",
          model: "openai/gpt-4o"
        }),
        "api.openai.com/v1/responses"
      )
    }, 120_000)

    it("over the Anthropic provider (Messages): the same turn", () => {
      check(
        judge({
          id: "anthropic",
          baseURL: "http://127.0.0.1:4747/api.anthropic.com/v1",
          apiKey: "sk-ant-test",
          model: "anthropic/claude-sonnet-4-5"
        }),
        "api.anthropic.com/v1/messages"
      )
    }, 120_000)

    it("over Amazon Bedrock (its amazon-bedrock provider, ConverseStream signed with SigV4): the same turn", () => {
      const seen = judge({
        id: "amazon-bedrock",
        baseURL: "http://127.0.0.1:4747/bedrock-runtime.us-east-1.amazonaws.com",
        model: "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
        env: {
          AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
          AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
          AWS_REGION: "us-east-1"
        }
      })
      check(seen, "bedrock-runtime.us-east-1.amazonaws.com/model/")
      expect(
        seen.requests
          .filter((request) => request.url.includes("/model/"))
          .every((request) => request.url.endsWith("/converse-stream"))
      ).toBe(true)
    }, 120_000)
  }
)

if (why !== undefined) console.warn(`test/opencode.test.ts skipped: ${why}`)

/**
 * The judge of issue 22: opencode with a fresh home and no base-URL overrides at all, its built-in
 * `openai` provider keyed by `OPENAI_API_KEY=sk-test`, under `simnet run` — every request it makes
 * goes through simnet's proxy (its catalog, the npm registry, the model), and the namespace has
 * nothing but loopback, so a request that went around the proxy would fail the run.
 */
describe.skipIf(why !== undefined)(
  `opencode under simnet run, no overrides${why === undefined ? "" : ` (skipped: ${why})`}`,
  () => {
    it("prints the fixture's answer and exits 0; its catalog, registry and model calls are all in simnet's log", () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-opencode-run-"))
      const home = join(dir, "home")
      const work = join(dir, "work")
      mkdirSync(home)
      mkdirSync(work)
      const fixture = join(dir, "fixture.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          routes: [
            { family: "models" },
            { family: "models", baseUrl: "https://models.opencode.ai" },
            { family: "openai" }
          ],
          llm: {
            rules: [
              {
                id: "title",
                match: { system: "title" },
                behaviour: { type: "respond", steps: [[{ type: "text", content: "Greeting" }]] }
              },
              {
                id: "answer",
                match: "any",
                behaviour: {
                  type: "respond",
                  steps: [[{ type: "text", content: "Hello from the fixture, through the proxy." }]]
                }
              }
            ]
          }
        })
      )
      const trace = join(dir, "trace.jsonl")
      const script = join(dir, "run.sh")
      const env = [
        `HOME=${home}`,
        `XDG_CONFIG_HOME=${join(home, ".config")}`,
        `XDG_DATA_HOME=${join(home, ".local/share")}`,
        `XDG_CACHE_HOME=${join(home, ".cache")}`,
        `XDG_STATE_HOME=${join(home, ".local/state")}`,
        `SIMNET_CA_DIR=${join(dir, "ca")}`,
        "OPENAI_API_KEY=sk-test"
      ]
      writeFileSync(
        script,
        [
          "set -u",
          "ip link set lo up",
          `cd ${JSON.stringify(work)}`,
          ...env.map((e) => `export ${JSON.stringify(e)}`),
          `timeout 90 ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "bin/simnet.js"))} run --fixture ${JSON.stringify(fixture)} --trace ${JSON.stringify(trace)} -- ${JSON.stringify(binary!)} run "hi"`
        ].join("\n")
      )
      const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 110_000 })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain("Hello from the fixture, through the proxy.")
      const requests = readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Traced)
        .filter((line) => line.type === "request")
      const answered = requests.filter((r) => r.outcome === "answered").map((r) => `${r.method} ${r.url}`)
      expect(answered).toContain("POST https://api.openai.com/v1/responses")
      expect(answered.some((r) => r.startsWith("GET https://models.opencode.ai/api.json"))).toBe(true)
      // The npm registry is not simulated: its requests are refused by simnet, in the log, never sent.
      expect(requests.some((r) => r.url.startsWith("https://registry.npmjs.org/") && r.outcome !== "answered")).toBe(
        true
      )
      expect(requests.every((r) => r.url.startsWith("https://"))).toBe(true)
      expect(run.stderr).toMatch(
        /simnet: \d+ answered, \d+ refused \(first: GET https:\/\/registry\.npmjs\.org\/.*\), 2 model calls; trace: /
      )
    }, 120_000)
  }
)

/**
 * The judge of issue 35: opencode under `simnet run --isolate`, a fresh home given by the sealed
 * room (the HOME simnet was started with stays untouched): it answers from the fixture, and its
 * config and state land in the sandbox's home, which the trace lists.
 */
describe.skipIf(why !== undefined)(
  `opencode under simnet run --isolate${why === undefined ? "" : ` (skipped: ${why})`}`,
  () => {
    it("answers from the fixture; its config and state are in the sandbox's home, listed in the trace; the host's home is untouched", () => {
      const dir = mkdtempSync(join(tmpdir(), "simnet-opencode-isolate-"))
      const home = join(dir, "home")
      mkdirSync(home)
      const fixture = join(dir, "fixture.json")
      writeFileSync(
        fixture,
        JSON.stringify({
          routes: [
            { family: "models" },
            { family: "models", baseUrl: "https://models.opencode.ai" },
            { family: "openai" }
          ],
          files: { "README.md": "# a project\n" },
          llm: {
            rules: [
              {
                id: "title",
                match: { system: "title" },
                behaviour: { type: "respond", steps: [[{ type: "text", content: "Greeting" }]] }
              },
              {
                id: "answer",
                match: "any",
                behaviour: { type: "respond", steps: [[{ type: "text", content: "Hello from the sealed room." }]] }
              }
            ]
          }
        })
      )
      const trace = join(dir, "trace.jsonl")
      const script = join(dir, "run.sh")
      writeFileSync(
        script,
        [
          "set -u",
          "ip link set lo up",
          `export HOME=${JSON.stringify(home)} SIMNET_CA_DIR=${JSON.stringify(join(dir, "ca"))} OPENAI_API_KEY=sk-test OPENCODE_DISABLE_AUTOUPDATE=1`,
          `timeout 90 ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "bin/simnet.js"))} run --isolate --fixture ${JSON.stringify(fixture)} --trace ${JSON.stringify(trace)} -- ${JSON.stringify(binary!)} run "hi"`
        ].join("\n")
      )
      const run = spawnSync("unshare", ["-n", "bash", script], { encoding: "utf8", timeout: 110_000 })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain("Hello from the sealed room.")
      const lines = readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const workspace = lines.find((line) => line["type"] === "filesystem") as {
        home: Array<string>
        files: Record<string, unknown>
      }
      expect(workspace.files["README.md"]).toBeDefined()
      expect(workspace.home.some((path) => path.startsWith(".local/share/opencode/"))).toBe(true)
      // The home simnet was started with: opencode wrote nothing there.
      expect(readdirSync(home)).toEqual([])
    }, 120_000)
  }
)
