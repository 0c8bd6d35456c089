/**
 * The three agent CLIs of issue 33 as the judge (`test/agents.test.ts`) and the bench
 * (`bench/agents.bench.ts`) both run them: how each is installed (pinned), configured and started,
 * under `simnet run` (`via: "run"`, no configuration) or against `simnet serve` on port 4747 through
 * its base-URL setting (`via: "serve"`), and the families its fixture holds.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { claudeCodeBinary } from "./claudeCode.ts"
import { codexBinary } from "./codex.ts"
import { geminiCliEntry } from "./geminiCli.ts"

export type Via = "run" | "serve"
export type Dirs = { readonly work: string; readonly home: string }

export interface AgentApp {
  readonly name: string
  readonly found: { readonly path: string } | { readonly why: string }
  /** Its model family and its side-call family. */
  readonly model: string
  readonly family: string
  /** Rules every run of the app needs before its own (Gemini CLI's router call). */
  readonly preamble: ReadonlyArray<unknown>
  /** Writes its configuration into the run's home (`extra`: more lines of Codex's provider). */
  readonly prepare: (dirs: Dirs, via: Via, extra?: string) => void
  readonly env: (dirs: Dirs, via: Via) => Readonly<Record<string, string>>
  /** The shell line that runs it one-shot on `prompt`, its own tools allowed. */
  readonly command: (path: string, prompt: string) => string
}

export const AGENT_APPS: ReadonlyArray<AgentApp> = [
  {
    name: "Claude Code",
    found: claudeCodeBinary(),
    model: "anthropic",
    family: "claude-code",
    preamble: [],
    prepare: () => {},
    env: ({ home }, via) => ({
      HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-simnet-judge",
      ...(via === "serve" ? { ANTHROPIC_BASE_URL: "http://127.0.0.1:4747/api.anthropic.com" } : {})
    }),
    command: (path, prompt) => `${JSON.stringify(path)} -p ${JSON.stringify(prompt)} --allowedTools Write`
  },
  {
    name: "Codex",
    found: codexBinary(),
    model: "openai",
    family: "codex",
    preamble: [],
    prepare: ({ home }, via, extra = "") => {
      mkdirSync(join(home, ".codex"), { recursive: true })
      if (via === "serve") {
        writeFileSync(
          join(home, ".codex", "config.toml"),
          [
            `model_provider = "simnet"`,
            `[model_providers.simnet]`,
            `name = "simnet"`,
            `base_url = "http://127.0.0.1:4747/api.openai.com/v1"`,
            `env_key = "OPENAI_API_KEY"`,
            `wire_api = "responses"`,
            extra
          ].join("\n")
        )
      }
    },
    env: ({ home }) => ({ HOME: home, CODEX_HOME: join(home, ".codex"), OPENAI_API_KEY: "sk-simnet-judge" }),
    command: (path, prompt) =>
      `${JSON.stringify(path)} exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox ${JSON.stringify(prompt)}`
  },
  {
    name: "Gemini CLI",
    found: geminiCliEntry(),
    model: "gemini",
    family: "gemini-cli",
    preamble: [
      { id: "router", match: { structured: true }, behaviour: { type: "respond", steps: [[{ type: "json" }]] } }
    ],
    prepare: ({ home }) => {
      mkdirSync(join(home, ".gemini"), { recursive: true })
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } })
      )
    },
    env: ({ home }, via) => ({
      HOME: home,
      GEMINI_API_KEY: "gm-simnet-judge",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      ...(via === "serve" ? { GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:4747/generativelanguage.googleapis.com" } : {})
    }),
    command: (path, prompt) =>
      `${JSON.stringify(process.execPath)} ${JSON.stringify(path)} -p ${JSON.stringify(prompt)} --yolo`
  }
]
