/**
 * The Node door of a network: how `simnet serve` (and its proxy) answers a request for the
 * network, straight from Node's request to Node's response. It reads the body (up to the limit),
 * dispatches, and renders the network's answer (`registry/answer.ts`): a whole body in one write
 * with its `content-length`; a streamed body relayed as it arrives, its head sent as soon as it
 * is known (an event stream with no event yet is a `200` its client sees), whatever the body
 * already holds gathered into each write; a refusal as its 502 JSON (the request redacted). A
 * client that goes away aborts the route's signal and cancels its body. The router keeps only
 * the control paths.
 */
import type * as http from "node:http"
import { Cause, Exit } from "effect"
import type { Socket } from "node:net"
import type { Settled, Whole } from "../registry/answer.ts"
import type { Network } from "../registry/engine.ts"
import { bounded, type Redactor } from "../registry/redact.ts"
import { NO_RETRY, refusalBody, refusalHeaders } from "../registry/refusal.ts"
import { LazySignal, makeSimRequest } from "../registry/request.ts"
import { isSimnetError, type RouteFailedReason, type SimnetError } from "../SimnetError.ts"
import { declaredOver, OVER, readBody } from "./body.ts"
import { bodiless, nodeHeaders, relay } from "./relay.ts"
import { type Upgrading, webSocketAcceptor } from "./webSocket.ts"

export type { Upgrading } from "./webSocket.ts"
export { bodiless } from "./relay.ts"

/** One request for the network, as the door tells a watcher of it. */
export interface DoorRequest {
  readonly method: string
  /** The path of the request line (`/HOST/PATH`), or the proxy target. */
  readonly path: string
  /** The URL the request is for; undefined for a path that names no host (answered 400). */
  readonly url: string | undefined
  readonly headers: Readonly<Record<string, string>>
  /** The body, when the request had one. */
  readonly body: Uint8Array | undefined
}

/** What a watcher is told of one request's answer. */
export interface Watcher {
  /** The head was written: its status, and the refusal behind a 502 the network answered with. */
  readonly head: (status: number, refusal: RefusalShown | undefined) => void
  /** The body ended, or broke off. */
  readonly end: () => void
}

/** A refusal as the 502 body shows it: the request redacted. */
export type RefusalShown = ReturnType<typeof refusalBody>["error"]

/**
 * Told of each request for the network before it is dispatched; answers the watcher of its
 * answer, or undefined to leave it unwatched (the trace, the stdout line, an open inspector page).
 */
export type DoorWatch = (request: DoorRequest) => Watcher | undefined

/**
 * The default largest request body `simnet serve` takes on a network path (32 MiB): past it the
 * answer is 413 and the body is not kept. `--body-limit BYTES` changes it.
 */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

/**
 * The request's headers without `host` (the network sees the target's host in the URL), as Node
 * gives them (Node builds `req.headers` for every request anyway; repeated `set-cookie`s joined).
 */
const withoutHost = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (name !== "host" && value !== undefined) out[name] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

/** The 502 body of a request that failed on its way back: what failed, for which request (redacted), and why. */
const routeFailed = (
  redactor: Redactor,
  requestMethod: string,
  target: string,
  what: string,
  reason: RouteFailedReason,
  cause: unknown
) => {
  const shown = redactor.url(target)
  const method = bounded(requestMethod)
  const detail = cause instanceof Error ? `: ${bounded(cause.message)}` : ""
  return {
    error: { tag: "RouteFailed", message: `simnet: ${what} ${method} ${shown}${detail}`, method, url: shown, reason }
  }
}

/** The headers of such a 502, as a refusal's (`refusalHeaders`). */
const ROUTE_FAILED_HEADERS: Readonly<Record<string, string>> = { ...NO_RETRY, "x-simnet-refusal": "RouteFailed" }

export interface NodeDoorOptions {
  /** The largest request body taken, in bytes (default `DEFAULT_BODY_LIMIT`); 413 past it. */
  readonly bodyLimit?: number | undefined
  /** Told of every request (see `DoorWatch`). */
  readonly watch?: ReadonlyArray<DoorWatch> | undefined
  /**
   * The status a refusal is answered with (default 502). `simnet run` answers 404, which no common
   * client retries (the `openai` and Anthropic SDKs, axios retry helpers, Google's clients retry
   * 5xx): an app's refused side call costs it one round trip, not its retry schedule.
   */
  readonly refusalStatus?: number | undefined
  /**
   * Takes a refusal in place of its answer: true when it was handled (whole-process interception
   * fails the client's in-memory connection with the typed error itself, as `fetch` rejects).
   */
  readonly onRefusal?: ((error: SimnetError, res: http.ServerResponse) => boolean) | undefined
}

