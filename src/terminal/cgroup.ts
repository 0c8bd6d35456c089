/**
 * A cgroup of a run's own, where simnet may make one (Linux; root, or a delegated cgroup v2
 * subtree): the command joins it before it execs (`joining`), so every process it starts is in
 * it — daemons that `setsid` or double-fork included, which a walk of the children loses once
 * they are reparented. Reading whether anything in it ran is one read of its CPU usage
 * (`cpu.stat`'s `usage_usec` in v2, `cpuacct.usage` in v1), far cheaper than walking the tree;
 * its thread list gives every thread to scan (`rest.ts`). When the run ends, every process in it
 * is killed and the cgroup removed (`end`).
 *
 * Each is made beside nothing of anyone else's: under the cgroup simnet itself is in (when it is
 * made), named `simnet-PID-N`. Ones a simnet that died left behind (its pid gone) are removed when the next is
 * made. Where none can be made, `makeCgroup` gives undefined and rest walks the tree instead.
 */
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** A run's cgroup (see the module's comment). */
export interface Cgroup {
  /** Its directory. */
  readonly dir: string
  /** Its CPU time so far, in microseconds, its cgroups within included: it changes whenever a thread in it ran. */
  readonly usage: () => number
  /** The ids of every thread in it. */
  readonly threads: () => Array<string>
  /** Puts process `pid` (and the children it starts from now on) in it; false when it could not. */
  readonly adopt: (pid: number) => boolean
  /** Kills every process in it, then removes it once it is empty (waiting at most `END_MS`). */
  readonly end: Effect.Effect<void>
}

/** The longest `end` waits for the killed processes to leave. */
const END_MS = 2_000

/** A cgroup hierarchy simnet can make its runs' cgroups in: where it is mounted, and its version. */
interface Hierarchy {
  readonly point: string
  readonly root: string
  readonly version: 1 | 2
}

/** The hierarchy found (once per process), or null when there is none. */
let hierarchy: Hierarchy | null | undefined
let made = 0

/** The hierarchies to try, v2 first. */
const hierarchies = (): Array<Hierarchy> => {
  let mounts: string
  try {
    mounts = Fs.readFileSync("/proc/self/mountinfo", "utf8")
  } catch {
    return []
  }
  const found: Array<Hierarchy> = []
  for (const line of mounts.split("\n")) {
    const [before, after] = line.split(" - ")
    if (before === undefined || after === undefined) continue
    const fields = before.split(" ")
    const [type, , options = ""] = after.split(" ")
    const at = { root: fields[3] ?? "/", point: (fields[4] ?? "").replace(/\\040/g, " ") }
    if (type === "cgroup2") found.unshift({ ...at, version: 2 })
    else if (type === "cgroup" && options.split(",").includes("cpuacct")) found.push({ ...at, version: 1 })
  }
  return found
}

/**
 * The directory of the cgroup this process is in now, in `at` (read each time: a process that
 * moved, as a bench measuring its runs does, makes its runs' cgroups where it went).
 */
const ownDir = (at: Hierarchy): string | undefined => {
  let groups: string
  try {
    groups = Fs.readFileSync("/proc/self/cgroup", "utf8")
  } catch {
    return undefined
  }
  const own = groups
    .split("\n")
    .map((line) => line.split(":"))
    .find(
      (parts) =>
        parts.length >= 3 &&
        (at.version === 2 ? parts[0] === "0" && parts[1] === "" : parts[1]!.split(",").includes("cpuacct"))
    )
  if (own === undefined) return undefined
  const path = own.slice(2).join(":")
  const inside = at.root === "/" ? path : path.startsWith(at.root) ? path.slice(at.root.length) : "/"
  return Path.join(at.point, inside)
}

