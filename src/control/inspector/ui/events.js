// @ts-check
// The server-sent events of `ui/events`, read through fetch (so the token travels in a header),
// and the header's actions: reset, snapshot download and restore.

// ---- server-sent events ------------------------------------------------------------------
/** @type {PanelsView | null} */
let state = null
/** @type {AbortController | null} */
let streamAbort = null
/** @type {ReturnType<typeof setTimeout> | null} */
let retry = null
/** @param {boolean} live @param {string} text */
function setConn(live, text) {
  const c = $("conn")
  const readOnly = document.body.classList.contains("read-only")
  c.className = "conn" + (live && !readOnly ? " live" : "")
  // A failing case (simnet show) is a record, not a running network: never "live".
  c.textContent = readOnly && live ? "read-only" : text
}
/** @param {string} event @param {string} data */
function dispatch(event, data) {
  let json
  try {
    json = JSON.parse(data)
  } catch {
    return
  }
  if (event === "hello") {
    clearRows()
    addRows(json.rows)
    schedule()
  } else if (event === "batch") {
    addRows(json.rows)
    updateRows(json.updates)
    schedule()
  } else if (event === "reset") {
    clearRows()
  } else if (event === "state") {
    state = json
    renderState()
  }
}
function connect() {
  if (streamAbort) streamAbort.abort()
  const abort = new AbortController()
  streamAbort = abort
  setConn(false, "connecting…")
  fetch(BASE + "/ui/events", {
    headers: headers({ accept: "text/event-stream" }),
    signal: abort.signal,
    cache: "no-store"
  })
    .then((res) => {
      if (res.status === 401) {
        needToken()
        return
      }
      if (!res.ok || !res.body) throw new Error("HTTP " + res.status)
      setConn(true, "live")
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ""
      /** @returns {Promise<void>} */
      const pump = () =>
        reader.read().then((chunk) => {
          if (chunk.done) throw new Error("the stream ended")
          buffer += chunk.value
          let cut
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut)
            buffer = buffer.slice(cut + 2)
            let event = "message"
            /** @type {Array<string>} */
            const data = []
            block.split("\n").forEach((line) => {
              if (line.slice(0, 6) === "event:") event = line.slice(6).trim()
              else if (line.slice(0, 5) === "data:") data.push(line.slice(5).replace(/^ /, ""))
            })
            if (data.length > 0) dispatch(event, data.join("\n"))
          }
          return pump()
        })
      return pump()
    })
    .catch(() => {
      if (abort.signal.aborted) return
      setConn(false, "disconnected — retrying")
      retry = setTimeout(connect, 1000)
    })
}
function reconnectNow() {
  if (retry) clearTimeout(retry)
  connect()
}

// ---- header actions ----------------------------------------------------------------------
/** @param {string} text */
function headerMessage(text) {
  say("header-message", text)
}
$("reset").addEventListener("click", () => {
  api("POST", "/reset").then((res) => {
    headerMessage(res.ok ? "" : "Reset failed: " + errorText(res.json, res.status))
    refreshState()
  })
})
/**
 * Saves what a GET of the control endpoint answers as a file NAME-time.EXTENSION (`what` names it in a failure).
 * @param {string} path @param {string} what @param {string} name @param {string} extension @param {string} type
 */
function download(path, what, name, extension, type) {
  api("GET", path).then((res) => {
    if (!res.ok) {
      headerMessage(what + " failed: " + errorText(res.json, res.status))
      return
    }
    const blob = new Blob([JSON.stringify(res.json, null, 2)], { type })
    const a = el("a", {
      href: URL.createObjectURL(blob),
      download: name + new Date().toISOString().replace(/[:.]/g, "-") + extension
    })
    document.body.appendChild(a)
    a.click()
    setTimeout(() => {
      URL.revokeObjectURL(a.href)
      a.remove()
    }, 1000)
    headerMessage("")
  })
}
$("snapshot-download").addEventListener("click", () =>
  download("/snapshot", "Snapshot", "simnet-snapshot-", ".json", "application/json")
)
// HAR 1.2, what devtools open; with bodies when simnet serve runs with --keep-bodies.
$("har-download").addEventListener("click", () =>
  download("/network/log?format=har", "HAR export", "simnet-", ".har", "application/har+json")
)
$("snapshot-restore").addEventListener("change", () => {
  const chooser = input("snapshot-restore")
  const file = chooser.files?.[0]
  if (!file) return
  file
    .text()
    .then((text) =>
      api("POST", "/snapshot", text).then((res) => {
        headerMessage(res.ok ? "" : "Restore failed: " + errorText(res.json, res.status))
        refreshState()
      })
    )
    .finally(() => {
      chooser.value = ""
    })
})
