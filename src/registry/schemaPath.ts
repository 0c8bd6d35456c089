/**
 * Naming where input failed a Schema: the first issue of a decode, as a JSON path such as
 * `routes[1].respond.status` or `steps[0][1].status`, and a check whose failure says what the
 * value must be. Fixtures, RouteSpec JSON, options and the model's scripts and rules all report
 * their errors through here.
 */
import { Result, Schema, SchemaIssue, SchemaParser } from "effect"
import type { SchemaAST } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** A filter whose failure says what the value must be, showing what it got. */
export const must = <T>(holds: (value: T) => boolean, what: string) =>
  Schema.makeFilter(
    (value: T) => holds(value) || `${what}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`
  )

/**
 * Appends a key to a path: `steps` and `0` give `steps[0]`, `respond` and `kind` give
 * `respond.kind`; an empty base gives the key alone.
 */
export const joinPath = (base: string, key: PropertyKey): string =>
  typeof key === "number" ? `${base}[${key}]` : base === "" ? String(key) : `${base}.${String(key)}`

/**
 * Decodes `input` under `schema`; a mismatch fails with the first issue's message and its path
 * below `base`.
 */
export const decodeAt = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  base: string,
  options?: SchemaAST.ParseOptions
): Result.Result<S["Type"], { readonly path: string; readonly message: string }> =>
  Result.mapError(SchemaParser.decodeUnknownResult(schema, options)(input), (issue) => {
    const [first] = formatter(issue).issues
    if (first === undefined) return { path: base, message: String(issue) }
    const keys = (first.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
    const path = keys.reduce<string>((acc, key) => joinPath(acc, key), base)
    const unknown = unexpectedKey(issue, keys)
    return { path, message: unknown ?? first.message }
  })

type Node = {
  readonly _tag: string
  readonly ast?: { readonly _tag: string; readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey }> }
  readonly issues?: ReadonlyArray<Node>
  readonly issue?: Node
  readonly path?: ReadonlyArray<PropertyKey>
}

const namesOf = (node: Node): ReadonlyArray<string> | undefined =>
  node.ast?._tag === "Objects" ? node.ast.propertySignatures?.map((p) => String(p.name)) : undefined

/**
 * When the issue at `keys` is an unexpected key (decoded with `onExcessProperty: "error"`), the
 * message that says so: the known keys of that object and, when one is close, the nearest name
 * there or in an enclosing object (`respond.delay` → `delayMs`, a key of the route). The walk
 * follows the path through the issue tree, so it is as deep as the input's path.
 */
const unexpectedKey = (issue: SchemaIssue.Issue, keys: ReadonlyArray<PropertyKey>): string | undefined => {
  const enclosing: Array<{ readonly at: ReadonlyArray<PropertyKey>; readonly names: ReadonlyArray<string> }> = []
  let node: Node | undefined = issue as unknown as Node
  let depth = 0
  let steps = 0
  while (node !== undefined && steps++ < 10_000) {
    const names = namesOf(node)
    if (node._tag === "UnexpectedKey") break
    if (names !== undefined) enclosing.push({ at: keys.slice(0, depth), names })
    if (node._tag === "Pointer") {
      depth += node.path?.length ?? 0
      node = node.issue
    } else if (node.issues !== undefined) {
      // Follow the member whose issue lies on the reported path (the first, as the formatter did).
      node = node.issues.find((child) => child._tag !== "Pointer" || child.path?.[0] === keys[depth]) ?? node.issues[0]
    } else {
      node = node.issue
    }
  }
  if (node?._tag !== "UnexpectedKey") return undefined
  const key = String(keys[keys.length - 1])
  const own = namesOf(node) ?? enclosing.at(-1)?.names ?? []
  let hint = ""
  for (const level of [{ at: keys.slice(0, -1), names: own }, ...enclosing.slice(0, -1).reverse()]) {
    const near = nearest(key, level.names)
    if (near === undefined) continue
    hint =
      level.names === own
        ? `; did you mean ${near}?`
        : `; did you mean ${near}? (a key of ${level.at.length === 0 ? "the top level" : level.at.join(".")})`
    break
  }
  return `unknown key ${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}${hint} Known keys here: ${own.join(", ") || "(none)"}`
}

/** The name in `names` closest to `key` (edit distance within a third of its length, or a prefix), if any. */
const nearest = (key: string, names: ReadonlyArray<string>): string | undefined => {
  if (key.length > 64) return undefined
  const lower = key.toLowerCase()
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const name of names) {
    const other = name.toLowerCase()
    const distance =
      other.startsWith(lower) || lower.startsWith(other)
        ? Math.abs(other.length - lower.length) * 0.5
        : editDistance(lower, other)
    const allowed = Math.max(1, Math.floor(Math.max(lower.length, other.length) / 3))
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance }
  }
  return best?.name
}

/** Edit distance where a swap of two neighbours counts as one edit (optimal string alignment), in O(a·b). */
const editDistance = (a: string, b: string): number => {
  let before: Array<number> = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j], before[j - 2] + 1)
    }
    before = previous
    previous = current
  }
  return previous[b.length]
}
