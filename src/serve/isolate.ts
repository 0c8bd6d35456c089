/**
 * `simnet run --isolate` (Linux): the command in a sealed room. A holder process makes a network
 * namespace with loopback only and a mount namespace (user namespaces too when not root), and in
 * them: the host's file systems read-only but for the run's sandbox; `/tmp` the host's with what
 * the command writes there kept in the sandbox (an overlay; a fresh one where overlays cannot be
 * mounted), a fresh `/dev/shm`; and a `resolv.conf` naming 127.0.0.1. A small relay started there listens on ports
 * 80 and 443 of 127.0.0.1 and ::1 and on simnet's own port (so its proxy, control endpoint and
 * driver keep their URLs inside), hands each listening socket to simnet over Node's IPC channel,
 * and answers DNS on UDP 53 (a datagram socket does not survive the handing over). Every name
 * resolves to loopback, so
 * every TCP connection the command makes is answered by simnet — port 80 as plain HTTP, 443 as
 * TLS with a certificate for the name the client sent, each request for the host its `Host`
 * names — or refused: nothing else listens, and the namespace has no route off the machine. The
 * command joins the namespaces with `nsenter`, in the sandbox's workspace, with its own `HOME` and
 * temporary directory. The relay ends when simnet does (it waits on a pipe from simnet), and
 * with the scope; the sandbox is removed after it. Not a security boundary: a program running as
 * root inside can undo the mounts.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import type * as net from "node:net"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, accessSync, constants } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRequire } from "node:module"
import { Data, Effect, type Scope } from "effect"
import { changesOf, type FileContent, type FileState, layOut, readWorkspace, statesOf, type WorkspaceChanges } from "../core/workspace.ts"

/** A sealed run that cannot be had here, or a workspace that cannot be laid out: why (exit 1). */
export class IsolationError extends Data.TaggedError("IsolationError")<{ readonly message: string }> {}

/** Why this machine cannot isolate a command, or undefined when it can. */
export const isolationProblem = (): string | undefined => {
  if (process.platform !== "linux") return `simnet run --isolate needs Linux (network and mount namespaces); this is ${process.platform}`
  // One shell asks for every tool and names the first it lacks.
  const missing = spawnSync("/bin/sh", ["-c", "for t in unshare nsenter ip mount; do command -v $t >/dev/null || { echo $t; exit 1; }; done"], { encoding: "utf8" })
  if (missing.status === 0) return undefined
  const tool = missing.stdout?.trim() || "/bin/sh"
  return `simnet run --isolate needs ${tool} (util-linux${tool === "ip" ? "; ip is iproute2's" : ""}), which is not on PATH`
}

/** A run's sandbox: its root, the workspace the command starts in, its home and temporary directory, and the proxy's CA where the room surely reads it. */
export interface Sandbox {
  readonly root: string
  readonly work: string
  readonly home: string
  readonly tmp: string
  readonly ca: string
}

/** Where sandboxes go: `/var/tmp` (outside `/tmp`, which the sealed room replaces), else the system's temporary directory. */
const sandboxBase = (): string => {
  try {
    accessSync("/var/tmp", constants.W_OK)
    return "/var/tmp"
  } catch {
    return tmpdir()
  }
}

/** A fresh sandbox with `files` laid out in its workspace (and the proxy's CA beside it, `ca.pem`), removed when the scope closes. */
export const makeSandbox = (files: Readonly<Record<string, FileContent>>, caPem = ""): Effect.Effect<Sandbox, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const root = mkdtempSync(join(sandboxBase(), "simnet-sandbox-"))
        const sandbox = { root, work: join(root, "work"), home: join(root, "home"), tmp: join(root, "tmp"), ca: join(root, "ca.pem") }
        for (const dir of [sandbox.work, sandbox.home, sandbox.tmp]) mkdirSync(dir, { mode: 0o755 })
        writeFileSync(join(root, "resolv.conf"), "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
        writeFileSync(sandbox.ca, caPem)
        try {
          layOut(sandbox.work, files)
        } catch (error) {
          rmSync(root, { recursive: true, force: true })
          throw error
        }
        return sandbox
      },
      catch: (cause) => (cause instanceof Error ? cause : new Error(String(cause)))
    }),
    (sandbox) => Effect.sync(() => rmSync(sandbox.root, { recursive: true, force: true }))
  )

