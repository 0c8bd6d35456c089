/**
 * The static route kinds: `text`, `bytes` and `status`. Their answers need no Effect, so they
 * offer the registry a synchronous fast path.
 */
import { Effect, Schema } from "effect"
import { type Answer, refused, whole, type Whole } from "../../registry/answer.ts"
import type { MatcherInput } from "../../registry/matcher.ts"
import type { Answerer, Route } from "../../registry/route.ts"
import { errorMessage, NULL_BODY_STATUSES } from "../../registry/util.ts"
import { InvalidRouteSpec, RouteFailed } from "../../SimnetError.ts"
import { checked, codeOptions } from "../codeOptions.ts"
import { labelOf, make, type RouteOptions, usable } from "../make.ts"
import { RespondHeaders, RespondStatus, RespondTemplate } from "../spec.ts"
import type { CompiledTemplate } from "../template.ts"

/**
 * Response options shared by the static kinds.
 */
export interface StaticResponseOptions {
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly contentType?: string | undefined
}

/**
 * `template: true`: the body and headers are Handlebars templates over the request (`template.ts`).
 */
export interface TemplateOptions {
  readonly template?: boolean | undefined
}

/** A responder's template options, with the route's name for errors. */
type Templating = TemplateOptions & { readonly label?: string | undefined }

/**
 * The answer of a fixed body: the same `Whole` for every request, which `reproduce` gives again;
 * or, templated, the body and headers written for each request.
 */
export interface StaticResponder {
  readonly answer: Answerer
  /** Fails the registration when the status or headers are invalid; compiles a templated route's templates. */
  readonly prepare?: Effect.Effect<void, InvalidRouteSpec> | undefined
  readonly reproduce?: (() => Effect.Effect<Whole>) | undefined
  /** Whether a template draws from the request's derived seed (`randomInt`, `randomValue`). */
  readonly seeded?: boolean | undefined
}

/** An RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/**
 * An RFC 9110 field value: visible ASCII and obs-text (bytes 0x80-0xFF) with spaces and tabs
 * inside, none at either end. What both undici's `Headers` and Node's server write: a character
 * past 0xFF (undici takes values as byte strings) or a control character other than a tab is refused.
 */
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/

/**
 * Checks what a WHATWG `Response` would refuse at request time: a status outside 200–599 and
 * malformed header names or values. Undefined when all is well.
 */
export const checkResponseParts = (
  status: number,
  headers: Readonly<Record<string, string>>,
  hasBody: boolean
): InvalidRouteSpec | undefined => {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    return new InvalidRouteSpec({
      path: "respond.status",
      message: `status must be a whole number from 200 to 599, got ${status}`
    })
  }
  if (hasBody && NULL_BODY_STATUSES.has(status)) {
    return new InvalidRouteSpec({
      path: "respond.status",
      message: `status ${status} carries no body; use a status route for it`
    })
  }
  for (const name in headers) {
    const value = headers[name]
    if (!HEADER_NAME.test(name) || typeof value !== "string" || !HEADER_VALUE.test(value)) {
      return new InvalidRouteSpec({
        path: `respond.headers.${name}`,
        message: `not a valid HTTP header: ${JSON.stringify(name)}: ${JSON.stringify(value)}`
      })
    }
  }
  return undefined
}

const fromSync = (
  status: number,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | undefined,
  text?: string,
  template?: Templating
): StaticResponder => {
  const invalid = checkResponseParts(status, headers, body !== undefined)
  if (invalid !== undefined) return { answer: () => refused(invalid), prepare: Effect.fail(invalid) }
  if (template?.template === true) return templated(status, headers, text, template.label ?? "(unnamed)")
  const answer = whole(status, headers, body, text)
  return { answer: () => answer, reproduce: () => Effect.succeed(answer) }
}

const encoder = new TextEncoder()

const headersWith = (options: StaticResponseOptions, defaultType: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  const type = options.contentType ?? defaultType
  if (type !== undefined) headers["content-type"] = type
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v
  return headers
}

/**
 * Answers with a fixed text body (`text/plain; charset=utf-8` unless told otherwise).
 */
export const textResponder = (body: string, options: StaticResponseOptions & Templating = {}): StaticResponder => {
  const status = options.status ?? 200
  const headers = headersWith(options, "text/plain; charset=utf-8")
  return fromSync(status, headers, encoder.encode(body), body, options)
}

/**
 * Answers with fixed bytes (`application/octet-stream` unless told otherwise). The bytes are
 * copied once at construction, so later changes to the caller's array do not leak in.
 */
export const bytesResponder = (body: Uint8Array, options: StaticResponseOptions = {}): StaticResponder => {
  const status = options.status ?? 200
  const headers = headersWith(options, "application/octet-stream")
  const bytes = body.slice()
  return fromSync(status, headers, bytes)
}

/**
 * Answers with a status and headers and an empty body (or `body` when given).
 */
export const statusResponder = (
  status: number,
  options: { headers?: Readonly<Record<string, string>> | undefined; body?: string | undefined } & Templating = {}
): StaticResponder => {
  const headers = headersWith(
    { headers: options.headers },
    options.body === undefined ? undefined : "text/plain; charset=utf-8"
  )
  const body = options.body
  return fromSync(status, headers, body === undefined ? undefined : encoder.encode(body), body, options)
}

/**
 * A route's templates: its body (when it has one, escaped as its `content-type` says) and the
 * header values with `{{`. They compile when the route registers (`prepare`): Handlebars loads
 * with the first templated route, not with simnet, and a template that does not compile refuses
 * the registration. `seeded` when a template names `randomInt` or `randomValue`.
 */
