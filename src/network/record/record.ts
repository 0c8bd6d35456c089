/**
 * Record mode: a request no route answers is sent to its real upstream (or the one given for its
 * host, how tests reach a local server), answered with what came back, and kept; `fixtureOf`
 * turns what was kept into ordinary RouteSpec JSON — the fixture `simnet serve --fixture` reads —
 * and `writeRecording` merges it into a file atomically. Requests that routes answer are never
 * forwarded, and without record mode nothing is.
 *
 * What a recording holds, per distinct request (method, URL, and for a JSON body the body): the
 * status, the headers that matter (no `date`, no hop-by-hop headers, `set-cookie` only when
 * asked, and then with its value redacted) and the body (text where it is text, base64 otherwise). Repeated identical requests with
 * different answers become a sequence (each answer once, in order, the last one for good).
 * Credentials are never written: query parameters and JSON body members with credential names
 * are left out of the match, and no request header is recorded at all.
 */
import { isUtf8 } from "node:buffer"
import { Effect } from "effect"
import type { Redactor } from "../../registry/redact.ts"
import { later, pending } from "../../registry/answer.ts"
import type { Route } from "../../registry/route.ts"
import { asksForWebSocket } from "../../registry/socket.ts"
import type { SimRequest } from "../../registry/request.ts"
import { createHash, MAX_MATCH_DEPTH, NULL_BODY_STATUSES, parseJson } from "../../registry/util.ts"
import { make } from "../../routes/make.ts"
import { forward, rebased } from "../../routes/loopback/loopback.ts"
import { DEFAULT_MODEL_APIS, type ModelApis } from "../../models/apis.ts"
import { familyFor, ruleOf } from "./recordModel.ts"
import { isMcp, mcpRoutesOf } from "./recordMcp.ts"
import { boundedMatch, ENTRY_DEPTH, fits } from "./recordBounds.ts"
import { type Recorded, type Recording, redactedCookie } from "./recorded.ts"
import { contentOf, readTarget, writeMerged } from "./recordFile.ts"
import { type RecordedSocket, recordSocket, type SocketWatch, socketScript } from "./recordSocket.ts"
import { socketCalls } from "./recordRealtime.ts"

export type { Recording } from "./recorded.ts"
export { recordingTargetProblem } from "./recordFile.ts"

/** The largest answer body recorded (a bigger one is forwarded but not kept). */
export const MAX_RECORDED_BODY = 32 * 1024 * 1024
/**
 * The most one recording keeps in memory until it is written (bodies, URLs and a per-exchange
 * overhead): past it, exchanges are still forwarded and answered but not recorded, and counted
 * (`overflow`), so a long session cannot grow without bound.
 */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024
const RECORD_OVERHEAD = 256

/** Options of record mode: where each host's requests go instead of the real host, and whether cookies are kept. */
export interface RecordOptions {
  readonly upstream?: Readonly<Record<string, string>> | undefined
  readonly cookies?: boolean | undefined
  /** A sealed run's network: a request whose host no `upstream` names is forwarded to no address on the host's own networks (`hostLocal.ts`). */
  readonly sealed?: boolean | undefined
}

const decoder = new TextDecoder()

/** Answer headers a recording leaves out: the transport's, and what changes on every answer. */
export const DROPPED: ReadonlySet<string> = new Set([
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "age",
  "server",
  "x-request-id",
  "etag"
])

/** A recorder: the route that forwards and keeps what no other route answers, and what it kept so far. */
export interface Recorder {
  readonly route: Route
  /** What was kept so far, in order. */
  readonly recorded: () => ReadonlyArray<Recorded>
  /** How many exchanges were answered but not kept (a body past `MAX_RECORDED_BODY`, or the recording past `MAX_RECORDING_BYTES`). */
  readonly overflow: () => number
  /** Calls `onKept` after each exchange kept from now on (`persist` writes the recording from it). */
  readonly listen: (onKept: () => void) => void
}

/** A WebSocket session as a recorded exchange: its upgrade request, and the session. */
const socketEntry = (request: SimRequest, session: RecordedSocket): Recorded => ({
  method: "GET",
  url: request.url.href,
  requestBody: undefined,
  requestType: undefined,
  status: 101,
  headers: [],
  body: new Uint8Array(0),
  webSocket: session
})