/** A cgroup's CPU time in microseconds (v1 counts nanoseconds: kept to the fraction, so any change shows). */
const usageOf = (dir: string, version: 1 | 2): number => {
  if (version === 1) return Number(Fs.readFileSync(Path.join(dir, "cpuacct.usage"), "latin1")) / 1000
  const found = /usage_usec (\d+)/.exec(Fs.readFileSync(Path.join(dir, "cpu.stat"), "latin1"))
  return Number(found?.[1] ?? Number.NaN)
}

const idsIn = (file: string): Array<string> => {
  try {
    return Fs.readFileSync(file, "latin1")
      .split("\n")
      .filter((id) => id !== "")
  } catch {
    return []
  }
}

/** SIGKILL to every process in `dir`. */
const killAll = (dir: string): void => {
  for (const pid of idsIn(Path.join(dir, "cgroup.procs"))) {
    try {
      process.kill(Number(pid), "SIGKILL")
    } catch {
      // already gone
    }
  }
}

const remove = (dir: string): boolean => {
  try {
    Fs.rmdirSync(dir)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT"
  }
}

/** Whether process `pid` is alive. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Removes the cgroups of simnets that are gone, emptied first. */
const sweep = (parent: string): void => {
  let names: Array<string>
  try {
    names = Fs.readdirSync(parent)
  } catch {
    return
  }
  for (const name of names) {
    const owner = /^simnet-(\d+)-\d+$/.exec(name)
    if (owner === null || alive(Number(owner[1]))) continue
    killAll(Path.join(parent, name))
    remove(Path.join(parent, name))
  }
}

/** A fresh cgroup in `at`, under this process's, or undefined when one cannot be made or read there. */
const makeIn = (at: Hierarchy): string | undefined => {
  const parent = ownDir(at)
  if (parent === undefined) return undefined
  const dir = Path.join(parent, `simnet-${process.pid}-${++made}`)
  try {
    Fs.mkdirSync(dir)
  } catch {
    return undefined
  }
  try {
    if (Number.isFinite(usageOf(dir, at.version))) return dir
  } catch {
    // unreadable: not usable
  }
  remove(dir)
  return undefined
}

/** A cgroup of a run's own, or undefined where none can be made (see the module's comment). */
export const makeCgroup = (): Cgroup | undefined => {
  if (process.platform !== "linux" || hierarchy === null) return undefined
  let dir: string | undefined
  if (hierarchy === undefined) {
    hierarchy = null
    for (const at of hierarchies()) {
      dir = makeIn(at)
      if (dir !== undefined) {
        hierarchy = at
        sweep(Path.dirname(dir))
        break
      }
    }
  } else {
    dir = makeIn(hierarchy)
  }
  if (dir === undefined || hierarchy === null) return undefined
  const version = hierarchy.version
  const where = dir
  return {
    dir: where,
    usage: () => {
      try {
        return usageOf(where, version)
      } catch {
        return Number.NaN
      }
    },
    threads: () => idsIn(Path.join(where, version === 1 ? "tasks" : "cgroup.threads")),
    adopt: (pid) => {
      try {
        Fs.writeFileSync(Path.join(where, "cgroup.procs"), String(pid))
        return true
      } catch {
        return false
      }
    },
    end: Effect.gen(function* () {
      for (let waited = 0; waited < END_MS; waited += 5) {
        killAll(where)
        if (remove(where)) return
        yield* Effect.sleep(5)
      }
    })
  }
}

/**
 * `command` with `args`, made to join `group` before it runs: a shell puts itself in the
 * cgroup, then execs the command (whose pid it keeps). A shell that cannot join says nothing on
 * the app's terminal and runs the command all the same.
 */
export const joining = (
  group: Cgroup,
  command: string,
  args: ReadonlyArray<string>
): { readonly command: string; readonly args: ReadonlyArray<string> } => ({
  command: "/bin/sh",
  args: ["-c", `{ echo $$ > "$0"; } 2>/dev/null; exec "$@"`, Path.join(group.dir, "cgroup.procs"), command, ...args]
})
