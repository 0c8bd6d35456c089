// @ts-check
// The Model panel: pending invocations and what each was asked, the script queue, rules, calls
// per request key and the model log. The driver console that answers invocations is driver.js.

/** @type {string | null} */
let selected = null
/** Invocations the driver socket announced that the last state did not list yet. @type {Map<string, PendingRow>} */
const noticed = new Map()
/** @returns {Array<PendingRow>} */
function pendingList() {
  const list = state ? state.llm.pending.slice() : []
  const seen = new Set(list.map((p) => p.id))
  noticed.forEach((p, id) => {
    if (!seen.has(id)) list.push(p)
  })
  return list
}
/** A request body as the page reads it: any API's messages, loosely. @param {unknown} body @returns {Record<string, any>} */
const loose = (body) => (typeof body === "object" && body !== null ? /** @type {Record<string, any>} */ (body) : {})
/** @param {unknown} content */
function textOf(content) {
  if (typeof content === "string") return content
  if (Array.isArray(content))
    return content
      .map((p) => (typeof p === "string" ? p : p.text !== undefined ? p.text : "[" + (p.type || "part") + "]"))
      .join("")
  return content === undefined || content === null ? "" : pretty(content)
}
/** @param {PendingRow | undefined} p */
function renderInvocation(p) {
  const box = clear($("invocation"))
  if (!p) return
  const body = loose(p.body)
  box.appendChild(el("h3", { text: "Messages" }))
  /** @type {Array<Record<string, any>>} */
  const gemini = (body.contents || []).map((/** @type {Record<string, any>} */ c) => ({
    role: c.role,
    content: c.parts
  }))
  /** @type {Array<Record<string, any>>} */
  const messages =
    body.messages ||
    (body.input && (Array.isArray(body.input) ? body.input : [{ role: "user", content: body.input }])) ||
    gemini
  messages.forEach((msg) => {
    const calls = (msg.tool_calls || []).map((/** @type {Record<string, any>} */ c) =>
      el("div", {
        class: "mono",
        text: "→ " + (c.function ? c.function.name + "(" + c.function.arguments + ")" : pretty(c))
      })
    )
    box.appendChild(
      el(
        "div",
        { class: "message " + (msg.role || "") },
        el("div", {
          class: "role",
          text: (msg.role || msg.type || "") + (msg.tool_call_id ? " · " + msg.tool_call_id : "")
        }),
        el("div", { class: "content", text: textOf(msg.content) }),
        calls
      )
    )
  })
  /** @type {Array<Record<string, any>>} */
  const tools = (body.tools || []).flatMap((/** @type {Record<string, any>} */ t) => t.functionDeclarations || [t])
  box.appendChild(el("h3", { text: "Tools (" + tools.length + ")" }))
  if (tools.length === 0) box.appendChild(el("p", { class: "muted", text: "none" }))
  tools.forEach((t) => {
    const f = t.function || t
    box.appendChild(
      el(
        "details",
        {},
        el(
          "summary",
          {},
          el("span", { class: "mono", text: f.name || "?" }),
          f.description ? " — " + f.description : ""
        ),
        el("pre", { text: pretty(f.parameters || f.input_schema || {}) })
      )
    )
  })
}
function renderPending() {
  const list = pendingList()
  const box = clear($("pending"))
  if (selected && !list.some((p) => p.id === selected)) selected = null
  if (!selected && list.length > 0) selected = list[0].id
  if (list.length === 0) box.appendChild(el("p", { class: "muted", text: "No model call is waiting." }))
  list.forEach((p) => {
    const body = loose(p.body)
    /** @type {Record<string, any> | undefined} */
    const last = (body.messages || body.contents || [])
      .filter((/** @type {Record<string, any>} */ msg) => msg.role === "user")
      .pop()
    box.appendChild(
      el(
        "button",
        {
          type: "button",
          "aria-pressed": p.id === selected ? "true" : "false",
          "data-invocation": p.id,
          onclick: () => {
            selected = p.id
            renderPending()
          }
        },
        p.id +
          " · " +
          (p.api ? p.api + " · " : "") +
          p.model +
          (p.stream ? " · stream" : "") +
          (p.started ? " · answering" : "") +
          (last ? " · " + textOf(last.content || last.parts).slice(0, 60) : "")
      )
    )
  })
  const current = list.find((p) => p.id === selected)
  renderInvocation(current)
  say(
    "console-target",
    current ? "Answering " + current.id + " (" + current.model + ")." : "Select a pending invocation."
  )
  ;["stream", "tool-call", "finish", "fail", "disconnect"].forEach((id) => {
    button(id).disabled = !current || streaming
  })
}
/**
 * @template A
 * @param {string} label @param {ReadonlyArray<string>} columns @param {ReadonlyArray<A>} items
 * @param {(item: A) => ReadonlyArray<readonly [unknown, string?]>} cells
 */
