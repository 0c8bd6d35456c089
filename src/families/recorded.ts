/**
 * What record mode keeps of one forwarded exchange (`record.ts` makes it; `recordModel.ts` and
 * `recordMcp.ts` read it), and how they read its bodies.
 */
import type { Fault } from "../kinds/fault.ts"
import { parseJson } from "../core/util.ts"

/** The `data:` payloads of an event stream that are JSON objects (`[DONE]` and other text left out). */
export const eventData = (text: string): Array<Record<string, any>> =>
  text.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => parseJson(line.slice(5).trim())).filter((v): v is Record<string, any> => typeof v === "object" && v !== null)

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
}

