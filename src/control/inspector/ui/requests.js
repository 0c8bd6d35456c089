// @ts-check
// The request list (a virtual list: only the rows in view exist in the DOM, at most one render
// per frame) and a request's details.

// ---- the request list --------------------------------------------------------------------
/** @type {Array<Row>} */
let rows = []
/** @type {Map<number, Row>} */
let bySeq = new Map()
let lastSeq = 0
let missed = 0
/** @type {ReadonlyArray<Row>} */
let view = rows
/** @type {number | null} */
let activeSeq = null
let dirty = true
let framePending = false
let programmaticScroll = false
const viewport = $("viewport")
const rowsBox = $("rows")
const spacer = $("spacer")
/** @type {Array<HTMLElement>} */
const pool = []

/** @param {Row} r */
function isRefused(r) {
  return (r.denial !== undefined && r.denial !== null) || (r.fault !== undefined && r.fault !== null)
}
/**
 * What the client saw: a fault (`reset`, `timeout`, `malformed`), else the status; a refusal the
 * page did not see answered (made before it opened) says so rather than waiting forever.
 * @param {Row} r
 */
function statusText(r) {
  if (r.fault !== undefined && r.fault !== null) return r.fault
  if (r.status !== undefined && r.status !== null) return String(r.status)
  return isRefused(r) ? "refused" : "…"
}
/** @param {Row} r */
function durationText(r) {
  if (r.ms !== undefined && r.ms !== null) return duration(r.ms)
  if (r.ttfb !== undefined && r.ttfb !== null) return duration(r.ttfb) + "…"
  return ""
}
/** @param {Row} r @param {ReadonlyArray<string>} words @param {boolean} refusedOnly */
function matches(r, words, refusedOnly) {
  if (refusedOnly && !isRefused(r)) return false
  if (words.length === 0) return true
  const hay = (
    r.method +
    " " +
    r.url +
    " " +
    (r.route || "") +
    " " +
    (r.kind || "") +
    " " +
    (r.operation || "") +
    " " +
    (r.denial || "") +
    " " +
    statusText(r)
  ).toLowerCase()
  return words.every((word) => hay.indexOf(word) >= 0)
}
function refilter() {
  const words = field("filter").value.toLowerCase().split(/\s+/).filter(Boolean)
  const refusedOnly = input("refused-only").checked
  view = words.length === 0 && !refusedOnly ? rows : rows.filter((r) => matches(r, words, refusedOnly))
}
function schedule() {
  dirty = true
  if (framePending) return
  framePending = true
  requestAnimationFrame(() => {
    framePending = false
    if (dirty) render()
  })
}
/** @param {ReadonlyArray<Row>} list */
function addRows(list) {
  for (const r of list) {
    const known = bySeq.get(r.seq)
    if (known !== undefined) {
      Object.assign(known, r)
      continue
    }
    if (lastSeq > 0 && r.seq > lastSeq + 1) missed += r.seq - lastSeq - 1
    if (r.seq > lastSeq) lastSeq = r.seq
    rows.push(r)
    bySeq.set(r.seq, r)
  }
  if (rows.length > MAX_ROWS + 500) {
    const drop = rows.splice(0, rows.length - MAX_ROWS)
    drop.forEach((r) => {
      bySeq.delete(r.seq)
    })
  }
}
/** @param {ReadonlyArray<Row>} list */
function updateRows(list) {
  for (const update of list) {
    const r = bySeq.get(update.seq)
    if (r) Object.assign(r, update)
    if (activeSeq === update.seq && detailSeq === update.seq) refreshDetail()
  }
}
function clearRows() {
  rows = []
  bySeq = new Map()
  view = rows
  lastSeq = 0
  missed = 0
  activeSeq = null
  showDetail(null)
  schedule()
}
function rowNode() {
  const node = el(
    "div",
    { class: "row cols", role: "option", "aria-selected": "false" },
    el("span", { class: "time num" }),
    el("span", { class: "method" }),
    el("span", { class: "url" }),
    el("span", { class: "route" }),
    el("span", { class: "kind" }),
    el("span", { class: "status" }),
    el("span", { class: "dur num" })
  )
  node.addEventListener("click", () => {
    if (node.hidden || node.dataset.seq === undefined) return
    const seq = Number(node.dataset.seq)
    setActive(seq, false)
    openDetail(seq)
    viewport.focus({ preventScroll: true })
  })
  return node
}
function render() {
  dirty = false
  refilter()
  const n = view.length
  $("list-empty").hidden = rows.length > 0
  viewport.hidden = rows.length === 0
  const shown = n === rows.length ? n + " requests" : n + " of " + rows.length + " requests"
  say(
    "list-count",
    shown + (missed > 0 ? " (" + missed + " not shown: the page fell behind or the log dropped them)" : "")
  )
  spacer.style.height = n * ROW_H + "px"
  if (input("follow").checked && n > 0) {
    const bottom = n * ROW_H - viewport.clientHeight
    if (Math.abs(viewport.scrollTop - bottom) > 1) {
      programmaticScroll = true
      viewport.scrollTop = bottom
    }
  }
  const top = viewport.scrollTop
  const height = viewport.clientHeight || 400
  const first = Math.max(0, Math.floor(top / ROW_H) - 8)
  const last = Math.min(n, Math.ceil((top + height) / ROW_H) + 8)
  const count = Math.max(0, last - first)
  while (pool.length < count) {
    const node = rowNode()
    pool.push(node)
    rowsBox.appendChild(node)
  }
  // Keyed: a node that shows a request still in the window keeps showing it, so an element found
  // before a redraw (by id, by a script's element.click(), by assistive technology) still names
  // the same request after; only nodes whose request left the window take the new ones.
  /** @type {Map<number, number>} */
  const wanted = new Map()
  for (let k = first; k < last; k++) wanted.set(view[k].seq, k)
  /** @type {Array<HTMLElement>} */
  const free = []
  /** @type {Array<[HTMLElement, number]>} */
  const placed = []
  for (const node of pool) {
    const k = node.hidden ? undefined : wanted.get(Number(node.dataset.seq))
    if (k === undefined) free.push(node)
    else {
      placed.push([node, k])
      wanted.delete(view[k].seq)
    }
  }
  for (const k of wanted.values()) placed.push([/** @type {HTMLElement} */ (free.pop()), k])
  for (const node of free) {
    node.hidden = true
    node.removeAttribute("id")
    delete node.dataset.seq
  }
  let activeId = ""
  for (const [node, k] of placed) {
    const r = view[k]
    node.hidden = false
    node.dataset.seq = String(r.seq)
    node.id = "req-" + r.seq
    node.style.transform = "translateY(" + k * ROW_H + "px)"
    const active = r.seq === activeSeq
    node.className = "row cols" + (isRefused(r) ? " refused" : "") + (active ? " active" : "")
    node.setAttribute("aria-selected", active ? "true" : "false")
    if (active) activeId = node.id
    const c = /** @type {HTMLCollectionOf<HTMLElement>} */ (node.children)
    c[0].textContent = clock(r.time)
    c[1].textContent = r.method
    c[2].textContent = r.url.replace(/^https:\/\//, "")
    c[2].title = r.url
    c[3].textContent = r.denial ? "✕ " + r.denial : r.route || ""
    c[3].title = c[3].textContent
    c[4].textContent = (r.kind || "") + (r.operation ? " " + r.operation : "")
    c[5].textContent = statusText(r)
    c[6].textContent = durationText(r)
  }
  if (activeId) viewport.setAttribute("aria-activedescendant", activeId)
  else viewport.removeAttribute("aria-activedescendant")
}
viewport.addEventListener("scroll", () => {
  if (programmaticScroll) {
    programmaticScroll = false
  } else {
    const atBottom = viewport.scrollTop + viewport.clientHeight >= view.length * ROW_H - ROW_H
    if (!atBottom && input("follow").checked) input("follow").checked = false
  }
  schedule()
})
window.addEventListener("resize", schedule)
;["filter", "refused-only", "follow"].forEach((id) => {
  $(id).addEventListener("input", schedule)
})
$("clear-list").addEventListener("click", clearRows)

function indexOfActive() {
  if (activeSeq === null) return -1
  for (let i = 0; i < view.length; i++) if (view[i].seq === activeSeq) return i
  return -1
}
/** @param {number} seq @param {boolean} scroll */
function setActive(seq, scroll) {
  activeSeq = seq
  if (scroll) {
    const i = indexOfActive()
    if (i >= 0) {
      const y = i * ROW_H
      if (y < viewport.scrollTop) viewport.scrollTop = y
      else if (y + ROW_H > viewport.scrollTop + viewport.clientHeight)
        viewport.scrollTop = y + ROW_H - viewport.clientHeight
    }
  }
  render()
}
viewport.addEventListener("keydown", (event) => {
  const n = view.length
  if (n === 0) return
  const i = indexOfActive()
  const page = Math.max(1, Math.floor(viewport.clientHeight / ROW_H) - 1)
  let next
  switch (event.key) {
    case "ArrowDown":
      next = i < 0 ? n - 1 : Math.min(n - 1, i + 1)
      break
    case "ArrowUp":
      next = i < 0 ? n - 1 : Math.max(0, i - 1)
      break
    case "PageDown":
      next = Math.min(n - 1, Math.max(0, i) + page)
      break
    case "PageUp":
      next = Math.max(0, Math.max(0, i) - page)
      break
    case "Home":
      next = 0
      break
    case "End":
      next = n - 1
      break
    case "Enter":
    case " ":
      if (i >= 0 && activeSeq !== null) {
        event.preventDefault()
        openDetail(activeSeq)
      }
      return
    default:
      return
  }
  event.preventDefault()
  if (next < n - 1 && input("follow").checked) input("follow").checked = false
  setActive(view[next].seq, true)
})
