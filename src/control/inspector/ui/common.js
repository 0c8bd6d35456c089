// @ts-check
// The inspector's shared ground: the control base, the token, DOM helpers, the control endpoint
// over fetch, and the tabs. Every text from the network is set as text, never as markup.

const BASE = location.pathname.replace(/\/ui\/?$/, "")
const MAX_ROWS = 5000
const ROW_H = 26
const TOKEN_KEY = "simnet-inspector-token"

// ---- token -------------------------------------------------------------------------------
let token = ""
try {
  token = sessionStorage.getItem(TOKEN_KEY) || ""
} catch {
  token = ""
}
if (location.hash.indexOf("token=") >= 0) {
  const m = /token=([^&]*)/.exec(location.hash)
  token = m ? decodeURIComponent(m[1]) : ""
  try {
    sessionStorage.setItem(TOKEN_KEY, token)
  } catch {
    /* private mode */
  }
  history.replaceState(null, "", location.pathname + location.search)
}
/** @param {Record<string, string>} [extra] @returns {Record<string, string>} */
function headers(extra) {
  const h = extra || {}
  if (token) h["authorization"] = "Bearer " + token
  return h
}

// ---- small DOM helpers -------------------------------------------------------------------
/** The page's element with this id (the page is ours: a missing id is a bug, and says so). @param {string} id @returns {HTMLElement} */
function $(id) {
  const node = document.getElementById(id)
  if (node === null) throw new Error("simnet inspector: no element #" + id)
  return node
}
/** An input, text area or select of the page. @param {string} id */
function field(id) {
  return /** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */ ($(id))
}
/** A checkbox or number input of the page. @param {string} id */
function input(id) {
  return /** @type {HTMLInputElement} */ ($(id))
}
/** A button of the page. @param {string} id */
function button(id) {
  return /** @type {HTMLButtonElement} */ ($(id))
}
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  if (attrs)
    for (const k in attrs) {
      const v = attrs[k]
      if (v === undefined || v === null || v === false) continue
      if (typeof v === "function") node.addEventListener(k.slice(2), v)
      else if (k === "text") node.textContent = String(v)
      else if (k === "class") node.className = String(v)
      else node.setAttribute(k, v === true ? "" : String(v))
    }
  /** @param {Node | string | null | undefined | false} c */
  const append = (c) => {
    if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c)
  }
  for (const c of children) {
    if (Array.isArray(c)) c.forEach(append)
    else append(/** @type {Node | string | null | undefined | false} */ (c))
  }
  return node
}
/** @param {HTMLElement} node */
function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild)
  return node
}
/** @param {unknown} value */
function pretty(value) {
  try {
    return JSON.stringify(value, null, 2)
  } catch {
    return String(value)
  }
}
/** @param {number} ms */
function clock(ms) {
  const d = new Date(ms)
  /** @param {number} n @param {number} w */
  const p = (n, w) => String(n).padStart(w, "0")
  return p(d.getHours(), 2) + ":" + p(d.getMinutes(), 2) + ":" + p(d.getSeconds(), 2) + "." + p(d.getMilliseconds(), 3)
}
/** @param {number | null | undefined} ms */
function duration(ms) {
  if (ms === undefined || ms === null) return ""
  return ms < 10 ? ms.toFixed(1) + " ms" : ms < 10000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s"
}
/** @param {string} id @param {string} [text] */
function say(id, text) {
  $(id).textContent = text || ""
}
/** @param {ErrorBody | null} body @param {number} status */
function errorText(body, status) {
  const e = body?.error
  if (!e) return "HTTP " + status
  return e.tag + (e.path !== undefined && e.path !== "" ? " at " + e.path : "") + ": " + e.message
}
/** The message of anything thrown. @param {unknown} e */
function messageOf(e) {
  return e instanceof Error ? e.message : String(e)
}

// ---- HTTP --------------------------------------------------------------------------------
/**
 * One call to the control endpoint; a 401 asks for the token.
 * @param {string} method @param {string} path @param {unknown} [body]
 * @returns {Promise<ApiAnswer>}
 */
function api(method, path, body) {
  /** @type {RequestInit} */
  const init = { method, headers: headers(body === undefined ? {} : { "content-type": "application/json" }) }
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body)
  return fetch(BASE + path, init).then((res) => {
    if (res.status === 401) needToken()
    return res.text().then((text) => {
      let json = null
      try {
        json = text ? JSON.parse(text) : null
      } catch {
        json = null
      }
      return { ok: res.ok, status: res.status, json }
    })
  })
}

function needToken() {
  $("token-form").hidden = false
  setConn(false, "token required")
  $("token-input").focus()
}
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault()
  token = field("token-input").value
  try {
    sessionStorage.setItem(TOKEN_KEY, token)
  } catch {
    /* private mode */
  }
  $("token-form").hidden = true
  reconnectNow()
})

// ---- tabs --------------------------------------------------------------------------------
const tabs = ["requests", "routes", "model", "mcp", "screen"]
/** @param {string} name @param {boolean} focus */
function showTab(name, focus) {
  tabs.forEach((t) => {
    const tab = $("tab-" + t)
    const on = t === name
    tab.setAttribute("aria-selected", on ? "true" : "false")
    tab.tabIndex = on ? 0 : -1
    $("panel-" + t).hidden = !on
    if (on && focus) tab.focus()
  })
  if (name === "requests") schedule()
  screenShown(name === "screen")
}
tabs.forEach((t, i) => {
  const tab = $("tab-" + t)
  tab.addEventListener("click", () => showTab(t, false))
  tab.addEventListener("keydown", (event) => {
    const next =
      event.key === "ArrowRight"
        ? i + 1
        : event.key === "ArrowLeft"
          ? i - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? tabs.length - 1
              : -2
    if (next === -2) return
    event.preventDefault()
    showTab(tabs[(next + tabs.length) % tabs.length], true)
  })
})
