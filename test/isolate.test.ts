/**
 * The sealed run (issue 35): `simnet run --isolate`, itself run in a network namespace with
 * loopback only as every third-party test is. curl with `--noproxy '*'` and Python's urllib with
 * proxies disabled are answered by the fixture's routes (port 443 by SNI and Host, port 80 by
 * Host); an unregistered host is refused by name at once; without `--isolate` the same commands are
 * not answered. A child reads the fixture's files, writes into its workspace, its home and /tmp:
 * the trace records the workspace's changes and nothing lands on the host. The workspace is
 * seen and seeded through the control endpoint while the command runs; a planted symbolic link
 * and a path that escapes are refused, naming them; a snapshot restored makes the workspace what
 * it was, removing what was made since without following a link. The room's boundary, bounds,
 * death with simnet, seeding under a racing swapper and control access are `isolate.room.test.ts`'s.
 */
import { spawn, spawnSync } from "node:child_process"
import { once } from "node:events"
import { WebSocket } from "ws"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { replayTrace } from "../src/Trace.ts"
import { isolationProblem } from "../src/serve/isolate.ts"
import { namespaces } from "./support/agentJudge.ts"
import { runSealed, scratch, userNamespaces } from "./support/sealed.ts"

const root = join(import.meta.dirname, "..")
const simnet = join(root, "bin", "simnet.js")
const why = !namespaces ? "no network namespace here (unshare -n needs root on Linux)" : isolationProblem()
const python = spawnSync("python3", ["-c", "print(1)"], { encoding: "utf8" }).stdout?.trim() === "1"

const fixture = {
  routes: [
    {
      id: "item",
      match: "GET https://api.example.com/items/:id",
      respond: { kind: "text", body: '{"id":1,"name":"widget"}', contentType: "application/json" }
    },
    { id: "plain", match: "GET http://plain.example.com/hi", respond: { kind: "text", body: "hi over port 80" } }
  ],
  files: { "notes.txt": "buy milk\n", "src/app.js": "console.log(1)\n", "bin/blob": { base64: "AAECAw==" } }
}

