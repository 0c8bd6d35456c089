/**
 * Redaction: the one place that decides what of a request may be shown. The request log, the
 * `UnregisteredRequest` message and its candidates, `RouteFailed` messages and the error bodies of
 * `simnet serve` all show requests through a `Redactor`, so a credential never leaves in any of
 * them:
 *
 * - credential headers (`CREDENTIAL_HEADERS`): the value becomes `"<redacted>"`;
 * - URL userinfo (`https://user:pass@host/`): dropped;
 * - credential-like query parameters (`CREDENTIAL_QUERY`): the value becomes `<redacted>`;
 * - credential-like JSON body fields (`CREDENTIAL_BODY_FIELDS`) in body previews, and the same
 *   names as `application/x-www-form-urlencoded` fields: the value becomes `"<redacted>"`.
 *
 * Each list is extendable per network (`SimulationNetwork.make({ redact: { headers, query,
 * bodyFields } })`); names are compared case-insensitively. Whatever is shown is also bounded in
 * length (`MAX_SHOWN_URL`, `MAX_SHOWN_TEXT`), so an 8 MB URL cannot make an 8 MB error message.
 */
import { isUtf8 } from "node:buffer"
import { isSpace, jsonStringValue, stringEnd, valueEnd } from "./jsonScan.ts"
import { MAX_JSON_DEPTH } from "./util.ts"

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * The header names whose values are never shown (compared in lower case).
 */
export const CREDENTIAL_HEADERS: ReadonlyArray<string> = [
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "x-auth-token",
  "x-access-token",
  "x-csrf-token",
  "x-xsrf-token",
  "private-token",
  "x-amz-security-token",
  "x-amz-content-sha256",
  "x-vault-token",
  "x-github-token",
  "cookie",
  "set-cookie",
  "anthropic-api-key"
]

/**
 * The query parameter names whose values are never shown (compared in lower case).
 */
export const CREDENTIAL_QUERY: ReadonlyArray<string> = [
  "access_token",
  "refresh_token",
  "id_token",
  "token",
  "key",
  "api_key",
  "apikey",
  "api-key",
  "sig",
  "signature",
  "secret",
  "password",
  "passwd",
  "client_secret",
  "code",
  "auth",
  "session",
  "x-amz-signature",
  "x-amz-credential",
  "x-amz-security-token",
  "x-goog-signature",
  "x-goog-credential",
  "code_verifier", // OAuth's PKCE secret, and its signed JWT grants
  "assertion",
  "client_assertion"
]

/**
 * The JSON body field names whose values are never shown in a body preview (compared in lower
 * case, at any depth).
 */
export const CREDENTIAL_BODY_FIELDS: ReadonlyArray<string> = [
  "password",
  "passwd",
  "new_password",
  "old_password",
  "refresh_token",
  "access_token",
  "id_token",
  "client_secret",
  "secret",
  "token",
  "api_key",
  "apikey",
  "private_key",
  "device_code",
  "code_verifier",
  "authorization",
  // OAuth's signed JWT grants (RFC 7523): a service account's token request carries one.
  "assertion",
  "client_assertion"
]

/**
 * Words that make `token`/`tokens` in the same name a count of a model's tokens rather than a
 * credential: `max_tokens`, `prompt_tokens`, `maxOutputTokens`, `token_count`, `budgetTokens`,
 * `cached_tokens` are not secrets, and are shown. (`access_token`, `tokenSecret` still are.)
 */
export const TOKEN_COUNT_WORDS: ReadonlyArray<string> = [
  "max",
  "min",
  "total",
  "prompt",
  "completion",
  "input",
  "output",
  "cached",
  "cache",
  "reasoning",
  "thinking",
  "count",
  "limit",
  "budget",
  "used",
  "remaining",
  "num",
  "number",
  "per",
  "estimated",
  "usage"
]

/**
 * The words that make a name a credential wherever they stand in it, whatever its case and
 * separators: `accessToken`, `x-api-token`, `ocp-apim-subscription-key`, `apiSecret`,
 * `auth_token` and `pass\u0077ord` all name credentials. A name is split into words at
 * separators and camelCase humps (after JSON escapes and percent-encoding are decoded); it is a
 * credential when one of its words is in this list or ends in one of `CREDENTIAL_WORD_ENDINGS`
 * (`authtoken`, `clientsecret`). Extend it per network with `redact.words`.
 */