/**
 * The Node door: `(req, res, target)` answers one request for the network. `target` is the URL
 * it is for (from `/HOST/PATH`, or the proxy's), undefined for a path that names no host. An
 * upgrade request (Node's `upgrade` event) comes with its socket and the bytes read past its
 * head (`upgrade`): a WebSocket route's `101` is completed on it (`doors/webSocket.ts`); any
 * other answer is written through `res`, which the server put on that socket.
 */
export interface NodeDoor {
  (req: http.IncomingMessage, res: http.ServerResponse, target: string | undefined, upgrade?: Upgrading): void
  /**
   * A request that asks `Expect: 100-continue` (Node's `checkContinue` event; curl sends one for
   * any body over 1 MB): answered as Node's own server answers it when nothing listens for the
   * event — `100 Continue`, then the request as any other — except that a body declared over the
   * limit is refused with its 413 at once, before the client sends it (RFC 9110 §10.1.1 lets a
   * server answer the final status instead; Node then closes the connection, as it must).
   */
  readonly checkContinue: (req: http.IncomingMessage, res: http.ServerResponse, target: string | undefined) => void
}

export const makeNodeDoor = (engine: Network, options: NodeDoorOptions = {}): NodeDoor => {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const watches = options.watch ?? []
  const redactor = engine.redactor
  const acceptor = webSocketAcceptor(limit)
  const refusalStatus = options.refusalStatus ?? 502

  /** The watchers of a request; `request` is made only when something watches (its headers are copied for it). */
  const watchersOf = (request: () => DoorRequest): ReadonlyArray<Watcher> => {
    if (watches.length === 0) return NONE
    const shown = request()
    const out: Array<Watcher> = []
    for (const watch of watches) {
      const watcher = watch(shown)
      if (watcher !== undefined) out.push(watcher)
    }
    return out
  }

  /** Writes a whole answer; Node refusing its head (a route's header it will not write) is a 502 saying so. */
  const writeWhole = (res: http.ServerResponse, method: string, target: string, answer: Whole): number => {
    const body = bodiless(method, answer.status) ? undefined : (answer.body ?? EMPTY)
    try {
      res.writeHead(
        answer.status,
        nodeHeaders(
          answer.headers,
          body === undefined ? undefined : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength
        )
      )
    } catch (cause) {
      refusedHead(res, redactor, method, target, cause)
      return 502
    }
    res.end(body)
    return answer.status
  }

  const answer = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: string,
    body: Uint8Array | undefined,
    upgrade: Upgrading | undefined
  ) => {
    const method = req.method ?? "GET"
    // Copied from Node's (without `host`) the first time a watcher, route, matcher or log reads them.
    let copied: Record<string, string> | undefined
    const headers = () => (copied ??= withoutHost(req.headers))
    const watchers = watchersOf(() => ({ method, path: req.url ?? "/", url: target, headers: headers(), body }))
    const head = (status: number, refusal?: RefusalShown) => {
      for (const watcher of watchers) watcher.head(status, refusal)
    }
    const end = () => {
      for (const watcher of watchers) watcher.end()
    }
    const refuse = (error: SimnetError) => {
      if (options.onRefusal?.(error, res) === true) {
        head(refusalStatus, undefined)
        return end()
      }
      const shown = refusalBody(error, bounded(method), redactor.url(target))
      json(res, refusalStatus, shown, refusalHeaders(error))
      head(refusalStatus, shown.error)
      end()
    }
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return badPath(res, req.url ?? "/", watchers)
    }
    const signal = new LazySignal()
    const answered = engine.dispatch(makeSimRequest({ method, url, headers, body, signal }))
    const settled = (settled: Settled) => {
      if (settled._tag === "Whole" && settled.upgrade !== undefined) {
        if (upgrade === undefined) settled = settled.upgrade.refused
        else {
          res.detachSocket(upgrade.socket as Socket)
          head(101)
          return acceptor(req, upgrade, settled.upgrade, end)
        }
      }
      if (settled._tag === "Whole") {
        head(writeWhole(res, method, target, settled))
        return end()
      }
      relay(res, method, settled.response, head, end, (cause) => refusedHead(res, redactor, method, target, cause))
    }
    // A client that goes away aborts the route's signal (and so its answer, its stream).
    const watchClose = () =>
      res.once("close", () => {
        if (!res.writableFinished) signal.abort(new DOMException("The client went away", "AbortError"))
      })
    const failed = (error: unknown) => {
      if (res.destroyed) return
      if (isSimnetError(error)) return refuse(error)
      json(res, 502, routeFailed(redactor, method, target, "answering", "handler", error), ROUTE_FAILED_HEADERS)
      head(502)
      end()
    }
    switch (answered._tag) {
      case "Whole":
        return settled(answered)
      case "Streamed":
        watchClose()
        return settled(answered)
      case "Refused":
        return refuse(answered.error)
      case "Pending": {
        const now = answered.promise ?? engine.runNow(answered.effect, signal.signal)
        if (Exit.isExit(now)) {
          if (Exit.isFailure(now)) return failed(Cause.squash(now.cause))
          if (now.value._tag === "Streamed") watchClose()
          return settled(now.value)
        }
        watchClose()
        now.then((value) => {
          if (res.destroyed)
            return value._tag === "Streamed" ? void value.response.body?.cancel().catch(() => undefined) : undefined
          settled(value)
        }, failed)
      }
    }
  }

  const door = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: string | undefined,
    upgrade?: Upgrading
  ): void => {
    const path = req.url ?? "/"
    if (target === undefined) {
      badPath(
        res,
        path,
        watchersOf(() => ({ method: req.method ?? "GET", path, url: undefined, headers: {}, body: undefined }))
      )
      return
    }
    const method = req.method ?? "GET"
    const length = req.headers["content-length"]
    const hasBody =
      method !== "GET" && method !== "HEAD" && (length !== undefined || req.headers["transfer-encoding"] !== undefined)
    if (!hasBody) {
      answer(req, res, target, undefined, upgrade)
      return
    }
    if (declaredOver(length, limit)) {
      tooLarge(req, res, method, target, false)
      return
    }
    readBody(
      req,
      limit,
      (body) => (body === OVER ? tooLarge(req, res, method, target, false) : answer(req, res, target, body, upgrade)),
      () => res.destroy()
    )
  }

  const checkContinue = (req: http.IncomingMessage, res: http.ServerResponse, target: string | undefined): void => {
    if (target !== undefined && declaredOver(req.headers["content-length"], limit)) {
      tooLarge(req, res, req.method ?? "GET", target, true)
      return
    }
    res.writeContinue()
    door(req, res, target)
  }

  return Object.assign(door, { checkContinue })

  /**
   * The 413 of a request whose body is over the limit: the request (redacted) and the limit,
   * told to the watchers as any answer. The rest of the body is read and dropped first, so a
   * client still sending sees the answer rather than a broken pipe; past `DISCARD_LIMIT` more
   * bytes the connection is closed. A client waiting for `100 Continue` (`unsent`) has sent none
   * of it: the answer goes at once.
   */
  function tooLarge(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    requestMethod: string,
    target: string,
    unsent: boolean
  ) {
    const url = redactor.url(target)
    const method = bounded(requestMethod)
    const watchers = watchersOf(() => ({
      method: requestMethod,
      path: req.url ?? "/",
      url: target,
      headers: withoutHost(req.headers),
      body: undefined
    }))
    let told = false
    const answer = () => {
      if (told) return
      told = true
      json(res, 413, {
        error: {
          tag: "PayloadTooLarge",
          message: `simnet: the body of ${method} ${url} is over the limit of ${limit} bytes (simnet serve --body-limit)`,
          method,
          url,
          limit
        }
      })
      for (const watcher of watchers) {
        watcher.head(413, undefined)
        watcher.end()
      }
    }
    if (req.complete || unsent) return answer()
    let left = DISCARD_LIMIT
    req.on("data", (chunk: Buffer) => {
      left -= chunk.byteLength
      if (left >= 0) return
      answer()
      req.socket.destroy()
    })
    req.once("end", answer)
    req.resume()
  }

  function badPath(res: http.ServerResponse, path: string, watchers: ReadonlyArray<Watcher>) {
    json(res, 400, {
      error: {
        tag: "BadRequest",
        message: `expected /HOST/PATH (e.g. /api.openai.com/v1/models), got ${bounded(path.split("?")[0])}`
      }
    })
    for (const watcher of watchers) {
      watcher.head(400, undefined)
      watcher.end()
    }
  }
}

/** A JSON answer, unless the head went out already or the client is gone. */
const json = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
) => {
  const text = JSON.stringify(body)
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** The 502 of an answer whose head Node refused to write (a route's header it will not send). */
const refusedHead = (res: http.ServerResponse, redactor: Redactor, method: string, target: string, cause: unknown) =>
  json(
    res,
    502,
    routeFailed(redactor, method, target, "Node refused the answer to", "misconfigured", cause),
    ROUTE_FAILED_HEADERS
  )

const NONE: ReadonlyArray<Watcher> = []
/** The most bytes of a body over the limit read and dropped before its connection is closed. */
const DISCARD_LIMIT = 256 * 1024 * 1024
const EMPTY = new Uint8Array(0)