/** The holder's script: `$1` the sandbox. It sets the room up, then becomes the relay (`SIMNET_RELAY`). */
const HOLDER = String.raw`set -e
S="$1"
ip link set lo up
mount --make-rprivate /
mount --bind "$S" "$S"
for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$S"|"$S"/*) ;; *) mount -o remount,bind,ro "$m" 2>/dev/null || true ;; esac
done
mkdir -p "$S/.tmp/upper" "$S/.tmp/work"
mount -t overlay overlay -o "lowerdir=/tmp,upperdir=$S/.tmp/upper,workdir=$S/.tmp/work" /tmp 2>/dev/null || mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount --bind "$S/resolv.conf" /etc/resolv.conf
exec "$SIMNET_NODE" --input-type=module -e "$SIMNET_RELAY"
`

/**
 * The relay, the room's one resident: it listens where `SIMNET_RELAY_PORTS` says and hands each
 * listening socket to simnet (whose process then accepts on it), and answers DNS on 127.0.0.1:53
 * itself — every name is loopback: A 127.0.0.1, AAAA ::1 — with `dns-packet` (from
 * `SIMNET_DNS_PACKET`). It ends when simnet's pipe to it closes: simnet ended, however it ended.
 */
const RELAY = String.raw`
import net from "node:net"
import dgram from "node:dgram"
import { createRequire } from "node:module"
const send = (message, handle) => new Promise((resolve, reject) => process.send(message, handle, (error) => (error ? reject(error) : resolve())))
try {
  const dns = createRequire(process.env.SIMNET_DNS_PACKET)(process.env.SIMNET_DNS_PACKET)
  const udp = dgram.createSocket("udp4")
  udp.on("message", (query, from) => {
    let packet
    try { packet = dns.decode(query) } catch { return }
    if (packet.type !== "query" || !Array.isArray(packet.questions)) return
    const answers = packet.questions.flatMap((q) => q.type === "A" ? [{ type: "A", name: q.name, ttl: 60, class: "IN", data: "127.0.0.1" }] : q.type === "AAAA" ? [{ type: "AAAA", name: q.name, ttl: 60, class: "IN", data: "::1" }] : [])
    udp.send(dns.encode({ id: packet.id, type: "response", flags: dns.RECURSION_DESIRED | dns.RECURSION_AVAILABLE | dns.AUTHORITATIVE_ANSWER, questions: packet.questions, answers }), from.port, from.address)
  })
  await new Promise((resolve, reject) => { udp.once("error", reject); udp.bind({ address: "127.0.0.1", port: 53, exclusive: true }, resolve) })
  for (const [host, port] of JSON.parse(process.env.SIMNET_RELAY_PORTS)) {
    const server = net.createServer({ pauseOnConnect: true })
    await new Promise((resolve, reject) => { server.once("error", reject); server.listen({ host, port, exclusive: true }, resolve) })
    await send({ kind: "tcp", port }, server)
    server.close()
  }
  await send({ kind: "ready" })
  process.disconnect()
  process.stdin.on("end", () => process.exit(0))
  process.stdin.resume()
} catch (error) {
  process.stderr.write("simnet relay: " + error.message + "\n")
  process.exit(1)
}
`

/** What the room hands simnet: each connection, by the port it was made to. */
export interface RoomHooks {
  /** A connection to port 80 or 443 of a name simnet resolved (`Proxy.adopt`). */
  readonly adopt: (socket: net.Socket, port: number) => void
  /** A connection to simnet's own port inside the room: its server's, as if made on the host. */
  readonly connection: (socket: net.Socket) => void
}

/** A sealed room, ready: how to run a command in it. */
export interface Room {
  /** The program and arguments that run `command` inside the room, in the workspace. */
  readonly enter: (command: string, args: ReadonlyArray<string>) => { readonly command: string; readonly args: ReadonlyArray<string> }
  /** The environment the command gets on top of simnet run's (whose CA is `Sandbox.ca`): its home, its temporary directory. */
  readonly env: Readonly<Record<string, string>>
}

/**
 * Sets the room up around `sandbox` (see the module's comment), with simnet's server at `port`
 * reachable inside on the same port. Fails naming what is missing when the namespaces cannot be
 * made. The holder is killed, and the listening sockets closed, when the scope closes.
 */