/**
 * A recorder. The upstream's answer streams to the client as it arrives (read as fast as the
 * client reads it); its bytes are kept beside it only up to `MAX_RECORDED_BODY`, past which they
 * are let go and the exchange is counted in `overflow` instead. An exchange is kept when its
 * answer has been read to the end; one the client or the upstream broke off is not.
 */
export const recorder = (options: RecordOptions = {}): Recorder => {
  const kept: Array<Recorded> = []
  const lastAnswer = new Map<string, string>()
  let keptBytes = 0
  let overflow = 0
  let onKept: (() => void) | undefined
  const upstream = options.upstream ?? {}
  /** Keeps one exchange whose whole answer was read (`body` undefined: it was too large to keep). */
  const keep = (
    request: SimRequest,
    response: Response,
    body: Uint8Array | undefined,
    timing: { readonly firstByteMs: number; readonly totalMs: number }
  ) => {
    if (body === undefined) {
      overflow++
      return
    }
    const headers: Array<readonly [string, string]> = []
    response.headers.forEach((value, name) => {
      if (!DROPPED.has(name) && (name !== "set-cookie" || options.cookies === true))
        headers.push([name, name === "set-cookie" ? redactedCookie(value) : value])
    })
    const requestBody = request.body === undefined || request.body.length === 0 ? undefined : request.text()
    const cost = RECORD_OVERHEAD + 2 * request.url.href.length + 2 * (requestBody?.length ?? 0) + body.byteLength
    // An answer the same request got last time adds nothing to the fixture (`fixtureOf`
    // collapses it): repeated traffic does not grow the recording.
    const requestKey = digest([request.method, request.url.href, requestBody ?? ""])
    const answerKey = digest([String(response.status), JSON.stringify(headers)], body)
    if (lastAnswer.get(requestKey) === answerKey) return
    if (keptBytes + cost > MAX_RECORDING_BYTES) {
      overflow++
      return
    }
    lastAnswer.set(requestKey, answerKey)
    keptBytes += cost
    kept.push({
      method: request.method,
      url: request.url.href,
      requestBody,
      requestType: request.headers.get("content-type") ?? undefined,
      status: response.status,
      headers,
      body,
      timing
    })
    onKept?.()
  }
  /** The WebSocket sessions relayed now, with their upgrade requests. */
  const open = new Map<RecordedSocket, SimRequest>()
  const watchSocket = (request: SimRequest): SocketWatch => ({
    opened: (session) => void open.set(session, request),
    changed: () => onKept?.(),
    closed: (session) => void open.delete(session)
  })
  /** Keeps a WebSocket session that ended (`recordSocket.ts`). */
  const keepSocket = (request: SimRequest, session: NonNullable<Recorded["webSocket"]>, bytes: number) => {
    const cost = RECORD_OVERHEAD + 2 * request.url.href.length + bytes
    if (keptBytes + cost > MAX_RECORDING_BYTES) return void overflow++
    keptBytes += cost
    kept.push(socketEntry(request, session))
    onKept?.()
  }
  const route = make(
    "record",
    { url: () => true },
    {
      answer: (request) => {
        const base = upstream[request.url.host]
        const target = base === undefined ? request.url : rebased(request.url, new URL(base))
        const publicOnly = options.sealed === true && base === undefined
        if (asksForWebSocket(request.headers))
          return later(
            recordSocket(
              request,
              target,
              MAX_RECORDED_BODY,
              (session, bytes) => keepSocket(request, session, bytes),
              watchSocket(request),
              publicOnly
            ),
            "record"
          )
        const started = performance.now()
        return pending(
          Effect.map(forward(request, target, "record", "record", publicOnly), (response) => {
            const firstByteMs = performance.now() - started
            const upstreamBody = response.body
            if (upstreamBody === null) {
              keep(request, response, new Uint8Array(0), { firstByteMs, totalMs: firstByteMs })
              return response
            }
            // The answer passes through as the client pulls it; a copy is kept while it is small enough.
            const reader = upstreamBody.getReader()
            let chunks: Array<Uint8Array> | undefined = []
            let size = 0
            const body = new ReadableStream<Uint8Array>(
              {
                pull: async (controller) => {
                  const next = await reader.read()
                  if (next.done) {
                    controller.close()
                    keep(request, response, chunks === undefined ? undefined : concat(chunks, size), {
                      firstByteMs,
                      totalMs: performance.now() - started
                    })
                    return
                  }
                  size += next.value.byteLength
                  if (size > MAX_RECORDED_BODY) chunks = undefined
                  chunks?.push(next.value)
                  controller.enqueue(next.value)
                },
                cancel: (reason) => reader.cancel(reason)
              },
              { highWaterMark: 0 }
            )
            return new Response(body, {
              status: response.status,
              statusText: response.statusText,
              headers: response.headers
            })
          })
        )
      },
      describe: { record: "what no route answers is forwarded and recorded" }
    },
    { id: "record", priority: -2_000_000_000, source: "record" }
  )
  // A session still open when a recording is made (a process told to stop mid-session) is in it as it stands.
  const recorded = (): Array<Recorded> => [
    ...kept,
    ...[...open].map(([session, request]) =>
      socketEntry(request, {
        open: [...session.open],
        replies: session.replies.map((reply) => ({ client: reply.client, server: [...reply.server] }))
      })
    )
  ]
  return { route, recorded, overflow: () => overflow, listen: (listener) => void (onKept = listener) }
}

