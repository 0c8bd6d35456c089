/**
 * Whole-process interception: the global `fetch` and undici (through its global dispatcher, which
 * Node's built-in `fetch` and undici's own `request`/`fetch` consult) are answered by one
 * network's `fetch`; `node:http` / `node:https` (axios, got, `http.request`, `ws`) by its Node
 * door over kept-alive in-memory connections (`http1.ts`), or in passthrough mode through
 * `@mswjs/interceptors`, the interceptor MSW uses. Unmatched requests fail closed as they do through
 * `network.fetch`; `onUnmatched: "passthrough"` lets listed hosts reach the real network. Any
 * other connection the process opens (undici with its own `Agent`, raw `net`/`tls`)
 * meets the network guard (`guard.ts`) and fails with `ConnectionDenied` — but `http2.connect`,
 * whose sessions are answered by the same `fetch` over an in-memory connection (`http2.ts`).
 *
 * Gotchas: one installation at a time per process; restoring puts back the very values that were
 * there (`globalThis.fetch`, undici's global dispatcher, the `http`/`https` functions).
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { createRequire, syncBuiltinESMExports } from "node:module"
import type * as Interceptors from "@mswjs/interceptors/ClientRequest"
import { Effect, type Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type * as Undici from "undici"
import type { Dispatcher } from "undici"
import { GlobalInstallConflict } from "../SimnetError.ts"
import { hostAllowed, installGuard } from "./guard.ts"
import { installHttp1 } from "./http1.ts"
import { installHttp2 } from "./http2.ts"
import type { NodeDoor, Upgrading } from "./node.ts"
import { isLoopbackHost } from "../registry/util.ts"

/**
 * How an installation treats a request no route answers.
 * - `"error"` (the default): it fails closed, as through `network.fetch`.
 * - `"passthrough"`: requests to `passthroughHosts` (host names or `host:port`, or RegExps
 *   tested against the host name) go to the real network; every other host still fails closed.
 *   The network's log records them as unmatched. As MSW's `onUnhandledRequest: "bypass"`, but
 *   only for the hosts listed.
 */
export type GlobalOptions = GuardOptions &
  (
    | { readonly onUnmatched?: "error" | undefined }
    | { readonly onUnmatched: "passthrough"; readonly passthroughHosts: ReadonlyArray<string | RegExp> }
  )

/**
 * The network guard of an installation (`guard.ts`): any other outbound TCP or TLS connection
 * fails at once with `ConnectionDenied`.
 * - `allowHosts`: hosts a connection may still reach (names, `host:port`, or RegExps tested
 *   against the host), such as a test database on `127.0.0.1:5432`. Loopback is not allowed
 *   unless listed, but for the loopback route's own forward.
 * - `guard: false`: no guard (interception only, as before the guard existed).
 */
export interface GuardOptions {
  readonly allowHosts?: ReadonlyArray<string | RegExp> | undefined
  readonly guard?: boolean | undefined
}

/** Restores everything an installation replaced, exactly as it was. Safe to call twice. */
export type RestoreGlobal = () => void

const DISPATCHER = Symbol.for("undici.globalDispatcher.2")
const LEGACY_DISPATCHER = Symbol.for("undici.globalDispatcher.1")

const isUnregistered = (error: unknown): boolean =>
  error instanceof TypeError && (error.cause as { _tag?: unknown } | undefined)?._tag === "UnregisteredRequest"

/** The simnet error behind a `fetch` rejection (its `cause`), or the rejection itself. */
const causeOf = (error: unknown): Error => {
  if (error instanceof TypeError && error.message === "fetch failed" && error.cause instanceof Error) return error.cause
  return error instanceof Error ? error : new Error(String(error))
}

const LOOPBACK_URL = /^https?:\/\/(localhost|127\.|\[::1\]|\[0:0:0:0:0:0:0:1\])/i

/**
 * The loopback route kind forwards over `node:http`, which the interceptor below patches. A
 * request the network is answering for a loopback URL runs with its own method and URL in this
 * store, so its forwarded copy (same method, same URL) is let through to the local server instead
 * of being dispatched again.
 */
const forwarding = new AsyncLocalStorage<string>()

/** Whether a URL's host is one of `hosts` (`hostAllowed` with the URL's name and port). */
const matchesHost = (hosts: ReadonlyArray<string | RegExp>, url: URL): boolean =>
  hostAllowed(hosts, url.hostname, url.port === "" ? undefined : Number(url.port))

type Headers1 = Dispatcher.DispatchOptions["headers"]