/** Runs `simnet run [--isolate] --fixture F --trace T -- sh -c SCRIPT` in a loopback-only namespace: its status, output and trace. */
const sealed = (script: string, isolate = true) => {
  const dir = mkdtempSync(join(tmpdir(), "simnet-isolate-"))
  const file = join(dir, "fixture.json")
  writeFileSync(file, JSON.stringify(fixture))
  const trace = join(dir, "trace.jsonl")
  const run = [
    process.execPath,
    simnet,
    "run",
    ...(isolate ? ["--isolate"] : []),
    "--fixture",
    file,
    "--trace",
    trace,
    "--",
    "sh",
    "-c",
    script
  ]
  const quoted = run.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")
  const result = spawnSync(
    "unshare",
    ["-n", "bash", "-c", `ip link set lo up && SIMNET_CA_DIR=${JSON.stringify(join(dir, "ca"))} exec ${quoted}`],
    { cwd: root, encoding: "utf8", timeout: 60_000 }
  )
  const lines = existsSync(trace)
    ? readFileSync(trace, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : []
  return { ...result, lines, trace }
}

const URLLIB = `import urllib.request as u
print(u.build_opener(u.ProxyHandler({})).open("https://api.example.com/items/2").read().decode())`

describe.skipIf(why !== undefined)(`simnet run --isolate${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("answers programs that ignore the proxy, by SNI and Host on 443 and Host on 80; refuses an unknown host by name at once", () => {
    const run = sealed(
      [
        `curl -sS -m 5 --noproxy '*' https://api.example.com/items/1; echo`,
        `curl -sS -m 5 --noproxy '*' http://plain.example.com/hi; echo`,
        // -m 1: refused within a second, by curl's own clock.
        `curl -sS -m 1 --noproxy '*' -o /dev/null -w 'status %{http_code}\\n' https://nowhere.example.org/x`,
        ...(python ? [`python3 -c '${URLLIB}'`] : [])
      ].join("; ")
    )
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain(`{"id":1,"name":"widget"}\nhi over port 80\nstatus 404`)
    if (python) expect(run.stdout.match(/"widget"/g)).toHaveLength(2)
    const requests = run.lines
      .filter((line) => line["type"] === "request")
      .map((line) => `${line["method"]} ${line["url"]} ${line["outcome"]}`)
    expect(requests).toContain("GET https://api.example.com/items/1 answered")
    expect(requests).toContain("GET http://plain.example.com/hi answered")
    expect(requests).toContain("GET https://nowhere.example.org/x UnregisteredRequest")
    expect(run.stderr).toContain("runs sealed")
  }, 90_000)

  it("without --isolate the same requests are not answered: they go around simnet and fail", () => {
    const run = sealed(
      `curl -sS -m 2 --noproxy '*' https://api.example.com/items/1; echo "curl $?"${python ? `; python3 -c '${URLLIB}' 2>/dev/null; echo "python $?"` : ""}`,
      false
    )
    expect(run.stdout).toMatch(/curl (6|7|28)\b/)
    if (python) expect(run.stdout).toMatch(/python 1\b/)
    expect(run.lines.filter((line) => line["type"] === "request")).toEqual([])
  }, 90_000)

  it("the child reads the fixture's files and writes its workspace, home and /tmp: the trace records the workspace, the host sees nothing", () => {
    const probe = `simnet-probe-${process.pid}-${Date.now()}`
    const hostDir = mkdtempSync(join(tmpdir(), "simnet-isolate-host-"))
    writeFileSync(join(hostDir, "keep.txt"), "the host's")
    const run = sealed(
      [
        "cat notes.txt",
        "echo done > out.txt",
        "rm src/app.js",
        "echo changed >> notes.txt",
        `echo home > "$HOME/${probe}"`,
        `echo tmp > /tmp/${probe}`,
        `echo tmpdir > "$TMPDIR/${probe}"`,
        `touch ${JSON.stringify(join(homedir(), probe))} 2>/dev/null || echo "host home: read-only"`,
        // The workspace through the control endpoint, while the command runs (its URL works inside).
        `curl -sS -X POST -H 'content-type: application/json' -d '{"files":{"seeded/by/control.txt":"from the control endpoint"}}' "$SIMNET_CONTROL_URL/filesystem/seed"; echo`,
        "cat seeded/by/control.txt; echo",
        `curl -sS "$SIMNET_CONTROL_URL/filesystem" > listing.json`,
        "ln -s /etc planted",
        `curl -sS -X POST -H 'content-type: application/json' -d '{"files":{"planted/passwd":"x"}}' "$SIMNET_CONTROL_URL/filesystem/seed"; echo`,
        `curl -sS -X POST -H 'content-type: application/json' -d '{"files":{"../escape.txt":"x"}}' "$SIMNET_CONTROL_URL/filesystem/seed"; echo`,
        // A snapshot carries the workspace's files; restoring it lays them out again and removes
        // what was made since — a link to a host directory is removed, not followed.
        `curl -sS "$SIMNET_CONTROL_URL/snapshot" > "$TMPDIR/snap.json"`,
        "mv notes.txt gone.txt",
        "mkdir -p later/deeper; echo new > later/deeper/new.txt; echo new > new.txt",
        `ln -s ${JSON.stringify(hostDir)} hostlink`,
        `curl -sS -X POST -H 'content-type: application/json' --data-binary @"$TMPDIR/snap.json" "$SIMNET_CONTROL_URL/snapshot"; echo`,
        "echo restored: $(head -1 notes.txt); ls -A | tr '\\n' ' '; echo"
      ].join("; ")
    )
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain("buy milk\n")
    expect(run.stdout).toContain("host home: read-only")
    expect(run.stdout).toContain(`{"seeded":["seeded/by/control.txt"]}`)
    expect(run.stdout).toContain("from the control endpoint")
    expect(run.stdout).toContain(
      `files[\\"planted/passwd\\"]: \\"planted\\" is a symbolic link in the workspace: refused`
    )
    expect(run.stdout).toContain("must stay inside the workspace")
    // The workspace is the snapshot's again: gone.txt, new.txt, later/ and the link removed; the
    // host directory the link named keeps its file.
    expect(run.stdout).toContain(
      `{"restored":true}\nrestored: buy milk\nbin listing.json notes.txt out.txt planted seeded \n`
    )
    expect(readdirSync(hostDir)).toEqual(["keep.txt"])
    const end = run.lines.find((line) => line["type"] === "filesystem") as {
      created: Array<string>
      changed: Array<string>
      deleted: Array<string>
      files: Record<string, { text?: string; link?: string }>
      home: Array<string>
      tmp: Array<string>
    }
    expect(end.created).toEqual(["listing.json", "out.txt", "planted", "seeded/by/control.txt"])
    expect(end.changed).toEqual(["notes.txt"])
    expect(end.deleted).toEqual(["src/app.js"])
    expect(end.files["out.txt"]!.text).toBe("done\n")
    expect(end.files["planted"]!.link).toBe("/etc")
    expect(end.files["bin/blob"]).toMatchObject({ size: 4 })
    expect(end.files["bin/blob"]!.text).toBeUndefined()
    expect(end.home).toContain(probe)
    // What it wrote in /tmp is in the trace too, and named on standard error.
    expect(end.tmp).toEqual([probe])
    expect(run.stderr).toContain(`/tmp: 1 written (${probe})`)
    // The listing the child fetched while it ran: the files with their size, hash and text.
    const listing = JSON.parse(end.files["listing.json"]!.text!) as {
      files: Record<string, { size: number; sha256: string; text?: string }>
    }
    expect(listing.files["seeded/by/control.txt"]).toMatchObject({ size: 25, text: "from the control endpoint" })
    expect(listing.files["notes.txt"]!.sha256).toMatch(/^[0-9a-f]{64}$/)
    // Nothing on the host: not in its /tmp, not in this user's home, and the sandbox is gone.
    expect(existsSync(join("/tmp", probe))).toBe(false)
    expect(existsSync(join(homedir(), probe))).toBe(false)
    const sandbox = /workspace (\/\S+)\/work /.exec(run.stderr)![1]!
    expect(existsSync(sandbox)).toBe(false)
    // The trace replays with the same files laid out first, and says what the run changed.
    const replay = replayTrace(readFileSync(run.trace, "utf8"))
    expect(Object.keys(replay.files).sort()).toEqual(["bin/blob", "notes.txt", "src/app.js"])
    expect(
      replay.steps.filter((step) => step.kind === "control").map((step) => step.kind === "control" && step.path)
    ).toEqual(["filesystem/seed", "snapshot"])
    expect(replay.workspace?.deleted).toEqual(["src/app.js"])
  }, 90_000)

  it("a fixture's file that escapes the workspace is refused naming it; nothing runs", () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-isolate-bad-"))
    const file = join(dir, "fixture.json")
    writeFileSync(file, JSON.stringify({ files: { "../outside.txt": "x" } }))
    const run = spawnSync(
      process.execPath,
      [simnet, "run", "--isolate", "--fixture", file, "--", "sh", "-c", "echo ran"],
      { encoding: "utf8" }
    )
    expect(run.status).not.toBe(0)
    expect(run.stdout).not.toContain("ran")
    expect(run.stderr).toContain(`files["../outside.txt"]`)
    expect(run.stderr).toContain("must stay inside the workspace")
  }, 30_000)
})

