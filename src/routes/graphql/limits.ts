/**
 * The bounds a `graphql` route holds a query to, checked before it runs: the document's size and
 * nesting (before graphql-js parses it: its parser descends once per level), its fields' depth
 * (fragments included, each measured once) and its aliases. Each refusal is a GraphQL error with
 * the `locations` of the place that went over and `extensions: { code: "SIMNET_LIMIT", limit,
 * bound }`, so a client reads what and where.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode
} from "graphql"

/**
 * The bounds of a `graphql` route: `depth` (fields nested in one another, 15), `aliases` (aliased
 * fields in a document, 30), `documentBytes` (the query's length, 100 000 characters), `values`
 * (the values one answer may generate, 10 000).
 */
export interface GraphqlLimits {
  readonly depth?: number | undefined
  readonly aliases?: number | undefined
  readonly documentBytes?: number | undefined
  readonly values?: number | undefined
}

/** The defaults, and the largest bound each may be given. */
export const DEFAULT_LIMITS = { depth: 15, aliases: 30, documentBytes: 100_000, values: 10_000 } as const
export const MAX_LIMITS = { depth: 64, aliases: 1_000, documentBytes: 1_000_000, values: 1_000_000 } as const

const over = (message: string, limit: keyof GraphqlLimits, bound: number, node?: FieldNode) =>
  new GraphQLError(`simnet: ${message}, over the bound of ${bound} (limits.${limit})`, {
    ...(node === undefined ? {} : { nodes: [node] }),
    extensions: { code: "SIMNET_LIMIT", limit, bound }
  })

/**
 * The deepest nesting of `{`, `(` and `[` in a query, outside strings and comments, up to `cap`
 * (the scan stops there): what graphql-js's parser would descend through.
 */
export const nesting = (query: string, cap: number): number => {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i)
    if (c === 35) {
      // `#` comment, to the end of the line.
      while (i < query.length && query[i] !== "\n" && query[i] !== "\r") i++
    } else if (c === 34) {
      // A string, or a block string `"""…"""`: skipped whole, escapes honoured.
      if (query.startsWith('"""', i)) {
        const end = query.indexOf('"""', i + 3)
        i = end === -1 ? query.length : end + 2
      } else {
        for (i++; i < query.length && query[i] !== '"' && query[i] !== "\n"; i++) if (query[i] === "\\") i++
      }
    } else if (c === 123 || c === 40 || c === 91) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > cap) return deepest
    } else if (c === 125 || c === 41 || c === 93) {
      depth--
    }
  }
  return deepest
}

/**
 * The request error of a query too large or nested too deep to parse, checked on its text: its
 * length against `documentBytes`, its brackets against three levels a field (a field, its
 * arguments, a list value in them).
 */
export const checkText = (query: string, limits: Required<GraphqlLimits>): GraphQLError | undefined => {
  if (query.length > limits.documentBytes)
    return over(`the query is ${query.length} characters`, "documentBytes", limits.documentBytes)
  const cap = 3 * limits.depth + 3
  if (nesting(query, cap) > cap)
    return over("the query nests its brackets deeper than a query of the allowed depth can", "depth", limits.depth)
  return undefined
}

interface Depth {
  readonly depth: number
  /** The field deepest in, for the error's location. */
  readonly at: FieldNode | undefined
}

/**
 * Checks a parsed, valid document's operation: its depth (root fields are 1; a fragment counts
 * where it is spread, measured once) and the aliases of the whole document.
 */
export const checkDocument = (
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limits: Required<GraphqlLimits>
): GraphQLError | undefined => {
  const fragments = new Map<string, FragmentDefinitionNode>()
  let aliases = 0
  let lastAlias: FieldNode | undefined
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition)
  }
  // Every selection set once (validation has refused fragment cycles); depths of fragments memoised.
  const memo = new Map<string, Depth>()
  const cap = limits.depth + 1
  const depthOf = (set: SelectionSetNode | undefined, budget: number): Depth => {
    let deepest: Depth = { depth: 0, at: undefined }
    if (set === undefined || budget <= 0) return deepest
    for (const selection of set.selections) {
      let found: Depth
      if (selection.kind === Kind.FIELD) {
        const child = depthOf(selection.selectionSet, budget - 1)
        found = { depth: 1 + child.depth, at: child.at ?? selection }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        found = depthOf(selection.selectionSet, budget)
      } else {
        const name = selection.name.value
        let known = memo.get(name)
        if (known === undefined) memo.set(name, (known = depthOf(fragments.get(name)?.selectionSet, cap)))
        found = known
      }
      if (found.depth > deepest.depth) deepest = found
    }
    return deepest
  }
  const measured = depthOf(operation.selectionSet, cap)
  if (measured.depth > limits.depth)
    return over(`the query nests fields more than ${limits.depth} deep`, "depth", limits.depth, measured.at)
  const countAliases = (set: SelectionSetNode | undefined): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD && selection.alias !== undefined) {
        aliases++
        lastAlias = selection
      }
      if (selection.kind !== Kind.FRAGMENT_SPREAD) countAliases(selection.selectionSet)
    }
  }
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION)
      countAliases(definition.selectionSet)
    if (aliases > limits.aliases)
      return over(`the document has more than ${limits.aliases} aliases`, "aliases", limits.aliases, lastAlias)
  }
  return undefined
}