export const openRoom = (sandbox: Sandbox, port: number, hooks: RoomHooks): Effect.Effect<Room, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const problem = isolationProblem()
    if (problem !== undefined) return yield* Effect.fail(new Error(problem))
    const root = process.getuid?.() === 0
    const ports = [["127.0.0.1", 80], ["127.0.0.1", 443], ["::1", 80], ["::1", 443], ["127.0.0.1", port]]
    const listening: Array<net.Server> = []
    const holder = yield* Effect.acquireRelease(
      Effect.callback<ChildProcess, Error>((resume) => {
        const child = spawn("unshare", [...(root ? [] : ["--user", "--map-root-user"]), "--net", "--mount", "--", "sh", "-c", HOLDER, "sh", sandbox.root], {
          stdio: ["pipe", "ignore", "pipe", "ipc"],
          env: { ...process.env, SIMNET_NODE: process.execPath, SIMNET_RELAY: RELAY, SIMNET_RELAY_PORTS: JSON.stringify(ports), SIMNET_DNS_PACKET: createRequire(import.meta.url).resolve("dns-packet") }
        })
        let said = ""
        child.stderr!.on("data", (data: Buffer) => {
          said = `${said}${data.toString()}`.slice(-2000)
        })
        child.on("message", (message: { kind: string; port?: number }, handle: unknown) => {
          if (message.kind === "tcp") {
            const server = handle as net.Server
            listening.push(server)
            const to = message.port!
            server.on("connection", (socket: net.Socket) => (to === port ? (socket.resume(), hooks.connection(socket)) : hooks.adopt(socket, to)))
          } else if (message.kind === "ready") {
            resume(Effect.succeed(child))
          }
        })
        child.once("error", (error) => resume(Effect.fail(new Error(`simnet run --isolate: cannot start unshare: ${error.message}`))))
        child.once("exit", (code) => {
          const why = said.trim().split("\n").slice(-3).join("; ")
          resume(Effect.fail(new Error(`simnet run --isolate: the sealed room could not be made (exit ${code})${why === "" ? "" : `: ${why}`}${root ? "" : " (user namespaces may be turned off: kernel.unprivileged_userns_clone, or AppArmor's restrict_unprivileged_userns)"}`)))
        })
        return Effect.sync(() => void child.kill("SIGKILL"))
      }),
      (child) =>
        Effect.sync(() => {
          for (const socket of listening) socket.close()
          child.kill("SIGKILL")
        })
    )
    return {
      enter: (command, args) => ({
        command: "nsenter",
        args: ["--target", String(holder.pid!), ...(root ? [] : ["--user", "--preserve-credentials"]), "--net", "--mount", `--wd=${sandbox.work}`, "--", command, ...args]
      }),
      env: {
        HOME: sandbox.home,
        TMPDIR: sandbox.tmp,
        XDG_CONFIG_HOME: join(sandbox.home, ".config"),
        XDG_DATA_HOME: join(sandbox.home, ".local", "share"),
        XDG_CACHE_HOME: join(sandbox.home, ".cache"),
        XDG_STATE_HOME: join(sandbox.home, ".local", "state"),
        PWD: sandbox.work
      }
    }
  })

/** A sealed run, ready: its sandbox, how to run the command in it, and what became of the workspace. */
export interface SealedRun {
  readonly sandbox: Sandbox
  readonly enter: Room["enter"]
  readonly env: Room["env"]
  /** The workspace now, what changed in it since it was seeded, and what the command left in its home. */
  readonly outcome: () => { readonly files: Record<string, FileState>; readonly truncated: boolean; readonly changes: WorkspaceChanges; readonly home: ReadonlyArray<string> }
}

/** A sandbox seeded with `files` and the sealed room around it (`openRoom`), for the scope; an `IsolationError` naming why when either cannot be had. */
export const sealRun = (files: Readonly<Record<string, FileContent>>, port: number, hooks: RoomHooks, caPem: string): Effect.Effect<SealedRun, IsolationError, Scope.Scope> =>
  Effect.gen(function*() {
    const sandbox = yield* makeSandbox(files, caPem)
    const room = yield* openRoom(sandbox, port, hooks)
    const seeded = statesOf(files)
    return {
      sandbox,
      enter: room.enter,
      env: room.env,
      outcome: () => {
        const now = readWorkspace(sandbox.work)
        return { ...now, changes: changesOf(seeded, now.files), home: Object.keys(readWorkspace(sandbox.home).files) }
      }
    }
  }).pipe(Effect.mapError((error) => new IsolationError({ message: error.message.startsWith("simnet") ? error.message.replace(/^simnet /, "simnet: ") : `simnet: run --isolate: ${error.message}` })))
