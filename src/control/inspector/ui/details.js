// @ts-check
// One request's details: its headers, body, route, the routes that came closest when it was
// refused, its generated body again from its seed, and the answer when the network kept it or can make it again.

/** @type {number | null} */
let detailSeq = null
/** @type {ReturnType<typeof setTimeout> | null} */
let detailTimer = null
/** @param {Node | null} node */
function showDetail(node) {
  const box = clear($("detail"))
  if (node) box.appendChild(node)
  else
    box.appendChild(
      el("p", {
        class: "muted",
        text: "Select a request to see its headers, body, route and, for a refused request, the routes that came closest."
      })
    )
}
function refreshDetail() {
  if (detailTimer) return
  detailTimer = setTimeout(() => {
    detailTimer = null
    if (detailSeq !== null) openDetail(detailSeq)
  }, 150)
}
/** @param {ReadonlyArray<readonly [string, string | number | null | undefined, string?]>} pairs */
function kv(pairs) {
  const dl = el("dl", { class: "kv" })
  pairs.forEach((p) => {
    if (p[1] === undefined || p[1] === null || p[1] === "") return
    dl.appendChild(el("dt", { text: p[0] }))
    dl.appendChild(el("dd", { class: p[2] || "", text: String(p[1]) }))
  })
  return dl
}
/** @param {number} seq */
function openDetail(seq) {
  detailSeq = seq
  return api("GET", "/ui/requests/" + seq).then((res) => {
    if (detailSeq !== seq) return
    if (!res.ok) {
      showDetail(el("p", { class: "error", text: errorText(res.json, res.status) }))
      return
    }
    /** @type {LogRecord} */
    const rec = res.json.record
    /** @type {Extra} */
    const extra = res.json.extra || {}
    const refusal = extra.refusal
    const denial = rec.denial || refusal?.tag
    /** @type {Array<Node>} */
    const parts = [
      el("h2", {}, el("span", { class: "mono", text: rec.method + " " + rec.url })),
      kv([
        ["Request", "#" + rec.seq],
        ["Time", clock(rec.time)],
        ["Route", rec.route ? rec.route.id : "", "mono"],
        ["Kind", rec.route ? rec.route.kind : ""],
        ["Source", rec.route ? rec.route.source : ""],
        ["Status", rec.status !== undefined ? rec.status : extra.status],
        ["Refused", denial],
        ["Fault", rec.fault],
        [
          "Scenario",
          rec.scenario
            ? rec.scenario.name +
              ': found "' +
              rec.scenario.state +
              '"' +
              (rec.scenario.newState !== undefined ? ', moved it to "' + rec.scenario.newState + '"' : "")
            : undefined
        ],
        [
          "Chaos",
          rec.chaos
            ? rec.chaos.effect === "status"
              ? "status " + rec.chaos.status
              : rec.chaos.effect === "latency"
                ? "a pause of " + rec.chaos.ms + " ms"
                : rec.chaos.effect
            : undefined
        ],
        ["First byte", duration(extra.ttfb)],
        ["Duration", extra.ms !== undefined ? duration(extra.ms) : extra.ttfb !== undefined ? "streaming…" : ""]
      ])
    ]
    if (denial) {
      parts.push(el("h3", { text: "Why it was refused" }))
      const candidates = /** @type {ReadonlyArray<Candidate> | undefined} */ (refusal?.candidates)
      if (refusal?.message && !(candidates && candidates.length > 0))
        parts.push(el("p", { class: "error", text: refusal.message }))
      if (candidates && candidates.length > 0) {
        parts.push(
          el(
            "table",
            { "aria-label": "Nearest candidate routes", class: "candidates" },
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                el("th", { scope: "col", text: "Candidate" }),
                el("th", { scope: "col", text: "Match" }),
                el("th", { scope: "col", text: "Why it missed" })
              )
            ),
            el(
              "tbody",
              {},
              candidates.map((c) =>
                el(
                  "tr",
                  {},
                  el("td", { class: "mono", text: c.id }),
                  el("td", { class: "mono", text: c.match }),
                  el("td", { text: c.reason + (c.detail ? ": " + c.detail : "") })
                )
              )
            )
          )
        )
      } else if (!refusal) {
        parts.push(
          el("p", {
            class: "muted",
            text:
              rec.denial === "Interrupted"
                ? "The client gave up before the answer came."
                : "This record carries no account of its refusal (it was restored from a snapshot)."
          })
        )
      } else if (rec.denial === "UnregisteredRequest") {
        parts.push(el("p", { class: "muted", text: "No route came close." }))
      }
    }
    if (rec.seed !== undefined && rec.seed !== null) {
      parts.push(el("h3", { text: "Generated answer" }))
      parts.push(
        kv([
          ["Seed", rec.seed, "mono"],
          ["Occurrence", rec.occurrence]
        ])
      )
      const out = el("div", { class: "stack" })
      parts.push(
        el(
          "div",
          { class: "inline" },
          el(
            "button",
            {
              type: "button",
              onclick: () => regenerate(seq, out),
              "aria-label": "Regenerate the body of request " + seq + " from its seed"
            },
            "Regenerate body"
          )
        )
      )
      parts.push(out)
    }
    parts.push(el("h3", { text: "Headers (credentials redacted)" }))
    const shown = rec.headers || {}
    const names = Object.keys(shown)
    parts.push(
      names.length === 0
        ? el("p", { class: "muted", text: "none" })
        : el(
            "table",
            { "aria-label": "Request headers" },
            el(
              "tbody",
              {},
              names.map((k) =>
                el(
                  "tr",
                  {},
                  el("th", { scope: "row", class: "mono", text: k }),
                  el("td", { class: "mono", text: shown[k] })
                )
              )
            )
          )
    )
    parts.push(el("h3", { text: "Body" }))
    if (!rec.body) parts.push(el("p", { class: "muted", text: "none" }))
    else {
      let preview = rec.body.preview
      try {
        preview = JSON.stringify(JSON.parse(preview), null, 2)
      } catch {
        /* a partial preview */
      }
      parts.push(
        el("p", {
          class: "muted",
          text:
            rec.body.size +
            " bytes" +
            (rec.body.size > rec.body.preview.length ? " (first " + rec.body.preview.length + " characters shown)" : "")
        })
      )
      parts.push(el("pre", { text: preview }))
    }
    /** @type {KeptAnswer | undefined} */
    const answer = res.json.response
    if (answer) parts.push(...answerParts(answer))
    else if (res.json.bodyNote)
      parts.push(
        el("h3", { text: "Response" }),
        el("p", { class: "muted note-not-kept", text: "Body: " + res.json.bodyNote + "." })
      )
    showDetail(el("div", {}, parts))
  })
}
/**
 * The answer the network kept (simnet serve --keep-bodies), or made again from a route whose
 * answer is a pure function of its seed: status, headers and body.
 * @param {KeptAnswer} answer @returns {Array<Node>}
 */