export interface RouteTemplates {
  readonly prepare: Effect.Effect<void, InvalidRouteSpec>
  readonly seeded: boolean
  /** The headers with their templates written for a request, checked as a `Response` would check them. Throws `RouteFailed`. */
  readonly headers: (
    status: number,
    headers: Readonly<Record<string, string>>,
    ...rendering: Parameters<CompiledTemplate["render"]>
  ) => Readonly<Record<string, string>>
  /** The body written for a request (undefined for none). Throws `RouteFailed`. */
  readonly body: (...rendering: Parameters<CompiledTemplate["render"]>) => string | undefined
}

/** Makes the templates of a route named `label` (compiled by `prepare`). */
export const routeTemplates = (
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  label: string
): RouteTemplates => {
  const templated = Object.keys(headers).filter((name) => headers[name].includes("{{"))
  let bodyTemplate: CompiledTemplate | undefined
  let headerTemplates: ReadonlyArray<readonly [string, CompiledTemplate]> = []
  const prepare = Effect.flatMap(
    Effect.promise(() => import("../template.ts")),
    (module) => {
      const compiled: Array<readonly [string, CompiledTemplate]> = []
      for (const name of templated) {
        const template = module.compileTemplate(headers[name], undefined, `respond.headers.${name}`, label)
        if (template instanceof InvalidRouteSpec) return Effect.fail(template)
        compiled.push([name, template])
      }
      const made =
        body === undefined
          ? undefined
          : module.compileTemplate(body, headers["content-type"] ?? "text/plain", "respond.body", label)
      if (made instanceof InvalidRouteSpec) return Effect.fail(made)
      bodyTemplate = made
      headerTemplates = compiled
      return Effect.void
    }
  )
  return {
    prepare,
    seeded: [body ?? "", ...templated.map((name) => headers[name])].some((source) =>
      /\brandom(?:Int|Value)\b/.test(source)
    ),
    headers: (status, own, ...rendering) => {
      if (headerTemplates.length === 0) return own
      const out = { ...own }
      for (const [name, template] of headerTemplates) out[name] = template.render(...rendering)
      const invalid = checkResponseParts(status, out, false)
      if (invalid !== undefined)
        throw new RouteFailed({
          route: label,
          reason: "template",
          message: `the template of route ${label} wrote ${invalid.message}`
        })
      return out
    },
    body: (...rendering) => bodyTemplate?.render(...rendering)
  }
}

/**
 * A templated static answer: the body (when there is one) and the header values with `{{`
 * written for each request.
 */
const templated = (
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  label: string
): StaticResponder => {
  const templates = routeTemplates(headers, body, label)
  const answer: Answerer = (request, context): Answer => {
    try {
      const written = templates.headers(status, headers, request, context)
      const text = templates.body(request, context)
      // The text is the body: a door writes it as UTF-8 (`Whole.body` takes a string), with no copy made here.
      return whole(status, written, text, text)
    } catch (error) {
      return refused(
        error instanceof RouteFailed
          ? error
          : new RouteFailed({ route: label, reason: "template", message: errorMessage(error), cause: error })
      )
    }
  }
  return { answer, prepare: templates.prepare, seeded: templates.seeded }
}

/** `text`'s `respond` fields beside its `body`: its options in code too (`staticSpec.ts` spreads them into `TextRespond`). */
export const TEXT_FIELDS = {
  contentType: Schema.optional(Schema.String),
  status: Schema.optional(RespondStatus),
  headers: Schema.optional(RespondHeaders),
  template: RespondTemplate
}

/** `bytes`' `respond` fields beside its `base64`. */
export const BYTES_FIELDS = {
  contentType: Schema.optional(Schema.String),
  status: Schema.optional(RespondStatus),
  headers: Schema.optional(RespondHeaders)
}

/** `status`' `respond` fields beside its `status`. */
export const STATUS_FIELDS = {
  headers: Schema.optional(RespondHeaders),
  body: Schema.optional(Schema.String),
  template: RespondTemplate
}

const TEXT_OPTIONS = codeOptions(TEXT_FIELDS)
const BYTES_OPTIONS = codeOptions(BYTES_FIELDS)
const STATUS_OPTIONS = codeOptions(STATUS_FIELDS)

/**
 * Answers with a fixed text body.
 *
 * @example Route.text("GET https://api.example.com/health", "ok")
 */
export const text = (
  match: MatcherInput,
  body: string,
  options: RouteOptions & StaticResponseOptions & TemplateOptions = {}
): Route =>
  checked("text", TEXT_OPTIONS, options, () =>
    make("text", match, textResponder(body, { ...usable(options), label: labelOf(match, options) }), options)
  )

/**
 * Answers with fixed bytes.
 */
export const bytes = (
  match: MatcherInput,
  body: Uint8Array,
  options: RouteOptions & StaticResponseOptions = {}
): Route =>
  checked("bytes", BYTES_OPTIONS, options, () => make("bytes", match, bytesResponder(body, usable(options)), options))

/**
 * Answers with a status, optional headers and an empty body.
 *
 * @example Route.status("DELETE https://api.example.com/items/:id", 204)
 */
export const status = (
  match: MatcherInput,
  code: number,
  options: RouteOptions &
    TemplateOptions & {
      readonly headers?: Readonly<Record<string, string>> | undefined
      readonly body?: string | undefined
    } = {}
): Route =>
  checked("status", STATUS_OPTIONS, options, () =>
    make("status", match, statusResponder(code, { ...usable(options), label: labelOf(match, options) }), options)
  )
