/**
 * What record mode keeps of one forwarded exchange (`record.ts` makes it; `recordModel.ts` and
 * `recordMcp.ts` read it), how they read its bodies, and how a cookie it keeps is redacted.
 */
import type { Fault } from "../../routes/fault/fault.ts"
import { REDACTED } from "../../registry/redact.ts"
import type { RecordedSocket } from "./recordSocket.ts"

export { eventData } from "../../models/wire/readBack.ts"

/**
 * A recording as a fixture: routes, and the model calls as `llm` rules. `warnings` (not written
 * to the file) names each exchange kept only in part, and why (`recordBounds.ts`).
 */
export interface Recording {
  readonly routes: Array<Record<string, unknown>>
  readonly llm?: { readonly rules: Array<Record<string, unknown>> } | undefined
  readonly warnings?: ReadonlyArray<string> | undefined
}

/** One exchange the recorder forwarded. */
export interface Recorded {
  readonly method: string
  readonly url: string
  readonly requestBody: string | undefined
  readonly requestType: string | undefined
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: Uint8Array
  /** When the answer's head and its last byte came, from the request (a model stream's pace is read from it). */
  readonly timing?: { readonly firstByteMs: number; readonly totalMs: number } | undefined
  /** How the exchange broke, when it did (a HAR that simnet exported says so in `_simnet.fault`): replayed as that fault. */
  readonly fault?: Fault | undefined
  /** For an upgrade to a WebSocket: what was said on it (`recordSocket.ts`), replayed as a `webSocket` script. */
  readonly webSocket?: RecordedSocket | undefined
}

/**
 * A `set-cookie` value as a recording keeps it: the cookie's name and attributes (`Path`,
 * `HttpOnly`, `Max-Age`, …), its value redacted, whatever its name: a cookie is a credential by
 * what it does, so none reaches a file.
 */
export const redactedCookie = (value: string): string => {
  const eq = value.indexOf("=")
  const semi = value.indexOf(";")
  if (eq === -1 || (semi !== -1 && semi < eq)) return value
  return `${value.slice(0, eq)}=${REDACTED}${semi === -1 ? "" : value.slice(semi)}`
}
