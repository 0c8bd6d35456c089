/**
 * The side calls of today's coding-agent CLIs, besides their model calls (issue 33): what each
 * app sends on its own before or beside talking to the model, so a run from a fixture alone meets
 * no refusal. The model itself is its API's family (`anthropic`, `openai`, `gemini`).
 */
import type { Route } from "../core/route.ts"
import * as R from "../kinds/kinds.ts"
import { withBase } from "./shared.ts"

/** The Anthropic API Claude Code talks to unless `ANTHROPIC_BASE_URL` says otherwise. */
export const CLAUDE_CODE_API = "https://api.anthropic.com"

/**
 * Claude Code's side calls at `baseUrl` (its `ANTHROPIC_BASE_URL`; default the Anthropic API):
 * the connectivity check it sends before its first model call (`HEAD` and `GET {base}/api/hello`),
 * answered 200. Route ids `claude-code.hello` (and `claude-code.hello.get`), source `claude-code`.
 */
export const claudeCode = (baseUrl: string = CLAUDE_CODE_API): Array<Route> =>
  withBase("claude-code", baseUrl, (base) => [
    R.status(`HEAD ${base}/api/hello`, 200, { id: "claude-code.hello", source: "claude-code" }),
    R.text(`GET ${base}/api/hello`, "{}", { id: "claude-code.hello.get", source: "claude-code", contentType: "application/json" })
  ])
