/**
 * What the request log shows of a request (`RequestRecord`), its counters, and what it keeps of an
 * exchange when the network keeps bodies. `requestLog.ts` is the ring that makes them.
 */
import type { ChaosHit } from "./chaos.ts"
import type { ScenarioStep } from "./scenarios.ts"
import type { Candidate } from "../SimnetError.ts"

/**
 * One way a request broke the operation it was sent to (an OpenAPI route validates requests), in
 * Prism's shape: where (`["query", "limit"]`, `["body", "tags", "0"]`), severity, the keyword
 * that failed and its message.
 */
export interface RequestViolation {
  readonly location: ReadonlyArray<string>
  readonly severity: "Error"
  readonly code: string
  readonly message: string
}

/**
 * One request as the log shows it.
 */
export interface RequestRecord {
  readonly seq: number
  /** Milliseconds from Effect's `Clock` when the request arrived. */
  readonly time: number
  readonly method: string
  readonly url: string
  /** Request headers, credentials replaced by `"<redacted>"`. */
  readonly headers: Readonly<Record<string, string>>
  /** The first 256 characters of the body, and its size in bytes. */
  readonly body: { readonly size: number; readonly preview: string } | undefined
  /** The route that answered, when one did. */
  readonly route: { readonly id: string; readonly kind: string; readonly source: string } | undefined
  /** The `_tag` of the error that denied the request (e.g. `UnregisteredRequest`), if any. */
  readonly denial: string | undefined
  /**
   * What the client saw when a fault route took the request: `reset` (the connection dropped
   * mid-body), `timeout` (no answer) or `malformed` (a body cut short). Such a request is counted
   * as `faulted`, neither answered nor denied.
   */
  readonly fault?: RequestFault | undefined
  /** The response status, once the route produced one. */
  readonly status: number | undefined
  /** The seed the route answered with (seeded routes only), to regenerate the response. */
  readonly seed: number | undefined
  /** How many earlier requests with the same canonical key the route had answered. */
  readonly occurrence: number | undefined
  /**
   * What the route said about the request, for kinds that say something (an MCP route:
   * `{ method, tool?, session? }`); see `RespondContext.annotate`.
   */
  readonly detail: Readonly<Record<string, unknown>> | undefined
  /** What was wrong with the request, when the route validated it and found violations. */
  readonly violations?: ReadonlyArray<RequestViolation> | undefined
  /** What the network's seeded chaos did to the request, when it hit it (see `chaos.ts`). */
  readonly chaos?: ChaosHit | undefined
  /**
   * Why the request was refused, as its error said it (the message, redacted as the error is, at
   * most 2 000 characters) and, for an unregistered request, the routes that came closest: kept
   * with the record, so it is explained later (the inspector opened after the fact).
   */
  readonly refusal?:
    | { readonly message: string; readonly candidates?: ReadonlyArray<Candidate> | undefined }
    | undefined
  /** Milliseconds on the network's `Clock` from the request's arrival to its answer's head. */
  readonly answeredMs?: number | undefined
  /** The scenario of the route that took the request: the state it found, and the state it moved it to. */
  readonly scenario?: ScenarioStep | undefined
}

/**
 * Exact counters that survive the ring's bound. Every request ends answered (a route produced a
 * response), denied (an error) or faulted (a fault route broke it as real networks break), so
 * `requests` is `answered + denied + faulted` plus those still in flight; `byRoute` counts the
 * requests each route matched, whatever became of them.
 */
export interface RequestCounters {
  readonly requests: number
  readonly answered: number
  readonly denied: number
  /** Requests a fault route took: the client saw a reset, no answer or a body cut short. */
  readonly faulted: number
  readonly byRoute: Readonly<Record<string, number>>
}

/** What a record holds of its exchange when the network keeps bodies (`keptBodies.ts`). */
export interface KeptExchange {
  readonly requestBody: Uint8Array | undefined
  response: KeptResponse | undefined
}

/** An answer as kept: its head, its body (at most `KEPT_BODY` bytes: `cut` when longer), and when each came. */
export interface KeptResponse {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: Uint8Array
  readonly cut: boolean
  /** Set when the body broke before its end (a fault, a reset): `body` is what arrived. */
  readonly broken?: true
  /** `Clock` milliseconds when the head came, and when the body ended. */
  readonly headAt: number
  readonly doneAt: number
}

/** A record with what was kept of its exchange (`RequestLog.exchanges`), for a HAR export. */
export interface LoggedExchange {
  readonly record: RequestRecord
  /** The request's body, its text redacted when it is text (`undefined` when kept nowhere). */
  readonly requestBody: Uint8Array | undefined
  /** The answer, its headers redacted; `undefined` when none came or nothing was kept. */
  readonly response: KeptResponse | undefined
  /** Whether the network kept this exchange's bodies. */
  readonly kept: boolean
  /** Whether the record came from a snapshot (whose records never carry bodies). */
  readonly restored: boolean
}

/** What a client can see of a fault: the connection reset, no answer, or a body cut short. */
export const REQUEST_FAULTS = ["reset", "timeout", "malformed"] as const
export type RequestFault = (typeof REQUEST_FAULTS)[number]

/**
 * Whether a request's connection was reset (a `reset` fault route, chaos `reset` or `streamCut`).
 * The one rule of every view of a request (the log, serve's line, the trace, the inspector's list
 * and details): such a request has no status and no time of answer, `fault: "reset"` instead, and
 * is over. Its client got no whole answer, whatever head went out before the drop (over a socket,
 * usually none at all).
 */
export const wasReset = (record: { readonly fault?: string | undefined }): boolean => record.fault === "reset"