/** `chunks` (of `size` bytes in all) as one array. */
const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]
  const whole = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    whole.set(chunk, at)
    at += chunk.byteLength
  }
  return whole
}

/** A digest of some strings and bytes, for telling exchanges apart without keeping them twice. */
const digest = (parts: ReadonlyArray<string>, bytes?: Uint8Array): string => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part).update("\u0000")
  if (bytes !== undefined) hash.update(bytes)
  return hash.digest("base64")
}

/** Literal URL text as path-to-regexp pattern text: its syntax characters escaped. */
const literal = (text: string) => text.replace(/[{}()[\]+?!:*\\]/g, "\\$&")

/** Whether a body is written as text: a textual content type, or, without one, UTF-8. */
const isText = (type: string | undefined, body: Uint8Array): boolean =>
  type === undefined
    ? isUtf8(body)
    : /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i.test(type)

/**
 * An answer's text as a recording writes it: a JSON or form body with its credential members
 * (`access_token`, `password`, … by meaning, not substring) redacted, as the log shows them, so
 * a login's token never lands in a fixture; any other text as it came.
 */
const answerText = (type: string | undefined, text: string, redactor: Redactor): string =>
  /json|x-www-form-urlencoded/i.test(type ?? "") ? redactor.bodyText(text) : text

/**
 * What was recorded as RouteSpec JSON: a route per distinct request (its answers in order when
 * they differ), credentials left out (`redactor` names them).
 */
export const fixtureOf = (
  recorded: ReadonlyArray<Recorded>,
  redactor: Redactor,
  warnings: Array<string> = []
): Array<Record<string, unknown>> => {
  const groups = new Map<
    string,
    { readonly match: Record<string, unknown>; readonly answers: Array<Record<string, unknown>> }
  >()
  for (const entry of recorded) {
    const url = new URL(entry.url)
    const query: Record<string, string> = {}
    for (const [name, value] of url.searchParams) if (!redactor.isCredentialQuery(name)) query[name] = value
    // A body nested deeper than a request's `json()` reads is matched without it (as the network
    // would see it); one deeper than a body matcher may nest, on its first levels.
    const parsed =
      entry.requestBody !== undefined && /json/i.test(entry.requestType ?? "")
        ? parseJson(entry.requestBody)
        : undefined
    const { json, cut } = boundedMatch(parsed === undefined ? undefined : redactor.jsonMembers(parsed, "drop"))
    if (cut)
      warnings.push(
        `${entry.method} ${redactor.url(url)}: its request body nests deeper than a body matcher may (${MAX_MATCH_DEPTH} levels): it is matched on what lies above`
      )
    const match: Record<string, unknown> = {
      method: entry.method,
      url: `${url.origin}${literal(url.pathname)}`,
      ...(Object.keys(query).length === 0 ? {} : { query }),
      ...(json === undefined ? {} : { json })
    }
    const type = entry.headers.find(([name]) => name === "content-type")?.[1]
    // A header sent more than once (`set-cookie`) keeps every value, joined as `Headers.get` joins them.
    const headers: Record<string, string> = {}
    for (const [name, value] of entry.headers)
      if (name !== "content-type") headers[name] = name in headers ? `${headers[name]}, ${value}` : value
    const common = {
      status: entry.status,
      ...(type === undefined ? {} : { contentType: type }),
      ...(Object.keys(headers).length === 0 ? {} : { headers })
    }
    const respond =
      entry.webSocket !== undefined
        ? { kind: "webSocket", ...socketScript(entry.webSocket, redactor) }
        : entry.fault !== undefined
          ? { kind: "fault", fault: entry.fault }
          : NULL_BODY_STATUSES.has(entry.status)
            ? // A 204 or 304 carries no body: a status route, which a text route with that status may not be.
              { kind: "status", status: entry.status, ...(Object.keys(headers).length === 0 ? {} : { headers }) }
            : isText(type, entry.body)
              ? { kind: "text", body: answerText(type, decoder.decode(entry.body), redactor), ...common }
              : { kind: "bytes", base64: Buffer.from(entry.body).toString("base64"), ...common }
    const key = JSON.stringify(match)
    const group = groups.get(key) ?? { match, answers: [] }
    groups.set(key, group)
    if (JSON.stringify(group.answers.at(-1)) !== JSON.stringify(respond)) group.answers.push(respond)
  }
  const routes: Array<Record<string, unknown>> = []
  let n = 0
  for (const { match, answers } of groups.values()) {
    n++
    const id = `recorded-${n}`
    // A sequence: the first answer first, each once, the last for good (a higher priority answers first).
    answers.forEach((respond, i) => {
      const last = i === answers.length - 1
      routes.push({
        id: answers.length === 1 ? id : `${id}.${i + 1}`,
        match,
        respond,
        ...(last ? {} : { times: 1 }),
        ...(answers.length === 1 ? {} : { priority: answers.length - i })
      })
    })
  }
  return routes
}

