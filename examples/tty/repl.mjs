// A small terminal agent, as a TUI app under test would be: a raw-mode REPL that sends each line
// to a model (OpenAI's Chat Completions, through Node's own fetch, so it reaches simnet the way a
// real app would under `simnet run`: HTTPS_PROXY with NODE_USE_ENV_PROXY, the CA by
// NODE_EXTRA_CA_CERTS) and prints the answer. `examples/tty/repl.test.ts` drives it through the
// driver socket's ui.* methods. With REPL_CRASH_ON set, that input makes it throw (a planted bug).
const out = (text) => process.stdout.write(text)
const base = process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"
let line = ""
let busy = false
const prompt = () => out("\x1b[1myou>\x1b[0m ")

const ask = async (text) => {
  if (process.env.REPL_CRASH_ON !== undefined && text === process.env.REPL_CRASH_ON)
    throw new TypeError(`cannot read the answer to ${text}`)
  // A network failure or a broken answer is shown, not thrown: only the planted bug crashes.
  try {
    const response = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${process.env.OPENAI_API_KEY ?? "sk-test"}`
      },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: text }] })
    })
    const body = await response.json()
    return response.ok
      ? (body.choices[0].message.content ?? "(no text)")
      : `(error ${response.status}: ${body.error?.message ?? "no message"})`
  } catch (error) {
    return `(failed: ${error.message})`
  }
}

process.stdin.setRawMode(true)
process.stdin.setEncoding("utf8")
out("repl ready: type a question, Enter to ask, Ctrl+C to quit\r\n")
prompt()
// Input arrives as the terminal hands it over: several keys may come in one read (typed text and
// Enter together). Each is handled in turn; an escape sequence (an arrow) is one key.
const keys = (data) => data.match(/\x1b\[[0-9;]*[A-Za-z~]|\x1b.|[\s\S]/g) ?? []
process.stdin.on("data", (data) => {
  for (const key of keys(data)) handle(key)
})
const handle = (data) => {
  if (data === "\x03") {
    out("\r\nbye\r\n")
    process.exit(0)
  }
  if (busy) return
  if (data === "\r") {
    const text = line
    line = ""
    out("\r\n")
    if (text.trim() === "") return prompt()
    busy = true
    ask(text).then((answer) => {
      out(`\x1b[36magent>\x1b[0m ${answer}\r\n`)
      busy = false
      prompt()
    })
    return
  }
  if (data === "\x7f") {
    if (line.length > 0) out("\b \b")
    line = line.slice(0, -1)
    return
  }
  if (data.startsWith("\x1b")) return
  line += data
  out(data)
}