describe("simnet run --isolate where it cannot be had", () => {
  it("says what is missing and runs nothing, never a run without the isolation", () => {
    // A PATH without util-linux: simnet names the first tool it lacks.
    const run = spawnSync(process.execPath, [simnet, "run", "--isolate", "--", "/bin/sh", "-c", "echo ran"], {
      encoding: "utf8",
      env: { ...process.env, PATH: "/nonexistent" }
    })
    expect(run.status).toBe(1)
    expect(run.stdout).not.toContain("ran")
    expect(run.stderr).toMatch(/simnet: run --isolate needs (unshare|nsenter|ip|mount) \(util-linux/)
  }, 30_000)
})

describe.skipIf(why !== undefined)(`simnet run --isolate --tty${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("composes: the sealed command runs in a terminal the driver sees, its requests answered without a proxy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-isolate-tty-"))
    const file = join(dir, "fixture.json")
    writeFileSync(file, JSON.stringify(fixture))
    const child = spawn(
      process.execPath,
      [
        simnet,
        "run",
        "--quiet",
        "--isolate",
        "--tty",
        "--cols",
        "80",
        "--rows",
        "10",
        "--fixture",
        file,
        "--",
        "sh",
        "-c",
        "read line; curl -sS --noproxy '*' https://api.example.com/items/1; echo; cat notes.txt; read done"
      ],
      {
        cwd: root,
        env: { ...process.env, SIMNET_CA_DIR: join(dir, "ca") },
        stdio: ["ignore", "ignore", "pipe"]
      }
    )
    let err = ""
    const driverUrl = await new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (data: Buffer) => {
        err += data.toString()
        const found = /driver: (ws:\/\/\S+)/.exec(err)
        if (found !== null) resolve(found[1]!)
      })
      child.once("exit", () => reject(new Error(err)))
    })
    const socket = new WebSocket(driverUrl)
    await once(socket, "open")
    let id = 0
    const call = (method: string, params: unknown) =>
      new Promise<{ result?: { lines: Array<string> }; error?: unknown }>((resolve) => {
        const mine = ++id
        socket.on("message", function listen(data: Buffer) {
          const reply = JSON.parse(data.toString()) as { id: number }
          if (reply.id !== mine) return
          socket.off("message", listen)
          resolve(reply as never)
        })
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }))
      })
    await call("ui.type", { text: "go" })
    await call("ui.press", { key: "enter" })
    const shown = await call("ui.wait", { text: "buy milk", timeoutMs: 10_000 })
    expect(shown.error).toBeUndefined()
    expect(shown.result!.lines).toContain(`{"id":1,"name":"widget"}`)
    const exit = once(child, "exit")
    await call("ui.press", { key: "enter" })
    const [code] = await exit
    socket.close()
    expect(code).toBe(0)
  }, 30_000)
})

describe.skipIf(why !== undefined || !userNamespaces)(
  `simnet run --isolate as an ordinary user${why === undefined && userNamespaces ? "" : " (skipped: no user namespaces for an ordinary user here, or no root to become one)"}`,
  () => {
    it("seals the command through a user namespace, wherever the clone is: answered by the routes, the host read-only", () => {
      // Run from a world-readable directory where the clone is bind-mounted (support/sealed.ts):
      // the clone itself may be where nobody cannot enter.
      const dir = scratch("user")
      const file = join(dir, "fixture.json")
      writeFileSync(file, JSON.stringify(fixture), { mode: 0o644 })
      const result = runSealed("user", dir, [
        "run",
        "--quiet",
        "--isolate",
        "--fixture",
        file,
        "--",
        "sh",
        "-c",
        `curl -sS -m 5 --noproxy '*' https://api.example.com/items/1; echo; cat notes.txt; touch /etc/simnet-probe 2>&1 | grep -o 'Read-only file system'`
      ])
      expect(result.status, result.stderr).toBe(0)
      expect(result.stdout).toBe(`{"id":1,"name":"widget"}\nbuy milk\nRead-only file system\n`)
    }, 60_000)
  }
)
