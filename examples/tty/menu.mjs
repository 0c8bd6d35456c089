// A menu app, as a settings screen or a picker in a TUI is: a list drawn in full on every change,
// the chosen row in inverse; up and down move, Enter opens a row's page, Escape (or Enter again)
// goes back; typed text filters the list. `bench/explore.bench.ts` explores it beside the example
// agent.
const ITEMS = ["Model", "Theme", "Keybindings", "Permissions", "Memory", "Logout"]
let chosen = 0
let filter = ""
let open
const shown = () => ITEMS.filter((item) => item.toLowerCase().includes(filter.toLowerCase()))
const draw = () => {
  const items = shown()
  chosen = Math.min(chosen, Math.max(0, items.length - 1))
  let out = "\x1b[H\x1b[2J"
  if (open !== undefined) out += `${open}\r\n\r\nThis is the ${open} page.\r\nEsc or Enter: back\r\n`
  else {
    out += `Settings${filter === "" ? "" : ` (filter: ${filter})`}\r\n\r\n`
    out += items.map((item, i) => `${i === chosen ? "\x1b[7m" : ""}  ${item}  \x1b[0m\r\n`).join("")
    if (items.length === 0) out += "  (nothing matches)\r\n"
  }
  process.stdout.write(out)
}
process.stdin.setRawMode(true)
process.stdin.setEncoding("utf8")
process.stdout.on("resize", draw)
process.stdin.on("data", (data) => {
  for (const key of data.match(/\x1b\[[0-9;]*[A-Za-z~]|\x1b.|[\s\S]/g) ?? []) {
    if (key === "\x03") process.exit(0)
    if (open !== undefined) {
      if (key === "\x1b" || key === "\r") open = undefined
    } else if (key === "\x1b[A") chosen = Math.max(0, chosen - 1)
    else if (key === "\x1b[B") chosen += 1
    else if (key === "\r") open = shown()[chosen]
    else if (key === "\x7f") filter = filter.slice(0, -1)
    else if (key === "\x1b") filter = ""
    else if (key >= " " && key.length === 1) filter = (filter + key).slice(-20)
  }
  draw()
})
draw()
