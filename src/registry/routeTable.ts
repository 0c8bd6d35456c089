/**
 * The route registry: routes filed by origin and static path so that finding the route for a
 * request costs the same with 10 routes or 10 000. Within the lists, routes are ordered by
 * priority (highest first), then by registration (latest first); the best match over all lists
 * that apply to a request wins.
 */
import { InvalidRouteSpec, type Candidate } from "../SimnetError.ts"
import type { KeyCounts } from "./keyCounts.ts"
import { bounded, type Redactor } from "./redact.ts"
import type { RespondContext, Route, SimRequest } from "./route.ts"
import { Scenarios, type ScenarioUse } from "./scenarios.ts"
import { normalizePath } from "./util.ts"

/**
 * A registered route and its running state.
 */
export interface Entry {
  readonly id: string
  /** The method to match, copied from the matcher so the index can decide plain routes itself. */
  readonly method: string | undefined
  /** Filed under its exact origin and path, with nothing else to match but the method. */
  readonly plain: boolean
  readonly identity: string
  readonly route: Route
  readonly seq: number
  hits: number
  remaining: number
  /** Occurrences per canonical request key, by 64-bit hash (seeded routes only; made at the first request). */
  occurrences: KeyCounts | undefined
  /** Occurrences per canonical request key for chaos (made at the first request while chaos is on). */
  chaosCounts: KeyCounts | undefined
  /** The route as log records name it. */
  readonly info: { readonly id: string; readonly kind: string; readonly source: string }
  /** The respond context of a route that is not seeded: the same for every request. */
  context: RespondContext | undefined
  /** The route's hold on its scenario, when it names one. */
  readonly scenario: ScenarioUse | undefined
}

/**
 * A found route with the path parameters of its pattern.
 */
export interface Found {
  readonly entry: Entry
  readonly params: Readonly<Record<string, string>>
}

const ranksBefore = (a: Entry, b: Entry): boolean =>
  a.route.priority > b.route.priority || (a.route.priority === b.route.priority && a.seq > b.seq)

const insertOrdered = (list: Array<Entry>, entry: Entry): void => {
  let i = 0
  while (i < list.length && ranksBefore(list[i], entry)) i++
  list.splice(i, 0, entry)
}

const removeFrom = (map: Map<string, Array<Entry>>, key: string, entry: Entry): void => {
  const list = map.get(key)
  if (list === undefined) return
  const i = list.indexOf(entry)
  if (i !== -1) list.splice(i, 1)
  if (list.length === 0) map.delete(key)
}

/**
 * The identity of a route: its `seedIdentity` or `id` when it has one, else its kind and matcher.
 * Seeds derive from it, so it never depends on registration order.
 */
export const identityOf = (route: Route): string =>
  route.seedIdentity ?? route.id ?? `${route.kind} ${route.matcher.source}`

/**
 * Checks a batch of routes against the registry without changing it, and returns the ids they
 * would get. `paths[i]` prefixes the JSON path of route `i` in error messages.
 */
export const planIds = (
  existing: ReadonlyMap<string, Entry>,
  routes: ReadonlyArray<Route>,
  paths: ReadonlyArray<string>
): ReadonlyArray<string> | InvalidRouteSpec => {
  const taken = new Set<string>()
  const ids: Array<string> = []
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]
    const at = (field: string) => (paths[i] === "" ? field : `${paths[i]}.${field}`)
    let id: string
    if (route.id !== undefined) {
      if (existing.has(route.id) || taken.has(route.id)) {
        return new InvalidRouteSpec({ path: at("id"), message: `a route with id "${route.id}" is already registered` })
      }
      id = route.id
    } else {
      const base = route.id ?? `${route.kind} ${route.matcher.source}`
      id = base
      for (let n = 2; existing.has(id) || taken.has(id); n++) id = `${base} #${n}`
    }
    taken.add(id)
    ids.push(id)
  }
  return ids
}

/**
 * The mutable index of registered routes.
 */
