/**
 * HAR import: a HAR 1.2 file (what every browser's devtools export, and simnet's own log) as the
 * fixture routes a recording makes (`record.ts`'s `fixtureOf`). Each entry is checked on its own
 * and a bad one is skipped with a line naming it, never failing the rest: against the HAR schema
 * (`har-schema`, the one `har-validator` uses), then for what HTTP itself requires of the parts
 * simnet serves (a method that is a token, an http(s) URL, header names that are tokens and values
 * without line breaks), then by decoding the routes it makes exactly as a fixture file is decoded,
 * so that no route the loader would refuse is ever emitted.
 */
import { createRequire } from "node:module"
import { Effect, Exit } from "effect"
import type { ErrorObject, ValidateFunction } from "ajv"
import type { Redactor } from "../registry/redact.ts"
import { ajvDraft07 } from "../routes/jsonSchema/ajv.ts"
import type { Fault } from "../routes/fault/fault.ts"
import { decodeRouteSpecs } from "../schemas/decode.ts"
import { DROPPED, fixtureOf } from "./record/record.ts"
import type { Recorded } from "./record/recorded.ts"

/** The faults a HAR that simnet exported names (`_simnet.fault`), as the fault routes that replay them. */
const FAULTS: Readonly<Record<string, Fault | undefined>> = {
  reset: "reset",
  timeout: "timeout",
  malformed: "malformed-body"
}

/** An HTTP token (RFC 9110 §5.6.2): what a method and a header name are made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** What a header value may not hold: a line break or NUL would split or end the header. */
const BREAK = /[\r\n\0]/

/** A HAR entry as the schema has checked it (the fields read here). */
interface HarEntry {
  /** What simnet's own export adds: how the exchange broke, when it did, and whether its body is in the file. */
  readonly _simnet?: { readonly fault?: unknown; readonly bodyKept?: unknown }
  readonly request: {
    readonly method: string
    readonly url: string
    readonly postData?: { readonly mimeType?: string; readonly text?: string }
  }
  readonly response: {
    readonly status: number
    readonly headers: ReadonlyArray<{ readonly name: string; readonly value: string }>
    readonly content: {
      readonly size?: number
      readonly mimeType?: string
      readonly text?: string
      readonly encoding?: string
    }
  }
}

/** An entry left out of an import, and why. */
export interface SkippedEntry {
  /** Its index in `log.entries`. */
  readonly entry: number
  /** Why, as a line names it: `entries[7]: method "G ET" is not a token`. */
  readonly reason: string
}

/** What an import made: the routes, and each entry skipped with why. */
export interface HarImport {
  readonly routes: Array<Record<string, unknown>>
  /** How many entries the routes were made from. */
  readonly imported: number
  readonly skipped: Array<SkippedEntry>
}

let validator: ValidateFunction | undefined
/**
 * The HAR schema's `entry`, compiled once. Formats are not checked (a URL is checked below, as
 * HTTP needs it; the rest simnet does not read), and `serverIPAddress` is any string: browsers
 * write `[::1]` and `""` there, and without formats the schema's `oneOf` of two formats never holds.
 */
const validEntry = (): ValidateFunction => {
  if (validator !== undefined) return validator
  const require = createRequire(import.meta.url)
  const schemas = require("har-schema") as Record<
    string,
    { readonly $id: string; readonly properties?: Record<string, unknown> }
  >
  const Ajv = ajvDraft07()
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false })
  ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json") as object)
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(
      name === "entry"
        ? { ...schema, properties: { ...schema.properties, serverIPAddress: { type: "string" } } }
        : schema
    )
  }
  return (validator = ajv.getSchema("entry.json#")!)
}

