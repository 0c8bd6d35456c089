/**
 * The inspector page's style sheet (inlined in the page; system fonts only, so it works offline).
 */
export const STYLE = `
:root {
  --bg: #f7f7f5; --panel: #ffffff; --fg: #1d1f21; --muted: #6b6f76; --line: #dcdcd8;
  --accent: #2357c6; --accent-bg: #e8eefb; --bad: #b42318; --bad-bg: #fdecea; --ok: #1a7f37;
  --warn: #9a6700; --warn-bg: #fff4d6; --row: 26px;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16181b; --panel: #1e2125; --fg: #e6e6e3; --muted: #9aa0a8; --line: #33373d;
    --accent: #7aa2f7; --accent-bg: #25304a; --bad: #ff7b72; --bad-bg: #3a1d1d; --ok: #56d364;
    --warn: #e3b341; --warn-bg: #3a2f12;
  }
}
* { box-sizing: border-box; }
html, body { height: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; display: flex; flex-direction: column; }
.skip { position: absolute; left: -999px; top: 0; }
.skip:focus { left: 8px; top: 8px; z-index: 10; background: var(--panel); padding: 4px 8px; }
header { display: flex; align-items: center; gap: 12px; padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel); flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .stats { color: var(--muted); font-variant-numeric: tabular-nums; }
header .spacer { flex: 1; }
.conn { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--warn-bg); color: var(--warn); }
.conn.live { background: var(--accent-bg); color: var(--ok); }
body.read-only .mutates { display: none !important; }
.case { border-left: 4px solid var(--bad); margin: 12px 16px; }
.case pre { max-height: 240px; overflow: auto; }
.screen { background: #111; color: #ddd; padding: 8px; margin: 0; line-height: 1.2; overflow: auto; min-height: 120px; white-space: pre; }
.screen .cursor { background: #ddd; color: #111; }
.split.screen-split { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); }
.frames { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; margin: 8px 16px; }
.frames button[aria-current="true"] { outline: 2px solid var(--accent, #36c); }
.frames button.failed { border-color: var(--bad); color: var(--bad); font-weight: 600; }
.plain { list-style: none; padding: 0; margin: 0; }
button, .button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--panel); color: var(--fg); cursor: pointer; }
button:hover, .button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
input, select, textarea { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 4px 6px; }
textarea { font-family: var(--mono); font-size: 12px; width: 100%; resize: vertical; }
.file input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.file:focus-within { outline: 2px solid var(--accent); }
nav[role=tablist] { display: flex; gap: 2px; padding: 0 16px; background: var(--panel); border-bottom: 1px solid var(--line); }
nav[role=tablist] button { border: none; border-bottom: 2px solid transparent; border-radius: 0; padding: 8px 14px; background: none; }
nav[role=tablist] button[aria-selected=true] { border-bottom-color: var(--accent); color: var(--accent); font-weight: 600; }
main { flex: 1; min-height: 0; display: flex; }
section[role=tabpanel] { flex: 1; min-height: 0; display: flex; flex-direction: column; padding: 12px 16px; gap: 10px; overflow: auto; }
section[hidden] { display: none; }
.toolbar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.toolbar input[type=search] { width: 280px; }
.muted { color: var(--muted); }
.split { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 1fr) minmax(300px, 34%); gap: 12px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.listbox { display: flex; flex-direction: column; min-height: 0; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); overflow: hidden; }
.cols { display: grid; grid-template-columns: 92px 58px minmax(160px, 1fr) minmax(90px, 190px) 84px 52px 72px; gap: 8px; padding: 0 8px; align-items: center; }
.head { height: 28px; font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line); font-weight: 600; }
.viewport { position: relative; flex: 1; min-height: 120px; overflow-y: auto; outline-offset: -2px; }
.viewport .rows { position: absolute; left: 0; right: 0; top: 0; }
.row { position: absolute; left: 0; right: 0; height: var(--row); font-size: 12.5px; cursor: pointer; border-bottom: 1px solid transparent; }
.row > span { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row:hover { background: var(--accent-bg); }
.row.active { background: var(--accent-bg); box-shadow: inset 3px 0 0 var(--accent); }
.row.refused { color: var(--bad); }
.row.refused.active, .row.refused:hover { background: var(--bad-bg); }
.mono, .row .url, .row .route { font-family: var(--mono); font-size: 12px; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.empty { padding: 24px; color: var(--muted); text-align: center; }
.detail { border: 1px solid var(--line); border-radius: 6px; background: var(--panel); padding: 10px 12px; overflow: auto; min-height: 0; }
.detail h2, .card h2 { font-size: 14px; margin: 0 0 8px; }
.detail h3, .card h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 14px 0 6px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; font-size: 13px; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; word-break: break-all; }
pre { font-family: var(--mono); font-size: 12px; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 8px; margin: 0; overflow: auto; max-height: 320px; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; position: sticky; top: 0; background: var(--panel); }
td.mono { word-break: break-all; }
tr.unused td { color: var(--muted); }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: var(--warn-bg); color: var(--warn); margin-left: 6px; }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
td.flagged { color: var(--bad); }
.error { color: var(--bad); background: var(--bad-bg); border-radius: 4px; padding: 6px 8px; font-size: 13px; }
.error:empty, .note:empty { display: none; }
.note { color: var(--ok); font-size: 13px; }
.card { border: 1px solid var(--line); border-radius: 6px; background: var(--panel); padding: 10px 12px; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.stack { display: flex; flex-direction: column; gap: 8px; }
.stack > p, .stack > h2, .stack > h3 { margin: 0; }
.tablewrap { overflow: auto; max-height: 60vh; }
.pending-list { display: flex; flex-direction: column; gap: 4px; }
.pending-list button { text-align: left; font-family: var(--mono); font-size: 12px; }
.pending-list button[aria-pressed=true] { border-color: var(--accent); background: var(--accent-bg); }
.message { border-left: 3px solid var(--line); padding: 2px 8px; margin: 4px 0; }
.message .role { font-size: 11px; text-transform: uppercase; color: var(--muted); }
.message.user { border-left-color: var(--accent); }
.message.assistant { border-left-color: var(--ok); }
.message.tool { border-left-color: var(--warn); }
.message .content { white-space: pre-wrap; word-break: break-word; }
.console-log { font-family: var(--mono); font-size: 12px; max-height: 160px; overflow: auto; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; }
.field { display: flex; flex-direction: column; gap: 4px; font-size: 13px; }
.inline { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.token { margin: 16px; max-width: 520px; }
@media (max-width: 900px) { .split, .grid2 { grid-template-columns: 1fr; } }
`
