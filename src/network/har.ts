/**
 * The request log as a HAR 1.2 file (`http://www.softwareishard.com/blog/har-12-spec/`), what
 * browsers' devtools save and every HTTP tool reads: one entry per record still in the log,
 * credentials redacted as the log redacts them (URL, request headers, request body), no
 * `set-cookie`. Bodies are in it when the network kept them (`keepBodies`): answers as text when
 * they are UTF-8 text, else base64, so `Fixture.fromHar` serves the same bytes again. Without
 * `keepBodies`, the answer of a route whose answer is a pure function of its seed (text, bytes, a
 * status, generated JSON: the seed itself a function of route, request key and occurrence) is made
 * again whole, and an OpenAPI operation's body generated again from its logged seed (`again`),
 * each saying so; any other answer's entry says its body is not there (`_simnet.bodyKept:
 * false`), which an import refuses. A request
 * no route answered has status 0 and its refusal in `_error`, as Chromium writes a failed one;
 * what simnet knows besides (the route, the seed, a fault, chaos) is in `_simnet`.
 */
import { isUtf8 } from "node:buffer"
import { simnetVersion } from "../registry/version.ts"
import { type KeptResponse, type LoggedExchange, wasReset } from "../registry/requestLog.ts"

const decoder = new TextDecoder()

/** Bytes as HAR content: text when they are UTF-8, else base64. */
const content = (bytes: Uint8Array): { readonly text: string; readonly encoding?: "base64" } =>
  isUtf8(bytes) ? { text: decoder.decode(bytes) } : { text: Buffer.from(bytes).toString("base64"), encoding: "base64" }

const pairs = (entries: Iterable<readonly [string, string]>) =>
  Array.from(entries, ([name, value]) => ({ name, value }))

const iso = (ms: number) => new Date(Number.isFinite(ms) ? ms : 0).toISOString()

/**
 * The reason phrase of a status, as Node names it. `node:http` is looked up when a HAR is made,
 * not imported: `import("simnet")` does not load it.
 */
const statusText = (status: number): string => process.getBuiltinModule("node:http").STATUS_CODES[status] ?? ""

/**
 * One exchange as a HAR entry; `again` is its answer made again when it was not kept: whole from
 * its route, or a body generated again from its seed.
 */
const entryOf = (exchange: LoggedExchange, again: KeptResponse | string | undefined) => {
  const { record, requestBody } = exchange
  const response =
    exchange.response ??
    (again === undefined ? undefined : typeof again === "string" ? regeneratedResponse(record, again) : again)
  const url = URL.canParse(record.url) ? new URL(record.url) : undefined
  const requestType = Object.entries(record.headers).find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? ""
  const posted = requestBody === undefined ? undefined : content(requestBody)
  const requestSize = requestBody?.byteLength ?? record.body?.size ?? 0
  const wait = response === undefined ? 0 : Math.max(0, response.headAt - record.time)
  const receive = response === undefined ? 0 : Math.max(0, response.doneAt - response.headAt)
  const type = response?.headers.find(([name]) => name === "content-type")?.[1] ?? ""
  const body = response === undefined ? undefined : content(response.body)
  const comments = [
    ...(again !== undefined
      ? [
          record.seed === undefined
            ? `answer made again from route ${record.route?.id} (not kept)`
            : `body generated again from seed ${record.seed} (not kept)`
        ]
      : exchange.kept
        ? []
        : [
            exchange.restored
              ? "restored from a snapshot: its bodies are not in it"
              : "bodies not kept: make the network with keepBodies (simnet serve --keep-bodies)"
          ]),
    ...(response?.cut === true ? [`body cut at ${response.body.byteLength} bytes`] : []),
    ...(response?.broken === true ? ["the body broke before its end: what arrived"] : [])
  ]
  // A reset had no status, whatever head was kept before it (Chromium writes a failed request as 0).
  const status = wasReset(record) ? 0 : (response?.status ?? record.status ?? 0)
  return {
    startedDateTime: iso(record.time),
    time: wait + receive,
    request: {
      method: record.method,
      url: record.url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(Object.entries(record.headers)),
      queryString: url === undefined ? [] : pairs(url.searchParams),
      ...(posted === undefined
        ? {}
        : {
            postData: {
              mimeType: requestType,
              text: posted.text,
              ...(posted.encoding === undefined ? {} : { _encoding: posted.encoding })
            }
          }),
      headersSize: -1,
      bodySize: requestSize
    },
    response: {
      status,
      statusText: statusText(status),
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: response === undefined ? [] : pairs(response.headers),
      content: {
        size: response?.body.byteLength ?? 0,
        mimeType: type,
        ...(body === undefined ? {} : body)
      },
      redirectURL: response?.headers.find(([name]) => name === "location")?.[1] ?? "",
      headersSize: -1,
      bodySize: response?.body.byteLength ?? -1
    },
    cache: {},
    timings: { send: 0, wait, receive },
    ...(comments.length === 0 ? {} : { comment: comments.join("; ") }),
    ...(record.denial === undefined ? {} : { _error: record.denial }),
    _simnet: {
      seq: record.seq,
      ...(record.route === undefined ? {} : { route: record.route.id }),
      ...(record.seed === undefined ? {} : { seed: record.seed }),
      ...(record.fault === undefined ? {} : { fault: record.fault }),
      // An answer whose body is not in this file: an import must not serve it as an empty body.
      ...(exchange.kept || again !== undefined || record.status === undefined ? {} : { bodyKept: false }),
      ...(again === undefined ? {} : { bodyRegenerated: true }),
      ...(record.chaos === undefined ? {} : { chaos: record.chaos })
    }
  }
}

/** A seeded answer generated again: its status, a JSON or text content type, the body, no time spent. */
const regeneratedResponse = (
  record: LoggedExchange["record"],
  body: string
): NonNullable<LoggedExchange["response"]> => {
  let json = true
  try {
    JSON.parse(body)
  } catch {
    json = false
  }
  const bytes = new TextEncoder().encode(body)
  return {
    status: record.status ?? 200,
    headers: [["content-type", json ? "application/json" : "text/plain; charset=utf-8"]],
    body: bytes,
    cut: false,
    headAt: record.time,
    doneAt: record.time
  }
}

/**
 * The HAR 1.2 document of some logged exchanges (oldest first); `again` holds, by `seq`, the
 * answers that were not kept, made again (whole, or a body generated again from its seed).
 */
export const harOf = (
  exchanges: ReadonlyArray<LoggedExchange>,
  again: ReadonlyMap<number, KeptResponse | string> = new Map()
) => ({
  log: {
    version: "1.2",
    creator: { name: "simnet", version: simnetVersion() },
    entries: exchanges.map((exchange) => entryOf(exchange, exchange.kept ? undefined : again.get(exchange.record.seq)))
  }
})

/** A HAR document as `harOf` writes it. */
export type Har = ReturnType<typeof harOf>
