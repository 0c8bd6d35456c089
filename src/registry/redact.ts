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
  "x-goog-credential"
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
  "authorization"
]

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
 * Names to redact on top of the defaults, per network.
 */
export interface RedactOptions {
  readonly headers?: ReadonlyArray<string> | undefined
  readonly query?: ReadonlyArray<string> | undefined
  readonly bodyFields?: ReadonlyArray<string> | undefined
}

/**
 * `s` cut to `max` characters, the cut marked with how long `s` was.
 */
export const bounded = (s: string, max = MAX_SHOWN_TEXT): string =>
  s.length <= max ? s : `${s.slice(0, max)}…(${s.length} chars)`

const lowerSet = (base: ReadonlyArray<string>, extra: ReadonlyArray<string> | undefined): ReadonlySet<string> =>
  new Set([...base, ...(extra ?? [])].map((name) => name.toLowerCase()))

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")

/**
 * Decides what of a request may be shown. One per network; `defaultRedactor` for code that has
 * no network at hand.
 */
export class Redactor {
  readonly headerNames: ReadonlySet<string>
  readonly queryNames: ReadonlySet<string>
  readonly bodyFieldNames: ReadonlySet<string>
  private readonly jsonField: RegExp
  private readonly formField: RegExp

  constructor(options: RedactOptions = {}) {
    this.headerNames = lowerSet(CREDENTIAL_HEADERS, options.headers)
    this.queryNames = lowerSet(CREDENTIAL_QUERY, options.query)
    this.bodyFieldNames = lowerSet(CREDENTIAL_BODY_FIELDS, options.bodyFields)
    const fields = [...this.bodyFieldNames].map(escapeRegExp).join("|")
    // A JSON member `"name": value`, value a string (possibly cut off by the preview) or a bare token.
    this.jsonField = new RegExp(`("(?:${fields})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*(?:"|\\\\?$)|[^,}\\]\\s]+)`, "gi")
    const formNames = [...new Set([...this.bodyFieldNames, ...this.queryNames])].map(escapeRegExp).join("|")
    this.formField = new RegExp(`(^|&)((?:${formNames})=)[^&]*`, "gi")
  }

  /** Whether a header's value must not be shown. */
  isCredentialHeader(name: string): boolean {
    return this.headerNames.has(name.toLowerCase())
  }

  /** Whether a query parameter's value must not be shown. */
  isCredentialQuery(name: string): boolean {
    return this.queryNames.has(name.toLowerCase())
  }

  /** The headers as a plain object, credential values replaced by `"<redacted>"`, every value bounded. */
  headers(headers: Headers): Record<string, string> {
    const out: Record<string, string> = {}
    headers.forEach((value, name) => {
      out[name] = this.headerNames.has(name) ? REDACTED : bounded(value, MAX_SHOWN_URL)
    })
    return out
  }

  /**
   * A URL as it may be shown: no userinfo, credential-like query values replaced by
   * `<redacted>`, no fragment kept past the bound, at most `MAX_SHOWN_URL` characters.
   */
  url(input: URL | string): string {
    let url: URL
    try {
      url = typeof input === "string" ? new URL(input) : input
    } catch {
      return bounded(String(input), MAX_SHOWN_URL)
    }
    if (url.username === "" && url.password === "" && url.search === "") return bounded(url.href, MAX_SHOWN_URL)
    const copy = new URL(url.href)
    copy.username = ""
    copy.password = ""
    if (copy.search !== "") {
      const search = copy.search.slice(1).split("&").map((part) => {
        const eq = part.indexOf("=")
        if (eq === -1) return part
        let name: string
        try {
          name = decodeURIComponent(part.slice(0, eq).replace(/\+/g, " "))
        } catch {
          name = part.slice(0, eq)
        }
        return this.isCredentialQuery(name) ? `${part.slice(0, eq)}=${REDACTED}` : part
      })
      copy.search = search.join("&")
    }
    // `URL` percent-encodes `<` and `>` in the search; show the marker as written.
    return bounded(copy.href.replaceAll("%3Credacted%3E", REDACTED), MAX_SHOWN_URL)
  }

  /**
   * A body preview (possibly cut mid-value) with credential-like JSON members and form fields
   * redacted.
   */
  bodyText(text: string): string {
    return text.replace(this.jsonField, `$1"${REDACTED}"`).replace(this.formField, `$1$2${REDACTED}`)
  }
}

/**
 * The redactor with the default lists only.
 */
export const defaultRedactor = new Redactor()
