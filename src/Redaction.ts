/**
 * What simnet never shows of a request, and how long what it shows may be. The request log,
 * `UnregisteredRequest` messages and candidates, `RouteFailed` messages and the error bodies of
 * `simnet serve` all go through one `Redactor`: credential headers, URL userinfo,
 * credential-like query parameters and JSON (or form) body fields are replaced by `<redacted>`.
 * A name is a credential when it is in a list or holds a credential word (`CREDENTIAL_WORDS`,
 * after case, separators, JSON escapes and percent-encoding are normalised). Extend the lists per
 * network with `SimulationNetwork.make({ redact: { headers, query, bodyFields, words } })`.
 */
export {
  bounded,
  CREDENTIAL_BODY_FIELDS,
  CREDENTIAL_HEADERS,
  CREDENTIAL_QUERY,
  CREDENTIAL_WORD_ENDINGS,
  CREDENTIAL_WORDS,
  defaultRedactor,
  MAX_SHOWN_TEXT,
  MAX_SHOWN_URL,
  NOT_CREDENTIALS,
  REDACTED,
  Redactor
} from "./registry/redact.ts"
export type { RedactOptions } from "./registry/redact.ts"
/** How deep a request body's JSON is read, and how deep a JSON body matcher may nest (see docs/security.md). */
export { MAX_JSON_DEPTH, MAX_MATCH_DEPTH } from "./registry/util.ts"
