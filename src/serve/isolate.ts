/**
 * `simnet run --isolate` (Linux): the command in a sealed room (`room.ts`), with a workspace
 * seeded from the fixture's files, its own home, temporary directory and runtime directory, all in
 * the room's sized tmpfs; the rest of the host read-only; what it may do through the control plane
 * bounded by `RoomAccess`; and at the end what it changed, what it wrote in `/tmp` and what the
 * room's network blocked, for the trace and the closing lines. Every host-side read and write of
 * the workspace goes through directory handles (`workspace.ts`), so nothing the command plants
 * there is followed. Sandboxes a killed simnet left are removed as the next sealed run starts
 * (`sandboxes.ts`).
 */
import { mkdtempSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { Data, Effect, type Scope } from "effect"
import { markRoom, type RoomAccess } from "../control/access.ts"
import { removeTree } from "../fileSystem/files.ts"
import {
  changesOf,
  type FileContent,
  type FileState,
  layOut,
  readWorkspace,
  statesOf,
  type WorkspaceChanges
} from "../fileSystem/workspace.ts"
import { printable } from "../registry/util.ts"
import { findable } from "../terminal/holder.ts"
import { type Blocked, openRoom, type RoomHooks } from "./room.ts"
import { ownerTag, pidsCgroup, removeStale, sandboxBase } from "./sandboxes.ts"

export type { RoomHooks } from "./room.ts"

/** A sealed run that cannot be had here, or a workspace that cannot be laid out: why (exit 1). */
export class IsolationError extends Data.TaggedError("IsolationError")<{ readonly message: string }> {}

/** The tools the room is made with (util-linux's, iproute2's `ip`, and the shell's `awk`). */
const TOOLS = ["unshare", "nsenter", "setpriv", "prlimit", "setsid", "mount", "ip", "awk"]

/** Why this machine cannot isolate a command, or undefined when it can. */
export const isolationProblem = (): string | undefined => {
  if (process.platform !== "linux")
    return `simnet run --isolate needs Linux (network, mount and PID namespaces); this is ${process.platform}`
  const path = process.env["PATH"]
  const tool = TOOLS.find((name) => !findable(name, path))
  if (tool === undefined) return undefined
  return `simnet run --isolate needs ${tool} (${tool === "ip" ? "iproute2" : tool === "awk" ? "awk" : "util-linux"}), which is not on PATH`
}

/** The bounds of a sealed room and what its command may do through the control plane (the `--isolate-*` flags). */
export interface IsolateOptions {
  /** The most processes (threads included) the room holds. */
  readonly pids: number
  /** The size of the sandbox's tmpfs (workspace, home, temporary files, what `/tmp` gets), in bytes. */
  readonly disk: number
  /** The size of `/dev/shm`, in bytes. */
  readonly shm: number
  readonly control: RoomAccess
}

/** The `--isolate-*` defaults: 1 024 processes, 2 GiB of sandbox, 512 MiB of `/dev/shm`, `room` access. */
export const ISOLATE_DEFAULTS: IsolateOptions = {
  pids: 1024,
  disk: 2 * 1024 ** 3,
  shm: 512 * 1024 ** 2,
  control: "room"
}

/**
 * `command` as the room starts it: a path with a slash resolved from the directory simnet was
 * started in (the command starts in the workspace, where `./prog.sh` is not), and checked to be
 * an executable file (that the room sees it too is `sealRun`'s to check); a name is looked up on
 * `PATH` inside. An error naming why it cannot run.
 */
export const resolveCommand = (command: string): string | IsolationError => {
  if (!command.includes("/")) return command
  const resolved = resolve(process.cwd(), command)
  if (!findable(resolved, undefined)) {
    return new IsolationError({
      message: printable(
        `simnet: run --isolate: ${command} was not found, or is not an executable file${resolved === command ? "" : ` (resolved from the directory simnet was started in: ${resolved})`}`
      )
    })
  }
  return resolved
}

/** What a sealed run came to: the workspace now and what changed in it since it was seeded, what the command left in its home and in `/tmp`, and what the room's network blocked. */
export interface SealedOutcome {
  readonly files: Record<string, FileState>
  readonly truncated: boolean
  readonly changes: WorkspaceChanges
  readonly home: ReadonlyArray<string>
  readonly tmp: ReadonlyArray<string>
  readonly blocked: Blocked
}

/** A sealed run, ready: how to run the command in it, its workspace, and what became of it. */
export interface SealedRun {
  /**
   * What runs `command` (resolved: `resolveCommand`) in the room, in the workspace — in a session
   * of its own unless it runs in simnet's terminal (`tty`) — with `env` (simnet run's) as the
   * room's command gets it: its home, temporary and runtime directories; the host's token and,
   * with `none` access, the control URLs taken out. Says on standard error that it runs sealed.
   */
  readonly target: (
    command: string,
    args: ReadonlyArray<string>,
    env: Readonly<Record<string, string>>,
    tty: boolean
  ) => {
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Record<string, string | undefined>
  }
  /** The proxy's CA, where the command surely reads it: in the sandbox. */
  readonly ca: string
  /** The workspace as simnet reaches it (for the control endpoint's `filesystem` paths and the `files` tool). */
  readonly workspace: string
  /** Writes the outcome to the trace (a `filesystem` line, then a `blocked` one) and its closing lines to standard error. */
  readonly finish: () => void
}

/** A fresh directory for a room's sandbox, named for its owner (`sandboxes.ts`), removed when the scope closes. */
const sandboxDir = Effect.acquireRelease(
  Effect.try({
    try: () => {
      const base = sandboxBase()
      removeStale(base)
      return mkdtempSync(join(base, ownerTag()))
    },
    catch: (cause) => new Error(`cannot make a sandbox: ${cause instanceof Error ? cause.message : String(cause)}`)
  }),
  // Empty: the room's tmpfs was mounted on it in the room's mount namespace only.
  (dir) => Effect.sync(() => void removeTree(dir))
)

/**
 * The sealed room (`room.ts`) around a fresh sandbox whose workspace is seeded with `files` (and
 * the proxy's CA beside it), for the scope; an `IsolationError` naming why when either cannot be
 * had, or when `program` (`resolveCommand`'s) is a path the room does not see. `traceLine` writes
 * to the run's trace: the seeded files now, the outcome at `finish`.
 */
export const sealRun = (
  files: Readonly<Record<string, FileContent>>,
  port: number,
  hooks: RoomHooks,
  caPem: string,
  options: IsolateOptions,
  traceLine: (line: Record<string, unknown>) => void,
  program: string
): Effect.Effect<SealedRun, IsolationError, Scope.Scope> =>
  Effect.gen(function* () {
    const problem = isolationProblem()
    if (problem !== undefined) return yield* Effect.fail(new Error(problem))
    const dir = yield* sandboxDir
    const cgroup = pidsCgroup(basename(dir), options.pids)
    // RLIMIT_NPROC does not bound root: without a pids cgroup, root's room is not bounded. Say so.
    if (cgroup === undefined && process.getuid?.() === 0)
      process.stderr.write(
        `simnet: --isolate-pids ${options.pids} is not enforced: no pids cgroup can be made here, and root is not bounded by RLIMIT_NPROC\n`
      )
    const room = yield* openRoom(
      { sandbox: dir, port, pids: options.pids, disk: options.disk, shm: options.shm, cgroup },
      {
        adopt: hooks.adopt,
        // Every request on a connection from inside is the room's, with the access it was given.
        connection: (socket) => {
          markRoom(socket, options.control)
          hooks.connection(socket)
        }
      }
    )
    if (program.startsWith("/") && !room.sees(program)) {
      const why = program.startsWith("/tmp/")
        ? ": the room's /tmp is a fresh one here (the host's cannot be overlaid for an ordinary user whose /tmp has mounts beneath it); put it elsewhere"
        : /^\/(var\/)?run\//.test(program)
          ? ": the room's /run is empty"
          : ""
      return yield* Effect.fail(
        new Error(printable(`simnet: run --isolate: ${program} is not in the sealed room${why}`))
      )
    }
    const inside = {
      work: `${dir}/work`,
      home: `${dir}/home`,
      tmp: `${dir}/tmp`,
      run: `${dir}/run`,
      ca: `${dir}/ca.pem`
    }
    const host = { work: `${room.sandbox}/work`, home: `${room.sandbox}/home`, tmp: `${room.sandbox}/.tmp/upper` }
    yield* Effect.try({
      try: () => {
        layOut(room.sandbox, { "ca.pem": caPem })
        layOut(host.work, files)
      },
      catch: (cause) => new Error(cause instanceof Error ? cause.message : String(cause))
    })
    traceLine({ type: "filesystem.seed", files })
    const seeded = statesOf(files)
    const paths = (root: string) => Object.keys(readWorkspace(root).files)
    const outcome = (): SealedOutcome => {
      const now = readWorkspace(host.work)
      return {
        ...now,
        changes: changesOf(seeded, now.files),
        home: paths(host.home),
        tmp: paths(host.tmp),
        blocked: room.blocked()
      }
    }
    const run: SealedRun = {
      target: (command, args, env, tty) => {
        process.stderr.write(
          `${printable(`simnet: ${command} runs sealed: every name resolves to simnet, every connection is simnet's or refused; workspace ${inside.work} (${Object.keys(files).length} files), the rest of the host read-only`)}\n`
        )
        const environment = {
          ...env,
          HOME: inside.home,
          TMPDIR: inside.tmp,
          XDG_CONFIG_HOME: join(inside.home, ".config"),
          XDG_DATA_HOME: join(inside.home, ".local", "share"),
          XDG_CACHE_HOME: join(inside.home, ".cache"),
          XDG_STATE_HOME: join(inside.home, ".local", "state"),
          XDG_RUNTIME_DIR: inside.run,
          PWD: inside.work,
          ...(options.control === "host" ? {} : { SIMNET_TOKEN: undefined }),
          ...(options.control === "none" ? { SIMNET_CONTROL_URL: undefined, SIMNET_DRIVER_URL: undefined } : {})
        }
        return { ...room.enter(command, args, inside.work, !tty), env: environment }
      },
      ca: inside.ca,
      workspace: host.work,
      finish: () => {
        const end = outcome()
        traceLine({
          type: "filesystem",
          ...end.changes,
          files: end.files,
          home: end.home,
          tmp: end.tmp,
          ...(end.truncated ? { truncated: true } : {})
        })
        traceLine({ type: "blocked", ...end.blocked })
        for (const line of outcomeLines(end)) process.stderr.write(`${line}\n`)
      }
    }
    return run
  }).pipe(
    Effect.mapError(
      (error) =>
        new IsolationError({
          message: error.message.startsWith("simnet")
            ? error.message.replace(/^simnet /, "simnet: ")
            : `simnet: run --isolate: ${error.message}`
        })
    )
  )

/** The closing lines of a sealed run, for standard error: what changed in the workspace, what went to `/tmp`, what the network blocked. */
export const outcomeLines = (outcome: SealedOutcome): ReadonlyArray<string> => {
  const named = (list: ReadonlyArray<string>) =>
    list.length === 0 ? "" : ` (${list.slice(0, 5).join(", ")}${list.length > 5 ? ", …" : ""})`
  const { changes, tmp, blocked } = outcome
  return [
    `simnet: workspace: ${changes.created.length} created${named(changes.created)}, ${changes.changed.length} changed${named(changes.changed)}, ${changes.deleted.length} deleted${named(changes.deleted)}; /tmp: ${tmp.length} written${named(tmp)}`,
    `simnet: blocked: ${blocked.refused} connection${blocked.refused === 1 ? "" : "s"} refused, ${blocked.unroutable} packet${blocked.unroutable === 1 ? "" : "s"} with no route, ${blocked.udpUnanswered} UDP datagram${blocked.udpUnanswered === 1 ? "" : "s"} unanswered`
  ].map(printable)
}
