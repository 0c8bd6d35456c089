/**
 * Templated answers (`{ template: true }` on `text`, `status` and `json` routes): bodies and
 * headers written in Handlebars (the `handlebars` package, in an environment of simnet's own) over
 * the request, with WireMock's helpers.
 *
 * What a template sees: `request.method`, `request.url`, `request.path` (the path; `request.path.[1]`
 * its second segment), `request.query.NAME` (the first value), `request.headers.NAME` (names in lower
 * case), `request.params.NAME` (the route pattern's parameters) and `request.body` (the body parsed
 * when it is JSON, else its text). Helpers: `jsonPath VALUE 'EXPR'` (jsonpath-plus, no script
 * expressions: an object or array found is written as JSON), `now` (the network's `Clock`, so
 * `TestClock` moves it; `format='iso'|'epoch'|'unix'|'date'|'http'`, `offset='3 days'`),
 * `randomInt lower= upper=` (both included) and `randomValue length= type='ALPHANUMERIC'|'ALPHABETIC'|
 * 'NUMERIC'|'HEXADECIMAL'|'UUID' uppercase=`, drawn from the request's derived seed (the same seed,
 * request and occurrence give the same values), and Handlebars' own block helpers (`if`, `each`,
 * `with`, `unless`, `lookup`). No partial, decorator or other helper: nothing reaches the file
 * system or the console.
 *
 * Escaping by content type: a JSON body's `{{…}}` is written as the inside of a JSON string (its
 * quotes and controls escaped; objects and arrays as JSON), `{{{…}}}` as it is, and the output must
 * parse as JSON; an HTML body is HTML-escaped as Handlebars does; any other body and every header is
 * written as it is (a header value is checked as headers are). A template that does not compile is
 * refused at registration, naming the route and the line and column; one that cannot be rendered
 * (output over `MAX_TEMPLATE_OUTPUT`, past `MAX_TEMPLATE_STEPS` loop steps, JSON that does not parse)
 * fails its request with `RouteFailed` (reason `template`). Handlebars' prototype rules are on:
 * `constructor`, `__proto__` and inherited members read as nothing.
 */
import Handlebars from "handlebars"
import { JSONPath } from "jsonpath-plus"
import { Duration } from "effect"
import type { RespondContext, SimRequest } from "../registry/route.ts"
import { seededStream } from "../registry/seed.ts"
import { errorMessage } from "../registry/util.ts"
import { InvalidRouteSpec, RouteFailed } from "../SimnetError.ts"

/** The most characters a template writes for one request. */
export const MAX_TEMPLATE_OUTPUT = 1024 * 1024
/** The most loop steps (`each` iterations, all loops together) one rendering takes. */
export const MAX_TEMPLATE_STEPS = 100_000
/** The longest JSONPath expression `jsonPath` takes. */
const MAX_JSON_PATH = 1024
/** The longest value `randomValue` draws. */
const MAX_RANDOM_LENGTH = 4096

/** How a template's `{{…}}` is escaped: by the content type it writes. */
type TemplateMode = "json" | "html" | "text"

/** The mode for a content type: JSON (`application/json`, `…+json`), HTML, or anything else (a header: none) as text. */
const modeOf = (contentType: string | undefined): TemplateMode => {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase()
  return type === "application/json" || type.endsWith("+json")
    ? "json"
    : type === "text/html" || type === "application/xhtml+xml"
      ? "html"
      : "text"
}

/** What one rendering may draw on: the request, the network's clock and the request's seeded draws. */
interface Rendering {
  readonly now: number
  readonly random: () => number
  steps: number
  written: number
}

/** The rendering under way: helpers run inside a synchronous render, so one at a time. */
let rendering: Rendering | undefined

/** The draws of a template that names no seeded helper: never called (`walk` found none). */
const unseeded = (): number => 0

/** A rendering past its bounds. */
class TooLarge extends Error {}

const env = Handlebars.create()
// Handlebars' `log` writes to the console: a template has no business there.
env.unregisterHelper("log")

const own = (name: string) => env.helpers[name] as Handlebars.HelperDelegate

