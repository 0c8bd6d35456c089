/**
 * The inspector page: one HTML document with its style and script inline, and the
 * Content-Security-Policy that allows exactly those two (by hash) and connections to this server
 * only. Nothing is fetched from elsewhere, so the page works offline.
 *
 * The script is the files of `ui/` (plain browser JavaScript checked by `tsc -p
 * tsconfig.inspector.json` against the server's own types), read once when the page is first
 * asked for and joined in `UI_FILES` order into one strict function; its hash is taken then.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { STYLE } from "./style.ts"

/** The page's script files, in the order they run: shared helpers first, the start last. */
export const UI_FILES = [
  "common.js",
  "requests.js",
  "details.js",
  "events.js",
  "case.js",
  "routes.js",
  "model.js",
  "mcp.js",
  "screen.js",
  "driver.js",
  "main.js"
] as const

const readScript = (): string =>
  `"use strict";\n(function () {\n${UI_FILES.map((file) => readFileSync(new URL(`./ui/${file}`, import.meta.url), "utf8").replace(/^\/\/ @ts-check\n/, "")).join("\n")}})();\n`

let script: string | undefined

/**
 * The page's own icon, inline (the policy's `img-src` takes `data:`): a browser that has it asks
 * the server for no `/favicon.ico`, which would otherwise read as a request for the network.
 */
const ICON = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#1f3a5f'/><path d='M4 4h8M4 8h8M4 12h5' stroke='#fff' stroke-width='1.6' stroke-linecap='round'/></svg>")}`