/** The schema's first complaint, at its path under the entry (`request: must have required property 'url'`). */
const schemaReason = (errors: ReadonlyArray<ErrorObject> | null | undefined): string => {
  const first = errors?.[0]
  if (first === undefined) return "is not a HAR entry"
  const at = first.instancePath
    .replace(/^\//, "")
    .replace(/\/(\d+)(?=\/|$)/g, "[$1]")
    .replace(/\//g, ".")
  return `${at === "" ? "" : `${at}: `}${first.message ?? "is not valid"}`
}

/** Why the parts simnet serves from `entry` are not valid HTTP, or undefined. */
const httpReason = (entry: HarEntry): string | undefined => {
  const { method, url } = entry.request
  if (!TOKEN.test(method)) return `method ${JSON.stringify(method)} is not a token`
  const parsed = URL.parse(url)
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    return `url ${JSON.stringify(url.slice(0, 200))} is not an http(s) URL`
  for (const [i, header] of entry.response.headers.entries()) {
    if (!TOKEN.test(header.name)) return `response.headers[${i}]: name ${JSON.stringify(header.name)} is not a token`
    if (BREAK.test(header.value)) return `response.headers[${i}] (${header.name}): the value has a line break or NUL`
  }
  if (entry.response.content.mimeType !== undefined && BREAK.test(entry.response.content.mimeType))
    return "response.content.mimeType has a line break or NUL"
  return undefined
}

/** An entry as what the recorder would have kept of the exchange, or undefined for one no route can serve. */
const recordedOf = (entry: HarEntry): Recorded | undefined => {
  const { request, response } = entry
  const named = String(entry._simnet?.fault)
  const fault = Object.hasOwn(FAULTS, named) ? FAULTS[named] : undefined
  // 0 (blocked or failed) and 1xx cannot be served; a fault simnet exported replays as that fault.
  if (fault === undefined && (response.status < 200 || response.status > 599)) return undefined
  const content = response.content
  const body =
    content.text === undefined
      ? new Uint8Array(0)
      : content.encoding === "base64"
        ? new Uint8Array(Buffer.from(content.text, "base64"))
        : new TextEncoder().encode(content.text)
  const headers = response.headers
    .map((h) => [h.name.toLowerCase(), h.value] as const)
    .filter(([name]) => !DROPPED.has(name) && name !== "set-cookie" && !name.startsWith(":"))
  const type = content.mimeType ?? headers.find(([name]) => name === "content-type")?.[1]
  return {
    method: request.method.toUpperCase(),
    url: request.url,
    requestBody: request.postData?.text,
    requestType: request.postData?.mimeType,
    status: response.status,
    headers: [
      ...headers.filter(([name]) => name !== "content-type"),
      ...(type === undefined || type === "" ? [] : [["content-type", type] as const])
    ],
    body,
    fault
  }
}

/**
 * Why an entry's answer cannot be served as it was: its body is not in the file (a HAR saved
 * without content, or simnet's export of a network that did not keep bodies), which an import
 * must not turn into an empty answer. Undefined for a fault, a bodiless status, or a body present.
 */
const missingBody = (entry: HarEntry, made: Recorded): string | undefined => {
  if (
    made.fault !== undefined ||
    made.status === 204 ||
    made.status === 304 ||
    entry.request.method.toUpperCase() === "HEAD"
  )
    return undefined
  if (entry.response.content.text !== undefined) return undefined
  if (entry._simnet?.bodyKept === false)
    return "its body was not kept when simnet exported it (export from a network with keepBodies, simnet serve --keep-bodies)"
  const size = entry.response.content.size
  if (size !== undefined && size > 0) return `its body is not in the file (content.size ${size}, no content.text)`
  return undefined
}

/** Why the loader would refuse the routes `recorded` makes, or undefined when it takes them. */
const loaderReason = (recorded: Recorded, redactor: Redactor): string | undefined => {
  const exit = Effect.runSyncExit(decodeRouteSpecs(fixtureOf([recorded], redactor)))
  if (Exit.isSuccess(exit)) return undefined
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const failure =
    error?._tag === "Fail" ? (error.error as { readonly path?: string; readonly message?: string }) : undefined
  return `its route would be refused: ${failure?.message ?? "it cannot be decoded"}`
}

/**
 * A HAR 1.2 file as fixture routes: each entry a request and its answer, answers that differ for
 * one request in sequence, credentials left out. Entries without a status the routes can serve
 * (0: blocked or failed, 1xx) are skipped, but for one simnet exported with the fault that broke
 * it (`_simnet.fault`), which becomes that fault route; so is every entry that is not a valid HAR
 * entry or whose routes the fixture loader would refuse, each with its reason. A value that is not
 * a HAR file at all is refused (thrown) naming what is missing.
 */
export const fromHar = (har: unknown, redactor: Redactor): HarImport => {
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries
  if (!Array.isArray(entries)) throw new Error("not a HAR file: expected log.entries, an array")
  const check = validEntry()
  const recorded: Array<Recorded> = []
  const skipped: Array<SkippedEntry> = []
  /** Why an entry cannot be served; undefined when it is, and then it is in `recorded`. */
  const take = (entry: unknown): string | undefined => {
    if (!check(entry)) return schemaReason(check.errors)
    const valid = entry as HarEntry
    const invalid = httpReason(valid)
    if (invalid !== undefined) return invalid
    const made = recordedOf(valid)
    if (made === undefined)
      return `status ${valid.response.status} cannot be served (a blocked or failed request, or an informational answer)`
    const missing = missingBody(valid, made)
    if (missing !== undefined) return missing
    const refused = loaderReason(made, redactor)
    if (refused !== undefined) return refused
    recorded.push(made)
    return undefined
  }
  for (const [i, entry] of (entries as ReadonlyArray<unknown>).entries()) {
    const reason = take(entry)
    if (reason !== undefined) skipped.push({ entry: i, reason: `entries[${i}]: ${reason}` })
  }
  return { routes: fixtureOf(recorded, redactor), imported: recorded.length, skipped }
}
