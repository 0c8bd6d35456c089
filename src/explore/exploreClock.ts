/**
 * Explore's clock (`--clock`): `real`, the default, or `virtual` (`terminal/virtualClock.ts`),
 * where a run's Node processes and its network run on simnet's time, which jumps to the next timer
 * whenever the whole app is at rest. Each run has a clock of its own, started at the same time, so
 * a run's screens and files do not depend on when it ran. What a run covered is counted here: the
 * virtual time, and whether any process of the command joined the clock (none did: a command
 * that is not Node ran on real time).
 */
import { Clock, Effect, type Scope } from "effect"
import { makeVirtualClock, type VirtualClock } from "../terminal/virtualClock.ts"

/** Which clock a run's app and network run on. */
export type ExploreClock = "real" | "virtual"

/** What the runs covered on a virtual clock: its time, in all, and how many runs had a Node process join it. */
export interface ClockCovered {
  readonly virtualMs: number
  readonly joined: number
}

/** A run's clock: a virtual one, or none (real time). */
export const runClock = (
  mode: ExploreClock | undefined
): Effect.Effect<VirtualClock | undefined, Error, Scope.Scope> =>
  mode === "virtual" ? makeVirtualClock() : Effect.succeed(undefined)

/** `effect` on `clock`'s time (the network is made so: its delays, pacing and chaos sleep on it). */
export const onClock = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  clock: VirtualClock | undefined
): Effect.Effect<A, E, R> => (clock === undefined ? effect : Effect.provideService(effect, Clock.Clock, clock.clock))

/** What one run covered on `clock`, added to `so far`. */
export const addCovered = (soFar: ClockCovered | undefined, run: ClockCovered | undefined): ClockCovered | undefined =>
  run === undefined
    ? soFar
    : { virtualMs: (soFar?.virtualMs ?? 0) + run.virtualMs, joined: (soFar?.joined ?? 0) + run.joined }

/** What a run covered on its clock, if virtual: its time, and 1 when a process joined. */
export const covered = (clock: VirtualClock | undefined): ClockCovered | undefined =>
  clock === undefined ? undefined : { virtualMs: clock.covered(), joined: clock.joined() > 0 ? 1 : 0 }
