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
 * | a sealed run's command          | what its room access (`RoomAccess`) does not grant          |
 *
 * A rebound page's requests carry the attacker's name in `Host`; a page from another origin
 * (another port of localhost included) sends its own `Origin`, which browsers set on every
 * cross-origin request and every WebSocket handshake and which page script cannot change. Tools
 * that send neither (curl, SDKs, test runners) pass. The auth scheme is compared without regard to
 * case (RFC 9110 §11.1); the token in constant time.
 *
 * A sealed run's command (`simnet run --isolate`) reaches simnet's port only through its room's
 * relay, so the connection itself says a request is the room's (`markRoom`), whatever its
 * headers claim; the host's token is not in its environment.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { Effect, Option } from "effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { isLoopbackHost } from "../registry/util.ts"

/** Whether a `Host` header names this machine (`Route.isLoopbackHost`, with any port). */
const isLocalHost = (host: string | undefined): boolean =>
  host !== undefined && isLoopbackHost(host.replace(/:\d{1,5}$/, ""))

/**
 * Whether `origin` is the server's own for a request with this `Host`: the same host and port
 * over http or https.
 */
const sameOrigin = (origin: string, host: string): boolean => {
  const lower = origin.toLowerCase()
  const h = host.toLowerCase()
  return lower === `http://${h}` || lower === `https://${h}`
}

/**
 * What a sealed run's command may do through the control plane (`simnet run --isolate-control`):
 * `room` (the default) what a test harness inside needs — read, seed, drive, register routes,
 * restore snapshots — with no token, but nothing that forwards to the host's network (a
 * `loopback` route: it would reach the host's own 127.0.0.1); `none`, nothing; `host`, what the
 * host may (its token, when set, in the command's environment and required).
 */
export type RoomAccess = "room" | "none" | "host"

const rooms = new WeakMap<object, RoomAccess>()

/** Marks a connection made from inside a sealed room: every request on it is the room's, with `access`. */
export const markRoom = (socket: object, access: RoomAccess): void => void rooms.set(socket, access)

/** The room access of the request's connection, or undefined for a connection made on the host. */
export const roomAccess = (request: HttpServerRequest.HttpServerRequest): RoomAccess | undefined => {
  const socket = (request.source as { readonly socket?: unknown }).socket
  return typeof socket === "object" && socket !== null ? rooms.get(socket) : undefined
}

/**
 * Where `specs` (one RouteSpec or an array, as `network/register` and MCP's `register_routes`
 * take them) holds a route that forwards to the host's network — a `loopback` route not among
 * `known` (specs the network already has, as JSON: a snapshot restores the fixture's own) — as
 * its JSON path, or undefined. What `room` access may not register.
 */
export const hostForwarding = (specs: unknown, known: ReadonlySet<string> = new Set()): string | undefined => {
  const list = Array.isArray(specs) ? specs : [specs]
  const index = list.findIndex((spec) => {
    const respond =
      typeof spec === "object" && spec !== null ? (spec as { readonly respond?: unknown }).respond : undefined
    return (
      typeof respond === "object" &&
      respond !== null &&
      (respond as { readonly kind?: unknown }).kind === "loopback" &&
      !known.has(JSON.stringify(spec))
    )
  })
  return index < 0 ? undefined : `${Array.isArray(specs) ? `[${index}].` : ""}respond.kind`
}

/** Why a sealed command may not register a route that forwards to the host. */
export const HOST_FORWARDING =
  "a sealed command may not register a route that forwards to the host's network (respond.kind loopback): it would reach the host's own services; put it in the fixture, or run with --isolate-control host"

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
  if (roomAccess(request) === "none") {
    return {
      status: 403,
      tag: "Forbidden",
      message: "the sealed command has no control access (simnet run --isolate-control none)"
    }
  }
  const peer = Option.getOrUndefined(request.remoteAddress)
  if (peer !== undefined && !isLoopbackHost(peer)) {
    return { status: 403, tag: "Forbidden", message: "the control plane answers loopback peers only" }
  }
  const host = request.headers["host"]
  if (!isLocalHost(host)) {
    return {
      status: 403,
      tag: "Forbidden",
      message:
        "the control plane answers a Host naming this machine only (localhost, 127.0.0.1, [::1]): refused as DNS rebinding"
    }
  }
  const origin = request.headers["origin"]
  if (origin !== undefined && !sameOrigin(origin, host!)) {
    return {
      status: 403,
      tag: "Forbidden",
      message:
        "the control plane answers its own origin only: refused a request from another origin (cross-site request forgery or WebSocket hijacking)"
    }
  }
  const site = request.headers["sec-fetch-site"]?.toLowerCase()
  if (site === "cross-site" || site === "same-site") {
    return {
      status: 403,
      tag: "Forbidden",
      message: `the control plane answers its own origin only: refused a ${site} request`
    }
  }
  return undefined
}

/** Whether the request carries `token` (always true when no token is set). */
const authorized = (request: HttpServerRequest.HttpServerRequest, token: string | undefined, query: boolean): boolean =>
  token === undefined || token === "" || timingSafeEqual(digest(givenToken(request, query)), digest(token))

/**
 * Every check a control call passes, in order: `local`, then the token (which a sealed command
 * with `room` access has not: its connection vouches for it).
 */
export const check = (
  request: HttpServerRequest.HttpServerRequest,
  token: string | undefined,
  query: boolean
): Refused | undefined =>
  local(request) ??
  (roomAccess(request) === "room" || authorized(request, token, query)
    ? undefined
    : {
        status: 401,
        tag: "Unauthorized",
        message: `missing or wrong Authorization: Bearer token (SIMNET_TOKEN)${query ? " or ?token=" : ""}`
      })

/**
 * A refusal as every control surface answers it (the endpoint, the inspector, the guard itself):
 * `{ error: { tag, message, path? } }` with its status; `path` names the field when there is one.
 */
export const refuse = (status: number, tag: string, message: string, path?: string) =>
  HttpServerResponse.jsonUnsafe({ error: { tag, message, ...(path === undefined ? {} : { path }) } }, { status })

/** `handler` behind `test` (`local`, or `check` with a token): the refusal when it refuses. */
export const behind =
  <E, R>(
    test: (request: HttpServerRequest.HttpServerRequest) => Refused | undefined,
    handler: (
      request: HttpServerRequest.HttpServerRequest
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) =>
  (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
    const refused = test(request)
    return refused === undefined
      ? handler(request)
      : Effect.succeed(refuse(refused.status, refused.tag, refused.message))
  }
