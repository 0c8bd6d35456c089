// An app that is busy without showing it, as an agent that thinks before it answers: a raw-mode
// loop where `c` computes for BUSY_MS (default 300) without a byte of output, then prints
// "computed N"; `f` fetches https://api.example.com/answer (through simnet's proxy under `simnet
// run` and `simnet explore`: a CONNECT tunnel, a TLS handshake, then the request) and prints the
// answer's body; `t` draws half a line at once and the rest 40 ms later, as a UI that throttles
// its redraws does (Ink's trailing render). A runner that takes a silent app, or one asleep on a
// timer due soon, for one at rest sees none of these lines whole.
const busyMs = Number(process.env.BUSY_MS ?? 300)
let computed = 0
let fetched = 0
process.stdin.setRawMode(true)
process.stdin.setEncoding("utf8")
process.stdout.write("busy ready\r\n")
process.stdin.on("data", (data) => {
  for (const key of data) {
    if (key === "\x03") process.exit(0)
    if (key === "c") {
      const until = performance.now() + busyMs
      while (performance.now() < until) {
        // computing, silently
      }
      process.stdout.write(`computed ${++computed}\r\n`)
    }
    if (key === "t") {
      process.stdout.write("throttled: first half")
      setTimeout(() => process.stdout.write(", then the rest\r\n"), 40)
    }
    if (key === "f") {
      const n = ++fetched
      fetch("https://api.example.com/answer")
        .then((response) => response.text())
        .then(
          (body) => process.stdout.write(`fetched ${n}: ${body}\r\n`),
          (error) => process.stdout.write(`fetch ${n} failed: ${error.message}\r\n`)
        )
    }
  }
})
