/**
 * The side calls of today's coding-agent CLIs, besides their model calls (issue 33): what each
 * app sends on its own before or beside talking to the model, so a run from a fixture alone meets
 * no refusal. The model itself is its API's family (`anthropic`, `openai`, `gemini`). Each answer
 * is the shape the app's own code reads (read from the shipped bundle of the pinned version:
 * Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0), chosen to mean "nothing configured":
 * no managed settings, no policy restrictions, no feature flags, no fast mode, no curated
 * plugins, metrics logging off. Telemetry is accepted (and so counted in the log) and never
 * forwarded anywhere.
 */
import type { Route } from "../registry/route.ts"
import { handler } from "../routes/handler/handler.ts"
import { status, text } from "../routes/static/static.ts"
import { withBase } from "./shared.ts"

/** The Anthropic API Claude Code talks to unless `ANTHROPIC_BASE_URL` says otherwise. */
export const CLAUDE_CODE_API = "https://api.anthropic.com"

const JSON_TYPE = "application/json"

/** The origin of Claude Code's OAuth endpoints, fixed whatever `ANTHROPIC_BASE_URL` says. */
const CLAUDE_OAUTH = "https://platform.claude.com"
/** Where Claude Code fetches its release notes from. */
const CLAUDE_CODE_CHANGELOG = "https://raw.githubusercontent.com/anthropics/claude-code/refs/heads/main/CHANGELOG.md"
/** The bucket Claude Code reads its signed model catalog and its official plugins from. */
const CLAUDE_DOWNLOADS = "https://downloads.claude.ai"
/** The npm registry's answer for a package it does not have. */
const NPM_NOT_FOUND = JSON.stringify({ error: "Not found" })

/** A Cloud Storage bucket's 404 for an object it does not hold. */
const notInBucket = (match: string, id: string) =>
  text(
    match,
    "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>",
    {
      id: `claude-code.${id}`,
      source: "claude-code",
      status: 404,
      contentType: "application/xml; charset=UTF-8"
    }
  )

/**
 * Claude Code's side calls at `baseUrl` (its `ANTHROPIC_BASE_URL`; default the Anthropic API),
 * route ids `claude-code.*`, source `claude-code`:
 * - `HEAD`/`GET /api/hello`: the connectivity check, 200;
 * - `GET /api/claude_code/settings`: 204 with a `request-id` (no managed settings, which Claude
 *   Code reads as "none configured" only when Anthropic's request id is there);
 * - `GET /api/claude_code/policy_limits`: `{ restrictions: {} }`;
 * - `GET /api/claude_code/organizations/metrics_enabled`: `{ metrics_logging_enabled: false }`;
 * - `GET /api/claude_code_penguin_mode`: `{ enabled: false, disabled_reason: "preference" }` (fast mode off);
 * - `GET /api/claude_cli/bootstrap`: `{}` (every field of its schema is optional);
 * - `GET /api/directory/server-urls`: `{ urls: [] }`; `GET /mcp-registry/v0/servers`: no servers;
 * - `POST /api/eval/:clientKey` (GrowthBook remote evaluation): `{ features: {} }`;
 * - `POST /api/event_logging/v2/batch`: telemetry, accepted with `{}`;
 * - `HEAD /`: 200.
 */
