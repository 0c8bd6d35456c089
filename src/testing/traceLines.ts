/**
 * A logged request as a line of a trace, the form `replayTrace` reads and `simnet serve --trace`
 * writes, with its time left out (`ms: 0`): what the failure files of `property` and `explore`
 * carry, so that the same case writes the same lines.
 */
import { type RequestRecord, wasReset } from "../registry/requestRecord.ts"

/** `record` as a trace's `request` line. */
export const requestTraceLine = (record: RequestRecord): Record<string, unknown> => ({
  type: "request",
  seq: record.seq,
  method: record.method,
  url: record.url,
  route: record.route?.id,
  ...(wasReset(record) ? {} : { status: record.status ?? 0 }),
  outcome: record.fault ?? record.denial ?? "answered",
  ...(record.chaos === undefined ? {} : { chaos: record.chaos }),
  ...(record.scenario === undefined ? {} : { scenario: record.scenario }),
  headers: record.headers,
  ms: 0
})