function answerParts(answer) {
  /** @type {Array<Node>} */
  const parts = [
    el("h3", { text: "Response" }),
    kv([
      ["Status", answer.status],
      ["Type", answer.mimeType],
      ["Size", answer.size + " bytes"],
      ["Note", answer.comment]
    ])
  ]
  if (answer.headers.length > 0) {
    parts.push(
      el(
        "table",
        { "aria-label": "Response headers" },
        el(
          "tbody",
          {},
          answer.headers.map((h) =>
            el(
              "tr",
              {},
              el("th", { scope: "row", class: "mono", text: h.name }),
              el("td", { class: "mono", text: h.value })
            )
          )
        )
      )
    )
  }
  if ("binary" in answer) parts.push(el("p", { class: "muted", text: "A binary body: Export HAR has it, as base64." }))
  else {
    let text = answer.text
    try {
      text = JSON.stringify(JSON.parse(text), null, 2)
    } catch {
      /* not JSON */
    }
    parts.push(el("pre", { class: "response-body", text }))
    if ("shownCut" in answer)
      parts.push(
        el("p", { class: "muted", text: "The first 65 536 characters are shown; Export HAR has the whole body." })
      )
  }
  return parts
}
/** @param {number} seq @param {HTMLElement} out */
function regenerate(seq, out) {
  clear(out).appendChild(el("p", { class: "muted", text: "Regenerating…" }))
  api("POST", "/ui/requests/" + seq + "/regenerate").then((res) => {
    clear(out)
    if (!res.ok) {
      out.appendChild(el("p", { class: "error", role: "alert", text: errorText(res.json, res.status) }))
      return
    }
    /** @type {string} */
    let body = res.json.body
    try {
      body = JSON.stringify(JSON.parse(body), null, 2)
    } catch {
      /* not JSON */
    }
    out.appendChild(el("p", { class: "note", text: "Generated again from seed " + res.json.seed + ":" }))
    out.appendChild(el("pre", { class: "regenerated", text: body }))
  })
}