const toHeaders = (headers: Headers1): Headers => {
  const out = new Headers()
  if (headers === null || headers === undefined) return out
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return
    if (Array.isArray(value)) for (const v of value) out.append(name, String(v))
    else out.append(name, String(value))
  }
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), String(headers[i + 1]))
  } else if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[string, unknown]>) add(name, value)
  } else {
    for (const [name, value] of Object.entries(headers)) add(name, value)
  }
  return out
}

const readBody = async (body: unknown): Promise<Uint8Array | undefined> => {
  if (body === null || body === undefined) return undefined
  if (typeof body === "string") return new TextEncoder().encode(body)
  if (body instanceof Uint8Array) return body
  if (body instanceof FormData || body instanceof Blob || body instanceof URLSearchParams) {
    return new Uint8Array(await new Response(body).arrayBuffer())
  }
  if (
    typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function" ||
    typeof (body as Iterable<unknown>)[Symbol.iterator] === "function"
  ) {
    const chunks: Array<Uint8Array> = []
    for await (const chunk of body as AsyncIterable<unknown>) {
      chunks.push(typeof chunk === "string" ? new TextEncoder().encode(chunk) : (chunk as Uint8Array))
    }
    return Buffer.concat(chunks)
  }
  throw new TypeError(`unsupported request body (${Object.prototype.toString.call(body)})`)
}

const responseHeaders = (
  headers: Headers
): { readonly object: Record<string, string | Array<string>>; readonly raw: Array<Buffer> } => {
  const object: Record<string, string | Array<string>> = {}
  const raw: Array<Buffer> = []
  const add = (name: string, value: string) => {
    raw.push(Buffer.from(name, "latin1"), Buffer.from(value, "latin1"))
    const existing = object[name]
    object[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  for (const cookie of headers.getSetCookie()) add("set-cookie", cookie)
  headers.forEach((value, name) => {
    if (name !== "set-cookie") add(name, value)
  })
  return { object, raw }
}

/** The controller a dispatch handler is given: abort, pause and resume. */
class SimController implements Dispatcher.DispatchController {
  rawHeaders: Array<Buffer> | null = null
  rawTrailers: Array<Buffer> | null = []
  #aborted = false
  #paused = false
  #reason: Error | null = null
  #resume: (() => void) | undefined
  readonly #abort = new AbortController()

  get aborted(): boolean {
    return this.#aborted
  }
  get paused(): boolean {
    return this.#paused
  }
  get reason(): Error | null {
    return this.#reason
  }
  get signal(): AbortSignal {
    return this.#abort.signal
  }
  abort(reason: Error): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#abort.abort(reason)
    this.resume()
  }
  pause(): void {
    this.#paused = true
  }
  resume(): void {
    this.#paused = false
    const resume = this.#resume
    this.#resume = undefined
    resume?.()
  }
  /** Resolves when the handler resumes (at once when it is not paused). */
  whenFlowing(): Promise<void> | undefined {
    return this.#paused ? new Promise((resolve) => (this.#resume = resolve)) : undefined
  }
}

/**
 * An undici `Dispatcher` that answers from a network's `fetch`. Installed as undici's global
 * dispatcher it answers `undici.request`, `undici.fetch` and Node's built-in `fetch` (through the
 * legacy wrapper undici installs beside it). Unmatched requests fail with the simnet error itself
 * (`undici.request` rejects with the `UnregisteredRequest`; a `fetch` with `TypeError("fetch
 * failed")` whose cause it is).
 */
const defineSimDispatcher = (Base: typeof Undici.Dispatcher) =>
  class SimDispatcher extends Base {
    readonly #fetch: typeof globalThis.fetch
    readonly #passthrough: ((url: URL) => boolean) | undefined
    readonly #original: Dispatcher

    constructor(
      fetch: typeof globalThis.fetch,
      passthrough: ((url: URL) => boolean) | undefined,
      original: Dispatcher
    ) {
      super()
      this.#fetch = fetch
      this.#passthrough = passthrough
      this.#original = original
    }

    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const controller = new SimController()
      void this.#run(options, handler, controller)
      return true
    }

    async #run(
      options: Dispatcher.DispatchOptions,
      handler: Dispatcher.DispatchHandler,
      controller: SimController
    ): Promise<void> {
      let settled = false
      const fail = (error: Error) => {
        if (settled) return
        settled = true
        handler.onResponseError?.(controller, error)
      }
      try {
        handler.onRequestStart?.(controller, {})
        if (controller.aborted) return fail(controller.reason ?? new Error("aborted"))
        const body = await readBody(options.body)
        const url = new URL(options.path, options.origin)
        const method = options.method
        let response: Response
        try {
          response = await dispatchIn(url.href, method, () =>
            this.#fetch(url, {
              method,
              headers: toHeaders(options.headers),
              body: body as BodyInit | undefined,
              redirect: "manual",
              signal: controller.signal
            })
          )
        } catch (error) {
          if (this.#passthrough?.(url) && isUnregistered(error)) {
            settled = true
            this.#original.dispatch({ ...options, body: body === undefined ? null : body }, handler)
            return
          }
          throw error
        }
        if (controller.aborted) {
          await response.body?.cancel()
          return fail(controller.reason ?? new Error("aborted"))
        }
        const headers = responseHeaders(response.headers)
        controller.rawHeaders = headers.raw
        handler.onResponseStart?.(controller, response.status, headers.object, response.statusText)
        if (response.body !== null) {
          const reader = response.body.getReader()
          for (;;) {
            const paused = controller.whenFlowing()
            if (paused !== undefined) await paused
            if (controller.aborted) {
              await reader.cancel(controller.reason).catch(() => undefined)
              return fail(controller.reason ?? new Error("aborted"))
            }
            const { done, value } = await reader.read()
            if (done) break
            handler.onResponseData?.(controller, Buffer.from(value.buffer, value.byteOffset, value.byteLength))
          }
        }
        if (controller.aborted) return fail(controller.reason ?? new Error("aborted"))
        settled = true
        handler.onResponseEnd?.(controller, {})
      } catch (error) {
        fail(controller.aborted && controller.reason !== null ? controller.reason : causeOf(error))
      }
    }

    override close(): Promise<void> {
      return Promise.resolve()
    }

    override destroy(): Promise<void> {
      return Promise.resolve()
    }
  }

