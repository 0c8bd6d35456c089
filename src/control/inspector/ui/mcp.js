// @ts-check
// The MCP panel: each MCP route's server, its sessions and the calls each tool has had.

/** @param {PanelsView} view */
function renderMcp(view) {
  const servers = view.mcp || []
  const calls = servers.reduce((sum, s) => sum + s.calls, 0)
  say(
    "mcp-summary",
    servers.length === 0
      ? "No MCP route in this network. Register one (kind mcp, or the mcpFromConfig family) to see its tools and calls here."
      : servers.length +
          " MCP server" +
          (servers.length === 1 ? "" : "s") +
          ", " +
          calls +
          " tool call" +
          (calls === 1 ? "" : "s") +
          " so far."
  )
  const box = clear($("mcp-servers"))
  servers.forEach((s) => {
    box.appendChild(
      el(
        "div",
        { class: "card stack", "data-mcp-route": s.route, role: "group", "aria-label": "MCP server " + s.name },
        el(
          "h2",
          {},
          el("span", { class: "mcp-name", text: s.title || s.name }),
          " ",
          el("span", { class: "muted mcp-version", text: "v" + s.version })
        ),
        el(
          "p",
          { class: "muted" },
          "Route ",
          el("span", { class: "mono", text: s.route }),
          " · ",
          el("span", { class: "mono", text: s.match }),
          " · " +
            s.mode +
            (s.mode === "stateful" ? " · " + s.sessions + " open session" + (s.sessions === 1 ? "" : "s") : "") +
            " · " +
            s.calls +
            " call" +
            (s.calls === 1 ? "" : "s")
        ),
        s.tools.length === 0
          ? el("p", { class: "muted", text: "No tools." })
          : el(
              "table",
              { "aria-label": "Tools of " + s.name },
              el(
                "thead",
                {},
                el(
                  "tr",
                  {},
                  el("th", { scope: "col", text: "Tool" }),
                  el("th", { scope: "col", text: "Description" }),
                  el("th", { scope: "col", class: "num", text: "Calls" })
                )
              ),
              el(
                "tbody",
                {},
                s.tools.map((t) =>
                  el(
                    "tr",
                    { "data-tool": t.name, class: t.calls === 0 ? "unused" : "" },
                    el(
                      "td",
                      { class: "mono" },
                      t.name,
                      t.defined ? null : el("span", { class: "badge", text: "not defined" })
                    ),
                    el("td", { text: t.description || t.title || "" }),
                    el("td", { class: "num calls", text: t.calls })
                  )
                )
              )
            ),
        s.toolCount > s.tools.length
          ? el("p", { class: "muted", text: "First " + s.tools.length + " of " + s.toolCount + " tools listed." })
          : null
      )
    )
  })
}
