/**
 * Sealed means sealed (issue 54), as root and as an ordinary user: the command starts in its
 * workspace with no handle on a host directory (relative paths that climb out land in the room),
 * cannot write the host, remount or unmount anything, sees a minimal read-only `/dev`, its own
 * processes only and no host socket under `/run` or `/tmp`, holds no capability; `./prog.sh` is
 * found from the caller's directory; its `/tmp` writes and the connections its network blocked
 * are in the trace. Its processes, disk and `/dev/shm` are bounded; it and everything in it die
 * with simnet, even by SIGKILL, and the sandbox left is removed at the next start. Seeding under
 * a swapper racing a link into the path never writes the host. What it may do through the control
 * plane is its room access's: no `loopback` route (control endpoint, MCP, snapshot), no host
 * token; `none` reaches nothing, `host` is the host. Record mode and `--passthrough '*'` reach
 * nothing of the host's networks. Codex, which exited 1 at start when its working directory was a
 * handle on the host's, starts sealed and answers.
 */
import { spawn } from "node:child_process"
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it, vi } from "vitest"
import { codexBinary } from "./support/codex.ts"
import {
  type As,
  nodeFor,
  processesRunning,
  runSealed,
  scratch,
  sealedCommand,
  sealedWhy,
  userNamespaces
} from "./support/sealed.ts"

const fixture = {
  routes: [
    {
      id: "item",
      match: "GET https://api.example.com/items/:id",
      respond: { kind: "text", body: '{"id":1}', contentType: "application/json" }
    }
  ],
  files: { "notes.txt": "buy milk\n" }
}

/**
 * A fresh run directory for `as` holding the fixture; the fixture's path. Under /var/tmp: the
 * room's /tmp may be a fresh one (an ordinary user's, where the host's /tmp has mounts beneath it).
 */
const prepared = (as: As) => {
  const dir = scratch(as, "simnet-isolate-", "/var/tmp")
  const file = join(dir, "fixture.json")
  writeFileSync(file, JSON.stringify(fixture), { mode: 0o644 })
  return { dir, file, trace: join(dir, "trace.jsonl") }
}

/** The `key: value` lines a probe printed. */
const said = (stdout: string): Record<string, string> =>
  Object.fromEntries(
    stdout.split("\n").flatMap((line) => {
      const found = /^([a-z/-]+): (.*)$/.exec(line)
      return found === null ? [] : [[found[1]!, found[2]!]]
    })
  )

const traced = (file: string): Array<Record<string, unknown>> =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : []

const servers: Array<net.Server> = []
afterAll(() => {
  for (const server of servers) server.close()
})