export const CREDENTIAL_WORDS: ReadonlyArray<string> = [
  "token",
  "tokens",
  "secret",
  "secrets",
  "password",
  "passwd",
  "passphrase",
  "pass",
  "pwd",
  "credential",
  "credentials",
  "auth",
  "authorization",
  "authentication",
  "bearer",
  "jwt",
  "key",
  "apikey",
  "session",
  "sessionid",
  "cookie",
  "cookies",
  "signature",
  "sig",
  "otp",
  "csrf",
  "xsrf",
  "verifier" // OAuth's proofs of a grant: PKCE's `code_verifier`, OAuth 1's `oauth_verifier`
]

/** Endings that make one word a credential (`authtoken`, `clientsecret`, `privatekey`). */
export const CREDENTIAL_WORD_ENDINGS: ReadonlyArray<string> = [
  "token",
  "secret",
  "password",
  "passwd",
  "apikey",
  "privatekey",
  "accesskey",
  "accesskeyid",
  "secretkey",
  "signature",
  "credential",
  "credentials",
  "sessionid"
]

/**
 * Words that make `key` or `signature` in the same name an identity or a model's own state rather
 * than a credential, by meaning: `prompt_cache_key`, `cache_key`, `idempotency_key`,
 * `partition_key` name what a request is filed under; `thoughtSignature` and a thinking block's
 * signature are what a model hands back to be sent again. (`api_key`, `secret_key`,
 * `x-amz-signature` still are credentials.)
 */
export const NOT_SECRET_QUALIFIERS: ReadonlyArray<string> = [
  "cache",
  "idempotency",
  "dedup",
  "dedupe",
  "deduplication",
  "partition",
  "sort",
  "routing",
  "lookup",
  "primary",
  "foreign",
  "thought",
  "thinking",
  "reasoning"
]

/** The credential words a `NOT_SECRET_QUALIFIERS` word makes harmless. */
const QUALIFIABLE = new Set(["key", "keys", "signature", "sig"])

/**
 * Words that are credentials in a URL or a header (a presigned URL's `signature`, a webhook's
 * `x-hub-signature`) and not as a JSON body's field, where a signature travels with what it
 * signs (Anthropic's thinking blocks carry one the next request must send back as it was).
 */
const URL_ONLY = new Set(["signature", "sig"])

/**
 * Names that hold a credential word but no credential, shown as they are (compared in lower
 * case): request identities and protocol nonces that a reader needs to see.
 */
export const NOT_CREDENTIALS: ReadonlyArray<string> = ["idempotency-key", "x-idempotency-key", "sec-websocket-key"]

/** Headers whose value is a URL (a redirect to a presigned URL, a referer with a token). */
const URL_HEADERS: ReadonlySet<string> = new Set(["location", "content-location", "referer"])

/**
 * What a redacted value is shown as.
 */
export const REDACTED = "<redacted>"

/**
 * The longest URL shown in a message, a candidate, a log record or an error body; longer ones
 * are cut and marked with `…(N chars)`.
 */
export const MAX_SHOWN_URL = 2_048

/**
 * The longest piece of request text (a header value, a query value, a matcher) shown in a
 * message.
 */
export const MAX_SHOWN_TEXT = 200

/**
 * Names to redact on top of the defaults, per network: exact names (`headers`, `query`,
 * `bodyFields`, compared in lower case) and credential `words` (matched as `CREDENTIAL_WORDS` are).
 */
export interface RedactOptions {
  readonly headers?: ReadonlyArray<string> | undefined
  readonly query?: ReadonlyArray<string> | undefined
  readonly bodyFields?: ReadonlyArray<string> | undefined
  readonly words?: ReadonlyArray<string> | undefined
}

/**
 * `s` cut to `max` characters, the cut marked with how long `s` was.
 */
export const bounded = (s: string, max = MAX_SHOWN_TEXT): string =>
  s.length <= max ? s : `${s.slice(0, max)}…(${s.length} chars)`

const lowerSet = (base: ReadonlyArray<string>, extra: ReadonlyArray<string> | undefined): ReadonlySet<string> =>
  new Set([...base, ...(extra ?? [])].map((name) => name.toLowerCase()))