/**
 * What was recorded as a fixture: model calls (`recordModel.ts`) as `llm` rules and the family
 * routes that answer them, MCP sessions as `mcp` routes (`recordMcp.ts`), everything else as
 * routes (`fixtureOf`).
 * Calls that got different answers for the same match become a sequence (each once, in order).
 */
export const recordingOf = (
  recorded: ReadonlyArray<Recorded>,
  redactor: Redactor,
  models: ModelApis = DEFAULT_MODEL_APIS
): Recording => {
  const warnings: Array<string> = []
  const plain: Array<Recorded> = []
  const mcp: Array<Recorded> = []
  const endpoints = new Set<string>()
  const families = new Map<string, Record<string, unknown>>()
  const rules: Array<Record<string, unknown>> = []
  for (const entry of recorded) {
    const url = new URL(entry.url)
    if (entry.method === "POST" && isMcp(entry)) {
      mcp.push(entry)
      endpoints.add(`${url.origin}${url.pathname}`)
      continue
    }
    const calls = entry.webSocket === undefined ? undefined : socketCalls(url, entry.webSocket)
    if (calls !== undefined) {
      families.set(JSON.stringify(calls.family), calls.family)
      rules.push(...calls.rules)
      continue
    }
    const api = models.apiOf(entry.method, url)
    const type = entry.headers.find(([name]) => name === "content-type")?.[1]
    const rule =
      api === undefined
        ? undefined
        : ruleOf(api, entry.url, entry.requestBody, entry.status, type, entry.body, entry.timing)
    if (api === undefined || rule === undefined) {
      plain.push(entry)
      continue
    }
    // An answer nested deeper than a fixture holds (a tool call's input) is kept as the HTTP answer it was.
    if (!fits(rule)) {
      warnings.push(
        `${entry.method} ${redactor.url(url)}: its answer nests deeper than a model rule in a fixture may (${ENTRY_DEPTH} levels): it is kept as the HTTP answer it was`
      )
      plain.push(entry)
      continue
    }
    const family = familyFor(api, url.origin)
    families.set(JSON.stringify(family), family)
    rules.push(rule)
  }
  // The same match answered differently: each answer once, in order (rules match first to last).
  const byMatch = new Map<string, Array<Record<string, unknown>>>()
  for (const rule of rules) {
    const key = JSON.stringify(rule["match"])
    const list = byMatch.get(key) ?? []
    if (JSON.stringify(list.at(-1)?.["behaviour"]) !== JSON.stringify(rule["behaviour"])) list.push(rule)
    byMatch.set(key, list)
  }
  const ordered: Array<Record<string, unknown>> = []
  let n = 0
  for (const list of byMatch.values()) {
    n++
    list.forEach((rule, i) => {
      ordered.push({
        id: list.length === 1 ? `recorded-call-${n}` : `recorded-call-${n}.${i + 1}`,
        ...rule,
        ...(i < list.length - 1 ? { times: 1 } : {})
      })
    })
  }
  // An MCP endpoint's GET (its event stream) and DELETE (a session's end) are its plumbing, not routes.
  const rest = plain.filter((entry) => {
    const url = new URL(entry.url)
    return !endpoints.has(`${url.origin}${url.pathname}`)
  })
  return {
    routes: [...families.values(), ...mcpRoutesOf(mcp, redactor, warnings), ...fixtureOf(rest, redactor, warnings)],
    ...(ordered.length === 0 ? {} : { llm: { rules: ordered } }),
    ...(warnings.length === 0 ? {} : { warnings })
  }
}