export const claudeCode = (baseUrl: string = CLAUDE_CODE_API): Array<Route> =>
  withBase("claude-code", baseUrl, (base) => {
    const source = "claude-code"
    const json = (match: string, id: string, body: unknown) =>
      text(match, JSON.stringify(body), {
        id: `claude-code.${id}`,
        source,
        contentType: JSON_TYPE,
        headers: { "request-id": "req_simnet" }
      })
    return [
      status(`HEAD ${base}/api/hello`, 200, { id: "claude-code.hello", source }),
      json(`GET ${base}/api/hello`, "hello.get", {}),
      status(`GET ${base}/api/claude_code/settings`, 204, {
        id: "claude-code.settings",
        source,
        headers: { "request-id": "req_simnet" }
      }),
      json(`GET ${base}/api/claude_code/policy_limits`, "policy_limits", { restrictions: {} }),
      json(`GET ${base}/api/claude_code/organizations/metrics_enabled`, "metrics_enabled", {
        metrics_logging_enabled: false
      }),
      json(`GET ${base}/api/claude_code_penguin_mode`, "penguin_mode", {
        enabled: false,
        disabled_reason: "preference"
      }),
      json(`GET ${base}/api/claude_cli/bootstrap`, "bootstrap", {}),
      json(`GET ${base}/api/directory/server-urls`, "server_urls", { urls: [] }),
      json(`GET ${base}/mcp-registry/v0/servers`, "mcp_registry", { servers: [], metadata: { count: 0 } }),
      json(`POST ${base}/api/eval/:clientKey`, "eval", { features: {} }),
      json(`POST ${base}/api/event_logging/v2/batch`, "event_logging", {}),
      status(`HEAD ${base}/`, 200, { id: "claude-code.root", source }),
      // The interactive start's preflight asks its OAuth host too (wherever the API is), and
      // exits 1 unless both answer 200.
      json(`GET ${CLAUDE_OAUTH}/v1/oauth/hello`, "oauth_hello", {}),
      text(`GET ${CLAUDE_CODE_CHANGELOG}`, "# Changelog\n", {
        id: "claude-code.changelog",
        source,
        contentType: "text/plain; charset=utf-8"
      }),
      notInBucket(`GET ${CLAUDE_DOWNLOADS}/model-catalog/v1/catalog.json`, "model_catalog"),
      notInBucket(`GET ${CLAUDE_DOWNLOADS}/model-catalog/v1/catalog.json.raw-sig.json`, "model_catalog.signature"),
      notInBucket(
        `GET ${CLAUDE_DOWNLOADS}/claude-code-releases/plugins/claude-plugins-official/latest`,
        "plugins.latest"
      ),
      text("GET https://github.com/anthropics/claude-plugins-official.git/info/refs", "Repository not found.\n", {
        id: "claude-code.plugins.git",
        source,
        status: 404,
        contentType: "text/plain; charset=utf-8"
      }),
      // Its update check runs `npm view @anthropic-ai/claude-code`, and npm checks its own version first.
      text("GET https://registry.npmjs.org/@anthropic-ai%2fclaude-code", NPM_NOT_FOUND, {
        id: "claude-code.npm.claude-code",
        source,
        status: 404,
        contentType: JSON_TYPE
      }),
      text("GET https://registry.npmjs.org/npm", NPM_NOT_FOUND, {
        id: "claude-code.npm.npm",
        source,
        status: 404,
        contentType: JSON_TYPE
      })
    ]
  })

/**
 * Codex's side calls (its hosts are fixed), route ids `codex.*`, source `codex`:
 * - `POST https://ab.chatgpt.com/otlp/v1/{metrics,traces,logs}`: OTLP/HTTP export, accepted with
 *   an empty export response (protobuf, or `{}` for a JSON export);
 * - `GET https://chatgpt.com/backend-api/codex/models`: `{ models: [] }` (Codex keeps its own catalog);
 * - its curated-plugins sync (`git ls-remote` of `github.com/openai/plugins.git`, then the GitHub
 *   API's `repos/openai/plugins`, then `chatgpt.com/backend-api/plugins/export/curated`): each a
 *   404 as the service sends for a repository or export that is not there, which Codex takes as
 *   "no curated plugins" without retrying.
 */
export const codex = (): Array<Route> => {
  const source = "codex"
  const otlp = handler(
    "POST https://ab.chatgpt.com/otlp/v1/:signal",
    (request) =>
      (request.headers.get("content-type") ?? "").includes("json")
        ? new Response("{}", { headers: { "content-type": JSON_TYPE } })
        : new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } }),
    { id: "codex.otlp", source }
  )
  return [
    otlp,
    text("GET https://chatgpt.com/backend-api/codex/models", JSON.stringify({ models: [] }), {
      id: "codex.models",
      source,
      contentType: JSON_TYPE
    }),
    text("GET https://github.com/openai/plugins.git/info/refs", "Repository not found.\n", {
      id: "codex.plugins.git",
      source,
      status: 404,
      contentType: "text/plain; charset=utf-8"
    }),
    text(
      "GET https://api.github.com/repos/openai/plugins",
      JSON.stringify({
        message: "Not Found",
        documentation_url: "https://docs.github.com/rest/repos/repos#get-a-repository",
        status: "404"
      }),
      { id: "codex.plugins.github", source, status: 404, contentType: JSON_TYPE }
    ),
    text("GET https://chatgpt.com/backend-api/plugins/export/curated", JSON.stringify({ detail: "Not Found" }), {
      id: "codex.plugins.export",
      source,
      status: 404,
      contentType: JSON_TYPE
    })
  ]
}

/**
 * Gemini CLI's side calls, route ids `gemini-cli.*`, source `gemini-cli`: its usage statistics
 * (`POST https://play.googleapis.com/log`, Clearcut), accepted with the JSON answer whose first
 * element it reads as the wait before its next flush (15 minutes).
 */
export const geminiCli = (): Array<Route> => [
  text("POST https://play.googleapis.com/log", JSON.stringify(["900000"]), {
    id: "gemini-cli.log",
    source: "gemini-cli",
    contentType: JSON_TYPE
  })
]