/** The words of a name: split at every character that is not a letter or digit, and at camelCase humps. */
const wordsOf = (name: string): ReadonlyArray<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "")

/** How many decided names a redactor remembers (names repeat: the same headers on every request). */
const DECIDED = 4096

/**
 * Decides what of a request may be shown. One per network; `defaultRedactor` for code that has
 * no network at hand.
 */
export class Redactor {
  readonly headerNames: ReadonlySet<string>
  readonly queryNames: ReadonlySet<string>
  readonly bodyFieldNames: ReadonlySet<string>
  /** The names a form body's fields are compared with: body fields and query parameters alike. */
  readonly formFieldNames: ReadonlySet<string>
  readonly words: ReadonlySet<string>
  readonly #decided = new Map<string, boolean>()

  constructor(options: RedactOptions = {}) {
    this.headerNames = lowerSet(CREDENTIAL_HEADERS, options.headers)
    this.queryNames = lowerSet(CREDENTIAL_QUERY, options.query)
    this.bodyFieldNames = lowerSet(CREDENTIAL_BODY_FIELDS, options.bodyFields)
    this.formFieldNames = new Set([...this.bodyFieldNames, ...this.queryNames])
    this.words = lowerSet(CREDENTIAL_WORDS, options.words)
  }

  /**
   * Whether a name (of a header, a query parameter or a body field, decoded) names a credential:
   * an exact name of `exact`, or a credential word in it (see `CREDENTIAL_WORDS`). `inBody`: the
   * name is a JSON body's field, where a signature is not a credential.
   */
  isCredentialName(name: string, exact: ReadonlySet<string> = this.bodyFieldNames, inBody = false): boolean {
    const lower = name.toLowerCase()
    if (exact.has(lower)) return true
    const cached = inBody ? name : `\u0000${name}`
    const known = this.#decided.get(cached)
    if (known !== undefined) return known
    const words = wordsOf(name.length > 256 ? name.slice(0, 256) : name)
    // "tokens" beside a word of counting is a count of a model's tokens, not a token: by meaning.
    const counting = words.some((word) => TOKEN_COUNT_WORDS.includes(word))
    // So is a cache's or a model's key or signature, and a signature in a JSON body.
    const qualified = words.some((word) => NOT_SECRET_QUALIFIERS.includes(word))
    const decided =
      !NOT_CREDENTIALS.includes(lower) &&
      words.some(
        (word) =>
          !(counting && (word === "token" || word === "tokens")) &&
          !(qualified && QUALIFIABLE.has(word)) &&
          !(inBody && URL_ONLY.has(word)) &&
          (this.words.has(word) ||
            CREDENTIAL_WORD_ENDINGS.some((ending) => word.length > ending.length && word.endsWith(ending)))
      )
    if (this.#decided.size >= DECIDED) this.#decided.clear()
    this.#decided.set(cached, decided)
    return decided
  }

  /** Whether a header's value must not be shown. */
  isCredentialHeader(name: string): boolean {
    return this.isCredentialName(name, this.headerNames)
  }

  /** Whether a query parameter's value must not be shown. */
  isCredentialQuery(name: string): boolean {
    return this.isCredentialName(name, this.queryNames)
  }

  /** The headers as a plain object: credential values `"<redacted>"`, URLs (`URL_HEADERS`) as `url` shows them, every value bounded. */
  headers(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {}
    headers.forEach((value, name) => {
      out[name] = this.isCredentialHeader(name)
        ? REDACTED
        : URL_HEADERS.has(name)
          ? this.url(value)
          : bounded(value, MAX_SHOWN_URL)
    })
    return out
  }

  /**
   * A URL as it may be kept or shown, the one function every URL simnet keeps or shows goes
   * through (logs, snapshots, traces, HAR, failure files, messages, the inspector): no userinfo,
   * credential-like values of the query and fragment (OAuth's implicit grant) `<redacted>`, at
   * most `MAX_SHOWN_URL` characters; of text that is not a URL (a path), what follows its `?`.
   */
  url(input: URL | string): string {
    let url: URL
    try {
      url = typeof input === "string" ? new URL(input) : input
    } catch {
      const text = String(input)
      const query = text.indexOf("?")
      return bounded(
        query === -1 ? text : `${text.slice(0, query + 1)}${this.#form(text.slice(query + 1), this.queryNames)}`,
        MAX_SHOWN_URL
      )
    }
    if (url.username === "" && url.password === "" && url.search === "" && !url.hash.includes("="))
      return bounded(url.href, MAX_SHOWN_URL)
    const copy = new URL(url.href)
    copy.username = ""
    copy.password = ""
    if (copy.search !== "") copy.search = this.#form(copy.search.slice(1), this.queryNames)
    if (copy.hash.includes("=")) copy.hash = this.#form(copy.hash.slice(1), this.queryNames)
    // `URL` percent-encodes `<` and `>` in the search; show the marker as written.
    return bounded(copy.href.replaceAll("%3Credacted%3E", REDACTED), MAX_SHOWN_URL)
  }

  /** `a=1&b=2` with credential values redacted; names are compared decoded. */
  #form(text: string, exact: ReadonlySet<string>): string {
    return text
      .split("&")
      .map((part) => {
        const eq = part.indexOf("=")
        if (eq === -1) return part
        let name: string
        try {
          name = decodeURIComponent(part.slice(0, eq).replace(/\+/g, " "))
        } catch {
          name = part.slice(0, eq)
        }
        return this.isCredentialName(name, exact) ? `${part.slice(0, eq)}=${REDACTED}` : part
      })
      .join("&")
  }

