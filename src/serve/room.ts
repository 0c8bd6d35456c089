/**
 * The sealed room of `simnet run --isolate` (Linux): a holder made of util-linux's `unshare`,
 * `nsenter`, `setpriv`, `prlimit` and `setsid`, with `mount` and iproute2's `ip`, matched to
 * bubblewrap's promises point by point (docs/security.md has the table).
 *
 * `setpriv --pdeathsig KILL -- unshare --net --mount --pid --ipc --fork --kill-child` (with
 * `--user --map-root-user` for an ordinary user) starts a shell as the first process of new
 * network, mount, PID and IPC namespaces. It sets the room up — loopback up; every mount of the
 * host remounted read-only, and checked; a fresh `/proc` with `/proc/sys`, `/proc/sysrq-trigger`,
 * `/proc/irq` and `/proc/bus` read-only; the sandbox a tmpfs of `disk` bytes; `/tmp` the host's
 * with what the command writes kept in the sandbox (an overlay, through which the host's sockets
 * there cannot be reached; where it cannot be mounted — for an ordinary user, a `/tmp` with mounts
 * beneath it — a fresh one in the sandbox); a fresh read-only `/dev` holding null, zero, full,
 * random, urandom, tty, a new `pts` instance with its `ptmx`, `fd`, `stdin`, `stdout`, `stderr`
 * and a `shm` tmpfs of `shm` bytes; `/run` and `/var/run` empty and read-only, hiding the host's
 * sockets; a `resolv.conf` naming 127.0.0.1 — then starts the relay and waits, reaping what is
 * orphaned to it. The relay listens on ports 80 and 443 of 127.0.0.1 and ::1 and on simnet's own
 * port, hands each listening socket to simnet over Node's IPC channel, and answers DNS on UDP 53:
 * every name is loopback, so every TCP connection the command makes is simnet's or refused, and
 * the namespace has no route off the machine.
 *
 * The room dies with simnet however simnet ends: `setpriv --pdeathsig` kills `unshare` when the
 * thread that started it ends, `--kill-child` then kills the room's first process, and a PID
 * namespace whose first process ends takes every process in it. The relay also ends when its
 * pipe from simnet closes.
 *
 * The command joins with `nsenter` (`--wdns`: its working directory resolved inside, so it holds
 * no handle on a host directory), in a session of its own unless it runs in simnet's terminal
 * (`setsid`: bubblewrap's `--new-session`), under `prlimit --nproc` (an ordinary user's bound on
 * processes; root's is a pids cgroup, `sandboxes.ts`) and `setpriv --no-new-privs` with every
 * capability dropped from its bounding, inheritable and ambient sets, so nothing set up can be
 * undone.
 */
import { type ChildProcess, spawn } from "node:child_process"
import type * as Fs from "node:fs"
import type * as net from "node:net"
import { createRequire } from "node:module"
import { Effect, Schedule, type Scope } from "effect"
import type { PidsCgroup } from "./sandboxes.ts"

const fs = (): typeof Fs => process.getBuiltinModule("node:fs")

