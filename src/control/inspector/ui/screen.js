// @ts-check
// The Screen tab: the terminal of `simnet run --tty` as it is now (read from `ui/screen` while
// the tab is open) beside the requests that came in since the screen last changed; or, for a run
// `simnet explore` wrote and `simnet show` opened, each step's screen as a frame, the failing one
// marked and shown first, beside the requests that step caused.

/** @type {ReadonlyArray<Frame> | null} */
let caseFrames = null;
/** @type {ReturnType<typeof setInterval> | null} */
let screenTimer = null;
let shownScreen = "";
let seqAtChange = 0;
let seqBefore = 0;

/** Draws `lines` with the cursor at (x, y), as a terminal shows it. @param {ReadonlyArray<string>} lines @param {{ x: number, y: number } | undefined} cursor */
function drawScreen(lines, cursor) {
  const box = clear($("screen"));
  lines.forEach((line, y) => {
    if (cursor && cursor.y === y) {
      const padded = line.padEnd(cursor.x + 1, " ");
      box.appendChild(document.createTextNode(padded.slice(0, cursor.x)));
      box.appendChild(el("span", { class: "cursor", text: padded.charAt(cursor.x) }));
      box.appendChild(document.createTextNode(padded.slice(cursor.x + 1)));
    } else {
      box.appendChild(document.createTextNode(line));
    }
    if (y < lines.length - 1) box.appendChild(document.createTextNode("\n"));
  });
}

/** Lists requests by number; a click opens one in the Requests tab. @param {ReadonlyArray<number>} seqs @param {string} title */
function screenRequests(seqs, title) {
  $("screen-requests-title").textContent = title;
  const list = clear($("screen-requests"));
  if (seqs.length === 0) list.appendChild(el("li", { class: "muted", text: "none" }));
  seqs.forEach((seq) => {
    const row = bySeq.get(seq);
    const label = "#" + seq + (row ? " " + row.method + " " + row.url + " → " + (row.status ?? "…") : "");
    list.appendChild(el("li", {}, el("button", { type: "button", class: "link mono", text: label, onclick: () => { showTab("requests", false); openDetail(seq); } })));
  });
}

/** Shows frame `index` of an explored run. @param {number} index */
function showFrame(index) {
  if (!caseFrames) return;
  const frame = caseFrames[index];
  if (!frame) return;
  Array.from($("frames").querySelectorAll("button")).forEach((b, i) => b.setAttribute("aria-current", i === index ? "true" : "false"));
  drawScreen(frame.lines, frame.cursor);
  say("screen-status", "Step " + frame.step + ": " + frame.action + (frame.failed ? " — the failing step" : ""));
  screenRequests(frame.requests, "Requests this step caused");
}

/** An explored run's steps as frames, the failing one shown. @param {ReadonlyArray<Frame>} given */
function showFrames(given) {
  caseFrames = given;
  const list = clear($("frames"));
  given.forEach((frame, i) => {
    list.appendChild(el("li", {}, el("button", { type: "button", class: frame.failed ? "failed" : "", text: frame.step + " " + frame.action, onclick: () => showFrame(i) })));
  });
  const failing = given.findIndex((frame) => frame.failed);
  showFrame(failing < 0 ? given.length - 1 : failing);
}

/** Reads the live screen once. */
function readScreen() {
  api("GET", "/ui/screen").then((res) => {
    if (!res.ok) {
      say("screen-status", res.status === 404 ? "No terminal: run the command with simnet run --tty to see its screen here." : errorText(res.json, res.status));
      return;
    }
    const screen = res.json;
    const text = JSON.stringify(screen.lines);
    if (text !== shownScreen) { shownScreen = text; seqBefore = seqAtChange; seqAtChange = lastSeq; }
    drawScreen(screen.lines, screen.cursor);
    say("screen-status", "Live: " + screen.cols + "×" + screen.rows);
    // The requests from just before the screen last changed until now: what the last action caused.
    const since = rows.filter((row) => row.seq > seqBefore).slice(-20).map((row) => row.seq);
    screenRequests(since, "Requests since the screen's last change");
  }).catch((e) => say("screen-status", messageOf(e)));
}

/** Whether the Screen tab is open: the live screen is read while it is (an explored run's frames need nothing). @param {boolean} open */
function screenShown(open) {
  if (screenTimer) { clearInterval(screenTimer); screenTimer = null; }
  if (!open || caseFrames) return;
  readScreen();
  screenTimer = setInterval(readScreen, 500);
}
