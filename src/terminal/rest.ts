/**
 * When a program in a terminal is at rest: detected, not waited for (issue 57). After an action
 * the app is at rest when
 *
 * - simnet is idle: no request in flight, no model call pending, no delay armed (the network's
 *   `quiescent`), no tunnel's TLS handshake under way, and no connection, request or tunnel bytes
 *   seen for the whole window below (`registry/activity.ts`);
 * - the app has taken the input: its process tree ran (or the terminal was fed) since the last
 *   input was written — the kernel hands typed bytes to the reader through a worker of its own, so
 *   a tree asleep just after a write may not have seen it yet (at most `WAKE_MS` is waited for
 *   this: an app that ignores a key never wakes);
 * - then for a window of two frames (`FRAME_MS` each, or `quietMs` when longer: the floor a caller
 *   may ask for) no thread of the tree ran, the terminal was fed nothing and simnet saw nothing;
 * - and a last scan finds no thread running or in uninterruptible sleep (`R`, `D`): a thread that
 *   is on a CPU at the end of the window has not been counted yet;
 * - nor one that sleeps on a timer due soon (`/proc/TID/syscall`: an `epoll_wait` whose timeout is
 *   at most `SOON_MS`, as an event loop waits for its next timer): a UI that throttles its redraw
 *   (Ink draws at most 30 times a second) draws the rest of an answer when it fires. That timer is
 *   waited for, and rest looked for again; at most `SOON_WAITS` times, so an app with a timer that
 *   repeats (a poll, a spinner) still comes to rest.
 *
 * A program that computes without output is not at rest while it stays silent for less than
 * `STILL_MS`: its tree runs. Some apps never let every thread sleep (a render loop that wakes
 * every frame and draws nothing new, as opencode's TUI does): once the screen and simnet have been
 * still for `STILL_MS` (or the window, when longer) while the tree kept running, that is rest too,
 * the screen's rule with a long window, so such an app is driven at all. A tree with no thread left is a program ending: its exit is waited for, so an app that
 * prints its error and exits is always seen exited (one signature, not sometimes the output alone).
 *
 * "The tree ran" is read, on Linux, from a cgroup of the run's own (`cgroup.ts`: one read of
 * its CPU usage) or, where none can be made, from the sum of every thread's CPU time
 * (`/proc/PID/task/TID/schedstat`) found by walking the tree's children. Elsewhere nothing can be
 * read: rest is the screen and simnet still for the window, and `quietMs` defaults to 150 there.
 * Polling backs off (1, 2, 4 ms … up to a frame) while the app is busy, and only runs once simnet
 * is idle; the caller bounds the whole wait.
 */
import { Clock, Effect } from "effect"
import * as Fs from "node:fs"
import { activity } from "../registry/activity.ts"
import type { Cgroup } from "./cgroup.ts"

/** How long a screen and simnet still, with the tree still running, count as rest (see the module's comment). */
export const STILL_MS = 1_000

/** One frame: the window of rest is two of them. */
export const FRAME_MS = 8
/** The longest wait for the app to take an input (its tree woken, or the terminal fed). */
export const WAKE_MS = 100
/** The floor of rest (`--quiet-ms`, `ui.wait`'s `quietMs`) unless told: none on Linux, where the tree is read; 150 ms elsewhere. */
export const DEFAULT_QUIET_MS = process.platform === "linux" ? 0 : 150
/** A timer due within this is waited for before the app is taken to be at rest. */
export const SOON_MS = 250
/** How many such timers one rest waits for. */
const SOON_WAITS = 2
/** The most threads a tree walk reads: a fork bomb is busy, not at rest. */
const MAX_THREADS = 4_096

/** What a scan of the tree finds: a thread running (`busy`), every thread asleep, or none left (`gone`). */
export type TreeState = "busy" | "asleep" | "gone"

/** How rest reads a program's process tree. */
export interface TreeProbe {
  /** A number that changes whenever any thread of the tree ran (CPU time). */
  readonly usage: () => number
  /** The threads' states now. */
  readonly scan: () => TreeState
  /** The soonest timer a thread sleeps on, in milliseconds from when it began to wait, when one is due within `SOON_MS`. */
  readonly soon: () => number | undefined
}

/** The state letter of a thread's `stat`: after the last `)`, since the command's name may hold one. */
const stateOf = (stat: string): string => stat.charAt(stat.lastIndexOf(")") + 2)

/** Reads a file of /proc, or undefined when it is gone (the thread or process ended). */
const read = (file: string): string | undefined => {
  try {
    return Fs.readFileSync(file, "latin1")
  } catch {
    return undefined
  }
}

/** The states of `tids` (threads, as /proc/TID names any thread): busy when one runs or waits on a disk, gone when none is alive. */
const statesOf = (tids: Iterable<string>): TreeState => {
  let alive = false
  for (const tid of tids) {
    const stat = read(`/proc/${tid}/stat`)
    if (stat === undefined) continue
    const state = stateOf(stat)
    if (state === "R" || state === "D") return "busy"
    if (state !== "Z" && state !== "X") alive = true
  }
  return alive ? "asleep" : "gone"
}

/** The `epoll_wait` family's syscall numbers, whose fourth argument is the timeout in milliseconds (x86-64: epoll_wait, epoll_pwait; arm64: epoll_pwait). */
const EPOLL_WAITS: ReadonlySet<string> = new Set(process.arch === "arm64" ? ["22"] : ["232", "281"])