export class Registry {
  private readonly exact = new Map<string, Array<Entry>>()
  private readonly segment = new Map<string, Array<Entry>>()
  private readonly origin = new Map<string, Array<Entry>>()
  private readonly side: Array<Entry> = []
  /** The routes with a URL pattern, by origin: where candidates for an unmatched request are looked for first. */
  private readonly byOrigin = new Map<string, Set<Entry>>()
  /** Every entry by id, in registration order. */
  readonly entries = new Map<string, Entry>()
  /** Uses of routes no longer registered, by id, so per-route counts stay exact. */
  readonly retired = new Map<string, number>()
  /** The scenarios the routes name. */
  readonly scenarios = new Scenarios()
  private seq = 0

  /** Adds routes that `planIds` accepted, with the ids it gave them. */
  add(routes: ReadonlyArray<Route>, ids: ReadonlyArray<string>): void {
    for (let i = 0; i < routes.length; i++) {
      const route = routes[i]
      const entry: Entry = {
        id: ids[i],
        method: route.matcher.method,
        plain: route.matcher.plain,
        identity: identityOf(route),
        route,
        seq: ++this.seq,
        hits: 0,
        remaining: route.times ?? Infinity,
        occurrences: undefined,
        chaosCounts: undefined,
        info: Object.freeze({ id: ids[i], kind: route.kind, source: route.source }),
        context: undefined,
        scenario: this.scenarios.use(route.scenario)
      }
      this.entries.set(entry.id, entry)
      const origin = route.matcher.origin
      if (origin !== undefined) {
        const set = this.byOrigin.get(origin)
        if (set === undefined) this.byOrigin.set(origin, new Set([entry]))
        else set.add(entry)
      }
      const index = route.matcher.index
      switch (index._tag) {
        case "Exact":
          this.fileIn(this.exact, index.key, entry)
          break
        case "Segment":
          this.fileIn(this.segment, index.key, entry)
          break
        case "Origin":
          this.fileIn(this.origin, index.key, entry)
          break
        case "Side":
          insertOrdered(this.side, entry)
      }
    }
  }

  private fileIn(map: Map<string, Array<Entry>>, key: string, entry: Entry): void {
    const list = map.get(key)
    if (list === undefined) map.set(key, [entry])
    else insertOrdered(list, entry)
  }

  /** Removes a route by id; false when there is none. */
  remove(id: string): boolean {
    const entry = this.entries.get(id)
    if (entry === undefined) return false
    this.retire(entry)
    this.entries.delete(id)
    const origin = entry.route.matcher.origin
    if (origin !== undefined) {
      const set = this.byOrigin.get(origin)
      set?.delete(entry)
      if (set?.size === 0) this.byOrigin.delete(origin)
    }
    const index = entry.route.matcher.index
    switch (index._tag) {
      case "Exact":
        removeFrom(this.exact, index.key, entry)
        break
      case "Segment":
        removeFrom(this.segment, index.key, entry)
        break
      case "Origin":
        removeFrom(this.origin, index.key, entry)
        break
      case "Side": {
        const i = this.side.indexOf(entry)
        if (i !== -1) this.side.splice(i, 1)
      }
    }
    return true
  }

  private retire(entry: Entry): void {
    if (entry.hits > 0) this.retired.set(entry.id, (this.retired.get(entry.id) ?? 0) + entry.hits)
  }

  /** How many requests each route matched, registered or since removed. */
  matchCounts(): Record<string, number> {
    const counts: Record<string, number> = Object.fromEntries(this.retired)
    for (const entry of this.entries.values()) {
      if (entry.hits > 0) counts[entry.id] = (counts[entry.id] ?? 0) + entry.hits
    }
    return counts
  }

  /** Removes every route (their use counts are kept in `retired`). */
  clear(): void {
    for (const entry of this.entries.values()) this.retire(entry)
    this.exact.clear()
    this.segment.clear()
    this.origin.clear()
    this.side.length = 0
    this.byOrigin.clear()
    this.entries.clear()
    this.scenarios.clear()
  }

