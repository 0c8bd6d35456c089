/**
 * Every process a command starts ends with it, and with simnet (issue 54). A command simnet runs
 * (`simnet run`, `--tty`, `simnet explore`, `simnet mcp`) is held in a PID namespace of its own:
 * `unshare --pid --fork --kill-child` (util-linux; with `--user`, mapped to the user's own ids,
 * for an ordinary user) starts a small shell as the namespace's first process, which runs the
 * command in the foreground, reaps whatever is orphaned to it while it waits, and exits with the
 * command's status. When the first process of a PID namespace ends, the kernel kills every
 * process left in it: children put in the background with `&`, `nohup` or `setsid`, daemons an
 * agent started (Codex's app-server) — none outlives the command. `setpriv --pdeathsig KILL`
 * ties `unshare` to the thread that started it, and `--kill-child` ties the namespace to
 * `unshare`, so a simnet killed by SIGKILL takes them all too.
 *
 * Why a shell between them: the first process of a PID namespace ignores every signal it has no
 * handler for, so a command run there directly would shrug off Ctrl-C and SIGTERM. The shell
 * ignores them instead, and the command, its second process, gets them as anywhere else. A
 * command ended by signal N leaves its shell to exit with 128 + N, as a shell reports it, which
 * `heldExit` reads back as the signal. Signals simnet passes on go to the command itself
 * (`heldCommand`): `unshare` blocks SIGINT and SIGTERM.
 *
 * Where no PID namespace can be had (not Linux, no util-linux, user namespaces turned off for an
 * ordinary user), the command runs as before, unheld: see `canHold`.
 */
import { spawnSync } from "node:child_process"
import type * as Fs from "node:fs"

const fs = (): typeof Fs => process.getBuiltinModule("node:fs")

/**
 * The namespace's first process: runs the command (its arguments) in the foreground, then exits
 * with its status. The shell's own standard error is /dev/null — the command gets the real one
 * back (kept on fd 9) in a subshell that execs it, for a shell that redirects a command in itself
 * would print "Killed" there — so nothing of the shell's is printed into the app's terminal.
 */
const INIT = `exec 9>&2 2>/dev/null; ( exec "$@" 2>&9 9>&- ); s=$?; exit $s`

/** The ids an ordinary user keeps inside its user namespace: its own. */
const userFlags = (): ReadonlyArray<string> => {
  const uid = process.getuid?.() ?? 0
  return uid === 0 ? [] : ["--user", `--map-user=${uid}`, `--map-group=${process.getgid?.() ?? uid}`]
}

/** The holder's program and the arguments before the command: `setpriv` when it takes `--pdeathsig`. */
let prefix: ReadonlyArray<string> | null | undefined

/**
 * Whether commands can be held here (Linux, util-linux's `unshare`, a PID namespace this user may
 * make), found once per process: the holder's words before the command, or undefined.
 */
const holderPrefix = (): ReadonlyArray<string> | undefined => {
  if (prefix !== undefined) return prefix ?? undefined
  prefix = null
  if (process.platform !== "linux") return undefined
  const unshare = ["unshare", ...userFlags(), "--pid", "--fork", "--kill-child", "--"]
  // With `setpriv --pdeathsig` (util-linux 2.33 on) the holder dies with simnet; without it, with its command only.
  for (const candidate of [["setpriv", "--pdeathsig", "KILL", "--", ...unshare], unshare]) {
    if (
      spawnSync(candidate[0]!, [...candidate.slice(1), "/bin/sh", "-c", "exit 7"], { stdio: "ignore", timeout: 10_000 })
        .status === 7
    )
      return (prefix = candidate)
  }
  return undefined
}

/** Whether a command simnet runs is held in a PID namespace here (see the module's comment). */
export const canHold = (): boolean => holderPrefix() !== undefined

/**
 * `command` with `args` as simnet runs it: held in a PID namespace when one can be had, else as
 * given. `held` says which.
 */
export const hold = (
  command: string,
  args: ReadonlyArray<string>
): { readonly command: string; readonly args: ReadonlyArray<string>; readonly held: boolean } => {
  const words = holderPrefix()
  if (words === undefined) return { command, args, held: false }
  return { command: words[0]!, args: [...words.slice(1), "/bin/sh", "-c", INIT, "sh", command, ...args], held: true }
}

/**
 * How a held command ended, from how its holder did: the holder's shell exits with 128 + N for a
 * command ended by signal N (1 to 64), read back as that signal, with code 0 as a PTY reports a
 * signal. A command that itself exits with 129 to 192 reads the same: the shell's convention.
 */
export const heldExit = (
  code: number,
  signal: number | undefined
): { readonly code: number; readonly signal: number | undefined } =>
  signal === undefined && code > 128 && code <= 128 + 64 ? { code: 0, signal: code - 128 } : { code, signal }

/** The children of process `pid`, by `/proc`; none when it has gone. */
const childrenOf = (pid: number): Array<number> => {
  try {
    return fs()
      .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter((word) => word !== "")
      .map(Number)
  } catch {
    return []
  }
}

/** Process `pid`'s ids in each PID namespace it is in, outermost first (`NSpid`); empty when it has gone. */
const namespacePids = (pid: number): Array<number> => {
  try {
    const line = /^NSpid:\s*(.*)$/m.exec(fs().readFileSync(`/proc/${pid}/status`, "utf8"))
    return line === null ? [pid] : line[1]!.trim().split(/\s+/).map(Number)
  } catch {
    return []
  }
}

/**
 * The command a holder started (`hold`'s `unshare`, or `nsenter` for a sealed run): the first
 * process below `pid`, a child at a time, that is in a deeper PID namespace and is not that
 * namespace's first process. `pid` itself while there is none yet (or on a system without
 * `/proc`), so a signal is never lost.
 */
export const heldCommand = (pid: number): number => {
  const depth = namespacePids(pid).length
  let at = pid
  for (let step = 0; step < 4; step++) {
    const next = childrenOf(at)[0]
    if (next === undefined) return pid
    const ids = namespacePids(next)
    if (ids.length > depth && ids.at(-1) !== 1) return next
    at = next
  }
  return pid
}

/** Whether `command` names a program that can run: a path to an executable file, or a name on `PATH`. */
export const findable = (command: string, path: string | undefined): boolean => {
  const f = fs()
  const runnable = (file: string) => {
    try {
      f.accessSync(file, f.constants.X_OK)
      return f.statSync(file).isFile()
    } catch {
      return false
    }
  }
  if (command.includes("/")) return runnable(command)
  return (path ?? "").split(":").some((dir) => dir !== "" && runnable(`${dir}/${command}`))
}