function table(label, columns, items, cells) {
  if (items.length === 0) return el("p", { class: "muted", text: "none" })
  return el(
    "table",
    { "aria-label": label },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        columns.map((c) => el("th", { scope: "col", text: c }))
      )
    ),
    el(
      "tbody",
      {},
      items.map((item) =>
        el(
          "tr",
          {},
          cells(item).map((c) =>
            el("td", { class: c[1] || "", text: c[0] === undefined || c[0] === null ? "" : String(c[0]) })
          )
        )
      )
    )
  )
}
/** @param {PanelsView} view */
function renderModel(view) {
  const llm = view.llm
  const scripts = clear($("scripts"))
  scripts.appendChild(
    el("p", {
      class: "muted",
      text:
        llm.queued.length +
        " queued, " +
        llm.consumed +
        " consumed" +
        (llm.current ? ", one under way" : "") +
        "; " +
        llm.callCount +
        " calls so far."
    })
  )
  if (llm.current)
    scripts.appendChild(
      el("details", {}, el("summary", { text: "Under way" }), el("pre", { text: pretty(llm.current) }))
    )
  llm.queued.forEach((s, i) => {
    const steps = loose(s).steps
    scripts.appendChild(
      el(
        "details",
        {},
        el("summary", { text: "Queued #" + (i + 1) + " (" + (Array.isArray(steps) ? steps.length : 0) + " steps)" }),
        el("pre", { text: pretty(s) })
      )
    )
  })
  clear($("rules")).appendChild(
    table("Rules", ["ID", "Match", "Behaviour", "Uses"], llm.rules, (r) => [
      [r.id, "mono"],
      [JSON.stringify(r.match), "mono"],
      [JSON.stringify(r.behaviour), "mono"],
      [r.uses + (r.times !== undefined && r.times !== null ? " / " + r.times : ""), "num"]
    ])
  )
  clear($("counts")).appendChild(
    table("Calls per request key", ["Key", "Last user message", "Calls"], llm.counts, (c) => [
      [c.key.slice(0, 16), "mono"],
      [c.lastUserMessage],
      [c.count, "num"]
    ])
  )
  clear($("model-log")).appendChild(
    table(
      "Model log",
      ["#", "Time", "Surface", "Model", "Last user message", "Source", "Outcome", "Status"],
      llm.log.slice().reverse(),
      (e) => [
        [e.id, "mono"],
        [clock(e.at)],
        [e.api, "mono surface"],
        [e.model],
        [e.lastUserMessage],
        [e.source + (e.rule ? " " + e.rule : "") + (e.step !== undefined && e.step !== null ? " step " + e.step : "")],
        [
          e.outcome + (e.structuredMismatch ? " \u26a0 " + e.structuredMismatch : ""),
          e.structuredMismatch ? "flagged" : undefined
        ],
        [e.status, "num"]
      ]
    )
  )
  renderPending()
  if (!attached && llm.attached && driverText.indexOf("Another") < 0)
    say("driver-status", "Another driver is attached. Attach here to take over.")
}
function renderState() {
  if (!state) return
  const c = state.counters
  say(
    "stats",
    c.requests +
      " requests · " +
      c.answered +
      " answered · " +
      c.denied +
      " refused" +
      (c.faulted > 0 ? " · " + c.faulted + " faulted" : "") +
      " · seed " +
      state.seed
  )
  renderRoutes(state)
  renderModel(state)
  renderMcp(state)
}
$("enqueue").addEventListener("click", () => {
  say("enqueue-note", "")
  say("enqueue-error", "")
  let parsed
  try {
    parsed = JSON.parse(field("enqueue-json").value)
  } catch (e) {
    say("enqueue-error", "NotJson at $: " + messageOf(e))
    return
  }
  api("POST", "/llm/enqueue", parsed).then((res) => {
    if (res.ok) say("enqueue-note", "Queued (" + res.json.queued + " waiting).")
    else say("enqueue-error", errorText(res.json, res.status))
    refreshState()
  })
})
