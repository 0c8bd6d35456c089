/**
 * What simnet never shows of a request, and how long what it shows may be. The request log,
 * `UnregisteredRequest` messages and candidates, `RouteFailed` messages and the error bodies of
 * `simnet serve` all go through one `Redactor`: credential headers, URL userinfo,
 * credential-like query parameters and JSON (or form) body fields are replaced by `<redacted>`.
 * Extend the lists per network with `SimulationNetwork.make({ redact: { headers, query,
 * bodyFields } })`.
 */
export {
  bounded,
  CREDENTIAL_BODY_FIELDS,
  CREDENTIAL_HEADERS,
  CREDENTIAL_QUERY,
  defaultRedactor,
  MAX_SHOWN_TEXT,
  MAX_SHOWN_URL,
  REDACTED,
  Redactor
} from "./registry/redact.ts"
export type { RedactOptions } from "./registry/redact.ts"
export { MAX_JSON_DEPTH, MAX_MATCH_DEPTH } from "./registry/util.ts"
