/**
 * Seeded chaos: what the network throws at an app, decided as generated bodies are — whether a
 * request is hit, and how, is a pure function of (run seed, route, canonical request key,
 * occurrence of that key at that route). The same seed replays the same faults in any process and
 * any order of unrelated requests; nothing is drawn from `Math.random`.
 *
 * A hit is one of the effects asked for, picked by the same hash:
 * - `reset`, `timeout`: the fault kinds (`fault.ts`): the connection drops mid-body, no answer comes;
 * - `malformed`: the route's own answer broken where its client parses it (`broken`): a streamed
 *   answer's frames up to a seeded point, then one frame cut short; any other body cut short;
 * - `{ status: N }`: an answer with that status and a JSON error body (`rateLimit` is 429 with
 *   `retry-after`, `serverError` 500);
 * - `streamCut`: the route's own answer, cut mid-way (its first bytes arrive, then the connection
 *   drops): a model's stream stops mid-sentence;
 * - `latency` (when `latencyMs` is given): the route's own answer, after a pause drawn from the
 *   range, on the network's clock.
 */
import { Duration, Effect } from "effect"
import { type Answer, pending, type Settled, streamed, toResponse, whole } from "./answer.ts"
import type { SimnetError } from "../SimnetError.ts"
import { broken, cut, resetAnswer } from "./faultAnswer.ts"
import { avalanche, hashString } from "./seed.ts"

/** The named effects chaos may have on a request (besides `{ status }` and a pause): all of them by default. */
export const CHAOS_FAULTS = ["reset", "timeout", "malformed", "rateLimit", "serverError", "streamCut"] as const

/** An effect chaos may have on a request. */
export type ChaosFault = (typeof CHAOS_FAULTS)[number] | { readonly status: number }

/**
 * The chaos options: `rate` (0 to 1, how many requests are hit), `faults` (the effects to pick
 * from; default all but `latency`), `latencyMs` (`[min, max]`: pauses join the effects),
 * `routes` (the route ids it applies to; default every route).
 */
export interface ChaosOptions {
  readonly rate: number
  readonly faults?: ReadonlyArray<ChaosFault> | undefined
  readonly latencyMs?: readonly [number, number] | undefined
  readonly routes?: ReadonlyArray<string> | undefined
}

/** What chaos did to one request, as its log record says (`record.chaos`). */
export type ChaosHit =
  | { readonly effect: "reset" | "timeout" | "malformed" | "streamCut" }
  | { readonly effect: "status"; readonly status: number }
  | { readonly effect: "latency"; readonly ms: number }

/** A uniform number in [0, 1) from a 32-bit hash. */
const unit = (h: number) => (h >>> 0) / 4_294_967_296

/**
 * The chaos of a network: decides a hit per request. `decide` is pure: the same inputs, the same
 * answer.
 */
export class Chaos {
  readonly options: ChaosOptions
  private readonly effects: ReadonlyArray<ChaosFault | "latency">
  private readonly routes: ReadonlySet<string> | undefined

  constructor(options: ChaosOptions) {
    this.options = options
    this.effects = [
      ...(options.faults ?? CHAOS_FAULTS),
      ...(options.latencyMs === undefined ? [] : ["latency" as const])
    ]
    this.routes = options.routes === undefined ? undefined : new Set(options.routes)
  }

  /** Whether chaos applies to the route with this id at all. */
  covers(routeId: string): boolean {
    return this.options.rate > 0 && this.effects.length > 0 && (this.routes === undefined || this.routes.has(routeId))
  }

  /** The hit for one request, or undefined when it is spared. */
  decide(runSeed: number, identity: string, key: string, occurrence: number): ChaosHit | undefined {
    const base = hashString(`simnet/chaos/v1\u0000${runSeed}\u0000${identity}\u0000${key}\u0000${occurrence}`)
    if (unit(base) >= this.options.rate) return undefined
    const pick = avalanche(base ^ 0x5bd1e995)
    const effect = this.effects[Math.floor(unit(pick) * this.effects.length)]
    if (effect === "latency") {
      const [min, max] = this.options.latencyMs!
      return { effect: "latency", ms: Math.round(min + unit(avalanche(pick ^ 0x27d4eb2d)) * (max - min)) }
    }
    if (effect === "rateLimit") return { effect: "status", status: 429 }
    if (effect === "serverError") return { effect: "status", status: 500 }
    if (typeof effect === "object") return { effect: "status", status: effect.status }
    return { effect }
  }
}

/** How many bytes of a route's own answer a `streamCut` lets through: a pure function of the hit's request. */
export const cutAfter = (runSeed: number, identity: string, key: string, occurrence: number): number =>
  64 +
  (avalanche(hashString(`simnet/chaos-cut/v1\u0000${runSeed}\u0000${identity}\u0000${key}\u0000${occurrence}`)) % 448)

/**
 * What a hit answers: a response at once (a status), or an Effect (a fault, a pause, the route's
 * own answer cut or broken); `fault` is what the client sees of it, when it breaks. `own` is the
 * route's answer, `cutBytes` how much of it a `streamCut` or a `malformed` lets through.
 */
export const chaosAnswer = (
  hit: ChaosHit,
  own: () => Effect.Effect<Settled, SimnetError>,
  cutBytes: () => number
): { readonly answer: Answer; readonly fault: "reset" | "timeout" | "malformed" | undefined } => {
  switch (hit.effect) {
    case "timeout":
      return { answer: pending(Effect.never), fault: "timeout" }
    case "reset":
      return { answer: streamed(resetAnswer()), fault: "reset" }
    case "malformed": {
      const bytes = cutBytes()
      return {
        answer: pending(Effect.map(own(), (answer) => streamed(broken(toResponse(answer), bytes)))),
        fault: "malformed"
      }
    }
    case "streamCut": {
      const bytes = cutBytes()
      return {
        answer: pending(Effect.map(own(), (answer) => streamed(cut(toResponse(answer), bytes)))),
        fault: "reset"
      }
    }
    case "status": {
      const body = JSON.stringify({
        error: {
          type: "simnet_chaos",
          code: hit.status,
          message: `simnet chaos: ${hit.status} instead of the route's answer`
        }
      })
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...(hit.status === 429 ? { "retry-after": "1" } : {})
      }
      return { answer: whole(hit.status, headers, body), fault: undefined }
    }
    case "latency":
      return { answer: pending(Effect.andThen(Effect.sleep(Duration.millis(hit.ms)), own())), fault: undefined }
  }
}