/** The shortest timeout among `tids` asleep in an `epoll_wait` of at most `SOON_MS` (see the module's comment). */
const soonest = (tids: Iterable<string>): number | undefined => {
  let soon: number | undefined
  for (const tid of tids) {
    const call = read(`/proc/${tid}/syscall`)?.split(" ")
    if (call === undefined || !EPOLL_WAITS.has(call[0]!)) continue
    // An int in a 64-bit register: -1 (no timer) reads as 0xffffffff.
    const timeout = Number.parseInt(call[4] ?? "", 16)
    if (timeout >= 0 && timeout <= SOON_MS && (soon === undefined || timeout < soon)) soon = timeout
  }
  return soon
}

/** The tree of a run's own cgroup: its CPU usage, and its threads' states by the cgroup's thread list. */
export const cgroupProbe = (group: Cgroup): TreeProbe => ({
  usage: () => group.usage(),
  scan: () => statesOf(group.threads()),
  soon: () => soonest(group.threads())
})

/**
 * The tree below `root`, walked by `/proc/PID/task/TID/children` (a child belongs to the thread
 * that forked it): each thread's id once, at most `MAX_THREADS`.
 */
const walk = (root: number): Array<string> => {
  const threads: Array<string> = []
  const pids = [String(root)]
  for (let i = 0; i < pids.length && threads.length < MAX_THREADS; i++) {
    let tids: Array<string>
    try {
      tids = Fs.readdirSync(`/proc/${pids[i]}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      threads.push(tid)
      const children = read(`/proc/${pids[i]}/task/${tid}/children`)
      if (children !== undefined)
        for (const child of children.split(" ")) if (child.trim() !== "") pids.push(child.trim())
    }
  }
  return threads
}

/**
 * The tree below `root`, read by walking it (where no cgroup could be made): its usage is the
 * sum of its threads' CPU time (`schedstat`, nanoseconds), plus their count so that a thread that
 * ends or starts shows. Not Linux: nothing to read, a tree always asleep.
 */
export const walkProbe = (root: number): TreeProbe => {
  if (process.platform !== "linux") return { usage: () => 0, scan: () => "asleep", soon: () => undefined }
  return {
    usage: () => {
      const threads = walk(root)
      let sum = threads.length
      for (const tid of threads) sum += Number(read(`/proc/${tid}/schedstat`)?.split(" ")[0] ?? 0)
      return sum
    },
    scan: () => statesOf(walk(root)),
    soon: () => soonest(walk(root))
  }
}

/** The app's side as it stood just before an input was written: a mark per input. */
export interface InputMark {
  readonly seq: number
  readonly usage: number
  readonly generation: number
}

/** What rest watches of a terminal. */
export interface RestSubject {
  readonly probe: TreeProbe
  /** Grows each time the terminal is fed (the emulator's generation). */
  readonly generation: () => number
  /** The mark of the last input, if any was written. */
  readonly input: () => InputMark | undefined
  readonly exit: () => unknown
  readonly exited: Effect.Effect<unknown>
}

/**
 * Completes when `subject` is at rest (see the module's comment) or its program has exited.
 * `quiescent` is the network's: it completes when nothing simnet does for the app is under way.
 * `more` is a counter of other activity to watch (a virtual clock's messages). Unbounded in
 * itself: the caller puts a timeout on it.
 */
export const untilRest = (
  subject: RestSubject,
  quiescent: Effect.Effect<void>,
  quietMs: number,
  more: () => number = () => 0
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const window = Math.max(2 * FRAME_MS, quietMs)
    const { probe } = subject
    let woken = -1
    let seen = { seq: -1, at: 0 }
    let last: string | undefined
    let stillSince = 0
    let outer: string | undefined
    let outerSince = 0
    let step = 1
    let soonWaits = 0
    for (;;) {
      if (subject.exit() !== undefined) return
      yield* Effect.raceFirst(quiescent, Effect.asVoid(subject.exited))
      if (subject.exit() !== undefined) return
      const now = yield* Clock.currentTimeMillis
      const mark = subject.input()
      if (mark !== undefined && mark.seq !== woken) {
        if (seen.seq !== mark.seq) seen = { seq: mark.seq, at: now }
        if (probe.usage() === mark.usage && subject.generation() === mark.generation && now - seen.at < WAKE_MS) {
          yield* Effect.sleep(1)
          continue
        }
        woken = mark.seq
      }
      const simnet = activity()
      const shown = `${subject.generation()} ${simnet.ticks} ${more()}`
      if (shown !== outer || simnet.opening > 0) {
        outer = shown
        outerSince = now
      } else if (now - outerSince >= Math.max(window, STILL_MS)) {
        // The tree keeps running but shows nothing new and asks simnet nothing: the screen's rest.
        return
      }
      const sample = `${probe.usage()} ${shown}`
      if (sample !== last || simnet.opening > 0) {
        // Something moved: the window starts again, polled more slowly while the app stays busy.
        if (last !== undefined) step = Math.min(2 * step, FRAME_MS)
        last = sample
        stillSince = now
        yield* Effect.sleep(step)
        continue
      }
      // The counters only grow, so two samples a window apart tell whether anything moved between.
      if (now - stillSince < window) {
        yield* Effect.sleep(window - (now - stillSince))
        continue
      }
      const state = probe.scan()
      if (state === "gone") return yield* Effect.asVoid(subject.exited)
      if (state === "asleep") {
        const soon = soonWaits < SOON_WAITS ? probe.soon() : undefined
        if (soon === undefined) return
        // A timer due soon: waited for, then the window again (it moved if the timer did anything).
        soonWaits++
        yield* Effect.sleep(soon + FRAME_MS)
        continue
      }
      last = undefined
    }
  })