const builtinEach = own("each")
env.registerHelper("each", function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  const state = rendering!
  const fn = options.fn
  const counted = Object.assign({}, options, {
    fn: (value: unknown, inner?: Handlebars.RuntimeOptions) => {
      if (++state.steps > MAX_TEMPLATE_STEPS)
        throw new TooLarge(`the template took more than ${MAX_TEMPLATE_STEPS} loop steps`)
      const out = fn(value, inner)
      if ((state.written += out.length) > MAX_TEMPLATE_OUTPUT)
        throw new TooLarge(`the template wrote more than ${MAX_TEMPLATE_OUTPUT} characters`)
      return out
    }
  })
  return builtinEach.call(this, context, counted)
})

/** A value written as text: objects and arrays as JSON. */
const asText = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value)

env.registerHelper("jsonPath", (value: unknown, expression: unknown) => {
  if (typeof expression !== "string" || expression.length > MAX_JSON_PATH) return ""
  let json = value
  if (typeof value === "string") {
    try {
      json = JSON.parse(value)
    } catch {
      return ""
    }
  }
  if (typeof json !== "object" || json === null) return ""
  // No script expressions (`?()`, `()`): jsonpath-plus refuses them when `eval` is off.
  const found = JSONPath({ path: expression, json, wrap: true, eval: false }) as Array<unknown>
  return found.length === 0
    ? ""
    : found.length === 1
      ? typeof found[0] === "object"
        ? asText(found[0])
        : found[0]
      : JSON.stringify(found)
})

const twoDigits = (n: number) => String(n).padStart(2, "0")

env.registerHelper("now", (options: Handlebars.HelperOptions) => {
  const hash = options.hash as { format?: unknown; offset?: unknown }
  let at = rendering!.now
  if (typeof hash.offset === "string") {
    const text = hash.offset.trim()
    const negative = text.startsWith("-")
    const parsed = Duration.fromInput((negative ? text.slice(1) : text) as Duration.Input)
    if (parsed._tag === "Some" && Duration.isFinite(parsed.value))
      at += (negative ? -1 : 1) * Duration.toMillis(parsed.value)
  }
  const date = new Date(at)
  switch (hash.format) {
    case "epoch":
      return at
    case "unix":
      return Math.floor(at / 1000)
    case "date":
      return `${date.getUTCFullYear()}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}`
    case "http":
      return date.toUTCString()
    default:
      return date.toISOString()
  }
})

env.registerHelper("randomInt", (options: Handlebars.HelperOptions) => {
  const hash = options.hash as { lower?: unknown; upper?: unknown }
  const lower = typeof hash.lower === "number" && Number.isSafeInteger(hash.lower) ? hash.lower : 0
  const upper = typeof hash.upper === "number" && Number.isSafeInteger(hash.upper) ? hash.upper : 2 ** 31 - 1
  if (upper < lower) return lower
  return lower + Math.floor(rendering!.random() * (upper - lower + 1))
})

const ALPHABETS: Record<string, string> = {
  ALPHANUMERIC: "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  ALPHABETIC: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  NUMERIC: "0123456789",
  HEXADECIMAL: "0123456789abcdef"
}

env.registerHelper("randomValue", (options: Handlebars.HelperOptions) => {
  const hash = options.hash as { length?: unknown; type?: unknown; uppercase?: unknown }
  const random = rendering!.random
  const type = typeof hash.type === "string" ? hash.type.toUpperCase() : "ALPHANUMERIC"
  let out: string
  if (type === "UUID") {
    const hex = Array.from({ length: 32 }, () => ALPHABETS["HEXADECIMAL"][Math.floor(random() * 16)])
    hex[12] = "4"
    hex[16] = "89ab"[Math.floor(random() * 4)]
    const h = hex.join("")
    out = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  } else {
    const alphabet = ALPHABETS[type] ?? ALPHABETS["ALPHANUMERIC"]
    const length =
      typeof hash.length === "number" && Number.isInteger(hash.length)
        ? Math.max(0, Math.min(MAX_RANDOM_LENGTH, hash.length))
        : 36
    out = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")
  }
  return hash.uppercase === true ? out.toUpperCase() : out
})

