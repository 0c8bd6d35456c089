/**
 * simnet's virtual clock (`simnet explore --clock virtual`): the app's Node processes and simnet's
 * own network run on one time that moves only when simnet moves it, so an app that backs off for
 * 30 s after a 429 costs no 30 real seconds.
 *
 * - Each Node process of the command (and each of its worker threads) loads `clockHook.mjs`
 *   through NODE_OPTIONS (`env`): its `Date`, `performance.now` and timers are faked there. It
 *   connects to this clock's unix socket (`SIMNET_CLOCK`), says when its next timer is due, and
 *   moves its time when told. A process started late reads the current time from a file
 *   (`SIMNET_CLOCK_NOW`). Other runtimes are not hooked: they run on real time, as before.
 * - The network runs on this clock too (`clock`, an Effect `Clock`): a route's delay, the model's
 *   pacing and chaos's pauses sleep on virtual time.
 * - `restOnClock`: when the whole app is at rest (`rest.ts`), simnet's own sleeps counting as
 *   waiting on the clock, time jumps to the earliest timer due (any participant's, or the
 *   network's), and rest is waited for again; until nothing is due before the step's deadline,
 *   counted in virtual time.
 *
 * Virtual time starts at `VIRTUAL_EPOCH`, the same for every run, so screens that show a time or
 * a date are the same on every run.
 */
import { type Clock, Duration, Effect, type Scope } from "effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as Path from "node:path"
import { FRAME_MS, type RestSubject, untilRest } from "./rest.ts"

/** Where every run's virtual time starts: 2026-01-01T00:00:00Z. */
export const VIRTUAL_EPOCH = Date.UTC(2026, 0, 1)

/** The longest simnet waits for the app's processes to say they moved their time (a process in a busy loop never does). */
const ACK_MS = 2_000
/** The longest line a participant may send. */
const MAX_LINE = 4_096

/** The hook's file: this checkout's, or the one the build puts beside the compiled module. */
const HOOK = new URL("./clockHook.mjs", import.meta.url)

/** A process (or worker) on the clock: its time and its next timer's. */
interface Participant {
  now: number
  next: number | null
}

/** A run's virtual clock (see the module's comment). */
export interface VirtualClock {
  /** The variables a command gets: its NODE_OPTIONS with the hook (after `nodeOptions`), the socket and the time file. */
  readonly env: (nodeOptions: string | undefined) => Record<string, string>
  /** Effect's `Clock` on virtual time: what the network is made with. */
  readonly clock: Clock.Clock
  /** The virtual time now, in epoch milliseconds. */
  readonly now: () => number
  /** The virtual time covered since the clock started. */
  readonly covered: () => number
  /** How many processes or workers have joined the clock. */
  readonly joined: () => number
  /** Grows with each message a participant sends: part of what rest watches. */
  readonly activity: () => number
  /** Whether something of simnet's sleeps on the clock (a delay, the model's pacing). */
  readonly sleeping: () => boolean
  /** When the earliest timer is due (a participant's or simnet's), if any. */
  readonly next: () => number | undefined
  /** Moves time to `to`: simnet's sleeps due wake, every participant runs its timers due and says so (waited for, at most `ACK_MS`). */
  readonly advance: (to: number) => Effect.Effect<void>
}

/** A sleep on the clock: when it is due, and how to wake it. */
interface Sleeper {
  readonly at: number
  readonly wake: () => void
}