/** A unix socket listening at `path` that anyone may connect to; what connected. */
const listening = async (path: string) => {
  const reached: Array<string> = []
  const server = net.createServer((socket) => {
    reached.push(path)
    socket.destroy()
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(path, resolve))
  chmodSync(path, 0o777)
  return reached
}

const users: ReadonlyArray<As> = ["root", ...(userNamespaces ? ["user" as const] : [])]

describe.skipIf(sealedWhy !== undefined)(
  `the sealed room${sealedWhy === undefined ? "" : ` (skipped: ${sealedWhy})`}`,
  () => {
    for (const as of users) {
      it(`as ${as}: no way out — a relative path that climbs out lands in the room, nothing of the host is written or remounted, /dev is minimal, only its own processes, no host socket, no capability; ./probe.sh is found from the caller's directory; its /tmp and blocked connections are traced`, async () => {
        const { dir, file, trace } = prepared(as)
        const id = `${process.pid}-${Date.now()}-${as}`
        const runSocket = `/run/simnet-probe-${id}.sock`
        const tmpSocket = join(tmpdir(), `simnet-probe-${id}.sock`)
        const reached = [...(await listening(runSocket)), ...(await listening(tmpSocket))]
        // A directory the user may write on the host, outside /tmp (which the room overlays).
        const home = scratch(as, "simnet-isolate-home-", "/var/tmp")
        const host = spawn("sleep", ["600"])
        const node = nodeFor(as)
        writeFileSync(
          join(dir, "probe.sh"),
          [
            'echo "pwd: $(pwd -P)"',
            `( echo x > ../../../../usr/simnet-probe-${id} ) 2>/dev/null && echo "usr: written" || echo "usr: refused"`,
            `echo climbed > ../../../../tmp/simnet-climb-${id} && echo "climb: $(cat /tmp/simnet-climb-${id})"`,
            `( echo x > ${home}/simnet-probe ) 2>/dev/null && echo "home: written" || echo "home: refused"`,
            `( echo x > /var/tmp/simnet-probe-${id} ) 2>/dev/null && echo "var-tmp: written" || echo "var-tmp: refused"`,
            '( mount -o remount,rw / ) 2>/dev/null && echo "remount: done" || echo "remount: refused"',
            '( umount /tmp ) 2>/dev/null && echo "umount: done" || echo "umount: refused"',
            '( unshare -U -r -m sh -c \'mount -o remount,bind,rw /usr\' ) 2>/dev/null && echo "nested: done" || echo "nested: refused"',
            // Writing back the value it holds: harmless if it were let through.
            '( cat /proc/sys/kernel/printk_ratelimit > /proc/sys/kernel/printk_ratelimit ) 2>/dev/null && echo "sysctl: written" || echo "sysctl: refused"',
            "echo \"dev: $(ls /dev | tr '\\n' ' ')\"",
            '( touch /dev/simnet-probe ) 2>/dev/null && echo "dev-write: done" || echo "dev-write: refused"',
            'echo hi > /dev/null && echo "dev-null: written"',
            "echo \"caps: $(grep -E '^Cap(Prm|Eff|Bnd|Amb|Inh)' /proc/self/status | awk '{ print $2 }' | sort -u | tr '\\n' ' ')\"",
            "echo \"no-new-privs: $(awk '/^NoNewPrivs/ { print $2 }' /proc/self/status)\"",
            "echo \"processes: $(ls /proc | grep -c '^[0-9]')\"",
            `[ -e /proc/${host.pid} ] && echo "host-process: seen" || echo "host-process: hidden"`,
            `( kill -0 ${host.pid} ) 2>/dev/null && echo "host-signal: sent" || echo "host-signal: refused"`,
            'echo "run: $(ls -A /run | wc -l)"',
            // A session of its own (bubblewrap's --new-session): no terminal of simnet's to push input into.
            '[ "$(awk \'{ print $6 }\' /proc/$$/stat)" = "$$" ] && echo "session: own" || echo "session: shared"',
            `${node} -e 'for (const [name, path] of [["run-socket", ${JSON.stringify(runSocket)}], ["tmp-socket", ${JSON.stringify(tmpSocket)}]]) require("net").connect(path).on("connect", () => console.log(name + ": reached")).on("error", (e) => console.log(name + ": " + e.code))'`,
            "echo written > /tmp/simnet-written",
            // One connection refused, one with no route, one datagram to a port nothing listens on.
            `${node} -e 'const net = require("net"); net.connect(5432, "127.0.0.1").on("error", () => net.connect(80, "10.1.2.3").on("error", () => { const u = require("dgram").createSocket("udp4"); u.send("x", 9999, "127.0.0.1", () => u.close()) }))'`
          ].join("\n"),
          { mode: 0o755 }
        )
        const run = runSealed(as, dir, [
          "run",
          "--isolate",
          "--quiet",
          "--fixture",
          file,
          "--trace",
          trace,
          "--",
          "./probe.sh"
        ])
        host.kill()
        expect(run.status, run.stderr).toBe(0)
        const probe = said(run.stdout)
        const work = /workspace (\S+) \(/.exec(run.stderr)![1]!
        expect(probe).toMatchObject({
          pwd: work,
          usr: "refused",
          climb: "climbed",
          home: "refused",
          "var-tmp": "refused",
          remount: "refused",
          umount: "refused",
          nested: "refused",
          sysctl: "refused",
          dev: "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero ",
          "dev-write": "refused",
          "dev-null": "written",
          caps: "0000000000000000 ",
          "no-new-privs": "1",
          "host-process": "hidden",
          "host-signal": "refused",
          run: "0",
          session: "own",
          "run-socket": "ENOENT"
        })
        // Through the overlay the host's socket is not a socket; in a fresh /tmp it is not there.
        expect(["ECONNREFUSED", "ENOENT"]).toContain(probe["tmp-socket"])
        // Its own processes only: the room's first process, the relay, the probe and its ls.
        expect(Number(probe["processes"])).toBeLessThan(8)
        expect(reached).toEqual([])
        // Nothing on the host: not the climb, not /usr, not /var/tmp, not the home.
        for (const path of [
          `/usr/simnet-probe-${id}`,
          join(tmpdir(), `simnet-climb-${id}`),
          `/tmp/simnet-climb-${id}`,
          `/var/tmp/simnet-probe-${id}`,
          join(home, "simnet-probe"),
          "/tmp/simnet-written"
        ])
          expect(existsSync(path), path).toBe(false)
        const lines = traced(trace)
        expect((lines.find((line) => line["type"] === "filesystem") as { tmp: Array<string> }).tmp).toEqual(
          ["simnet-climb-" + id, "simnet-written"].sort()
        )
        expect(lines.find((line) => line["type"] === "blocked")).toEqual({
          type: "blocked",
          refused: 1,
          unroutable: 1,
          udpUnanswered: 1
        })
        expect(run.stderr).toContain(
          "simnet: blocked: 1 connection refused, 1 packet with no route, 1 UDP datagram unanswered"
        )
      }, 90_000)

      it(`as ${as}: the room's processes, disk and /dev/shm are bounded by the --isolate-* flags`, () => {
        const { dir, file } = prepared(as)
        const mark = String(700_000 + Math.floor(Math.random() * 99_999))
        const script = [
          'head -c 16777216 /dev/zero > big 2>/dev/null; echo "disk: $(wc -c < big)"',
          'head -c 8388608 /dev/zero > /dev/shm/big 2>/dev/null; echo "shm: $(wc -c < /dev/shm/big)"',
          `${nodeFor(as)} -e 'const { spawn } = require("child_process"); let started = 0; for (let i = 0; i < 200; i++) { const child = spawn("sleep", [${JSON.stringify(mark)}], { stdio: "ignore" }); child.on("error", () => {}); if (child.pid !== undefined) started++ } console.log("started: " + started); process.exit(0)'`
        ].join("; ")
        const run = runSealed(as, dir, [
          "run",
          "--isolate",
          "--quiet",
          "--isolate-pids",
          "64",
          "--isolate-disk",
          "8m",
          "--isolate-shm",
          "4m",
          "--fixture",
          file,
          "--",
          "sh",
          "-c",
          script
        ])
        expect(run.status, run.stderr).toBe(0)
        const probe = said(run.stdout)
        expect(Number(probe["disk"])).toBeLessThanOrEqual(8 * 1024 * 1024)
        expect(Number(probe["shm"])).toBeLessThanOrEqual(4 * 1024 * 1024)
        expect(Number(probe["started"])).toBeGreaterThan(0)
        expect(Number(probe["started"])).toBeLessThan(64)
        // What it left running ended with the room.
        expect(processesRunning(["sleep", mark])).toEqual([])
      }, 90_000)

      it(`as ${as}: the room and everything in it die with simnet, even by SIGKILL; the sandbox left is removed at the next start`, async () => {
        const { dir, file } = prepared(as)
        const marks = [1, 2, 3].map((n) => String(800_000 + n * 10_000 + Math.floor(Math.random() * 9_999)))
        const child = spawn(
          "unshare",
          sealedCommand(as, dir, [
            "run",
            "--isolate",
            "--quiet",
            "--fixture",
            file,
            "--",
            "sh",
            "-c",
            `sleep ${marks[0]} & nohup sleep ${marks[1]} >/dev/null 2>&1 & setsid sleep ${marks[2]} & wait`
          ]),
          { stdio: "ignore" }
        )
        await vi.waitFor(() => expect(marks.flatMap((mark) => processesRunning(["sleep", mark]))).toHaveLength(3), {
          timeout: 30_000,
          interval: 100
        })
        // simnet is the process spawned (unshare, bash and setpriv each exec the next); its sandbox
        // is named for its pid and start time (field 22 of its stat, after the name in parentheses).
        const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8")
        const owner = `simnet-sandbox-${child.pid}.${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}.`
        const left = readdirSync("/var/tmp").filter((name) => name.startsWith(owner))
        expect(left).toHaveLength(1)
        child.kill("SIGKILL")
        await vi.waitFor(() => expect(marks.flatMap((mark) => processesRunning(["sleep", mark]))).toEqual([]), {
          timeout: 10_000,
          interval: 100
        })
        expect(existsSync(join("/var/tmp", left[0]!))).toBe(true)
        const next = runSealed(as, dir, ["run", "--isolate", "--quiet", "--", "true"])
        expect(next.status, next.stderr).toBe(0)
        expect(existsSync(join("/var/tmp", left[0]!))).toBe(false)
      }, 90_000)

      it(`as ${as}: seeding while the command swaps a link to a host directory into the path never writes the host`, () => {
        const { dir, file } = prepared(as)
        const target = scratch(as, "simnet-isolate-target-")
        // The swapper renames a directory and a link to the host's directory in and out of `d` as
        // fast as it can (and removes a `d` the seeding made); the seeds are posted meanwhile.
        const swapper = `const fs = require("fs"); fs.mkdirSync("real"); fs.symlinkSync(${JSON.stringify(target)}, "link"); for (;;) { try { fs.renameSync("real", "d") } catch { try { fs.rmSync("d", { recursive: true, force: true }) } catch {} } for (const [from, to] of [["d", "real"], ["link", "d"], ["d", "link"]]) try { fs.renameSync(from, to) } catch {} }`
        const seeder = `const http = require("http"); const counts = {}; let left = 300; const next = () => { if (left-- === 0) { for (const [status, n] of Object.entries(counts)) console.log("status-" + status + ": " + n); return } const request = http.request(process.env.SIMNET_CONTROL_URL + "/filesystem/seed", { method: "POST", headers: { "content-type": "application/json" } }, (response) => { counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1; response.resume().on("end", next) }); request.end(JSON.stringify({ files: { "d/x": "planted", "d/e/y": "planted" } })) }; next()`
        const node = nodeFor(as)
        const script = [`${node} -e '${swapper}' & swapper=$!`, `${node} -e '${seeder}'`, "kill $swapper"].join("\n")
        const run = runSealed(as, dir, ["run", "--isolate", "--quiet", "--fixture", file, "--", "sh", "-c", script])
        expect(run.status, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/status-(201|400): \d+/)
        expect(readdirSync(target)).toEqual([])
      }, 90_000)
    }

    it("./nope.sh that is not in the caller's directory is refused naming where it was looked for, one the room does not see naming why; nothing runs", () => {
      const { dir } = prepared("root")
      const run = runSealed("root", dir, ["run", "--isolate", "--", "./nope.sh"])
      expect(run.status).toBe(1)
      expect(run.stderr).toContain(
        `simnet: run --isolate: ./nope.sh was not found, or is not an executable file (resolved from the directory simnet was started in: ${join(dir, "nope.sh")})`
      )
      expect(run.stderr).not.toContain("runs sealed")
      // One that is there, but where the room does not see it (its /run is empty): said before it runs.
      const hidden = `/run/simnet-prog-${process.pid}-${Date.now()}.sh`
      writeFileSync(hidden, "#!/bin/sh\necho ran\n", { mode: 0o755 })
      try {
        const unseen = runSealed("root", dir, ["run", "--isolate", "--", hidden])
        expect(unseen.status).toBe(1)
        expect(unseen.stderr).toContain(
          `simnet: run --isolate: ${hidden} is not in the sealed room: the room's /run is empty`
        )
        expect(unseen.stdout).not.toContain("ran")
      } finally {
        rmSync(hidden)
      }
    }, 30_000)

    it("the room's control access: no host token inside; the rest allowed, but no route that forwards to the host — through the control endpoint, MCP's register_routes or a snapshot", () => {
      const { dir, file, trace } = prepared("root")
      const loopback = `{"match":"GET http://127.0.0.1:5432/x","respond":{"kind":"loopback"}}`
      const post = (path: string, body: string, accept = "") =>
        `curl -s -X POST -H 'content-type: application/json' ${accept} -d '${body}' "$SIMNET_CONTROL_URL/${path}"`
      const script = [
        "echo \"token: $(env | grep -c '^SIMNET_TOKEN=')\"",
        'echo "routes: $(curl -s -o /dev/null -w \'%{http_code}\' "$SIMNET_CONTROL_URL/network/routes")"',
        `echo "register-loopback: $(${post("network/register", `[${loopback}]`)})"`,
        `echo "register-text: $(${post("network/register", `{"id":"t","match":"GET http://t.example/x","respond":{"kind":"text","body":"ok"}}`)})"`,
        `echo "mcp: $(${post("mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"register_routes","arguments":{"specs":${loopback}}}}`, "-H 'accept: application/json, text/event-stream'")})"`,
        'curl -s "$SIMNET_CONTROL_URL/snapshot" > "$TMPDIR/snapshot.json"',
        `${process.execPath} -e 'const fs = require("fs"); const path = process.env.TMPDIR + "/snapshot.json"; const state = JSON.parse(fs.readFileSync(path, "utf8")); state.routes.push({ source: "control", spec: ${loopback} }); fs.writeFileSync(path, JSON.stringify(state))'`,
        'echo "restore: $(curl -s -X POST -H \'content-type: application/json\' --data-binary @"$TMPDIR/snapshot.json" "$SIMNET_CONTROL_URL/snapshot")"'
      ].join("\n")
      const run = runSealed(
        "root",
        dir,
        ["run", "--isolate", "--quiet", "--fixture", file, "--trace", trace, "--", "sh", "-c", script],
        { env: { SIMNET_TOKEN: "host-secret-token" } }
      )
      expect(run.status, run.stderr).toBe(0)
      const probe = said(run.stdout)
      expect(probe["token"]).toBe("0")
      expect(probe["routes"]).toBe("200")
      expect(JSON.parse(probe["register-loopback"]!)).toMatchObject({
        error: { tag: "RoomForbidden", path: "[0].respond.kind" }
      })
      expect(probe["register-text"]).toMatch(/^\{"ids":\["t"\]\}$/)
      expect(probe["mcp"]).toContain("a sealed command may not register a route that forwards to the host's network")
      expect(JSON.parse(probe["mcp"]!)).toMatchObject({ result: { isError: true } })
      expect(JSON.parse(probe["restore"]!)).toMatchObject({
        error: { tag: "RoomForbidden", path: "routes[2].spec.respond.kind" }
      })
      expect(run.stdout).not.toContain("host-secret-token")
      // No loopback route was registered: the trace's changes are the text route's alone.
      const registered = traced(trace).filter((line) => line["type"] === "control.register")
      expect(registered.map((line) => line["ids"])).toEqual([["t"]])
    }, 90_000)

    it("record mode and --passthrough '*' forward none of the room's requests to the host's own network, by address or by name", () => {
      const { dir } = prepared("root")
      // A service of the host's, on its loopback: what the room must not reach.
      const before = `${process.execPath} -e 'require("http").createServer((q, s) => s.end("the host secret")).listen(5999, "127.0.0.1")' >/dev/null 2>&1 & until (exec 3<>/dev/tcp/127.0.0.1/5999) 2>/dev/null; do :; done`
      const script = [
        "echo \"port-80: $(curl -s --noproxy '*' -H 'Host: 127.0.0.1:5999' http://127.0.0.1/)\"",
        "echo \"by-name: $(curl -s --noproxy '*' -H 'Host: localhost:5999' http://127.0.0.1/)\"",
        'echo "proxy: $(curl -s --noproxy \'\' --proxy "$HTTP_PROXY" http://127.0.0.1:5999/)"'
      ].join("\n")
      for (const flags of [
        ["--record", join(dir, "recording.json"), "--record-mode", "all"],
        ["--passthrough", "*"]
      ]) {
        const run = runSealed("root", dir, ["run", "--isolate", "--quiet", ...flags, "--", "sh", "-c", script], {
          before
        })
        expect(run.status, run.stderr).toBe(0)
        expect(run.stdout, flags.join(" ")).not.toContain("the host secret")
        for (const [key, value] of Object.entries(said(run.stdout)))
          expect(value, `${flags.join(" ")}: ${key}`).toContain("is on the host's own network")
      }
    }, 90_000)

    it("--isolate-control none: no control URL inside, and every control path refuses the room; --isolate-control host: the host's token and what it may do", () => {
      const { dir, file } = prepared("root")
      const none = runSealed("root", dir, [
        "run",
        "--isolate",
        "--quiet",
        "--isolate-control",
        "none",
        "--fixture",
        file,
        "--",
        "sh",
        "-c",
        [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion, not a template.
          'echo "url: ${SIMNET_CONTROL_URL:-unset} ${SIMNET_DRIVER_URL:-unset}"',
          "for path in network/routes mcp snapshot; do echo \"$path: $(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' \"$HTTP_PROXY/experimental/simulation/$path\")\"; done"
        ].join("\n")
      ])
      expect(none.status, none.stderr).toBe(0)
      expect(said(none.stdout)).toMatchObject({
        url: "unset unset",
        "network/routes": "403",
        mcp: "403",
        snapshot: "403"
      })
      const host = runSealed(
        "root",
        dir,
        [
          "run",
          "--isolate",
          "--quiet",
          "--isolate-control",
          "host",
          "--fixture",
          file,
          "--",
          "sh",
          "-c",
          `echo "register: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H "authorization: Bearer $SIMNET_TOKEN" -H 'content-type: application/json' -d '{"match":"GET http://127.0.0.1:5432/x","respond":{"kind":"loopback"}}' "$SIMNET_CONTROL_URL/network/register")"`
        ],
        { env: { SIMNET_TOKEN: "host-secret-token" } }
      )
      expect(host.status, host.stderr).toBe(0)
      expect(said(host.stdout)).toEqual({ register: "201" })
    }, 90_000)

    // Codex exited 1 at start when its working directory was a handle on a host directory.
    const codex = sealedWhy === undefined ? codexBinary() : { why: sealedWhy }
    it.skipIf("why" in codex)(
      `Codex, unmodified, starts sealed in its workspace and answers from the fixture${"why" in codex ? ` (skipped: ${codex.why})` : ""}`,
      () => {
        const { dir } = prepared("root")
        const file = join(dir, "codex.json")
        writeFileSync(
          file,
          JSON.stringify({
            routes: [{ family: "openai" }, { family: "codex" }],
            llm: {
              rules: [
                {
                  id: "hi",
                  match: {},
                  behaviour: { type: "respond", steps: [[{ type: "text", content: "Hello from the sealed room." }]] }
                }
              ]
            }
          })
        )
        const run = runSealed(
          "root",
          dir,
          [
            "run",
            "--isolate",
            "--quiet",
            "--fixture",
            file,
            "--",
            (codex as { path: string }).path,
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "hi"
          ],
          { env: { OPENAI_API_KEY: "sk-simnet-judge" } }
        )
        expect(run.status, run.stderr).toBe(0)
        expect(run.stdout.trim().split("\n").at(-1)).toBe("Hello from the sealed room.")
        expect(run.stderr).toMatch(/simnet: \d+ answered, 0 refused, 2 model calls/)
      },
      120_000
    )
  }
)