const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const BODY = `
<a class="skip" href="#panels">Skip to the panels</a>
<header>
  <h1>simnet inspector</h1>
  <span id="conn" class="conn" role="status" aria-live="polite">connecting…</span>
  <span id="stats" class="stats" aria-live="off"></span>
  <span class="spacer"></span>
  <button type="button" id="reset" class="danger mutates" aria-label="Reset the network to its initial routes and scripts">Reset</button>
  <button type="button" id="snapshot-download" aria-label="Download a snapshot of the network">Download snapshot</button>
  <button type="button" id="har-download" aria-label="Export the request log as a HAR file">Export HAR</button>
  <label class="button file mutates" aria-label="Restore a snapshot from a file">Restore snapshot<input type="file" id="snapshot-restore" accept="application/json,.json"></label>
</header>
<div id="header-message" class="error" role="alert"></div>
<section id="case" class="card case" aria-labelledby="case-title" hidden>
  <h2 id="case-title">Failing case</h2>
  <dl id="case-facts" class="kv"></dl>
  <h3>Counterexample</h3>
  <pre id="case-counterexample"></pre>
</section>
<form id="token-form" class="card token" hidden>
  <h2>Token required</h2>
  <p class="muted">This server checks a token (SIMNET_TOKEN). Enter it to continue; it is kept in this tab only.</p>
  <div class="inline"><input type="password" id="token-input" aria-label="Token" autocomplete="off"><button type="submit" class="primary">Use token</button></div>
</form>
<nav role="tablist" aria-label="Inspector panels">
  <button type="button" role="tab" id="tab-requests" aria-controls="panel-requests" aria-selected="true">Requests</button>
  <button type="button" role="tab" id="tab-routes" aria-controls="panel-routes" aria-selected="false" tabindex="-1">Routes</button>
  <button type="button" role="tab" id="tab-model" aria-controls="panel-model" aria-selected="false" tabindex="-1">Model</button>
  <button type="button" role="tab" id="tab-mcp" aria-controls="panel-mcp" aria-selected="false" tabindex="-1">MCP</button>
  <button type="button" role="tab" id="tab-screen" aria-controls="panel-screen" aria-selected="false" tabindex="-1">Screen</button>
</nav>
<main id="panels">
  <section role="tabpanel" id="panel-requests" aria-labelledby="tab-requests">
    <div class="toolbar">
      <input type="search" id="filter" placeholder="Filter: URL, route, method, status" aria-label="Filter requests">
      <label><input type="checkbox" id="refused-only"> Refused only</label>
      <label><input type="checkbox" id="follow" checked> Follow new requests</label>
      <button type="button" id="clear-list" aria-label="Clear the request list on this page">Clear list</button>
      <span id="list-count" class="muted" aria-live="off"></span>
    </div>
    <div class="split">
      <div class="listbox">
        <div class="cols head" aria-hidden="true"><span>Time</span><span>Method</span><span>URL</span><span>Route</span><span>Kind</span><span>Status</span><span class="num">Duration</span></div>
        <div id="viewport" class="viewport" role="listbox" tabindex="0" aria-label="Requests, newest last. Arrow keys move, Enter opens.">
          <div id="spacer"></div>
          <div id="rows" class="rows"></div>
        </div>
        <div id="list-empty" class="empty">No requests yet. Requests to this server appear here as they arrive.</div>
      </div>
      <aside id="detail" class="detail" aria-label="Request details" aria-live="polite">
        <p class="muted">Select a request to see its headers, body, route and, for a refused request, the routes that came closest.</p>
      </aside>
    </div>
  </section>
  <section role="tabpanel" id="panel-routes" aria-labelledby="tab-routes" hidden>
    <div class="toolbar">
      <input type="search" id="route-filter" placeholder="Filter routes" aria-label="Filter routes">
      <label><input type="checkbox" id="unused-only"> Unused only</label>
      <span id="route-count" class="muted"></span>
    </div>
    <div class="card tablewrap">
      <table aria-label="Routes">
        <thead><tr><th scope="col">ID</th><th scope="col">Kind</th><th scope="col">Match</th><th scope="col">Source</th><th scope="col" class="num">Priority</th><th scope="col" class="num">Uses</th><th scope="col" class="num">Left</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody id="routes-body"></tbody>
      </table>
    </div>
    <form id="register-form" class="card stack mutates">
      <h2>Register a route</h2>
      <label class="field" for="register-json">RouteSpec JSON (one spec or an array; all or nothing)</label>
      <textarea id="register-json" rows="7" spellcheck="false">{ "id": "hello", "match": "GET https://api.example.com/hello", "respond": { "kind": "text", "body": "hi" } }</textarea>
      <div class="inline"><button type="submit" class="primary">Register</button><span id="register-note" class="note" role="status"></span></div>
      <div id="register-error" class="error" role="alert"></div>
    </form>
  </section>
  <section role="tabpanel" id="panel-model" aria-labelledby="tab-model" hidden>
    <div class="grid2">
      <div class="card stack">
        <h2>Pending invocations</h2>
        <div class="inline mutates">
          <button type="button" id="attach" class="primary">Attach as driver</button>
          <span id="driver-status" class="muted" role="status" aria-live="polite">Not attached. Attach to receive model calls that no script or rule answers (the last driver to attach wins).</span>
        </div>
        <div id="pending" class="pending-list" role="group" aria-label="Pending invocations"></div>
        <div id="invocation"></div>
      </div>
      <div class="card stack mutates" id="console" aria-labelledby="console-title">
        <h2 id="console-title">Driver console</h2>
        <p id="console-target" class="muted">Select a pending invocation.</p>
        <label class="field" for="reply">Reply text</label>
        <textarea id="reply" rows="4" spellcheck="true">Hello from the inspector.</textarea>
        <div class="inline">
          <label>Delay per word (ms) <input type="number" id="word-delay" min="0" max="5000" value="60" size="5"></label>
          <label><input type="checkbox" id="finish-after" checked> Finish when done</label>
          <button type="button" id="stream" class="primary" disabled>Stream reply word by word</button>
        </div>
        <h3>Tool call</h3>
        <div class="inline">
          <label>Name <input type="text" id="tool-name" value="" size="16" autocomplete="off"></label>
        </div>
        <label class="field" for="tool-input">Input (JSON)</label>
        <textarea id="tool-input" rows="2" spellcheck="false">{}</textarea>
        <div class="inline"><button type="button" id="tool-call" disabled>Send tool call</button></div>
        <h3>End</h3>
        <div class="inline">
          <label>Reason <select id="finish-reason"><option value="">default</option><option>stop</option><option>tool_calls</option><option>length</option><option>content_filter</option></select></label>
          <button type="button" id="finish" disabled>Finish</button>
          <label>Status <input type="number" id="fail-status" min="400" max="599" value="500" size="4"></label>
          <button type="button" id="fail" class="danger" disabled>Fail</button>
          <button type="button" id="disconnect" class="danger" disabled>Disconnect</button>
        </div>
        <div id="console-error" class="error" role="alert"></div>
        <div id="console-log" class="console-log" role="log" aria-label="Driver protocol messages" tabindex="0"></div>
      </div>
    </div>
    <div class="grid2">
      <div class="card stack">
        <h2>Script queue</h2>
        <div id="scripts"></div>
        <div class="stack mutates">
          <label class="field" for="enqueue-json">Queue a script (LLM script JSON)</label>
          <textarea id="enqueue-json" rows="3" spellcheck="false">{ "steps": [[{ "type": "text", "content": "A queued answer." }]] }</textarea>
          <div class="inline"><button type="button" id="enqueue">Queue script</button><span id="enqueue-note" class="note" role="status"></span></div>
        </div>
        <div id="enqueue-error" class="error" role="alert"></div>
        <h3>Rules</h3>
        <div id="rules"></div>
      </div>
      <div class="card stack">
        <h2>Calls per request key</h2>
        <div id="counts" class="tablewrap"></div>
      </div>
    </div>
    <div class="card stack">
      <h2>Model log</h2>
      <div id="model-log" class="tablewrap"></div>
    </div>
  </section>
  <section role="tabpanel" id="panel-mcp" aria-labelledby="tab-mcp" hidden>
    <p id="mcp-summary" class="muted" role="status"></p>
    <div id="mcp-servers" class="stack"></div>
  </section>
  <section role="tabpanel" id="panel-screen" aria-labelledby="tab-screen" hidden>
    <p id="screen-status" class="muted" role="status"></p>
    <ol id="frames" class="frames" aria-label="Steps: the screen after each action"></ol>
    <div class="split screen-split">
      <pre id="screen" class="screen" aria-label="The terminal's screen"></pre>
      <aside class="detail" aria-label="The requests this screen's step caused">
        <h3 id="screen-requests-title">Requests</h3>
        <ul id="screen-requests" class="plain"></ul>
      </aside>
    </div>
  </section>
</main>
`

/**
 * The page and the Content-Security-Policy it is served with.
 */
export const inspectorPage = (): { readonly html: string; readonly csp: string } => {
  const SCRIPT = (script ??= readScript())
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>simnet inspector</title>
<link rel="icon" href="${ICON}">
<style>${STYLE}</style>
</head>
<body>${BODY}<script>${SCRIPT}</script>
</body>
</html>
`
  const csp = [
    "default-src 'none'",
    `script-src ${hash(SCRIPT)}`,
    `style-src ${hash(STYLE)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join("; ")
  return { html, csp }
}