/** Makes a run's virtual clock: its socket listens until the scope closes (then it and its directory are removed). */
export const makeVirtualClock = (): Effect.Effect<VirtualClock, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<
      {
        readonly held: { readonly server: Net.Server; readonly dir: string; readonly sockets: Set<Net.Socket> }
        readonly clock: VirtualClock
      },
      Error
    >((resume) => {
      const dir = Fs.mkdtempSync(Path.join(tmpdir(), "simnet-clock-"))
      const socketPath = Path.join(dir, "clock.sock")
      const nowFile = Path.join(dir, "now")
      let now = VIRTUAL_EPOCH
      Fs.writeFileSync(nowFile, String(now))
      let joined = 0
      let messages = 0
      const participants = new Map<Net.Socket, Participant>()
      const sleepers: Array<Sleeper> = []
      let acked: () => void = () => {}
      const sockets = new Set<Net.Socket>()
      const server = Net.createServer((socket) => {
        sockets.add(socket)
        let buffered = ""
        socket.on("error", () => socket.destroy())
        socket.on("close", () => {
          sockets.delete(socket)
          participants.delete(socket)
          messages++
          acked()
        })
        socket.on("data", (data) => {
          buffered += data.toString("latin1")
          if (buffered.length > MAX_LINE && !buffered.includes("\n")) return socket.destroy()
          for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
            const line = buffered.slice(0, end)
            buffered = buffered.slice(end + 1)
            let told: { readonly now?: unknown; readonly next?: unknown }
            try {
              told = JSON.parse(line) as typeof told
            } catch {
              continue
            }
            // A participant is the app's: a time that is not a finite number is no time at all.
            if (typeof told.now !== "number" || !Number.isFinite(told.now)) continue
            if (!participants.has(socket)) joined++
            participants.set(socket, {
              now: told.now,
              next: typeof told.next === "number" && Number.isFinite(told.next) ? told.next : null
            })
            messages++
            // A participant behind the clock (it started as time moved) catches up.
            if (told.now < now) socket.write(`${JSON.stringify({ advanceTo: now })}\n`)
            acked()
          }
        })
      })
      server.on("error", (error) =>
        resume(Effect.fail(new Error(`simnet: the virtual clock's socket: ${error.message}`)))
      )
      const effectClock: Clock.Clock = {
        currentTimeMillisUnsafe: () => now,
        currentTimeMillis: Effect.sync(() => now),
        currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
        currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
        monotonicTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
        monotonicTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
        sleep: (duration: Duration.Duration) => {
          const ms = Duration.toMillis(duration)
          if (!(ms > 0)) return Effect.yieldNow
          return Effect.callback<void>((wake) => {
            const sleeper: Sleeper = { at: now + ms, wake: () => wake(Effect.void) }
            // Kept in order of their time, the earlier-made first among equals.
            const index = sleepers.findIndex((other) => other.at > sleeper.at)
            sleepers.splice(index === -1 ? sleepers.length : index, 0, sleeper)
            return Effect.sync(() => {
              const at = sleepers.indexOf(sleeper)
              if (at !== -1) sleepers.splice(at, 1)
            })
          })
        }
      }
      const advance = (to: number): Effect.Effect<void> =>
        Effect.gen(function* () {
          if (to <= now) return
          now = to
          Fs.writeFileSync(nowFile, String(now))
          while (sleepers.length > 0 && sleepers[0]!.at <= now) sleepers.shift()!.wake()
          for (const [socket, participant] of participants)
            if (participant.now < now) socket.write(`${JSON.stringify({ advanceTo: now })}\n`)
          const behind = () => [...participants.values()].some((participant) => participant.now < now)
          if (!behind()) return
          yield* Effect.callback<void>((done) => {
            acked = () => {
              if (behind()) return
              acked = () => {}
              done(Effect.void)
            }
            return Effect.sync(() => void (acked = () => {}))
          }).pipe(Effect.timeoutOption(ACK_MS))
        })
      server.listen(socketPath, () =>
        resume(
          Effect.succeed({
            held: { server, dir, sockets },
            clock: {
              env: (nodeOptions) => ({
                NODE_OPTIONS: `${nodeOptions === undefined || nodeOptions === "" ? "" : `${nodeOptions} `}--import ${HOOK.href}`,
                SIMNET_CLOCK: socketPath,
                SIMNET_CLOCK_NOW: nowFile
              }),
              clock: effectClock,
              now: () => now,
              covered: () => now - VIRTUAL_EPOCH,
              joined: () => joined,
              activity: () => messages,
              sleeping: () => sleepers.length > 0,
              next: () => {
                let at = sleepers[0]?.at
                for (const participant of participants.values())
                  if (participant.next !== null && (at === undefined || participant.next < at)) at = participant.next
                return at
              },
              advance
            }
          })
        )
      )
    }),
    ({ held: { server, dir, sockets } }) =>
      Effect.sync(() => {
        for (const socket of sockets) socket.destroy()
        server.close()
        Fs.rmSync(dir, { recursive: true, force: true })
      })
  ).pipe(Effect.map(({ clock }) => clock))

/**
 * Rest on a virtual clock: at rest (`untilRest`, simnet's sleeps on the clock counting as
 * waiting), the clock jumps to the earliest timer due, until none is due by `timeoutMs` of
 * virtual time from now.
 */
export const restOnClock = (
  subject: RestSubject,
  quiescent: Effect.Effect<void>,
  quietMs: number,
  clock: VirtualClock,
  timeoutMs: number
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const deadline = clock.now() + timeoutMs
    // The network waits on virtual time once a sleep of its own is all it has left.
    const waiting = Effect.raceFirst(
      quiescent,
      Effect.repeat(Effect.sleep(FRAME_MS), { until: () => clock.sleeping() })
    )
    for (;;) {
      yield* untilRest(subject, waiting, quietMs, clock.activity)
      if (subject.exit() !== undefined) return
      const next = clock.next()
      if (next === undefined || next > deadline) return
      yield* clock.advance(next)
    }
  })
