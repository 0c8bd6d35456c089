// @ts-check
// The driver console: the page attaches over the driver socket's JSON-RPC protocol (with a
// one-use ticket, since a browser cannot set headers on a WebSocket) and answers invocations.

/** @type {WebSocket | null} */
let socket = null
/** @type {Promise<WebSocket> | null} */
let opening = null
let nextId = 1
/** @type {Map<number, PendingCall>} */
const calls = new Map()
let attached = false
let streaming = false
let driverText = ""
/** @param {string} text */
function driverStatus(text) {
  driverText = text
  say("driver-status", text)
}
/** @param {string} text */
function logLine(text) {
  const box = $("console-log")
  box.appendChild(el("div", { text: clock(Date.now()) + " " + text }))
  while (box.childNodes.length > 200 && box.firstChild) box.removeChild(box.firstChild)
  box.scrollTop = box.scrollHeight
}
function detached() {
  attached = false
  $("attach").textContent = "Attach as driver"
}
/** @param {MessageEvent} event */
function onDriverMessage(event) {
  let msg
  try {
    msg = JSON.parse(String(event.data))
  } catch {
    return
  }
  const call = msg.id !== undefined ? calls.get(msg.id) : undefined
  if (call !== undefined) {
    calls.delete(msg.id)
    if (msg.error) call.reject(msg.error)
    else call.resolve(msg.result)
    return
  }
  if (msg.method === "llm.request") {
    const p = msg.params
    noticed.set(p.id, {
      id: p.id,
      api: p.api,
      url: p.url,
      model: p.body?.model || "",
      stream: !!p.body?.stream,
      started: false,
      body: p.body
    })
    logLine("← llm.request " + p.id)
    renderPending()
    refreshState()
  } else if (msg.method === "llm.replaced") {
    detached()
    driverStatus("Another driver attached; this page no longer receives model calls.")
    logLine("← llm.replaced")
  }
}
/** @returns {Promise<WebSocket>} */
function openSocket() {
  if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket)
  if (opening) return opening
  const opened = api("POST", "/ui/ticket")
    .then((res) => {
      if (!res.ok) throw new Error(errorText(res.json, res.status))
      return /** @type {Promise<WebSocket>} */ (
        new Promise((resolve, reject) => {
          const ws = new WebSocket(
            (location.protocol === "https:" ? "wss://" : "ws://") +
              location.host +
              BASE +
              "/ui/drive?ticket=" +
              encodeURIComponent(res.json.ticket)
          )
          ws.onopen = () => {
            socket = ws
            resolve(ws)
          }
          ws.onerror = () => reject(new Error("the driver socket could not open"))
          ws.onclose = () => {
            if (socket === ws) socket = null
            calls.forEach((call) => {
              call.reject({ message: "the driver socket closed" })
            })
            calls.clear()
            if (attached) {
              detached()
              driverStatus("The driver socket closed; not attached.")
            }
          }
          ws.onmessage = onDriverMessage
        })
      )
    })
    .finally(() => {
      opening = null
    })
  opening = opened
  return opened
}
/** @param {string} method @param {Record<string, unknown>} params @returns {Promise<any>} */
function rpc(method, params) {
  return openSocket().then(
    (ws) =>
      new Promise((resolve, reject) => {
        const id = nextId++
        calls.set(id, { resolve, reject })
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
      })
  )
}
/** @param {unknown} e */
function consoleError(e) {
  const failure = /** @type {ConsoleFailure | null | undefined} */ (typeof e === "object" ? e : undefined)
  const text = failure?.message
    ? failure.message + (failure.data?.path ? " (at " + failure.data.path + ")" : "")
    : String(e)
  say("console-error", text)
  logLine("× " + text)
}
$("attach").addEventListener("click", () => {
  if (attached) {
    if (socket) socket.close()
    return
  }
  rpc("llm.attach", {}).then((result) => {
    attached = true
    $("attach").textContent = "Detach"
    driverStatus(
      "Attached: model calls that no script or rule answers wait here" +
        (result.pending === 1
          ? "; 1 was already waiting."
          : result.pending > 1
            ? "; " + result.pending + " were already waiting."
            : ".")
    )
    logLine("→ llm.attach")
    refreshState()
  }, consoleError)
})
/** @param {string} method @param {{ readonly id: string } & Record<string, unknown>} params */
function command(method, params) {
  say("console-error", "")
  logLine("→ " + method + " " + JSON.stringify(params))
  return rpc(method, params).then((result) => {
    if (method !== "llm.chunk") {
      noticed.delete(params.id)
      refreshState()
    }
    return result
  })
}
/** @param {number} ms @returns {Promise<void>} */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
/** @param {boolean} on */
function setStreaming(on) {
  streaming = on
  renderPending()
}
$("stream").addEventListener("click", () => {
  const id = selected
  if (!id) return
  const text = field("reply").value
  const words = text.match(/\s*\S+\s*/g) || (text ? [text] : [])
  const delay = Math.max(0, Number(field("word-delay").value) || 0)
  const finish = input("finish-after").checked
  setStreaming(true)
  let i = 0
  /** @returns {Promise<unknown>} */
  const next = () => {
    if (i >= words.length) return finish ? command("llm.finish", { id }) : Promise.resolve()
    const word = words[i++]
    say("console-target", "Streaming to " + id + ": word " + i + " of " + words.length + ".")
    return command("llm.chunk", { id, items: [{ type: "textDelta", text: word }] })
      .then(() => sleep(delay))
      .then(next)
  }
  Promise.resolve()
    .then(next)
    .catch(consoleError)
    .finally(() => setStreaming(false))
})
/** The selected invocation, or a note in the console when there is none. */
function target() {
  if (selected === null) say("console-error", "Select a pending invocation.")
  return selected
}
$("tool-call").addEventListener("click", () => {
  let toolInput
  try {
    toolInput = JSON.parse(field("tool-input").value || "{}")
  } catch (e) {
    say("console-error", "Tool input is not JSON: " + messageOf(e))
    return
  }
  const name = field("tool-name").value.trim()
  if (!name) {
    say("console-error", "Give the tool's name.")
    return
  }
  const id = target()
  if (id !== null)
    command("llm.chunk", { id, items: [{ type: "toolCall", name, input: toolInput }] }).catch(consoleError)
})
$("finish").addEventListener("click", () => {
  const reason = field("finish-reason").value
  const id = target()
  if (id !== null) command("llm.finish", reason ? { id, reason } : { id }).catch(consoleError)
})
$("fail").addEventListener("click", () => {
  const id = target()
  if (id !== null) command("llm.fail", { id, status: Number(field("fail-status").value) }).catch(consoleError)
})
$("disconnect").addEventListener("click", () => {
  const id = target()
  if (id !== null) command("llm.disconnect", { id }).catch(consoleError)
})