/**
 * undici and the `node:http` interceptor, loaded on the first installation rather than with
 * simnet (about 65 ms together): most networks answer a `fetch` handed to an SDK and never
 * install. Both ship CommonJS, so `installGlobal` stays synchronous.
 */
let modules:
  | {
      readonly undici: typeof Undici
      readonly ClientRequestInterceptor: typeof Interceptors.ClientRequestInterceptor
      readonly SimDispatcher: ReturnType<typeof defineSimDispatcher>
    }
  | undefined
const load = () => {
  if (modules !== undefined) return modules
  const require = createRequire(import.meta.url)
  const undici = require("undici") as typeof Undici
  const { ClientRequestInterceptor } = require("@mswjs/interceptors/ClientRequest") as typeof Interceptors
  return (modules = { undici, ClientRequestInterceptor, SimDispatcher: defineSimDispatcher(undici.Dispatcher) })
}

/** Runs a dispatch, marking loopback URLs so the loopback route's own forward is let through. */
const dispatchIn = <A>(href: string, method: string, run: () => A): A =>
  LOOPBACK_URL.test(href) ? forwarding.run(`${method.toUpperCase()} ${href}`, run) : run()

let active = false

/**
 * Routes the whole process through `fetch` (a network's `fetch`): the global `fetch`, undici's
 * global dispatcher, and `node:http`/`node:https` — through `door` (the same network's Node
 * door, `http1.ts`'s `globalDoor`) when one is given, else through the interceptor. Returns the
 * function that restores them.
 */
