/**
 * What record mode keeps of one forwarded exchange (`record.ts` makes it; `recordModel.ts` and
 * `recordMcp.ts` read it).
 */
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
  readonly fault?: "reset" | "timeout" | "malformed-body" | undefined
}