/** The shortest time between two writes of a growing recording (and ten times the last write's duration, when longer). */
export const MIN_WRITE_INTERVAL_MS = 1000

/** How `persist` writes: the network's redactor, seed and model APIs, and whether the file is replaced (`fresh`) rather than merged into. */
export interface PersistOptions {
  readonly redactor: Redactor
  readonly seed?: number | undefined
  readonly models?: ModelApis | undefined
  readonly fresh?: boolean | undefined
}

/** A recording written as it grows: `flush` writes it now (and says where and what). */
export interface Persisted {
  /** Writes the recording now: where (undefined when nothing was recorded and there was no file to merge into), and what. */
  readonly flush: () => { readonly written: string | undefined; readonly recording: Recording }
}

/**
 * Writes what `recorder` keeps into `file` as it goes: merged with what `file` held when
 * recording began, atomically, after the first exchange at once and then at most every
 * `MIN_WRITE_INTERVAL_MS` (or ten times as long as the last write took, so that rewriting a large
 * recording costs at most a tenth of the time), and by `flush` when the recording ends. What was
 * recorded is never lost to what later exchanges do: a process that dies loses at most the last
 * interval. When `file` cannot be merged into (it changed under the recorder since
 * `recordingTargetProblem` passed it) or written, the recording goes to `FILE.PID.recording.json`
 * beside it instead, and stays there. With `fresh` (`--record-mode all`), what `file` held is
 * replaced by the recording instead of merged with it — once something was recorded: a session
 * that recorded nothing leaves the file as it was.
 */
export const persist = (recorder: Recorder, file: string, options: PersistOptions): Persisted => {
  const { redactor, seed, models = DEFAULT_MODEL_APIS } = options
  const read = readTarget(file)
  const target = options.fresh === true && "existing" in read ? { existing: {}, text: read.text } : read
  const aside = `${file}.${process.pid}.recording.json`
  let where = "existing" in target ? file : aside
  // What `file` holds as far as the recorder knows: what it held at the start, then what was last
  // written. Anything else there was written by someone else, and is never written over.
  let expected = "existing" in target ? target.text : undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let due = 0
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const started = performance.now()
    const kept = recorder.recorded()
    const recording = recordingOf(kept, redactor, models)
    // Nothing recorded and no file: no empty fixture is made (an upstream that was down, say).
    // Nor is a file replaced (`fresh`) by a recording of nothing.
    if (kept.length === 0 && "existing" in target && (target.text === undefined || options.fresh === true))
      return { written: undefined, recording }
    if (where === file && "existing" in target) {
      try {
        if (contentOf(file) !== expected) throw new Error("changed under the recorder")
        expected = writeMerged(file, target.existing, recording, seed)
      } catch {
        where = aside
      }
    }
    if (where === aside) writeMerged(aside, {}, recording, seed)
    const ended = performance.now()
    due = ended + Math.max(MIN_WRITE_INTERVAL_MS, 10 * (ended - started))
    return { written: where, recording }
  }
  // A write that fails here is tried again at the next one, and at the end (`flush`), which reports it.
  const attempt = () => {
    try {
      flush()
    } catch {
      due = performance.now() + MIN_WRITE_INTERVAL_MS
    }
  }
  recorder.listen(() => {
    if (timer !== undefined) return
    const wait = due - performance.now()
    if (wait <= 0) attempt()
    else timer = setTimeout(attempt, wait).unref()
  })
  return { flush }
}
