/**
 * Record mode's bounds on nesting, per exchange. A fixture is read back only when nothing in it
 * nests deeper than its loaders take (a JSON body matcher `MAX_MATCH_DEPTH` levels, the file
 * `MAX_JSON_DEPTH`): one exchange nested deeper used to make the whole file unreadable (a
 * follow-up request carrying a deep tool input became a body matcher no fixture may hold). Each
 * exchange is now kept in a form within the bounds — its body matcher cut to its first levels,
 * its model answer kept as the HTTP answer it was, an MCP result left out — and the recording
 * says which and why (`Recording.warnings`); the others are written as ever.
 */
import { depthExceeds, MAX_JSON_DEPTH, MAX_MATCH_DEPTH } from "../../registry/util.ts"

/** How deep one recorded route or rule may nest: the file holds it under levels of its own (`llm.rules[i]`, an MCP server's `tools[i].results[j]`). */
export const ENTRY_DEPTH = MAX_JSON_DEPTH - 16

/** Whether a route, rule or part of an MCP server nests within what a fixture file may hold. */
export const fits = (entry: unknown): boolean => !depthExceeds(entry, ENTRY_DEPTH)

const DROPPED = Symbol("dropped")

/**
 * A request's JSON as a body matcher: as it is when it nests at most `MAX_MATCH_DEPTH` levels;
 * else without what lies deeper (an object's member that nests too deep is left out, and an
 * array that must lose an element goes whole, with the member that holds it), which still
 * matches the request it came from, a body matcher matching any body that holds its members.
 * `json` is undefined when nothing of it is left; `cut`, whether anything was left out.
 */
export const boundedMatch = (json: unknown): { readonly json: unknown; readonly cut: boolean } => {
  if (!depthExceeds(json, MAX_MATCH_DEPTH)) return { json, cut: false }
  // The walk stops at the bound: it never recurses deeper than `MAX_MATCH_DEPTH`.
  const bound = (value: unknown, level: number): unknown => {
    if (typeof value !== "object" || value === null) return value
    if (level > MAX_MATCH_DEPTH) return DROPPED
    if (Array.isArray(value)) {
      const items: Array<unknown> = []
      for (const item of value) {
        const kept = bound(item, level + 1)
        if (kept === DROPPED) return DROPPED
        items.push(kept)
      }
      return items
    }
    const members: Record<string, unknown> = {}
    for (const [name, member] of Object.entries(value)) {
      const kept = bound(member, level + 1)
      if (kept !== DROPPED) members[name] = kept
    }
    return members
  }
  const kept = bound(json, 1)
  return { json: kept === DROPPED ? undefined : kept, cut: true }
}
