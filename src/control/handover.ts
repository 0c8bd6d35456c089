/**
 * What `simnet serve`'s lane hands to the router's handler, and how a path names its target: kept
 * apart from the server (`serve.ts`) so that the trace, the inspector and `replayOver` use them
 * without loading the HTTP server and its platform.
 */
import type * as HttpClientRequest from "effect/http/HttpClientRequest"

/**
 * Maps a loopback path `/HOST/PATH?QUERY` to `https://HOST/PATH?QUERY`, or undefined when the
 * path names no host.
 */
export const targetUrl = (path: string): string | undefined => {
  const match = /^\/([^/?#]+)(\/[^?#]*)?(\?[^#]*)?$/.exec(path)
  if (match === null || !/^[A-Za-z0-9.-]+(:\d+)?$/.test(match[1])) return undefined
  return `https://${match[1]}${match[2] ?? "/"}${match[3] ?? ""}`
}

/**
 * A request the lane dispatched but did not answer, for the router's handler to finish, and the
 * network's request count before that dispatch (for a reporter to find its record).
 */
export interface HandedOver {
  readonly method: string
  readonly target: string
  readonly request: HttpClientRequest.HttpClientRequest
  readonly before: number | undefined
}

/**
 * The requests one server's lane handed to its router, by Node's request (the router request's
 * `source`): made per server and shared by its lane, its router's handler and the reporter of its
 * requests, so nothing outlives the server and no two servers share a table.
 */
export class Handovers {
  readonly #handed = new WeakMap<object, HandedOver>()
  /** The target of each request that came as a proxy request (absolute form, or through a `CONNECT` tunnel). */
  readonly #proxied = new WeakMap<object, string>()

  /** Records that Node's request `source` came through the proxy, for `target`. */
  proxied(source: object, target: string): void {
    this.#proxied.set(source, target)
  }

  /** The URL a request is for: its proxy target, else `/HOST/PATH` read as `https://HOST/PATH`. */
  targetOf(source: object, path: string): string | undefined {
    return this.#proxied.get(source) ?? targetUrl(path)
  }

  /** Hands `handed` over for the router request whose `source` is `source` (Node's request). */
  handOver(source: object, handed: HandedOver): void {
    this.#handed.set(source, handed)
  }

  /** The request the lane handed over for this router request, taken (so it is finished once). */
  take(source: object): HandedOver | undefined {
    const handed = this.#handed.get(source)
    if (handed !== undefined) this.#handed.delete(source)
    return handed
  }

  /**
   * For a request the lane dispatched and handed to the router: the network's request count
   * before that dispatch, which a reporter needs to find its record; undefined for a request the
   * router dispatches itself. Read before the router's handler takes the request.
   */
  requestsBefore(source: object): number | undefined {
    return this.#handed.get(source)?.before
  }
}