  /** The best live route for a request, or undefined. Does not consume a use. */
  find(request: SimRequest): Found | undefined {
    const url = request.url
    const origin = url.origin
    const path = normalizePath(url.pathname)
    let best: Found | undefined
    best = bestIn(this.exact.get(origin + path), request, best)
    const slash = path.indexOf("/", 1)
    if (slash !== -1 && this.segment.size > 0)
      best = bestIn(this.segment.get(origin + path.slice(0, slash)), request, best)
    if (this.origin.size > 0) best = bestIn(this.origin.get(origin), request, best)
    if (this.side.length > 0) best = bestIn(this.side, request, best)
    return best
  }

  /**
   * Up to `limit` nearest routes for a request nothing matched, each with why it missed. The
   * search is bounded so that it costs the same with 10 routes or 10 000: it weighs at most
   * `CANDIDATE_SCAN` routes, those filed under the request's origin and path first, then its
   * origin's first segment, its origin, the RegExp and predicate routes, the rest of its origin,
   * and other origins last. Details never show credential values (`redactor`).
   */
  candidates(request: SimRequest, redactor: Redactor, limit = 3): ReadonlyArray<Candidate> {
    const scored: Array<{ entry: Entry; candidate: Candidate; score: number }> = []
    const seen = new Set<Entry>()
    const weigh = (entry: Entry): boolean => {
      if (seen.size >= CANDIDATE_SCAN) return false
      if (seen.has(entry)) return true
      seen.add(entry)
      const miss = entry.route.matcher.explain(request, redactor)
      const match = bounded(entry.route.matcher.source)
      if (miss !== undefined) {
        scored.push({
          entry,
          score: miss.score,
          candidate: { id: bounded(entry.id), match, reason: miss.reason, detail: miss.detail }
        })
      } else if (entry.remaining <= 0) {
        scored.push({
          entry,
          score: 100,
          candidate: {
            id: bounded(entry.id),
            match,
            reason: "exhausted",
            detail: `used ${entry.hits} of ${entry.route.times} times`
          }
        })
      } else if (entry.scenario?.admits() === false) {
        scored.push({
          entry,
          score: 100,
          candidate: { id: bounded(entry.id), match, reason: "state", detail: bounded(entry.scenario.refusal()) }
        })
      }
      return true
    }
    const weighAll = (entries: Iterable<Entry> | undefined): boolean => {
      if (entries === undefined) return true
      for (const entry of entries) if (!weigh(entry)) return false
      return true
    }
    const url = request.url
    const origin = url.origin
    const path = normalizePath(url.pathname)
    const slash = path.indexOf("/", 1)
    // Each step runs only while the scan has room left (`weighAll` is false once it is full).
    void (
      weighAll(this.exact.get(origin + path)) &&
      (slash === -1 || weighAll(this.segment.get(origin + path.slice(0, slash)))) &&
      weighAll(this.origin.get(origin)) &&
      weighAll(this.side) &&
      weighAll(this.byOrigin.get(origin)) &&
      // The same host under the other scheme (`http://` asked through a proxy of an `https://` route).
      weighAll(
        this.byOrigin.get(origin.startsWith("https:") ? `http:${origin.slice(6)}` : `https:${origin.slice(5)}`)
      ) &&
      (scored.length >= limit || weighAll(this.entries.values()))
    )
    scored.sort((a, b) => b.score - a.score || b.entry.seq - a.entry.seq)
    return scored.slice(0, limit).map((s) => s.candidate)
  }
}

/**
 * How many routes `candidates` weighs at most for one unmatched request.
 */
export const CANDIDATE_SCAN = 256

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

const bestIn = (
  list: ReadonlyArray<Entry> | undefined,
  request: SimRequest,
  best: Found | undefined
): Found | undefined => {
  if (list === undefined) return best
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]
    if (best !== undefined && !ranksBefore(entry, best.entry)) return best
    if (entry.remaining <= 0 || (entry.scenario !== undefined && !entry.scenario.admits())) continue
    if (entry.plain) {
      if (entry.method === undefined || entry.method === request.method) return { entry, params: NO_PARAMS }
      continue
    }
    const params = entry.route.matcher.test(request)
    if (params !== undefined) return { entry, params }
  }
  return best
}
