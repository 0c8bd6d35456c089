// @ts-check
// The Routes panel: every route with its uses, a filter, removal, and registering RouteSpec JSON.

function refreshState() {
  return api("GET", "/ui/state").then((res) => {
    if (res.ok) {
      state = res.json
      renderState()
    }
  })
}
let routesShown = ""
/** @param {PanelsView} view */
function renderRoutes(view) {
  const words = field("route-filter").value.toLowerCase().split(/\s+/).filter(Boolean)
  const unusedOnly = input("unused-only").checked
  const list = view.routes.filter((r) => {
    if (unusedOnly && r.hits > 0) return false
    const hay = (r.id + " " + r.kind + " " + r.match + " " + r.source).toLowerCase()
    return words.every((w) => hay.indexOf(w) >= 0)
  })
  const unused = view.routes.filter((r) => r.hits === 0).length
  say(
    "route-count",
    view.routeCount +
      " routes, " +
      unused +
      " unused" +
      (view.routeCount > view.routes.length ? " (first " + view.routes.length + " listed)" : "")
  )
  // Rebuild only when something shown changed, and give focus back to the same control, so a
  // refresh never takes a button away from under the keyboard or the pointer.
  const shown = JSON.stringify([list, view.routes.length])
  if (shown === routesShown) return
  routesShown = shown
  const active = document.activeElement
  const focused = active && $("routes-body").contains(active) ? active.getAttribute("aria-label") : null
  const body = clear($("routes-body"))
  list.forEach((r) => {
    body.appendChild(
      el(
        "tr",
        { class: r.hits === 0 ? "unused" : "", "data-route": r.id },
        el(
          "td",
          { class: "mono" },
          r.id,
          r.refused
            ? el("span", { class: "badge", title: r.refused, text: "not served: " + r.refused })
            : r.hits === 0
              ? el("span", { class: "badge", text: "unused" })
              : null,
          r.scenario ? el("span", { class: "badge", title: "scenario", text: "scenario " + r.scenario }) : null
        ),
        el("td", { text: r.kind }),
        el("td", { class: "mono", text: r.match }),
        el("td", { text: r.source }),
        el("td", { class: "num", text: r.priority }),
        el("td", { class: "num uses", text: r.hits }),
        el("td", { class: "num", text: r.remaining === undefined || r.remaining === null ? "" : r.remaining }),
        el(
          "td",
          {},
          el(
            "button",
            {
              type: "button",
              class: "danger mutates",
              "aria-label": "Remove route " + r.id,
              onclick: () => removeRoute(r.id)
            },
            "Remove"
          )
        )
      )
    )
  })
  if (list.length === 0)
    body.appendChild(
      el(
        "tr",
        {},
        el("td", {
          colspan: "8",
          class: "muted",
          text: view.routes.length === 0 ? "No routes." : "No route matches the filter."
        })
      )
    )
  if (focused) {
    const again = Array.from(body.querySelectorAll("button")).find((b) => b.getAttribute("aria-label") === focused)
    if (again) again.focus()
  }
}
;["route-filter", "unused-only"].forEach((id) => {
  $(id).addEventListener("input", () => {
    if (state) renderRoutes(state)
  })
})
/** @param {string} id */
function removeRoute(id) {
  api("DELETE", "/network/routes/" + encodeURIComponent(id)).then((res) => {
    say("register-note", res.ok ? "Removed " + id + "." : "")
    say("register-error", res.ok ? "" : errorText(res.json, res.status))
    refreshState()
  })
}
$("register-form").addEventListener("submit", (event) => {
  event.preventDefault()
  say("register-note", "")
  say("register-error", "")
  const text = field("register-json").value
  let parsed
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    say("register-error", "NotJson at $: " + messageOf(e))
    return
  }
  api("POST", "/network/register", parsed).then((res) => {
    if (res.ok) say("register-note", "Registered " + res.json.ids.join(", ") + ".")
    else say("register-error", errorText(res.json, res.status))
    refreshState()
  })
})