/** The holder's script: `$1` the sandbox (an empty directory), `SIMNET_DISK` and `SIMNET_SHM` in bytes. Sets the room up, then runs the relay and waits. */
const HOLDER = String.raw`set -eu
S="$1"
ip link set lo up
mount --make-rprivate /
# The host read-only: every mount point, by name (escapes in names decoded); then checked.
awk '{ print $5 }' /proc/self/mountinfo | sort -u | while IFS= read -r m; do
  case "$m" in *\\*) m=$(printf '%b' "$m") ;; esac
  case "$m" in /proc|/proc/*) continue ;; esac
  mount -n -o remount,bind,ro "$m" 2>/dev/null || true
done
# A mount left writable fails the room, unless the room cannot reach it: under a directory its
# user may not enter (the holder reaches all the command can).
left=$(awk '{ mp[$1] = $5; opt[$1] = $6; over[$2 " " $5] = 1 } END { for (i in mp) if (!((i " " mp[i]) in over) && opt[i] !~ /(^|,)ro(,|$)/) print mp[i] }' /proc/self/mountinfo | grep -v -E '^/proc(/|$)' | while IFS= read -r m; do
  case "$m" in *\\*) m=$(printf '%b' "$m") ;; esac
  if [ -e "$m" ]; then printf '%s ' "$m"; fi
done)
[ -z "$left" ] || { echo "the host cannot be made read-only here: $left" >&2; exit 1; }
mount -n -t proc -o nosuid,nodev,noexec proc /proc
for p in sys sysrq-trigger irq bus; do
  if [ -e "/proc/$p" ]; then mount -n --bind -o ro "/proc/$p" "/proc/$p"; fi
done
mount -n -t tmpfs -o "size=$SIMNET_DISK,mode=0755,nosuid,nodev" simnet-sandbox "$S"
mkdir -m 0755 "$S/work" "$S/home" "$S/tmp" "$S/.tmp" "$S/.dev"
mkdir -m 0700 "$S/run"
mkdir "$S/.tmp/upper" "$S/.tmp/work"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n' > "$S/resolv.conf"
if ! mount -n -t overlay overlay -o "lowerdir=/tmp,upperdir=$S/.tmp/upper,workdir=$S/.tmp/work" /tmp 2>/dev/null; then
  chmod 1777 "$S/.tmp/upper"; mount -n --bind "$S/.tmp/upper" /tmp
fi
D="$S/.dev"
mount -n -t tmpfs -o mode=0755,nosuid,size=64k simnet-dev "$D"
touch "$D/null" "$D/zero" "$D/full" "$D/random" "$D/urandom" "$D/tty"
for n in null zero full random urandom tty; do mount -n --bind "/dev/$n" "$D/$n"; done
mkdir "$D/pts" "$D/shm"
mount -n -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$D/pts"
ln -s pts/ptmx "$D/ptmx"; ln -s /proc/self/fd "$D/fd"
ln -s /proc/self/fd/0 "$D/stdin"; ln -s /proc/self/fd/1 "$D/stdout"; ln -s /proc/self/fd/2 "$D/stderr"
mount -n -t tmpfs -o "size=$SIMNET_SHM,mode=1777,nosuid,nodev" simnet-shm "$D/shm"
mount -n --move "$D" /dev
mount -n -o remount,bind,ro /dev
for r in /run /var/run; do
  if [ -d "$r" ] && [ ! -L "$r" ]; then mount -n -t tmpfs -o mode=0755,nosuid,nodev,size=64k simnet-run "$r"; fi
done
c=$(readlink -f /etc/resolv.conf)
[ -e "$c" ] || { mkdir -p "$(dirname "$c")" && touch "$c"; } 2>/dev/null || true
mount -n --bind "$S/resolv.conf" /etc/resolv.conf
for r in /run /var/run; do
  if [ -d "$r" ] && [ ! -L "$r" ]; then mount -n -o remount,bind,ro "$r"; fi
done
exec 9<&0
"$SIMNET_NODE" --input-type=module -e "$SIMNET_RELAY" 0<&9 9<&- &
exec 9<&-
wait $!
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
  /** A connection to port 80 or 443 of a name simnet resolved (`ProxyServer.adopt`). */
  readonly adopt: (socket: net.Socket, port: number) => void
  /** A connection to simnet's own port inside the room: its server's, as if made on the host. */
  readonly connection: (socket: net.Socket) => void
}

/** What a room is made with: its sandbox's path (an empty directory), simnet's port, the bounds, and the pids cgroup to put it in (root). */
export interface RoomOptions {
  readonly sandbox: string
  readonly port: number
  readonly pids: number
  readonly disk: number
  readonly shm: number
  readonly cgroup: PidsCgroup | undefined
}

/** What the room's network refused or could not route, from its counters (`/proc/net/snmp`, `snmp6`). */
export interface Blocked {
  /** TCP connections refused: nothing listens there (any port but 80, 443 and simnet's). */
  readonly refused: number
  /** Packets with no route: an address off the machine, IPv4 or IPv6, TCP, UDP or ICMP. */
  readonly unroutable: number
  /** UDP datagrams to a port nothing listens on (DNS to any resolver but the room's own is unroutable). */
  readonly udpUnanswered: number
}

/** A sealed room, ready. */
export interface Room {
  /**
   * The program and arguments that run `command` inside the room, in `cwd` (a path inside); with
   * `session`, in a session of its own (`setsid`: a terminal it was handed is then not its
   * controlling terminal, so it cannot push input into it with TIOCSTI).
   */
  readonly enter: (
    command: string,
    args: ReadonlyArray<string>,
    cwd: string,
    session: boolean
  ) => { readonly command: string; readonly args: ReadonlyArray<string> }
  /** The sandbox as simnet reaches it from the host: a path through a handle on the room's tmpfs (see `workspace.ts`). */
  readonly sandbox: string
  /** What the room's network blocked so far. */
  readonly blocked: () => Blocked
  /** Whether `path` (absolute) is there as the room sees it. */
  readonly sees: (path: string) => boolean
}

/**
 * Every counter of a `/proc/net/snmp` text (blocks of a line of names and a line of numbers,
 * `Tcp: … AttemptFails …`), keyed by block and name (`TcpAttemptFails`), or of `snmp6` (a name
 * and a number a line).
 */
const counters = (text: string): Map<string, number> => {
  const found = new Map<string, number>()
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const [head, ...names] = lines[i]!.trim().split(/\s+/)
    if (head === undefined || head === "") continue
    if (head.endsWith(":") && lines[i + 1]?.startsWith(head) === true) {
      const values = lines[i + 1]!.trim().split(/\s+/).slice(1)
      names.forEach((name, at) => {
        found.set(`${head.slice(0, -1)}${name}`, Number(values[at]))
      })
      i++
    } else if (names.length === 1) found.set(head, Number(names[0]))
  }
  return found
}

/** Starts `args` under `cgroup` when there is one (the process joins it before it execs, so all it starts is in it). */
const inCgroup = (cgroup: PidsCgroup | undefined, args: ReadonlyArray<string>): ReadonlyArray<string> =>
  cgroup === undefined ? args : ["/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, cgroup.procs, ...args]

/**
 * Makes the room around `options.sandbox` (see the module's comment), with simnet's server at
 * `options.port` reachable inside on the same port. Fails naming what went wrong when it cannot
 * be made. When the scope closes, the room is killed with everything in it, its listening
 * sockets closed, and its tmpfs let go.
 */
export const openRoom = (options: RoomOptions, hooks: RoomHooks): Effect.Effect<Room, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const root = process.getuid?.() === 0
    // An ordinary user is the room's root (`--map-root-user`, util-linux 2.26 on): the holder keeps
    // its capabilities over `exec` only as uid 0; the command, joined later, keeps none.
    const user = root ? [] : ["--user", "--map-root-user"]
    const ports = [
      ["127.0.0.1", 80],
      ["127.0.0.1", 443],
      ["::1", 80],
      ["::1", 443],
      ["127.0.0.1", options.port]
    ]
    const listening: Array<net.Server> = []
    const holder = yield* Effect.acquireRelease(
      Effect.callback<ChildProcess, Error>((resume) => {
        const [program, ...args] = inCgroup(options.cgroup, [
          "setpriv",
          "--pdeathsig",
          "KILL",
          "--",
          "unshare",
          ...user,
          "--net",
          "--mount",
          "--pid",
          "--ipc",
          "--fork",
          "--kill-child",
          "--",
          "/bin/sh",
          "-c",
          HOLDER,
          "sh",
          options.sandbox
        ])
        // The holder's environment holds what it needs and nothing of simnet's own (no token).
        const child = spawn(program!, args, {
          stdio: ["pipe", "ignore", "pipe", "ipc"],
          env: {
            PATH: process.env["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin",
            SIMNET_NODE: process.execPath,
            SIMNET_RELAY: RELAY,
            SIMNET_RELAY_PORTS: JSON.stringify(ports),
            SIMNET_DNS_PACKET: createRequire(import.meta.url).resolve("dns-packet"),
            SIMNET_DISK: String(options.disk),
            SIMNET_SHM: String(options.shm)
          }
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
            server.on("connection", (socket: net.Socket) => {
              if (to === options.port) {
                socket.resume()
                hooks.connection(socket)
              } else hooks.adopt(socket, to)
            })
          } else if (message.kind === "ready") {
            resume(Effect.succeed(child))
          }
        })
        child.once("error", (error) =>
          resume(Effect.fail(new Error(`simnet run --isolate: cannot start the holder: ${error.message}`)))
        )
        child.once("exit", (code) => {
          const why = said.trim().split("\n").slice(-3).join("; ")
          resume(
            Effect.fail(
              new Error(
                `simnet run --isolate: the sealed room could not be made (exit ${code})${why === "" ? "" : `: ${why}`}${root ? "" : " (user namespaces may be turned off: kernel.unprivileged_userns_clone, or AppArmor's restrict_unprivileged_userns)"}`
              )
            )
          )
        })
        return Effect.sync(() => void child.kill("SIGKILL"))
      }),
      (child) =>
        Effect.gen(function* () {
          for (const socket of listening) socket.close()
          yield* Effect.callback<void>((resume) => {
            if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
            child.once("exit", () => resume(Effect.void))
            child.kill("SIGKILL")
          })
          // The room's last processes end a moment after its holder: the cgroup is removed once
          // they have, or by the next start (`removeStale`).
          if (options.cgroup !== undefined)
            yield* Effect.ignore(
              Effect.retry(
                Effect.suspend(() => (options.cgroup!.remove() ? Effect.void : Effect.fail("busy"))),
                { times: 50, schedule: Schedule.spaced("20 millis") }
              )
            )
        })
    )
    const pid = holder.pid!
    // A handle on the room's sandbox (its tmpfs, which simnet's own mount namespace does not see),
    // taken through the holder's root; every host-side read and write of the sandbox goes from it.
    const f = fs()
    const handle = yield* Effect.acquireRelease(
      Effect.try({
        try: () =>
          f.openSync(
            `/proc/${pid}/root${options.sandbox}`,
            f.constants.O_RDONLY | f.constants.O_DIRECTORY | f.constants.O_NOFOLLOW
          ),
        catch: (cause) =>
          new Error(
            `simnet run --isolate: cannot reach the sandbox: ${cause instanceof Error ? cause.message : String(cause)}`
          )
      }),
      (fd) => Effect.sync(() => f.closeSync(fd))
    )
    const nsenter = [
      "nsenter",
      "--target",
      String(pid),
      ...(root ? [] : ["--user", "--preserve-credentials"]),
      "--net",
      "--mount",
      "--ipc",
      `--pid=/proc/${pid}/ns/pid_for_children`
    ]
    const drop = ["setpriv", "--no-new-privs", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--"]
    return {
      enter: (command, args, cwd, session) => {
        const [program, ...rest] = inCgroup(options.cgroup, [
          ...nsenter,
          `--wdns=${cwd}`,
          "--",
          ...(session ? ["setsid", "--wait"] : []),
          ...(options.cgroup === undefined ? ["prlimit", `--nproc=${options.pids}:${options.pids}`, "--"] : []),
          ...drop,
          command,
          ...args
        ])
        return { command: program!, args: rest }
      },
      sandbox: `/proc/self/fd/${handle}`,
      sees: (path) => f.existsSync(`/proc/${pid}/root${path}`),
      blocked: () => {
        const read = (file: string) => {
          try {
            return counters(f.readFileSync(`/proc/${pid}/net/${file}`, "utf8"))
          } catch {
            return new Map<string, number>()
          }
        }
        const v4 = read("snmp")
        const v6 = read("snmp6")
        const sum = (...values: Array<number | undefined>) =>
          values.reduce<number>((total, value) => total + (value ?? 0), 0)
        return {
          refused: sum(v4.get("TcpAttemptFails")),
          unroutable: sum(v4.get("IpOutNoRoutes"), v6.get("Ip6OutNoRoutes")),
          udpUnanswered: sum(v4.get("UdpNoPorts"), v6.get("Udp6NoPorts"))
        }
      }
    }
  })
