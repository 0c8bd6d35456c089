/**
 * The `loopback` route kind: the app's own local server, and nothing else. Requests are forwarded
 * over `node:http` / `node:https` (never through the global `fetch` or undici's dispatcher) to
 * 127.0.0.0/8, `::1` or `localhost`, with the method, the headers (less hop-by-hop ones) and the
 * body (buffered, as matching needs it); the answer streams back as it arrives.
 */
import type * as Http from "node:http"
import type * as Https from "node:https"
import { Readable } from "node:stream"
import { Effect } from "effect"
import { LoopbackDenied, RouteFailed } from "../../SimnetError.ts"
import { compileMatcher, type MatcherInput } from "../../registry/matcher.ts"
import { answerWith, type Responder, type Route } from "../../registry/route.ts"
import { bounded, defaultRedactor } from "../../registry/redact.ts"
import { isLoopbackHost, NULL_BODY_STATUSES } from "../../registry/util.ts"
import { hostLocalMessage, isHostLocal, publicLookup } from "../../registry/hostLocal.ts"
import { checked, ROUTE_OPTIONS_ONLY } from "../codeOptions.ts"
import { make, type RouteOptions, usable } from "../make.ts"

export { isLoopbackHost }

/**
 * The error for a loopback route or request aimed at another host.
 */
export const loopbackDenied = (hostname: string): LoopbackDenied => new LoopbackDenied({ host: hostname })

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection",
  "host",
  "content-length"
])

/**
 * Forwards the request to the loopback server its URL names. `label` names the route in errors.
 */
export const loopbackResponder =
  (label: string): Responder =>
  (request) => {
    const url = request.url
    if (!isLoopbackHost(url.hostname)) return Effect.fail(loopbackDenied(url.hostname))
    return forward(request, url, label, "loopback")
  }

/**
 * Where a request for `url` goes when its host is sent to `base` instead (`--upstream
 * HOST=URL`): `base`'s origin, its path before the request's path, the request's query.
 */
export const rebased = (url: URL, base: URL): URL =>
  new URL(`${base.pathname.replace(/\/$/, "")}${url.pathname}${url.search}`, base)

/**
 * Sends `request` to `url` over `node:http`/`node:https` and answers with what comes back,
 * streamed: the method, the headers less hop-by-hop ones, the body. `what` names the forward in
 * errors (`loopback`, `passthrough`). With `publicOnly` (a sealed run's forward to a host the
 * user did not name), an address on the host's own networks is refused (`hostLocal.ts`).
 */
export const forward = (
  request: Parameters<Responder>[0],
  url: URL,
  label: string,
  what: string,
  publicOnly = false
): Effect.Effect<Response, RouteFailed> =>
  Effect.callback<Response, RouteFailed>((resume) => {
    const failed = (message: string, cause?: unknown) =>
      resume(
        Effect.fail(
          new RouteFailed({
            route: label,
            reason: "upstream",
            message: `${what} ${bounded(request.method)} ${defaultRedactor.url(url)} failed: ${bounded(message)}`,
            cause
          })
        )
      )
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) headers[name] = value
    })
    headers["accept-encoding"] = "identity"
    if (request.body !== undefined) headers["content-length"] = String(request.body.length)
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
    if (publicOnly && isHostLocal(hostname)) return void failed(hostLocalMessage(hostname, hostname))
    // Node's HTTP client loads with the first forward (about 12 ms and 8 MB), not with `import("simnet")`.
    const transport: typeof Http | typeof Https = process.getBuiltinModule(
      url.protocol === "https:" ? "node:https" : "node:http"
    )
    const outgoing = transport.request(
      {
        host: hostname,
        port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
        path: url.pathname + url.search,
        method: request.method,
        headers,
        agent: false,
        ...(publicOnly ? { lookup: publicLookup } : {})
      },
      (incoming) => {
        const responseHeaders = new Headers()
        const raw = incoming.rawHeaders
        for (let i = 0; i < raw.length; i += 2) {
          if (!HOP_BY_HOP.has(raw[i].toLowerCase())) responseHeaders.append(raw[i], raw[i + 1])
        }
        const status = incoming.statusCode ?? 502
        const body =
          status < 200 || NULL_BODY_STATUSES.has(status) || request.method === "HEAD"
            ? null
            : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>)
        if (body === null) incoming.resume()
        resume(
          Effect.succeed(
            new Response(body, { status, statusText: incoming.statusMessage ?? "", headers: responseHeaders })
          )
        )
      }
    )
    outgoing.on("error", (cause) => failed(cause.message, cause))
    outgoing.end(request.body)
    return Effect.sync(() => outgoing.destroy())
  })

const anyLoopback = (url: URL) => isLoopbackHost(url.hostname)

/**
 * Lets requests through to the app's own local server. Without a matcher it matches every request
 * to a loopback host. Registering one for any other host is a `LoopbackDenied` error.
 *
 * @example Route.loopback("http://127.0.0.1:4096/{*path}")
 */
export const loopback = (match?: MatcherInput, options: RouteOptions = {}): Route =>
  checked("loopback", ROUTE_OPTIONS_ONLY, options, () => loopbackRoute(match, options))

const loopbackRoute = (match: MatcherInput | undefined, options: RouteOptions): Route => {
  const matcher = compileMatcher(match ?? { url: anyLoopback })
  return make(
    "loopback",
    matcher,
    {
      answer: answerWith(loopbackResponder(usable(options).id ?? `loopback ${matcher.source}`)),
      prepare:
        matcher.hostname !== undefined && !isLoopbackHost(matcher.hostname)
          ? Effect.fail(loopbackDenied(matcher.hostname))
          : undefined
    },
    options
  )
}
