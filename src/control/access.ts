/**
 * The one check every control surface passes (the control endpoint, the app's own paths under
 * the control base, the inspector and its event stream, and both driver sockets): only the
 * person who started simnet may drive it, not a web page they happen to visit.
 *
 * | threat                          | what is refused                                             |
 * |---------------------------------|-------------------------------------------------------------|
 * | another machine                 | a peer that is not loopback                                 |
 * | DNS rebinding                   | a `Host` that does not name this machine (`127.0.0.0/8`, `localhost`, `[::1]`) |
 * | CSRF, cross-site WebSocket      | an `Origin` other than the server's own (`http(s)://` + the `Host`), `Origin: null`, and `Sec-Fetch-Site: cross-site` or `same-site` |
 * | anyone else on this machine     | without `Authorization: Bearer TOKEN` when a token is set   |
 *
 * A rebound page's requests carry the attacker's name in `Host`; a page from another origin
 * (another port of localhost included) sends its own `Origin`, which browsers set on every
 * cross-origin request and every WebSocket handshake and which page script cannot change. Tools
 * that send neither (curl, SDKs, test runners) pass. The auth scheme is compared without regard to
 * case (RFC 9110 §11.1); the token in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { Effect, Option } from "effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { isLoopbackHost } from "../core/util.ts"

/** Whether a `Host` header names this machine (`Route.isLoopbackHost`, with any port). */
const isLocalHost = (host: string | undefined): boolean => host !== undefined && isLoopbackHost(host.replace(/:\d{1,5}$/, ""))

/**
 * Whether `origin` is the server's own for a request with this `Host`: the same host and port
 * over http or https.
 */
const sameOrigin = (origin: string, host: string): boolean => {
  const lower = origin.toLowerCase()
  const h = host.toLowerCase()
  return lower === `http://${h}` || lower === `https://${h}`
}

/** Why a request may not reach the control plane, or undefined when it may. */
export interface Refused {
  readonly status: 401 | 403
  readonly tag: "Forbidden" | "Unauthorized"
  readonly message: string
}

const digest = (text: string) => createHash("sha256").update(text).digest()

/**
 * The credentials a request gives: `Authorization: Bearer …` (any case of the scheme), or for a
 * path that takes it (`query`), a `?token=` parameter, since a browser's `WebSocket` cannot set
 * headers.
 */
const givenToken = (request: HttpServerRequest.HttpServerRequest, query: boolean): string => {
  const header = request.headers["authorization"] ?? ""
  const bearer = /^bearer[ \t]+(.*)$/i.exec(header.trim())
  if (bearer !== null) return bearer[1].trim()
  if (!query || !request.url.includes("?")) return ""
  return new URL(request.url, "http://control").searchParams.get("token") ?? ""
}

/**
 * Whether the request may reach this machine's control plane at all: a loopback peer, a `Host`
 * naming this machine, and no foreign `Origin` or cross-site fetch metadata. The token is
 * `authorized`'s.
 */
export const local = (request: HttpServerRequest.HttpServerRequest): Refused | undefined => {
  const peer = Option.getOrUndefined(request.remoteAddress)
  if (peer !== undefined && !isLoopbackHost(peer)) {
    return { status: 403, tag: "Forbidden", message: "the control plane answers loopback peers only" }
  }
  const host = request.headers["host"]
  if (!isLocalHost(host)) {
    return { status: 403, tag: "Forbidden", message: "the control plane answers a Host naming this machine only (localhost, 127.0.0.1, [::1]): refused as DNS rebinding" }
  }
  const origin = request.headers["origin"]
  if (origin !== undefined && !sameOrigin(origin, host!)) {
    return { status: 403, tag: "Forbidden", message: "the control plane answers its own origin only: refused a request from another origin (cross-site request forgery or WebSocket hijacking)" }
  }
  const site = request.headers["sec-fetch-site"]?.toLowerCase()
  if (site === "cross-site" || site === "same-site") {
    return { status: 403, tag: "Forbidden", message: `the control plane answers its own origin only: refused a ${site} request` }
  }
  return undefined
}

/** Whether the request carries `token` (always true when no token is set). */
const authorized = (request: HttpServerRequest.HttpServerRequest, token: string | undefined, query: boolean): boolean =>
  token === undefined || token === "" || timingSafeEqual(digest(givenToken(request, query)), digest(token))

/**
 * Every check a control call passes, in order: `local`, then the token.
 */
export const check = (request: HttpServerRequest.HttpServerRequest, token: string | undefined, query: boolean): Refused | undefined =>
  local(request) ??
    (authorized(request, token, query)
      ? undefined
      : { status: 401, tag: "Unauthorized", message: `missing or wrong Authorization: Bearer token (SIMNET_TOKEN)${query ? " or ?token=" : ""}` })

/**
 * A refusal as every control surface answers it (the endpoint, the inspector, the guard itself):
 * `{ error: { tag, message, path? } }` with its status; `path` names the field when there is one.
 */
export const refuse = (status: number, tag: string, message: string, path?: string) =>
  HttpServerResponse.jsonUnsafe({ error: { tag, message, ...(path === undefined ? {} : { path }) } }, { status })

/** `handler` behind `test` (`local`, or `check` with a token): the refusal when it refuses. */
export const behind = <E, R>(
  test: (request: HttpServerRequest.HttpServerRequest) => Refused | undefined,
  handler: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
(request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const refused = test(request)
  return refused === undefined ? handler(request) : Effect.succeed(refuse(refused.status, refused.tag, refused.message))
}
