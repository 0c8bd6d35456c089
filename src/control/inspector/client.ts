/**
 * The inspector page's script (inlined in the page; plain browser JavaScript, no framework, no
 * build). It reads the server-sent events of `ui/events` through `fetch` (so the token travels in
 * a header), keeps a bounded list of requests rendered as a virtual list (only the rows in view
 * exist in the DOM, and at most one render per frame), changes the network through the control
 * endpoint, and drives the model over the driver socket's JSON-RPC protocol. Every text from the
 * network is set as text, never as markup.
 */
export const SCRIPT = String.raw`
"use strict";
(function () {
  var BASE = location.pathname.replace(/\/ui\/?$/, "");
  var MAX_ROWS = 5000;
  var ROW_H = 26;
  var TOKEN_KEY = "simnet-inspector-token";

  // ---- token -------------------------------------------------------------------------------
  var token = "";
  try { token = sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { token = ""; }
  if (location.hash.indexOf("token=") >= 0) {
    var m = /token=([^&]*)/.exec(location.hash);
    token = m ? decodeURIComponent(m[1]) : "";
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* private mode */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  function headers(extra) {
    var h = extra || {};
    if (token) h["authorization"] = "Bearer " + token;
    return h;
  }

  // ---- small DOM helpers -------------------------------------------------------------------
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k === "class") node.className = v;
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) node.appendChild(typeof x === "string" ? document.createTextNode(x) : x); });
      else node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function pretty(value) { try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); } }
  function clock(ms) {
    var d = new Date(ms);
    function p(n, w) { n = String(n); while (n.length < w) n = "0" + n; return n; }
    return p(d.getHours(), 2) + ":" + p(d.getMinutes(), 2) + ":" + p(d.getSeconds(), 2) + "." + p(d.getMilliseconds(), 3);
  }
  function duration(ms) {
    if (ms === undefined || ms === null) return "";
    return ms < 10 ? ms.toFixed(1) + " ms" : ms < 10000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s";
  }
  function say(id, text) { $(id).textContent = text || ""; }
  function errorText(body, status) {
    var e = body && body.error;
    if (!e) return "HTTP " + status;
    return e.tag + (e.path !== undefined && e.path !== "" ? " at " + e.path : "") + ": " + e.message;
  }

  // ---- HTTP --------------------------------------------------------------------------------
  function api(method, path, body) {
    var init = { method: method, headers: headers(body === undefined ? {} : { "content-type": "application/json" }) };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    return fetch(BASE + path, init).then(function (res) {
      if (res.status === 401) needToken();
      return res.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { ok: res.ok, status: res.status, json: json };
      });
    });
  }

  function needToken() {
    $("token-form").hidden = false;
    setConn(false, "token required");
    $("token-input").focus();
  }
  $("token-form").addEventListener("submit", function (event) {
    event.preventDefault();
    token = $("token-input").value;
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* private mode */ }
    $("token-form").hidden = true;
    reconnectNow();
  });

  // ---- tabs --------------------------------------------------------------------------------
  var tabs = ["requests", "routes", "model", "mcp"];
  function showTab(name, focus) {
    tabs.forEach(function (t) {
      var tab = $("tab-" + t);
      var on = t === name;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
      $("panel-" + t).hidden = !on;
      if (on && focus) tab.focus();
    });
    if (name === "requests") schedule();
  }
  tabs.forEach(function (t, i) {
    var tab = $("tab-" + t);
    tab.addEventListener("click", function () { showTab(t, false); });
    tab.addEventListener("keydown", function (event) {
      var next = event.key === "ArrowRight" ? i + 1 : event.key === "ArrowLeft" ? i - 1 : event.key === "Home" ? 0 : event.key === "End" ? tabs.length - 1 : -2;
      if (next === -2) return;
      event.preventDefault();
      showTab(tabs[(next + tabs.length) % tabs.length], true);
    });
  });

  // ---- the request list --------------------------------------------------------------------
  var rows = [];
  var bySeq = new Map();
  var lastSeq = 0;
  var missed = 0;
  var view = rows;
  var activeSeq = null;
  var dirty = true;
  var framePending = false;
  var programmaticScroll = false;
  var viewport = $("viewport");
  var rowsBox = $("rows");
  var spacer = $("spacer");
  var pool = [];

  function isRefused(r) { return r.denial !== undefined && r.denial !== null; }
  function statusText(r) {
    if (r.status === undefined || r.status === null) return "…";
    return String(r.status);
  }
  function durationText(r) {
    if (r.ms !== undefined && r.ms !== null) return duration(r.ms);
    if (r.ttfb !== undefined && r.ttfb !== null) return duration(r.ttfb) + "…";
    return "";
  }
  function matches(r, words, refusedOnly) {
    if (refusedOnly && !isRefused(r)) return false;
    if (words.length === 0) return true;
    var hay = (r.method + " " + r.url + " " + (r.route || "") + " " + (r.kind || "") + " " + (r.denial || "") + " " + statusText(r)).toLowerCase();
    for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
    return true;
  }
  function refilter() {
    var words = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    var refusedOnly = $("refused-only").checked;
    view = words.length === 0 && !refusedOnly ? rows : rows.filter(function (r) { return matches(r, words, refusedOnly); });
  }
  function schedule() {
    dirty = true;
    if (framePending) return;
    framePending = true;
    requestAnimationFrame(function () { framePending = false; if (dirty) render(); });
  }
  function addRows(list) {
    for (var i = 0; i < list.length; i++) {
      var r = list[i];
      if (bySeq.has(r.seq)) { Object.assign(bySeq.get(r.seq), r); continue; }
      if (lastSeq > 0 && r.seq > lastSeq + 1) missed += r.seq - lastSeq - 1;
      if (r.seq > lastSeq) lastSeq = r.seq;
      rows.push(r);
      bySeq.set(r.seq, r);
    }
    if (rows.length > MAX_ROWS + 500) {
      var drop = rows.splice(0, rows.length - MAX_ROWS);
      drop.forEach(function (r) { bySeq.delete(r.seq); });
    }
  }
  function updateRows(list) {
    for (var i = 0; i < list.length; i++) {
      var r = bySeq.get(list[i].seq);
      if (r) Object.assign(r, list[i]);
      if (activeSeq === list[i].seq && detailSeq === list[i].seq) refreshDetail();
    }
  }
  function clearRows() {
    rows = [];
    bySeq = new Map();
    view = rows;
    lastSeq = 0;
    missed = 0;
    activeSeq = null;
    showDetail(null);
    schedule();
  }
  function rowNode() {
    var node = el("div", { class: "row cols", role: "option", "aria-selected": "false" },
      el("span", { class: "time num" }), el("span", { class: "method" }), el("span", { class: "url" }),
      el("span", { class: "route" }), el("span", { class: "kind" }), el("span", { class: "status" }), el("span", { class: "dur num" }));
    node.addEventListener("click", function () {
      var seq = Number(node.dataset.seq);
      setActive(seq, false);
      openDetail(seq);
      viewport.focus({ preventScroll: true });
    });
    return node;
  }
  function render() {
    dirty = false;
    refilter();
    var n = view.length;
    $("list-empty").hidden = rows.length > 0;
    viewport.hidden = rows.length === 0;
    var shown = n === rows.length ? n + " requests" : n + " of " + rows.length + " requests";
    say("list-count", shown + (missed > 0 ? " (" + missed + " not shown: the page fell behind or the log dropped them)" : ""));
    spacer.style.height = n * ROW_H + "px";
    if ($("follow").checked && n > 0) {
      var bottom = n * ROW_H - viewport.clientHeight;
      if (Math.abs(viewport.scrollTop - bottom) > 1) { programmaticScroll = true; viewport.scrollTop = bottom; }
    }
    var top = viewport.scrollTop;
    var height = viewport.clientHeight || 400;
    var first = Math.max(0, Math.floor(top / ROW_H) - 8);
    var last = Math.min(n, Math.ceil((top + height) / ROW_H) + 8);
    var count = Math.max(0, last - first);
    while (pool.length < count) { var node = rowNode(); pool.push(node); rowsBox.appendChild(node); }
    var activeId = "";
    for (var i = 0; i < pool.length; i++) {
      var node2 = pool[i];
      if (i >= count) { node2.hidden = true; continue; }
      var r = view[first + i];
      node2.hidden = false;
      node2.dataset.seq = String(r.seq);
      node2.id = "req-" + r.seq;
      node2.style.transform = "translateY(" + (first + i) * ROW_H + "px)";
      var active = r.seq === activeSeq;
      node2.className = "row cols" + (isRefused(r) ? " refused" : "") + (active ? " active" : "");
      node2.setAttribute("aria-selected", active ? "true" : "false");
      if (active) activeId = node2.id;
      var c = node2.children;
      c[0].textContent = clock(r.time);
      c[1].textContent = r.method;
      c[2].textContent = r.url.replace(/^https:\/\//, "");
      c[2].title = r.url;
      c[3].textContent = isRefused(r) ? "✕ " + r.denial : r.route || "";
      c[3].title = c[3].textContent;
      c[4].textContent = r.kind || "";
      c[5].textContent = statusText(r);
      c[6].textContent = durationText(r);
    }
    if (activeId) viewport.setAttribute("aria-activedescendant", activeId);
    else viewport.removeAttribute("aria-activedescendant");
  }
  viewport.addEventListener("scroll", function () {
    if (programmaticScroll) { programmaticScroll = false; }
    else {
      var atBottom = viewport.scrollTop + viewport.clientHeight >= view.length * ROW_H - ROW_H;
      if (!atBottom && $("follow").checked) $("follow").checked = false;
    }
    schedule();
  });
  window.addEventListener("resize", schedule);
  ["filter", "refused-only", "follow"].forEach(function (id) { $(id).addEventListener("input", schedule); });
  $("clear-list").addEventListener("click", clearRows);

  function indexOfActive() {
    if (activeSeq === null) return -1;
    for (var i = 0; i < view.length; i++) if (view[i].seq === activeSeq) return i;
    return -1;
  }
  function setActive(seq, scroll) {
    activeSeq = seq;
    if (scroll) {
      var i = indexOfActive();
      if (i >= 0) {
        var y = i * ROW_H;
        if (y < viewport.scrollTop) viewport.scrollTop = y;
        else if (y + ROW_H > viewport.scrollTop + viewport.clientHeight) viewport.scrollTop = y + ROW_H - viewport.clientHeight;
      }
    }
    render();
  }
  viewport.addEventListener("keydown", function (event) {
    var n = view.length;
    if (n === 0) return;
    var i = indexOfActive();
    var page = Math.max(1, Math.floor(viewport.clientHeight / ROW_H) - 1);
    var next;
    switch (event.key) {
      case "ArrowDown": next = i < 0 ? n - 1 : Math.min(n - 1, i + 1); break;
      case "ArrowUp": next = i < 0 ? n - 1 : Math.max(0, i - 1); break;
      case "PageDown": next = Math.min(n - 1, Math.max(0, i) + page); break;
      case "PageUp": next = Math.max(0, Math.max(0, i) - page); break;
      case "Home": next = 0; break;
      case "End": next = n - 1; break;
      case "Enter": case " ":
        if (i >= 0) { event.preventDefault(); openDetail(activeSeq); }
        return;
      default: return;
    }
    event.preventDefault();
    if (next < n - 1 && $("follow").checked) $("follow").checked = false;
    setActive(view[next].seq, true);
  });

  // ---- request details ---------------------------------------------------------------------
  var detailSeq = null;
  var detailTimer = null;
  function showDetail(node) {
    var box = clear($("detail"));
    if (node) box.appendChild(node);
    else box.appendChild(el("p", { class: "muted", text: "Select a request to see its headers, body, route and, for a refused request, the routes that came closest." }));
  }
  function refreshDetail() {
    if (detailTimer) return;
    detailTimer = setTimeout(function () { detailTimer = null; if (detailSeq !== null) openDetail(detailSeq); }, 150);
  }
  function kv(pairs) {
    var dl = el("dl", { class: "kv" });
    pairs.forEach(function (p) { if (p[1] !== undefined && p[1] !== null && p[1] !== "") { dl.appendChild(el("dt", { text: p[0] })); dl.appendChild(el("dd", { class: p[2] || "", text: String(p[1]) })); } });
    return dl;
  }
  function openDetail(seq) {
    detailSeq = seq;
    return api("GET", "/ui/requests/" + seq).then(function (res) {
      if (detailSeq !== seq) return;
      if (!res.ok) { showDetail(el("p", { class: "error", text: errorText(res.json, res.status) })); return; }
      var rec = res.json.record;
      var extra = res.json.extra || {};
      var refusal = extra.refusal;
      var denial = rec.denial || (refusal && refusal.tag);
      var parts = [
        el("h2", {}, el("span", { class: "mono", text: rec.method + " " + rec.url })),
        kv([
          ["Request", "#" + rec.seq],
          ["Time", clock(rec.time)],
          ["Route", rec.route ? rec.route.id : "", "mono"],
          ["Kind", rec.route ? rec.route.kind : ""],
          ["Source", rec.route ? rec.route.source : ""],
          ["Status", rec.status !== undefined ? rec.status : extra.status],
          ["Refused", denial],
          ["First byte", duration(extra.ttfb)],
          ["Duration", extra.ms !== undefined ? duration(extra.ms) : extra.ttfb !== undefined ? "streaming…" : ""]
        ])
      ];
      if (denial) {
        parts.push(el("h3", { text: "Why it was refused" }));
        var candidates = refusal && refusal.candidates;
        if (refusal && refusal.message && !(candidates && candidates.length > 0)) parts.push(el("p", { class: "error", text: refusal.message }));
        if (candidates && candidates.length > 0) {
          parts.push(el("table", { "aria-label": "Nearest candidate routes", class: "candidates" },
            el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Candidate" }), el("th", { scope: "col", text: "Match" }), el("th", { scope: "col", text: "Why it missed" }))),
            el("tbody", {}, candidates.map(function (c) {
              return el("tr", {}, el("td", { class: "mono", text: c.id }), el("td", { class: "mono", text: c.match }), el("td", { text: c.reason + (c.detail ? ": " + c.detail : "") }));
            }))));
        } else if (!refusal) {
          parts.push(el("p", { class: "muted", text: "The candidates are captured for requests made while this page is open." }));
        } else if (rec.denial === "UnregisteredRequest") {
          parts.push(el("p", { class: "muted", text: "No route came close." }));
        }
      }
      if (rec.seed !== undefined && rec.seed !== null) {
        parts.push(el("h3", { text: "Generated answer" }));
        parts.push(kv([["Seed", rec.seed, "mono"], ["Occurrence", rec.occurrence]]));
        var out = el("div", { class: "stack" });
        parts.push(el("div", { class: "inline" }, el("button", { type: "button", onclick: function () { regenerate(seq, out); }, "aria-label": "Regenerate the body of request " + seq + " from its seed" }, "Regenerate body")));
        parts.push(out);
      }
      parts.push(el("h3", { text: "Headers (credentials redacted)" }));
      var hs = Object.keys(rec.headers || {});
      parts.push(hs.length === 0 ? el("p", { class: "muted", text: "none" }) :
        el("table", { "aria-label": "Request headers" }, el("tbody", {}, hs.map(function (k) { return el("tr", {}, el("th", { scope: "row", class: "mono", text: k }), el("td", { class: "mono", text: rec.headers[k] })); }))));
      parts.push(el("h3", { text: "Body" }));
      if (!rec.body) parts.push(el("p", { class: "muted", text: "none" }));
      else {
        var preview = rec.body.preview;
        try { preview = JSON.stringify(JSON.parse(preview), null, 2); } catch (e) { /* a partial preview */ }
        parts.push(el("p", { class: "muted", text: rec.body.size + " bytes" + (rec.body.size > rec.body.preview.length ? " (first " + rec.body.preview.length + " characters shown)" : "") }));
        parts.push(el("pre", { text: preview }));
      }
      showDetail(el("div", {}, parts));
    });
  }
  function regenerate(seq, out) {
    clear(out).appendChild(el("p", { class: "muted", text: "Regenerating…" }));
    api("POST", "/ui/requests/" + seq + "/regenerate").then(function (res) {
      clear(out);
      if (!res.ok) { out.appendChild(el("p", { class: "error", role: "alert", text: errorText(res.json, res.status) })); return; }
      var body = res.json.body;
      try { body = JSON.stringify(JSON.parse(body), null, 2); } catch (e) { /* not JSON */ }
      out.appendChild(el("p", { class: "note", text: "Generated again from seed " + res.json.seed + ":" }));
      out.appendChild(el("pre", { class: "regenerated", text: body }));
    });
  }

  // ---- server-sent events ------------------------------------------------------------------
  var state = null;
  var streamAbort = null;
  var retry = null;
  function setConn(live, text) {
    var c = $("conn");
    c.className = "conn" + (live ? " live" : "");
    c.textContent = text;
  }
  function dispatch(event, data) {
    var json;
    try { json = JSON.parse(data); } catch (e) { return; }
    if (event === "hello") { clearRows(); addRows(json.rows); schedule(); }
    else if (event === "batch") { addRows(json.rows); updateRows(json.updates); schedule(); }
    else if (event === "reset") { clearRows(); }
    else if (event === "state") { state = json; renderState(); }
  }
  function connect() {
    if (streamAbort) streamAbort.abort();
    var abort = new AbortController();
    streamAbort = abort;
    setConn(false, "connecting…");
    fetch(BASE + "/ui/events", { headers: headers({ accept: "text/event-stream" }), signal: abort.signal, cache: "no-store" }).then(function (res) {
      if (res.status === 401) { needToken(); return; }
      if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
      setConn(true, "live");
      var reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      var buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) throw new Error("the stream ended");
          buffer += chunk.value;
          var cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            var block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            var event = "message", data = [];
            block.split("\n").forEach(function (line) {
              if (line.slice(0, 6) === "event:") event = line.slice(6).trim();
              else if (line.slice(0, 5) === "data:") data.push(line.slice(5).replace(/^ /, ""));
            });
            if (data.length > 0) dispatch(event, data.join("\n"));
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      if (abort.signal.aborted) return;
      setConn(false, "disconnected — retrying");
      retry = setTimeout(connect, 1000);
    });
  }
  function reconnectNow() { if (retry) clearTimeout(retry); connect(); }

  // ---- header actions ----------------------------------------------------------------------
  function headerMessage(text) { say("header-message", text); }
  $("reset").addEventListener("click", function () {
    api("POST", "/reset").then(function (res) { headerMessage(res.ok ? "" : "Reset failed: " + errorText(res.json, res.status)); refreshState(); });
  });
  $("snapshot-download").addEventListener("click", function () {
    api("GET", "/snapshot").then(function (res) {
      if (!res.ok) { headerMessage("Snapshot failed: " + errorText(res.json, res.status)); return; }
      var blob = new Blob([JSON.stringify(res.json, null, 2)], { type: "application/json" });
      var a = el("a", { href: URL.createObjectURL(blob), download: "simnet-snapshot-" + new Date().toISOString().replace(/[:.]/g, "-") + ".json" });
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      headerMessage("");
    });
  });
  $("snapshot-restore").addEventListener("change", function (event) {
    var file = event.target.files && event.target.files[0];
    if (!file) return;
    file.text().then(function (text) {
      return api("POST", "/snapshot", text).then(function (res) {
        headerMessage(res.ok ? "" : "Restore failed: " + errorText(res.json, res.status));
        refreshState();
      });
    }).finally(function () { event.target.value = ""; });
  });

  // ---- routes ------------------------------------------------------------------------------
  function refreshState() {
    return api("GET", "/ui/state").then(function (res) { if (res.ok) { state = res.json; renderState(); } });
  }
  function renderRoutes() {
    var words = $("route-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    var unusedOnly = $("unused-only").checked;
    var list = state.routes.filter(function (r) {
      if (unusedOnly && r.hits > 0) return false;
      var hay = (r.id + " " + r.kind + " " + r.match + " " + r.source).toLowerCase();
      return words.every(function (w) { return hay.indexOf(w) >= 0; });
    });
    var unused = state.routes.filter(function (r) { return r.hits === 0; }).length;
    say("route-count", state.routeCount + " routes, " + unused + " unused" + (state.routeCount > state.routes.length ? " (first " + state.routes.length + " listed)" : ""));
    // Rebuild only when something shown changed, and give focus back to the same control, so a
    // refresh never takes a button away from under the keyboard or the pointer.
    var shown = JSON.stringify([list, state.routes.length]);
    if (shown === routesShown) return;
    routesShown = shown;
    var focused = document.activeElement && $("routes-body").contains(document.activeElement) ? document.activeElement.getAttribute("aria-label") : null;
    var body = clear($("routes-body"));
    list.forEach(function (r) {
      body.appendChild(el("tr", { class: r.hits === 0 ? "unused" : "", "data-route": r.id },
        el("td", { class: "mono" }, r.id, r.hits === 0 ? el("span", { class: "badge", text: "unused" }) : null),
        el("td", { text: r.kind }),
        el("td", { class: "mono", text: r.match }),
        el("td", { text: r.source }),
        el("td", { class: "num", text: r.priority }),
        el("td", { class: "num uses", text: r.hits }),
        el("td", { class: "num", text: r.remaining === undefined || r.remaining === null ? "" : r.remaining }),
        el("td", {}, el("button", { type: "button", class: "danger", "aria-label": "Remove route " + r.id, onclick: function () { removeRoute(r.id); } }, "Remove"))));
    });
    if (list.length === 0) body.appendChild(el("tr", {}, el("td", { colspan: "8", class: "muted", text: state.routes.length === 0 ? "No routes." : "No route matches the filter." })));
    if (focused) {
      var again = Array.prototype.find.call(body.querySelectorAll("button"), function (b) { return b.getAttribute("aria-label") === focused; });
      if (again) again.focus();
    }
  }
  var routesShown = "";
  ["route-filter", "unused-only"].forEach(function (id) { $(id).addEventListener("input", function () { if (state) renderRoutes(); }); });
  function removeRoute(id) {
    api("DELETE", "/network/routes/" + encodeURIComponent(id)).then(function (res) {
      say("register-note", res.ok ? "Removed " + id + "." : "");
      say("register-error", res.ok ? "" : errorText(res.json, res.status));
      refreshState();
    });
  }
  $("register-form").addEventListener("submit", function (event) {
    event.preventDefault();
    say("register-note", "");
    say("register-error", "");
    var text = $("register-json").value;
    var parsed;
    try { parsed = JSON.parse(text); } catch (e) { say("register-error", "NotJson at $: " + e.message); return; }
    api("POST", "/network/register", parsed).then(function (res) {
      if (res.ok) say("register-note", "Registered " + res.json.ids.join(", ") + ".");
      else say("register-error", errorText(res.json, res.status));
      refreshState();
    });
  });

  // ---- model -------------------------------------------------------------------------------
  var selected = null;
  var noticed = new Map();
  function pendingList() {
    var list = state ? state.llm.pending.slice() : [];
    var seen = new Set(list.map(function (p) { return p.id; }));
    noticed.forEach(function (p, id) { if (!seen.has(id)) list.push(p); });
    return list;
  }
  function textOf(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return content.map(function (p) { return typeof p === "string" ? p : p.text !== undefined ? p.text : "[" + (p.type || "part") + "]"; }).join("");
    return content === undefined || content === null ? "" : pretty(content);
  }
  function renderInvocation(p) {
    var box = clear($("invocation"));
    if (!p) return;
    var body = p.body || {};
    box.appendChild(el("h3", { text: "Messages" }));
    var gemini = (body.contents || []).map(function (c) { return { role: c.role, content: c.parts }; });
    (body.messages || body.input && (Array.isArray(body.input) ? body.input : [{ role: "user", content: body.input }]) || gemini).forEach(function (msg) {
      var calls = (msg.tool_calls || []).map(function (c) { return el("div", { class: "mono", text: "→ " + (c.function ? c.function.name + "(" + c.function.arguments + ")" : pretty(c)) }); });
      box.appendChild(el("div", { class: "message " + (msg.role || "") },
        el("div", { class: "role", text: (msg.role || msg.type || "") + (msg.tool_call_id ? " · " + msg.tool_call_id : "") }),
        el("div", { class: "content", text: textOf(msg.content) }), calls));
    });
    var tools = (body.tools || []).flatMap(function (t) { return t.functionDeclarations || [t]; });
    box.appendChild(el("h3", { text: "Tools (" + tools.length + ")" }));
    if (tools.length === 0) box.appendChild(el("p", { class: "muted", text: "none" }));
    tools.forEach(function (t) {
      var f = t.function || t;
      box.appendChild(el("details", {}, el("summary", {}, el("span", { class: "mono", text: f.name || "?" }), f.description ? " — " + f.description : ""),
        el("pre", { text: pretty(f.parameters || f.input_schema || {}) })));
    });
  }
  function renderPending() {
    var list = pendingList();
    var box = clear($("pending"));
    if (selected && !list.some(function (p) { return p.id === selected; })) selected = null;
    if (!selected && list.length > 0) selected = list[0].id;
    if (list.length === 0) box.appendChild(el("p", { class: "muted", text: "No model call is waiting." }));
    list.forEach(function (p) {
      var last = (p.body && (p.body.messages || p.body.contents) || []).filter(function (msg) { return msg.role === "user"; }).pop();
      box.appendChild(el("button", { type: "button", "aria-pressed": p.id === selected ? "true" : "false", "data-invocation": p.id,
        onclick: function () { selected = p.id; renderPending(); } },
        p.id + " · " + (p.api ? p.api + " · " : "") + p.model + (p.stream ? " · stream" : "") + (p.started ? " · answering" : "") + (last ? " · " + textOf(last.content || last.parts).slice(0, 60) : "")));
    });
    var current = list.filter(function (p) { return p.id === selected; })[0];
    renderInvocation(current);
    say("console-target", current ? "Answering " + current.id + " (" + current.model + ")." : "Select a pending invocation.");
    ["stream", "tool-call", "finish", "fail", "disconnect"].forEach(function (id) { $(id).disabled = !current || streaming; });
  }
  function table(label, columns, items, cells) {
    if (items.length === 0) return el("p", { class: "muted", text: "none" });
    return el("table", { "aria-label": label },
      el("thead", {}, el("tr", {}, columns.map(function (c) { return el("th", { scope: "col", text: c }); }))),
      el("tbody", {}, items.map(function (item) { return el("tr", {}, cells(item).map(function (c) { return el("td", { class: c[1] || "", text: c[0] === undefined || c[0] === null ? "" : c[0] }); })); })));
  }
  function renderModel() {
    var llm = state.llm;
    var scripts = clear($("scripts"));
    scripts.appendChild(el("p", { class: "muted", text: llm.queued.length + " queued, " + llm.consumed + " consumed" + (llm.current ? ", one under way" : "") + "; " + llm.callCount + " calls so far." }));
    if (llm.current) scripts.appendChild(el("details", {}, el("summary", { text: "Under way" }), el("pre", { text: pretty(llm.current) })));
    llm.queued.forEach(function (s, i) { scripts.appendChild(el("details", {}, el("summary", { text: "Queued #" + (i + 1) + " (" + (s.steps ? s.steps.length : 0) + " steps)" }), el("pre", { text: pretty(s) }))); });
    clear($("rules")).appendChild(table("Rules", ["ID", "Match", "Behaviour", "Uses"], llm.rules, function (r) {
      return [[r.id, "mono"], [JSON.stringify(r.match), "mono"], [JSON.stringify(r.behaviour), "mono"], [r.uses + (r.times !== undefined && r.times !== null ? " / " + r.times : ""), "num"]];
    }));
    clear($("counts")).appendChild(table("Calls per request key", ["Key", "Last user message", "Calls"], llm.counts, function (c) {
      return [[c.key.slice(0, 16), "mono"], [c.lastUserMessage], [c.count, "num"]];
    }));
    clear($("model-log")).appendChild(table("Model log", ["#", "Time", "Model", "Last user message", "Source", "Outcome", "Status"], llm.log.slice().reverse(), function (e) {
      return [[e.id, "mono"], [clock(e.at)], [e.model], [e.lastUserMessage], [e.source + (e.rule ? " " + e.rule : "") + (e.step !== undefined && e.step !== null ? " step " + e.step : "")], [e.outcome], [e.status, "num"]];
    }));
    renderPending();
    if (!attached && llm.attached && driverText.indexOf("Another") < 0) say("driver-status", "Another driver is attached. Attach here to take over.");
  }
  function renderState() {
    if (!state) return;
    var c = state.counters;
    say("stats", c.requests + " requests · " + c.answered + " answered · " + c.denied + " refused · seed " + state.seed);
    renderRoutes();
    renderModel();
    renderMcp();
  }

  // ---- MCP servers -------------------------------------------------------------------------
  function renderMcp() {
    var servers = state.mcp || [];
    var calls = servers.reduce(function (sum, s) { return sum + s.calls; }, 0);
    say("mcp-summary", servers.length === 0
      ? "No MCP route in this network. Register one (kind mcp, or the mcpFromConfig family) to see its tools and calls here."
      : servers.length + " MCP server" + (servers.length === 1 ? "" : "s") + ", " + calls + " tool call" + (calls === 1 ? "" : "s") + " so far.");
    var box = clear($("mcp-servers"));
    servers.forEach(function (s) {
      box.appendChild(el("div", { class: "card stack", "data-mcp-route": s.route, role: "group", "aria-label": "MCP server " + s.name },
        el("h2", {}, el("span", { class: "mcp-name", text: s.title || s.name }), " ", el("span", { class: "muted mcp-version", text: "v" + s.version })),
        el("p", { class: "muted" }, "Route ", el("span", { class: "mono", text: s.route }), " · ", el("span", { class: "mono", text: s.match }),
          " · " + s.mode + (s.mode === "stateful" ? " · " + s.sessions + " open session" + (s.sessions === 1 ? "" : "s") : "") + " · " + s.calls + " call" + (s.calls === 1 ? "" : "s")),
        s.tools.length === 0 ? el("p", { class: "muted", text: "No tools." }) :
        el("table", { "aria-label": "Tools of " + s.name },
          el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Tool" }), el("th", { scope: "col", text: "Description" }), el("th", { scope: "col", class: "num", text: "Calls" }))),
          el("tbody", {}, s.tools.map(function (t) {
            return el("tr", { "data-tool": t.name, class: t.calls === 0 ? "unused" : "" },
              el("td", { class: "mono" }, t.name, t.defined ? null : el("span", { class: "badge", text: "not defined" })),
              el("td", { text: t.description || t.title || "" }),
              el("td", { class: "num calls", text: t.calls }));
          }))),
        s.toolCount > s.tools.length ? el("p", { class: "muted", text: "First " + s.tools.length + " of " + s.toolCount + " tools listed." }) : null));
    });
  }
  $("enqueue").addEventListener("click", function () {
    say("enqueue-note", "");
    say("enqueue-error", "");
    var parsed;
    try { parsed = JSON.parse($("enqueue-json").value); } catch (e) { say("enqueue-error", "NotJson at $: " + e.message); return; }
    api("POST", "/llm/enqueue", parsed).then(function (res) {
      if (res.ok) say("enqueue-note", "Queued (" + res.json.queued + " waiting).");
      else say("enqueue-error", errorText(res.json, res.status));
      refreshState();
    });
  });

  // ---- the driver socket -------------------------------------------------------------------
  var socket = null;
  var opening = null;
  var nextId = 1;
  var calls = new Map();
  var attached = false;
  var streaming = false;
  var driverText = "";
  function driverStatus(text) { driverText = text; say("driver-status", text); }
  function logLine(text) {
    var box = $("console-log");
    box.appendChild(el("div", { text: clock(Date.now()) + " " + text }));
    while (box.childNodes.length > 200) box.removeChild(box.firstChild);
    box.scrollTop = box.scrollHeight;
  }
  function openSocket() {
    if (socket && socket.readyState === 1) return Promise.resolve(socket);
    if (opening) return opening;
    opening = api("POST", "/ui/ticket").then(function (res) {
      if (!res.ok) throw new Error(errorText(res.json, res.status));
      return new Promise(function (resolve, reject) {
        var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + BASE + "/ui/drive?ticket=" + encodeURIComponent(res.json.ticket));
        ws.onopen = function () { socket = ws; resolve(ws); };
        ws.onerror = function () { reject(new Error("the driver socket could not open")); };
        ws.onclose = function () {
          if (socket === ws) socket = null;
          calls.forEach(function (call) { call.reject({ message: "the driver socket closed" }); });
          calls.clear();
          if (attached) { attached = false; driverStatus("The driver socket closed; not attached."); $("attach").textContent = "Attach as driver"; }
        };
        ws.onmessage = function (event) {
          var msg;
          try { msg = JSON.parse(event.data); } catch (e) { return; }
          if (msg.id !== undefined && calls.has(msg.id)) {
            var call = calls.get(msg.id);
            calls.delete(msg.id);
            if (msg.error) call.reject(msg.error); else call.resolve(msg.result);
            return;
          }
          if (msg.method === "llm.request") {
            var p = msg.params;
            noticed.set(p.id, { id: p.id, api: p.api, url: p.url, model: p.body && p.body.model || "", stream: !!(p.body && p.body.stream), started: false, body: p.body });
            logLine("← llm.request " + p.id);
            renderPending();
            refreshState();
          } else if (msg.method === "llm.replaced") {
            attached = false;
            $("attach").textContent = "Attach as driver";
            driverStatus("Another driver attached; this page no longer receives model calls.");
            logLine("← llm.replaced");
          }
        };
      });
    }).finally(function () { opening = null; });
    return opening;
  }
  function rpc(method, params) {
    return openSocket().then(function (ws) {
      return new Promise(function (resolve, reject) {
        var id = nextId++;
        calls.set(id, { resolve: resolve, reject: reject });
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: id, method: method, params: params }));
      });
    });
  }
  function consoleError(e) {
    var text = e && e.message ? e.message + (e.data && e.data.path ? " (at " + e.data.path + ")" : "") : String(e);
    say("console-error", text);
    logLine("× " + text);
  }
  $("attach").addEventListener("click", function () {
    if (attached) {
      if (socket) socket.close();
      return;
    }
    rpc("llm.attach", {}).then(function (result) {
      attached = true;
      $("attach").textContent = "Detach";
      driverStatus("Attached: model calls that no script or rule answers wait here" + (result.pending > 0 ? "; " + result.pending + " were already waiting." : "."));
      logLine("→ llm.attach");
      refreshState();
    }, consoleError);
  });
  function command(method, params) {
    say("console-error", "");
    logLine("→ " + method + " " + JSON.stringify(params));
    return rpc(method, params).then(function (result) {
      if (method !== "llm.chunk") { noticed.delete(params.id); refreshState(); }
      return result;
    });
  }
  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }
  function setStreaming(on) { streaming = on; renderPending(); }
  $("stream").addEventListener("click", function () {
    var id = selected;
    if (!id) return;
    var text = $("reply").value;
    var words = text.match(/\s*\S+\s*/g) || (text ? [text] : []);
    var delay = Math.max(0, Number($("word-delay").value) || 0);
    var finish = $("finish-after").checked;
    setStreaming(true);
    var i = 0;
    function next() {
      if (i >= words.length) return finish ? command("llm.finish", { id: id }) : undefined;
      var word = words[i++];
      say("console-target", "Streaming to " + id + ": word " + i + " of " + words.length + ".");
      return command("llm.chunk", { id: id, items: [{ type: "textDelta", text: word }] }).then(function () { return sleep(delay); }).then(next);
    }
    Promise.resolve().then(next).catch(consoleError).finally(function () { setStreaming(false); });
  });
  $("tool-call").addEventListener("click", function () {
    var input;
    try { input = JSON.parse($("tool-input").value || "{}"); } catch (e) { say("console-error", "Tool input is not JSON: " + e.message); return; }
    var name = $("tool-name").value.trim();
    if (!name) { say("console-error", "Give the tool's name."); return; }
    command("llm.chunk", { id: selected, items: [{ type: "toolCall", name: name, input: input }] }).catch(consoleError);
  });
  $("finish").addEventListener("click", function () {
    var reason = $("finish-reason").value;
    command("llm.finish", reason ? { id: selected, reason: reason } : { id: selected }).catch(consoleError);
  });
  $("fail").addEventListener("click", function () {
    command("llm.fail", { id: selected, status: Number($("fail-status").value) }).catch(consoleError);
  });
  $("disconnect").addEventListener("click", function () {
    command("llm.disconnect", { id: selected }).catch(consoleError);
  });

  showTab("requests", false);
  connect();
})();
`