/**
 * In a JSON template, what `{{…}}` writes: the inside of a JSON string, or an object or array as
 * JSON; a value with a text of its own (`request.path`, its segments with the path as text) as
 * that text.
 */
env.registerHelper("simnetJson", (value: unknown) => {
  const text = typeof value === "object" && value !== null && Object.hasOwn(value, "toString") ? String(value) : value
  return typeof text === "string" ? JSON.stringify(text).slice(1, -1) : asText(text)
})

/** The helpers a template may name (Handlebars' own block helpers besides), and those that draw from the seed. */
const KNOWN_HELPERS = {
  jsonPath: true,
  now: true,
  randomInt: true,
  randomValue: true,
  simnetJson: true,
  log: false
} as const
const SEEDED_HELPERS: ReadonlySet<string> = new Set(["randomInt", "randomValue"])
const HELPER_NAMES: ReadonlySet<string> = new Set([...Object.keys(env.helpers), ...Object.keys(KNOWN_HELPERS)])

/** Handlebars' AST, as far as simnet walks it. */
type Node = hbs.AST.Node & Record<string, unknown>

/**
 * Walks a template's AST: refuses partials and decorators (the error's node), notes whether a
 * seeded helper is named, and in a JSON template makes every `{{…}}` write through `simnetJson`.
 */
const walk = (node: Node | undefined, json: boolean, found: { seeded: boolean }): Node | undefined => {
  if (node === undefined || node === null || typeof node !== "object") return undefined
  switch (node.type) {
    case "PartialStatement":
    case "PartialBlockStatement":
    case "Decorator":
    case "DecoratorBlock":
      return node
  }
  const path = node["path"] as { original?: unknown; type?: string } | undefined
  if (typeof path?.original === "string" && SEEDED_HELPERS.has(path.original)) found.seeded = true
  if (json && node.type === "MustacheStatement" && node["escaped"] === true) {
    const params = node["params"] as Array<Node>
    const hash = node["hash"] as Node | undefined
    const helper =
      params.length > 0 || hash !== undefined || (typeof path?.original === "string" && HELPER_NAMES.has(path.original))
    const inner = helper ? { type: "SubExpression", path, params, hash, loc: node.loc } : path
    node["params"] = [inner]
    node["hash"] = undefined
    node["path"] = {
      type: "PathExpression",
      data: false,
      depth: 0,
      parts: ["simnetJson"],
      original: "simnetJson",
      loc: node.loc
    }
    node["escaped"] = false
  }
  for (const key of ["body", "program", "inverse", "params", "hash", "pairs", "value"]) {
    const child = node[key]
    const children = Array.isArray(child) ? child : [child]
    for (const c of children) {
      const refused = walk(c as Node, json, found)
      if (refused !== undefined) return refused
    }
  }
  return undefined
}

/** A compiled template: `render` writes it for a request (throwing `RouteFailed`), `seeded` says whether it draws from the seed. */
export interface CompiledTemplate {
  readonly seeded: boolean
  readonly render: (request: SimRequest, context: RespondContext) => string
}

/** Where a compile error is: Handlebars' own position, or its parser's last token (lines from 1, columns from 1). */
const positionOf = (error: unknown): string => {
  const e = error as { lineNumber?: number; column?: number }
  if (typeof e.lineNumber === "number") return `line ${e.lineNumber}, column ${(e.column ?? 0) + 1}`
  const at = (env as unknown as { Parser: { lexer: { yylloc?: { first_line: number; first_column: number } } } }).Parser
    .lexer.yylloc
  return at === undefined ? "an unknown position" : `line ${at.first_line}, column ${at.first_column + 1}`
}

/**
 * Compiles `source` for a body of `contentType` (undefined for a header value: written as it is);
 * a template that does not compile is an `InvalidRouteSpec` at `path` naming the route (`label`)
 * and the position. A JSON body's rendering must parse as JSON.
 */
