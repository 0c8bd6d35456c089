// @ts-check
// The Screen tab: the terminal of `simnet run --tty` as it is now (read from `ui/terminal` while
// the tab is open; once its program has exited, its last screen and how it ended) beside the requests that came in since the screen last changed; or, for a run
// `simnet explore` wrote and `simnet show` opened, each step's screen as a frame, the failing one
// marked and shown first, beside the requests that step caused.

/** @type {ReadonlyArray<Frame> | null} */
let caseFrames = null
/** @type {ReturnType<typeof setInterval> | null} */
let screenTimer = null
let shownScreen = ""
let seqAtChange = 0
let seqBefore = 0

/** The 16 ANSI colours as xterm draws them. */
const ANSI = [
  "#000000",
  "#cd0000",
  "#00cd00",
  "#cdcd00",
  "#0000ee",
  "#cd00cd",
  "#00cdcd",
  "#e5e5e5",
  "#7f7f7f",
  "#ff0000",
  "#00ff00",
  "#ffff00",
  "#5c5cff",
  "#ff00ff",
  "#00ffff",
  "#ffffff"
]

/** A screen colour as CSS: a palette index (the 16 colours, the 6×6×6 cube, the greys) or `#rrggbb`. @param {number | string | undefined} colour */
function cssColour(colour) {
  if (typeof colour === "string" || colour === undefined) return colour
  if (colour < 16) return ANSI[colour]
  if (colour >= 232) {
    const v = 8 + (colour - 232) * 10
    return "rgb(" + v + "," + v + "," + v + ")"
  }
  const n = colour - 16
  const level = (/** @type {number} */ c) => (c === 0 ? 0 : 55 + c * 40)
  return "rgb(" + level(Math.floor(n / 36)) + "," + level(Math.floor(n / 6) % 6) + "," + level(n % 6) + ")"
}

/**
 * Draws `lines` as a terminal shows them: each styled run in its colours and attributes, the
 * cursor at (x, y).
 * @param {ReadonlyArray<string>} lines @param {{ x: number, y: number } | undefined} cursor @param {ReadonlyArray<StyledRun>} [styles]
 */
function drawScreen(lines, cursor, styles) {
  const box = clear($("screen"))
  lines.forEach((line, y) => {
    const runs = (styles || []).filter((run) => run.y === y)
    const width = Math.max(
      line.length,
      cursor && cursor.y === y ? cursor.x + 1 : 0,
      ...runs.map((run) => run.x + run.text.length)
    )
    const text = line.padEnd(width, " ")
    /** @type {Array<StyledRun | undefined>} */
    const at = []
    runs.forEach((run) => {
      for (let i = 0; i < run.text.length; i++) at[run.x + i] = run
    })
    let x = 0
    while (x < text.length) {
      const run = at[x]
      const isCursor = cursor !== undefined && cursor.y === y && cursor.x === x
      let end = x + 1
      if (!isCursor)
        while (end < text.length && at[end] === run && !(cursor && cursor.y === y && cursor.x === end)) end++
      const piece = text.slice(x, end)
      if (!run && !isCursor) box.appendChild(document.createTextNode(piece))
      else {
        const span = el("span", { class: isCursor ? "cursor" : "", text: piece })
        if (run && !isCursor) {
          const fg = cssColour(run.fg)
          const bg = cssColour(run.bg)
          span.style.color = (run.inverse ? (bg ?? "#111") : fg) ?? ""
          span.style.backgroundColor = (run.inverse ? (fg ?? "#ddd") : bg) ?? ""
          if (run.bold) span.style.fontWeight = "700"
          if (run.dim) span.style.opacity = "0.6"
          if (run.italic) span.style.fontStyle = "italic"
          span.style.textDecoration = [run.underline ? "underline" : "", run.strikethrough ? "line-through" : ""]
            .join(" ")
            .trim()
        }
        box.appendChild(span)
      }
      x = end
    }
    if (y < lines.length - 1) box.appendChild(document.createTextNode("\n"))
  })
}

/** Lists requests by number; a click opens one in the Requests tab. @param {ReadonlyArray<number>} seqs @param {string} title */
function screenRequests(seqs, title) {
  $("screen-requests-title").textContent = title
  const list = clear($("screen-requests"))
  if (seqs.length === 0) list.appendChild(el("li", { class: "muted", text: "none" }))
  seqs.forEach((seq) => {
    const row = bySeq.get(seq)
    const label = "#" + seq + (row ? " " + row.method + " " + row.url + " → " + statusText(row) : "")
    list.appendChild(
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "link mono",
          text: label,
          onclick: () => {
            showTab("requests", false)
            openDetail(seq)
          }
        })
      )
    )
  })
}

/** Shows frame `index` of an explored run. @param {number} index */
function showFrame(index) {
  if (!caseFrames) return
  const frame = caseFrames[index]
  if (!frame) return
  Array.from($("frames").querySelectorAll("button")).forEach((b, i) => {
    b.setAttribute("aria-current", i === index ? "true" : "false")
  })
  drawScreen(frame.lines, frame.cursor, frame.styles)
  say("screen-status", "Step " + frame.step + ": " + frame.action + (frame.failed ? " — the failing step" : ""))
  screenRequests(frame.requests, "Requests this step caused")
}

/** An explored run's steps as frames, the failing one shown. @param {ReadonlyArray<Frame>} given */
function showFrames(given) {
  caseFrames = given
  const list = clear($("frames"))
  given.forEach((frame, i) => {
    list.appendChild(
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: frame.failed ? "failed" : "",
          text: frame.step + " " + frame.action,
          onclick: () => showFrame(i)
        })
      )
    )
  })
  const failing = given.findIndex((frame) => frame.failed)
  showFrame(failing < 0 ? given.length - 1 : failing)
}

/** Reads the live screen once. */
function readScreen() {
  api("GET", "/ui/terminal")
    .then((res) => {
      if (!res.ok) {
        say(
          "screen-status",
          res.status === 404
            ? "No terminal: run the command with simnet run --tty to see its screen here."
            : errorText(res.json, res.status)
        )
        return
      }
      const screen = res.json
      const text = JSON.stringify(screen.lines)
      if (text !== shownScreen) {
        shownScreen = text
        seqBefore = seqAtChange
        seqAtChange = lastSeq
      }
      drawScreen(screen.lines, screen.cursor, screen.styles)
      // A program that has exited leaves its last screen, and how it ended.
      const exit = screen.exit
      say(
        "screen-status",
        exit
          ? "Exited with " +
              (exit.signal === undefined ? "code " + exit.code : "signal " + exit.signal) +
              ": its last screen, " +
              screen.cols +
              "×" +
              screen.rows
          : "Live: " + screen.cols + "×" + screen.rows
      )
      // The requests from just before the screen last changed until now: what the last action caused.
      const since = rows
        .filter((row) => row.seq > seqBefore)
        .slice(-20)
        .map((row) => row.seq)
      screenRequests(since, "Requests since the screen's last change")
    })
    .catch((e) => say("screen-status", messageOf(e)))
}

/** Whether the Screen tab is open: the live screen is read while it is (an explored run's frames need nothing). @param {boolean} open */
function screenShown(open) {
  if (screenTimer) {
    clearInterval(screenTimer)
    screenTimer = null
  }
  if (!open || caseFrames) return
  readScreen()
  screenTimer = setInterval(readScreen, 500)
}
