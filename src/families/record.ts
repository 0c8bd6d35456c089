/**
 * Record mode: a request no route answers is sent to its real upstream (or the one given for its
 * host, how tests reach a local server), answered with what came back, and kept; `fixtureOf`
 * turns what was kept into ordinary RouteSpec JSON — the fixture `simnet serve --fixture` reads —
 * and `writeRecording` merges it into a file atomically. Requests that routes answer are never
 * forwarded, and without record mode nothing is.
 *
 * What a recording holds, per distinct request (method, URL, and for a JSON body the body): the
 * status, the headers that matter (no `date`, no hop-by-hop headers, `set-cookie` only when
 * asked) and the body (text where it is text, base64 otherwise). Repeated identical requests with
 * different answers become a sequence (each answer once, in order, the last one for good).
 * Credentials are never written: query parameters and JSON body members with credential names
 * are left out of the match, and no request header is recorded at all.
 */
import { isUtf8 } from "node:buffer"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { Effect } from "effect"
import type { Redactor } from "../registry/redact.ts"
import type { Route } from "../registry/route.ts"
import { createHash, depthExceeds, MAX_JSON_DEPTH, parseJson } from "../registry/util.ts"
import type { Fault } from "../routes/fault.ts"
import { make } from "../routes/make.ts"
import { forward, rebased } from "../routes/loopback.ts"
import { familyFor, modelApiOf, ruleOf } from "./recordModel.ts"
import { isMcp, mcpRoutesOf } from "./recordMcp.ts"
import type { Recorded } from "./recorded.ts"

/** The largest answer body recorded (a bigger one is forwarded but not kept). */
export const MAX_RECORDED_BODY = 32 * 1024 * 1024
/**
 * The most one recording keeps in memory until it is written (bodies, URLs and a per-exchange
 * overhead): past it, exchanges are still forwarded and answered but not recorded, and counted
 * (`overflow`), so a long session cannot grow without bound.
 */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024
const RECORD_OVERHEAD = 256

/** A recording as a fixture: routes, and the model calls as `llm` rules. */
export interface Recording {
  readonly routes: Array<Record<string, unknown>>
  readonly llm?: { readonly rules: Array<Record<string, unknown>> } | undefined
}

/** Options of record mode: where each host's requests go instead of the real host, and whether cookies are kept. */
export interface RecordOptions {
  readonly upstream?: Readonly<Record<string, string>> | undefined
  readonly cookies?: boolean | undefined
}

const decoder = new TextDecoder()

const DROPPED = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "age", "server", "x-request-id", "etag"])