  /**
   * A JSON value (a recorded request's body or a tool's arguments) without its credential-named
   * members, at any depth: `"drop"` leaves them out (for a partial matcher), `"mark"` keeps the
   * name with the value `"<redacted>"` (for arguments a schema requires). Past `MAX_JSON_DEPTH`
   * levels a value is replaced by `"<redacted>"` whole, which bounds the walk.
   */
  jsonMembers(value: unknown, how: "drop" | "mark", depth = 0): unknown {
    if (depth > MAX_JSON_DEPTH) return REDACTED
    if (Array.isArray(value)) return value.map((item) => this.jsonMembers(item, how, depth + 1))
    if (typeof value !== "object" || value === null) return value
    const out: Record<string, unknown> = {}
    for (const [name, member] of Object.entries(value)) {
      if (!this.isCredentialName(name, this.bodyFieldNames, true)) out[name] = this.jsonMembers(member, how, depth + 1)
      else if (how === "mark") out[name] = REDACTED
    }
    return out
  }

  /** A whole body with `bodyText`'s redaction when it is UTF-8 text; other bytes are returned as they are. */
  bodyBytes(body: Uint8Array): Uint8Array {
    if (!isUtf8(body)) return body
    const text = decoder.decode(body)
    const shown = this.bodyText(text)
    return shown === text ? body : encoder.encode(shown)
  }

  /**
   * A body preview (possibly cut mid-value) with credential-like JSON members and form fields
   * redacted. JSON members are found by one scan that steps over strings, so a key written with
   * escapes (`"pass\u0077ord"`) is read as what it says; a credential member's whole value goes,
   * an object or array included. Form fields (`a=1&password=2`) are matched by decoded name.
   */
  bodyText(text: string): string {
    let i = 0
    while (isSpace(text[i])) i++
    return text[i] === "{" || text[i] === "[" ? this.#json(text) : this.#form(this.#json(text), this.formFieldNames)
  }

  #json(text: string): string {
    let out = ""
    let last = 0
    let i = 0
    while (i < text.length) {
      if (text[i] !== '"') {
        i++
        continue
      }
      const end = stringEnd(text, i)
      let j = end
      while (isSpace(text[j])) j++
      if (text[j] !== ":" || !this.isCredentialName(jsonStringValue(text.slice(i, end)), this.bodyFieldNames, true)) {
        i = end
        continue
      }
      j++
      while (isSpace(text[j])) j++
      const valueStop = valueEnd(text, j)
      out += `${text.slice(last, j)}"${REDACTED}"`
      last = valueStop
      i = valueStop
    }
    return last === 0 ? text : out + text.slice(last)
  }
}

/**
 * The redactor with the default lists only.
 */
export const defaultRedactor = new Redactor()