export const compileTemplate = (
  source: string,
  contentType: string | undefined,
  path: string,
  label: string
): CompiledTemplate | InvalidRouteSpec => {
  const mode = modeOf(contentType)
  const refused = (why: string, at: string) =>
    new InvalidRouteSpec({ path, message: `the template of route ${label} does not compile at ${at}: ${why}` })
  let ast: hbs.AST.Program
  let template: HandlebarsTemplateDelegate
  const found = { seeded: false }
  try {
    ast = env.parse(source)
    const bad = walk(ast as unknown as Node, mode === "json", found)
    if (bad !== undefined)
      return refused(
        `${bad.type === "PartialStatement" || bad.type === "PartialBlockStatement" ? "partials" : "decorators"} are not supported`,
        `line ${bad.loc.start.line}, column ${bad.loc.start.column + 1}`
      )
    const options = { knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true, noEscape: mode === "text", strict: false }
    // Compiled now (Handlebars compiles lazily), so an unknown helper is refused here, not at the first request.
    env.precompile(ast, options)
    template = env.compile(ast, options)
  } catch (error) {
    // A parse error's message is a heading, the text near the error, a caret and what was expected:
    // the last line says why. Other errors say it in one line, with the position after " - ".
    const lines = errorMessage(error).split("\n")
    return refused((lines.length > 1 ? lines.at(-1)! : lines[0]).replace(/ - \d+:\d+$/, ""), positionOf(error))
  }
  return {
    seeded: found.seeded,
    render: (request, context) => {
      const state: Rendering = {
        now: context.now?.() ?? 0,
        random: found.seeded ? seededStream(context.seed) : unseeded,
        steps: 0,
        written: 0
      }
      rendering = state
      try {
        const out = template({ request: new RequestView(request) }, RUNTIME)
        if (out.length > MAX_TEMPLATE_OUTPUT)
          throw new TooLarge(`the template wrote more than ${MAX_TEMPLATE_OUTPUT} characters`)
        if (mode === "json") JSON.parse(out)
        return out
      } catch (error) {
        const why =
          error instanceof SyntaxError
            ? `it wrote what is not JSON: ${error.message}`
            : `it could not be rendered: ${errorMessage(error)}`
        throw new RouteFailed({
          route: label,
          reason: "template",
          message: `the template of route ${label} failed: ${why}`,
          cause: error
        })
      } finally {
        rendering = undefined
      }
    }
  }
}

/**
 * Prototype access stays off, said outright so Handlebars refuses quietly rather than warning on
 * the console; the request view's own parts (`RequestView`'s getters) are the only names allowed.
 */
const RUNTIME: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowedProtoProperties: { path: true, query: true, headers: true, body: true }
}

/** The path as a template reads it: its text, and its segments by index (`request.path.[1]`). */
const pathOf = (pathname: string): ReadonlyArray<string> =>
  Object.assign(
    pathname
      .split("/")
      .filter((segment) => segment !== "")
      .map(decodeSegment),
    { toString: () => pathname }
  )

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The request as a template reads it: `method`, `url` and `params` at once, `path`, `query`,
 * `headers` and `body` made when the template first reads them (getters on the prototype, which
 * the runtime options allow by name, so no object is made per part a template does not read).
 */
class RequestView {
  readonly method: string
  readonly url: string
  readonly params: Readonly<Record<string, string>>
  readonly #request: SimRequest
  #path: ReadonlyArray<string> | undefined
  #query: Record<string, string> | undefined
  #headers: Record<string, string> | undefined
  #body: unknown

  constructor(request: SimRequest) {
    this.#request = request
    this.method = request.method
    this.url = request.url.href
    this.params = request.params
  }

  get path(): ReadonlyArray<string> {
    return (this.#path ??= pathOf(this.#request.url.pathname))
  }

  get query(): Record<string, string> {
    if (this.#query !== undefined) return this.#query
    const query: Record<string, string> = {}
    for (const [name, value] of this.#request.url.searchParams) if (!Object.hasOwn(query, name)) query[name] = value
    return (this.#query = query)
  }

  get headers(): Record<string, string> {
    return (this.#headers ??= Object.fromEntries(this.#request.headers))
  }

  get body(): unknown {
    return (this.#body ??= this.#request.json() ?? this.#request.text())
  }
}