/** A recorder: the route that forwards and keeps what no other route answers, and what it kept so far. */
export const recorder = (options: RecordOptions = {}): { readonly route: Route; readonly recorded: () => ReadonlyArray<Recorded>; readonly overflow: () => number } => {
  const kept: Array<Recorded> = []
  const lastAnswer = new Map<string, string>()
  let keptBytes = 0
  let overflow = 0
  const upstream = options.upstream ?? {}
  const route = make(
    "record",
    { url: () => true },
    {
      respond: (request) => {
        const base = upstream[request.url.host]
        const target = base === undefined ? request.url : rebased(request.url, new URL(base))
        const started = performance.now()
        return Effect.flatMap(forward(request, target, "record", "record"), (response) =>
          Effect.promise(async () => {
            const firstByteMs = performance.now() - started
            const body = new Uint8Array(await response.arrayBuffer())
            const timing = { firstByteMs, totalMs: performance.now() - started }
            const headers: Array<readonly [string, string]> = []
            response.headers.forEach((value, name) => {
              if (!DROPPED.has(name) && (name !== "set-cookie" || options.cookies === true)) headers.push([name, value])
            })
            const requestBody = request.body === undefined || request.body.length === 0 ? undefined : request.text()
            const cost = RECORD_OVERHEAD + 2 * request.url.href.length + 2 * (requestBody?.length ?? 0) + body.byteLength
            // An answer the same request got last time adds nothing to the fixture (`fixtureOf`
            // collapses it): repeated traffic does not grow the recording.
            const requestKey = digest([request.method, request.url.href, requestBody ?? ""])
            const answerKey = digest([String(response.status), JSON.stringify(headers)], body)
            if (lastAnswer.get(requestKey) === answerKey) {
              // Nothing new.
            } else if (body.byteLength > MAX_RECORDED_BODY || keptBytes + cost > MAX_RECORDING_BYTES) {
              overflow++
            } else {
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
            }
            return new Response(body.byteLength === 0 && (response.status === 204 || response.status === 304) ? null : body, { status: response.status, headers: response.headers })
          }))
      },
      describe: { record: "what no route answers is forwarded and recorded" }
    },
    { id: "record", priority: -2_000_000_000, source: "record" }
  )
  return { route, recorded: () => [...kept], overflow: () => overflow }
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
  type === undefined ? isUtf8(body) : /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i.test(type)

/**
 * What was recorded as RouteSpec JSON: a route per distinct request (its answers in order when
 * they differ), credentials left out (`redactor` names them).
 */
export const fixtureOf = (recorded: ReadonlyArray<Recorded>, redactor: Redactor): Array<Record<string, unknown>> => {
  const groups = new Map<string, { readonly match: Record<string, unknown>; readonly answers: Array<Record<string, unknown>> }>()
  for (const entry of recorded) {
    const url = new URL(entry.url)
    const query: Record<string, string> = {}
    for (const [name, value] of url.searchParams) if (!redactor.isCredentialQuery(name)) query[name] = value
    // A body nested deeper than a request's `json()` reads is matched without it (as the network would see it).
    const json = entry.requestBody !== undefined && /json/i.test(entry.requestType ?? "") ? parseJson(entry.requestBody) : undefined
    const match: Record<string, unknown> = {
      method: entry.method,
      url: `${url.origin}${literal(url.pathname)}`,
      ...(Object.keys(query).length === 0 ? {} : { query }),
      ...(json === undefined ? {} : { json: redactor.jsonMembers(json, "drop") })
    }
    const type = entry.headers.find(([name]) => name === "content-type")?.[1]
    const headers = Object.fromEntries(entry.headers.filter(([name]) => name !== "content-type"))
    const common = { status: entry.status, ...(type === undefined ? {} : { contentType: type }), ...(Object.keys(headers).length === 0 ? {} : { headers }) }
    const respond = entry.fault !== undefined
      ? { kind: "fault", fault: entry.fault }
      : isText(type, entry.body)
      ? { kind: "text", body: decoder.decode(entry.body), ...common }
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
export const recordingOf = (recorded: ReadonlyArray<Recorded>, redactor: Redactor): Recording => {
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
    const api = modelApiOf(entry.method, url)
    const type = entry.headers.find(([name]) => name === "content-type")?.[1]
    const rule = api === undefined ? undefined : ruleOf(api, entry.url, entry.requestBody, entry.status, type, decoder.decode(entry.body), entry.timing)
    if (api === undefined || rule === undefined) {
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
    list.forEach((rule, i) => ordered.push({ id: list.length === 1 ? `recorded-call-${n}` : `recorded-call-${n}.${i + 1}`, ...rule, ...(i < list.length - 1 ? { times: 1 } : {}) }))
  }
  // An MCP endpoint's GET (its event stream) and DELETE (a session's end) are its plumbing, not routes.
  const rest = plain.filter((entry) => {
    const url = new URL(entry.url)
    return !endpoints.has(`${url.origin}${url.pathname}`)
  })
  return {
    routes: [...families.values(), ...mcpRoutesOf(mcp, redactor), ...fixtureOf(rest, redactor)],
    ...(ordered.length === 0 ? {} : { llm: { rules: ordered } })
  }
}

/** A fixture file's content as record mode merges into it. */
type Target = { readonly routes?: Array<Record<string, unknown>>; readonly llm?: unknown } & Record<string, unknown>

/**
 * What `file` holds, to merge a recording into (`{}` when there is no file), or why it cannot be
 * merged into: it is not JSON, not an object, or has `routes` or `llm.rules` that are not arrays.
 */
const readTarget = (file: string): { readonly existing: Target } | { readonly problem: string } => {
  if (!existsSync(file)) return { existing: {} }
  let existing: unknown
  try {
    existing = JSON.parse(readFileSync(file, "utf8"))
  } catch (cause) {
    return { problem: `${file} exists and cannot be read as JSON (${cause instanceof Error ? cause.message : String(cause)})` }
  }
  if (typeof existing !== "object" || existing === null || Array.isArray(existing)) return { problem: `${file} exists and is not a fixture (a JSON object)` }
  const fixture = existing as { routes?: unknown; llm?: unknown }
  if (fixture.routes !== undefined && !Array.isArray(fixture.routes)) return { problem: `${file}: routes is not an array` }
  const llm = fixture.llm as { rules?: unknown } | undefined
  if (llm !== undefined && !Array.isArray(llm) && (typeof llm !== "object" || llm === null || (llm.rules !== undefined && !Array.isArray(llm.rules)))) {
    return { problem: `${file}: llm is neither a queue (an array) nor { queue, rules } with rules an array` }
  }
  if (depthExceeds(existing, MAX_JSON_DEPTH)) return { problem: `${file} nests deeper than ${MAX_JSON_DEPTH}` }
  return { existing: existing as Target }
}

/**
 * Why a recording cannot be merged into `file` (checked before anything is recorded, so that a
 * session is not recorded for nothing), or undefined when it can be (or does not exist).
 */
export const recordingTargetProblem = (file: string): string | undefined => {
  const target = readTarget(file)
  return "problem" in target ? target.problem : undefined
}

/**
 * Writes `recording` into `file`, merged with what it holds, atomically. When the file cannot be
 * merged into (it changed under the recorder since `recordingTargetProblem` passed it) or written,
 * the recording goes to `FILE.PID.recording.json` beside it instead, whose name is returned: what
 * was recorded is never lost.
 */
export const writeRecording = (file: string, recording: Recording, seed?: number): string => {
  const target = readTarget(file)
  if ("existing" in target) {
    try {
      writeMerged(file, target.existing, recording, seed)
      return file
    } catch {
      // Written beside it below.
    }
  }
  const aside = `${file}.${process.pid}.recording.json`
  const besides = readTarget(aside)
  writeMerged(aside, "existing" in besides ? besides.existing : {}, recording, seed)
  return aside
}

/** `base`, or `base-2`, `base-3`, … : the first that `taken` does not have (added to it). */
const uniqueId = (base: string, taken: Set<unknown>): string => {
  let id = base
  for (let k = 2; taken.has(id); k++) id = `${base}-${k}`
  taken.add(id)
  return id
}

/**
 * Merges `recording` into `existing` and writes the result to `file` whole or not at all: a
 * route or rule the file already has (same match and answer) is not added again, nor a family twice.
 */
const writeMerged = (file: string, existing: Target, recording: Recording, seed?: number): void => {
  const before = existing.routes ?? []
  const seen = new Set(before.map((route) => JSON.stringify("family" in route ? route : [route["match"], route["respond"]])))
  const taken = new Set(before.map((route) => route["id"]))
  const added: Array<Record<string, unknown>> = []
  for (const route of recording.routes) {
    const key = JSON.stringify("family" in route ? route : [route["match"], route["respond"]])
    if (seen.has(key)) continue
    // A family once; a route as often as the recording has it (a sequence may answer alike twice).
    if ("family" in route) seen.add(key)
    added.push("family" in route ? route : { ...route, id: uniqueId(String(route["id"]), taken) })
  }
  // Rules: those the file has, then the new ones it has not (by match and behaviour).
  const given = existing.llm
  const queue = Array.isArray(given) ? given : (given as { queue?: Array<unknown> } | undefined)?.queue
  const rulesBefore = Array.isArray(given) ? [] : ((given as { rules?: Array<Record<string, unknown>> } | undefined)?.rules ?? [])
  const ruleSeen = new Set(rulesBefore.map((rule) => JSON.stringify([rule["match"], rule["behaviour"]])))
  const ruleIds = new Set(rulesBefore.map((rule) => rule["id"]))
  const rulesAdded: Array<Record<string, unknown>> = []
  for (const rule of recording.llm?.rules ?? []) {
    if (ruleSeen.has(JSON.stringify([rule["match"], rule["behaviour"]]))) continue
    rulesAdded.push({ ...rule, id: uniqueId(String(rule["id"]), ruleIds) })
  }
  const llm = rulesBefore.length + rulesAdded.length === 0 ? given : { ...(queue === undefined ? {} : { queue }), rules: [...rulesBefore, ...rulesAdded] }
  const merged = { ...(seed === undefined || "seed" in existing ? {} : { seed }), ...existing, routes: [...before, ...added], ...(llm === undefined ? {} : { llm }) }
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(merged, null, 2)}\n`)
  renameSync(temporary, file)
}

/** The faults a HAR that simnet exported names (`_simnet.fault`), as the fault routes that replay them. */
const FAULTS: Readonly<Record<string, Fault | undefined>> = { reset: "reset", timeout: "timeout", malformed: "malformed-body" }

/** The fields of a HAR 1.2 file `fromHar` reads (everything else is ignored). */
interface HarEntry {
  /** What simnet's own export adds: how the exchange broke, when it did. */
  readonly _simnet?: { readonly fault?: unknown }
  readonly request?: { readonly method?: string; readonly url?: string; readonly postData?: { readonly mimeType?: string; readonly text?: string } }
  readonly response?: {
    readonly status?: number
    readonly headers?: ReadonlyArray<{ readonly name?: string; readonly value?: string }>
    readonly content?: { readonly mimeType?: string; readonly text?: string; readonly encoding?: string }
  }
}

/**
 * A HAR 1.2 file (what every browser's devtools export) as the same fixture routes a recording
 * makes: each entry a request and its answer, answers that differ for one request in sequence,
 * credentials left out. Entries without a status the routes can serve (0: blocked or failed,
 * 1xx) are skipped, but for one simnet exported with the fault that broke it (`_simnet.fault`),
 * which becomes that fault route. A value that is not a HAR file is refused naming what is missing.
 */
export const fromHar = (har: unknown, redactor: Redactor): Array<Record<string, unknown>> => {
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries
  if (!Array.isArray(entries)) throw new Error("not a HAR file: expected log.entries, an array")
  const recorded: Array<Recorded> = []
  for (const entry of entries as ReadonlyArray<HarEntry>) {
    const request = entry.request
    const response = entry.response
    const status = response?.status ?? 0
    const named = String(entry._simnet?.fault)
    const fault = Object.hasOwn(FAULTS, named) ? FAULTS[named] : undefined
    if (request?.method === undefined || request.url === undefined || !URL.canParse(request.url)) continue
    if (fault === undefined && (status < 200 || status > 599)) continue
    const content = response?.content
    const body = content?.text === undefined
      ? new Uint8Array(0)
      : content.encoding === "base64"
      ? new Uint8Array(Buffer.from(content.text, "base64"))
      : new TextEncoder().encode(content.text)
    const headers = (response?.headers ?? [])
      .filter((h): h is { name: string; value: string } => typeof h.name === "string" && typeof h.value === "string")
      .map((h) => [h.name.toLowerCase(), h.value] as const)
      .filter(([name]) => !DROPPED.has(name) && name !== "set-cookie" && !name.startsWith(":"))
    const type = content?.mimeType ?? headers.find(([name]) => name === "content-type")?.[1]
    recorded.push({
      method: request.method.toUpperCase(),
      url: request.url,
      requestBody: request.postData?.text,
      requestType: request.postData?.mimeType,
      status,
      headers: [...headers.filter(([name]) => name !== "content-type"), ...(type === undefined || type === "" ? [] : [["content-type", type] as const])],
      body,
      fault
    })
  }
  return fixtureOf(recorded, redactor)
}