export const installGlobal = (
  fetch: typeof globalThis.fetch,
  options: GlobalOptions = {},
  door?: NodeDoor
): RestoreGlobal => {
  if (active) {
    throw new GlobalInstallConflict()
  }
  const passthroughHosts = options.onUnmatched === "passthrough" ? options.passthroughHosts : undefined
  const passthrough = passthroughHosts === undefined ? undefined : (url: URL) => matchesHost(passthroughHosts, url)

  const store = globalThis as unknown as Record<symbol, Dispatcher | undefined>
  const fetchDescriptor = Object.getOwnPropertyDescriptor(globalThis, "fetch")
  const originalFetch = globalThis.fetch
  const originalDispatcher = store[DISPATCHER]
  const originalLegacy = store[LEGACY_DISPATCHER]

  const simFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    const method = init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")
    if (passthrough === undefined) return dispatchIn(href, method, () => fetch(input, init))
    const request = new Request(input, init)
    const copy = passthrough(new URL(request.url)) ? request.clone() : undefined
    return dispatchIn(request.url, request.method, () => fetch(request)).catch((error: unknown) => {
      if (copy === undefined || !isUnregistered(error)) throw error
      return originalFetch(copy, { dispatcher: originalLegacy } as RequestInit)
    })
  }

  const { undici, ClientRequestInterceptor, SimDispatcher } = load()
  // node:http over kept-alive in-memory connections into the Node door (`http1.ts`), but for
  // passthrough, where an unmatched request must still leave: the interceptor, as MSW does it.
  const viaDoor = door !== undefined && passthrough === undefined
  const interceptor = viaDoor ? undefined : new ClientRequestInterceptor()
  interceptor?.on("request", async ({ request, controller }) => {
    const key = `${request.method} ${request.url}`
    if (forwarding.getStore() === key) return // the loopback route's forward: on to the local server
    const copy = passthrough?.(new URL(request.url)) ? request.clone() : undefined
    try {
      const response = await dispatchIn(request.url, request.method, () => fetch(request, { redirect: "manual" }))
      controller.respondWith(response)
    } catch (error) {
      if (copy !== undefined && isUnregistered(error)) return // on to the real network
      controller.errorWith(causeOf(error))
    }
  })

  const fallback = originalDispatcher ?? new undici.Dispatcher()
  const dispatcher = new SimDispatcher(fetch, passthrough, fallback)
  const allowHosts = options.allowHosts ?? []
  const allowance = (host: string, port: number | undefined) =>
    (forwarding.getStore() !== undefined && isLoopbackHost(host)) ||
    (passthroughHosts !== undefined && hostAllowed(passthroughHosts, host, port)) ||
    hostAllowed(allowHosts, host, port)
  active = true
  let restored = false
  let unguard: (() => void) | undefined
  let unhttp2: (() => void) | undefined
  let unhttp1: (() => void) | undefined
  try {
    if (options.guard !== false) unguard = installGuard(allowance)
    unhttp2 = installHttp2(fetch, (url) =>
      allowance(url.hostname, url.port === "" ? (url.protocol === "http:" ? 80 : 443) : Number(url.port))
    )
    Object.defineProperty(globalThis, "fetch", {
      value: simFetch,
      writable: true,
      enumerable: fetchDescriptor?.enumerable ?? true,
      configurable: true
    })
    // Both slots: undici 7+ reads the new one; Node's built-in fetch reads the legacy one, where
    // undici puts a wrapper that adapts the older handler interface.
    undici.setGlobalDispatcher(dispatcher)
    if (viaDoor) {
      // A request for a loopback URL is marked as `fetch`'s are, so the loopback route's forward leaves.
      const marked: NodeDoor = Object.assign(
        (req: IncomingMessage, res: ServerResponse, target: string | undefined, upgrade?: Upgrading) =>
          dispatchIn(target ?? "", req.method ?? "GET", () => door(req, res, target, upgrade)),
        {
          checkContinue: (req: IncomingMessage, res: ServerResponse, target: string | undefined) =>
            dispatchIn(target ?? "", req.method ?? "GET", () => door.checkContinue(req, res, target))
        }
      )
      unhttp1 = installHttp1(marked, () => forwarding.getStore() !== undefined)
    }
    interceptor?.apply()
    syncBuiltinESMExports()
  } catch (error) {
    restore()
    throw error
  }
  function restore(): void {
    if (restored) return
    restored = true
    try {
      unguard?.()
      unhttp2?.()
      unhttp1?.()
      interceptor?.dispose()
      syncBuiltinESMExports()
    } finally {
      if (fetchDescriptor === undefined) delete (globalThis as { fetch?: unknown }).fetch
      else Object.defineProperty(globalThis, "fetch", fetchDescriptor)
      store[DISPATCHER] = originalDispatcher
      store[LEGACY_DISPATCHER] = originalLegacy
      active = false
    }
  }
  return restore
}

/**
 * `installGlobal` as a scoped Effect: installed when acquired, restored when the scope closes
 * (whatever its exit). A conflicting installation fails with `GlobalInstallConflict`.
 */
export const installGlobalScoped = (
  fetch: typeof globalThis.fetch,
  options: GlobalOptions = {},
  door?: NodeDoor
): Effect.Effect<RestoreGlobal, GlobalInstallConflict, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      try {
        return Effect.succeed(installGlobal(fetch, options, door))
      } catch (error) {
        return error instanceof GlobalInstallConflict ? Effect.fail(error) : Effect.die(error)
      }
    }),
    (restore) => Effect.sync(restore)
  )
