/**
 * Where sealed rooms keep what they hold on the host, and what a killed simnet leaves there.
 *
 * A sandbox is a directory named for its owner: `simnet-sandbox-PID.START.NS-XXXXXX`, the pid of
 * the simnet that made it, that process's start time (clock ticks since boot, from
 * `/proc/PID/stat`: a pid alone may have been given to another process since) and its PID
 * namespace (a pid means nothing in another one). The room mounts its own sized tmpfs on it, which
 * only the room's mount namespace sees and which goes with the room, so all a killed simnet leaves
 * on the host is the empty directory; `removeStale`, run as each sealed run starts, removes those
 * whose owner is gone, along with the owner's pids cgroup, never following a link.
 *
 * The room's bound on processes is a pids cgroup where this user may make one (root: cgroup v1's
 * `pids` hierarchy, or v2's root with `pids` enabled beneath it), named as its sandbox is; else
 * `RLIMIT_NPROC`, which since Linux 5.14 counts the processes of the room's user namespace only.
 */
import type * as Fs from "node:fs"
import { tmpdir } from "node:os"
import { removeTree } from "../fileSystem/files.ts"

const fs = (): typeof Fs => process.getBuiltinModule("node:fs")

const PREFIX = "simnet-sandbox-"
const OWNED = /^simnet-sandbox-(\d+)\.(\d+)\.(\d+)-/

/** Process `pid`'s start time, in clock ticks since boot, or undefined when there is no such process. */
const startOf = (pid: number | "self"): string | undefined => {
  try {
    const stat = fs().readFileSync(`/proc/${pid}/stat`, "utf8")
    // The fields after the command's name, which is in parentheses and may hold anything.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // A zombie (state Z) has ended: only its parent has not yet read its exit, so it owns nothing.
    return fields[0] === "Z" ? undefined : fields[19]
  } catch {
    return undefined
  }
}

/** This process's PID namespace, as the number of its inode. */
const pidNamespace = (): string => {
  try {
    return /\[(\d+)\]/.exec(fs().readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0"
  } catch {
    return "0"
  }
}

/** The name an owned directory starts with: this process's pid, start time and PID namespace. */
export const ownerTag = (): string => `${PREFIX}${process.pid}.${startOf("self") ?? "0"}.${pidNamespace()}-`

/** Where sandboxes go: `/var/tmp` (outside `/tmp`, which the sealed room replaces), else the system's temporary directory. */
export const sandboxBase = (): string => {
  const f = fs()
  try {
    f.accessSync("/var/tmp", f.constants.W_OK)
    return "/var/tmp"
  } catch {
    return tmpdir()
  }
}

/** Whether `name` (an owned directory's) belongs to a simnet that is gone: same PID namespace, and its pid is not that process any more. */
const stale = (name: string, namespace: string): boolean => {
  const owner = OWNED.exec(name)
  if (owner === null || owner[3] !== namespace) return false
  return startOf(Number(owner[1])) !== owner[2]
}

/**
 * Removes the sandboxes under `base` and the pids cgroups whose simnet is gone (see the module's
 * comment): only this user's, only in this PID namespace. A link in a sandbox is removed, never
 * followed (`removeTree`).
 */
export const removeStale = (base: string): void => {
  const f = fs()
  const namespace = pidNamespace()
  const uid = process.getuid?.()
  let names: Array<string>
  try {
    names = f.readdirSync(base).filter((name) => name.startsWith(PREFIX))
  } catch {
    names = []
  }
  for (const name of names) {
    const dir = `${base}/${name}`
    try {
      const stat = f.lstatSync(dir)
      if (stat.isDirectory() && stat.uid === uid && stale(name, namespace)) removeTree(dir)
    } catch {
      // Another simnet removed it first, or it is not ours to remove.
    }
  }
  const cgroups = pidsCgroupBase()
  let groups: Array<string>
  try {
    groups =
      cgroups === undefined
        ? []
        : f.readdirSync(cgroups).filter((entry) => entry.startsWith(PREFIX) && stale(entry, namespace))
  } catch {
    groups = []
  }
  for (const name of groups) {
    try {
      f.rmdirSync(`${cgroups}/${name}`)
    } catch {
      // Still holding processes: the next start tries again.
    }
  }
}

/** Where this process may make a pids cgroup, or undefined (see the module's comment). */
const pidsCgroupBase = (): string | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const f = fs()
  const writable = (dir: string) => {
    try {
      f.accessSync(dir, f.constants.W_OK)
      return true
    } catch {
      return false
    }
  }
  try {
    const own = /^\d+:pids:(.*)$/m.exec(f.readFileSync("/proc/self/cgroup", "utf8"))
    if (own !== null) {
      const dir = `/sys/fs/cgroup/pids${own[1] === "/" ? "" : own[1]}`
      return writable(dir) ? dir : undefined
    }
    const controls = f.readFileSync("/sys/fs/cgroup/cgroup.subtree_control", "utf8").split(/\s+/)
    return controls.includes("pids") && writable("/sys/fs/cgroup") ? "/sys/fs/cgroup" : undefined
  } catch {
    return undefined
  }
}

/** A pids cgroup for one room: the file a process writes its pid to, to join it, and how to remove it once empty. */
export interface PidsCgroup {
  readonly procs: string
  readonly remove: () => boolean
}

/**
 * A pids cgroup named `name` (an owned name) holding at most `max` processes, or undefined where
 * none can be made here (the room then bounds its command by `RLIMIT_NPROC`).
 */
export const pidsCgroup = (name: string, max: number): PidsCgroup | undefined => {
  const base = pidsCgroupBase()
  if (base === undefined) return undefined
  const f = fs()
  const dir = `${base}/${name}`
  try {
    f.mkdirSync(dir)
    f.writeFileSync(`${dir}/pids.max`, String(max))
  } catch {
    try {
      f.rmdirSync(dir)
    } catch {
      // never made
    }
    return undefined
  }
  return {
    procs: `${dir}/cgroup.procs`,
    remove: () => {
      try {
        f.rmdirSync(dir)
        return true
      } catch {
        return false
      }
    }
  }
}
