/**
 * Realistic generation by default. Effect's `Arbitrary` is built for property tests: half of its
 * strings are edge cases (lone surrogates, `__proto__`, control characters) and unbounded numbers
 * span the whole IEEE range, NaN included. A simulated server should instead answer with data that
 * looks like a real API's, wherever the schema leaves room for it.
 *
 * `realisticAst` builds the *type side* of a schema for generation only. It never changes what
 * validates: it adds filters that always pass and only carry `arbitraryConstraint` hints (which
 * Effect documents as "generation hints; the predicate remains authoritative"), and it narrows
 * nodes that carry `examples` to those examples. Nodes whose checks it cannot see through (a
 * custom filter with no generation hint) are left to Effect's own generator, so a hint can never
 * make a satisfiable schema unsatisfiable.
 */
import { DateTime, Duration, Order, Result, Schema, SchemaAST, SchemaIssue, SchemaTransformation } from "effect"

type FilterConstraint = Schema.Annotations.ToArbitrary.FilterConstraint<unknown>

/**
 * The words plain strings are drawn from. A union of literals samples several
 * times faster than a pattern (and 64 members is where the union's cost stays small); strings
 * with length bounds draw from the words that fit, and fall back to a pattern when none does.
 * Record keys keep a pattern: an index signature's key must stay a string schema.
 */
const WORDS: ReadonlyArray<string> = [
  "alpha", "amber", "apex", "atlas", "beacon", "birch", "blaze", "breeze",
  "cedar", "cobalt", "comet", "coral", "crest", "delta", "drift", "ember",
  "falcon", "fern", "flint", "forge", "frost", "glade", "granite", "harbor",
  "hazel", "horizon", "indigo", "iris", "jade", "juniper", "kestrel", "lagoon",
  "lark", "lumen", "maple", "meadow", "mesa", "nebula", "nimbus", "north",
  "oak", "onyx", "orbit", "pebble", "pine", "prism", "quartz", "raven",
  "ridge", "river", "sable", "sage", "sierra", "slate", "spruce", "summit",
  "tidal", "timber", "topaz", "umber", "vale", "willow", "zenith", "zephyr"
]
/** Lower-case tokens, for strings whose length bounds no word fits. */
const TEXT_PATTERN = "^[a-z][a-z0-9]*$"
/** Identifier-like record keys, likewise. */
const KEY_PATTERN = "^[a-z][a-z0-9_-]*$"
/** Bounds for numbers whose schema states none. */
const NUMBER_RANGE = 1000

const DAY = "(0[1-9]|1[0-9]|2[0-8])"
const MONTH = "(0[1-9]|1[0-2])"
const YEAR = "20[0-3][0-9]"
const CLOCK = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"

/**
 * Patterns for the string `format`s an API commonly declares (JSON Schema's `format` keyword, or
 * a `format` annotation on an Effect schema).
 */
const FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  email: "^[a-z]{2,8}(\\.[a-z]{2,8})?@(example|acme|mail)\\.(com|dev|io)$",
  uri: "^https://(api|www|app)\\.(example|acme)\\.(com|dev)(/[a-z0-9]{1,8}){0,3}$",
  url: "^https://(api|www|app)\\.(example|acme)\\.(com|dev)(/[a-z0-9]{1,8}){0,3}$",
  "uri-reference": "^/[a-z0-9]{1,8}(/[a-z0-9]{1,8}){0,2}$",
  uuid: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
  "date-time": `^${YEAR}-${MONTH}-${DAY}T${CLOCK}(\\.[0-9]{3})?Z$`,
  date: `^${YEAR}-${MONTH}-${DAY}$`,
  time: `^${CLOCK}$`,
  hostname: "^[a-z][a-z0-9]{1,10}\\.(example|acme)\\.(com|dev)$",
  ipv4: "^(10|192)\\.(0|1|168)\\.[0-9]{1,2}\\.[0-9]{1,2}$"
}

interface Seen {
  /** A check without a generation hint: its predicate is opaque to us. */
  opaque: boolean
  patterns: boolean
  minimum: boolean
  maximum: boolean
  minLength: number | undefined
  maxLength: number | undefined
}

const inspectChecks = (checks: SchemaAST.Checks | undefined): Seen => {
  const seen: Seen = { opaque: false, patterns: false, minimum: false, maximum: false, minLength: undefined, maxLength: undefined }
  const visit = (check: SchemaAST.Check<unknown>): void => {
    if (check._tag === "FilterGroup") {
      check.checks.forEach(visit)
      return
    }
    const hint = check.annotations?.arbitraryConstraint
    if (hint === undefined) {
      seen.opaque = true
      return
    }
    if (hint.patterns !== undefined) seen.patterns = true
    if (hint.minimum !== undefined) seen.minimum = true
    if (hint.maximum !== undefined) seen.maximum = true
    const max = hint.maxLength ?? hint.maxCodePoints
    if (max !== undefined) seen.maxLength = seen.maxLength === undefined ? max : Math.min(seen.maxLength, max)
    const min = hint.minLength ?? hint.minCodePoints
    if (min !== undefined) seen.minLength = seen.minLength === undefined ? min : Math.max(seen.minLength, min)
  }
  checks?.forEach(visit)
  return seen
}

const hint = (constraint: FilterConstraint): SchemaAST.Filter<unknown> =>
  new SchemaAST.Filter(() => undefined, { arbitraryConstraint: constraint, expected: "anything" })

const withChecks = (ast: SchemaAST.AST, constraint: FilterConstraint): SchemaAST.Checks => [
  ...(ast.checks ?? []),
  hint(constraint)
]

const pattern = (source: string): FilterConstraint => ({ patterns: [{ source, flags: "" }] })

const isPrimitive = (value: unknown): value is string | number | boolean | null =>
  value === null || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value))

/** A node with primitive `examples` generates one of them (its own checks still apply). */
const fromExamples = (ast: SchemaAST.AST): SchemaAST.AST | undefined => {
  const examples = ast.annotations?.examples
  if (!Array.isArray(examples) || examples.length === 0 || !examples.every(isPrimitive)) return undefined
  const members = examples.map((value) => (value === null ? SchemaAST.null : new SchemaAST.Literal(value)))
  return new SchemaAST.Union(members, undefined, ast.annotations, ast.checks, undefined, ast.context)
}

/**
 * Words as a union of unions of at most 8 literals: sampling a union costs more the more members
 * it has, and two levels of 8 measured about a third cheaper than one flat union of 64.
 */
const wordGroups = (words: ReadonlyArray<string>): Array<SchemaAST.AST> => {
  const groups: Array<SchemaAST.AST> = []
  for (let i = 0; i < words.length; i += 8) {
    const members = words.slice(i, i + 8).map((w) => new SchemaAST.Literal(w))
    groups.push(members.length === 1 ? members[0] : new SchemaAST.Union(members))
  }
  return groups
}

const realisticString = (ast: SchemaAST.String, forKey: boolean): SchemaAST.AST => {
  const seen = inspectChecks(ast.checks)
  if (seen.opaque || seen.patterns || seen.maxLength === 0) return ast
  const format = ast.annotations?.format
  const formatPattern = typeof format === "string" && !forKey ? FORMAT_PATTERNS[format] : undefined
  if (formatPattern === undefined && !forKey) {
    const words = WORDS.filter((w) => w.length >= (seen.minLength ?? 0) && w.length <= (seen.maxLength ?? Infinity))
    if (words.length > 0) return new SchemaAST.Union(wordGroups(words), undefined, ast.annotations, ast.checks, undefined, ast.context)
  }
  const chosen = formatPattern ?? (forKey ? KEY_PATTERN : TEXT_PATTERN)
  return new SchemaAST.String(ast.annotations, withChecks(ast, pattern(chosen)), undefined, ast.context)
}

/**
 * Numbers with both bounds keep Effect's generator. Otherwise they are generated as integers
 * (valid for any number schema): near the one stated bound, or within [0, NUMBER_RANGE].
 */
const realisticNumber = (ast: SchemaAST.Number): SchemaAST.AST => {
  const seen = inspectChecks(ast.checks)
  if (seen.opaque || (seen.minimum && seen.maximum)) return ast
  const constraint: FilterConstraint = seen.minimum || seen.maximum
    ? { number: "integer" }
    : { order: Order.Number as Order.Order<unknown>, minimum: 0, maximum: NUMBER_RANGE, number: "integer" }
  return new SchemaAST.Number(ast.annotations, withChecks(ast, constraint), undefined, ast.context)
}

/** Realistic open JSON: short records with identifier keys, words, small finite numbers. */
const realisticJson = (context: SchemaAST.Context | undefined): SchemaAST.AST => {
  let json: SchemaAST.AST | undefined = undefined
  const self = new SchemaAST.Suspend(() => json!)
  json = new SchemaAST.Union([
    SchemaAST.null,
    realisticNumber(SchemaAST.number),
    SchemaAST.boolean,
    realisticString(SchemaAST.string, false),
    new SchemaAST.Arrays(false, [], [self]),
    new SchemaAST.Objects([], [new SchemaAST.IndexSignature(realisticString(SchemaAST.string, true), self)])
  ], undefined, undefined, undefined, undefined, context)
  return json
}

const realisticRecordJson = (context: SchemaAST.Context | undefined): SchemaAST.AST =>
  new SchemaAST.Objects(
    [],
    [new SchemaAST.IndexSignature(realisticString(SchemaAST.string, true), realisticJson(undefined))],
    undefined,
    undefined,
    undefined,
    context
  )

const Y2020 = Date.UTC(2020, 0, 1)
const Y2030 = Date.UTC(2030, 0, 1)
const wholeSeconds = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/**
 * Realistic generators for the time declarations an API schema uses, keyed by their
 * representation id: durations of whole seconds up to a day, instants between 2020 and 2030.
 */
const REALISTIC_DECLARATIONS: Readonly<Record<string, () => SchemaAST.Link>> = {
  "effect/schema/Duration": () =>
    Schema.link<Duration.Duration>()(
      wholeSeconds(0, 86_400),
      SchemaTransformation.transform({ decode: Duration.seconds, encode: Duration.toSeconds })
    ),
  "effect/schema/DateTimeUtc": () =>
    Schema.link<DateTime.Utc>()(
      wholeSeconds(Y2020 / 1000, Y2030 / 1000),
      SchemaTransformation.transform({
        decode: (s: number) => DateTime.fromDateUnsafe(new Date(s * 1000)),
        encode: (d: DateTime.Utc) => Math.floor(DateTime.toEpochMillis(d) / 1000)
      })
    ),
  "effect/schema/Date": () =>
    Schema.link<Date>()(
      wholeSeconds(Y2020 / 1000, Y2030 / 1000),
      SchemaTransformation.transform({
        decode: (s: number) => new Date(s * 1000),
        encode: (d: Date) => Math.floor(d.getTime() / 1000)
      })
    )
}

const realisticDeclaration = (ast: SchemaAST.Declaration): SchemaAST.AST => {
  const representation: unknown = ast.annotations?.representation
  const id = typeof representation === "object" && representation !== null
    ? (representation as { readonly id?: unknown }).id
    : undefined
  if ((id === "effect/schema/Json" || id === "effect/schema/MutableJson") && ast.checks === undefined) {
    return realisticJson(ast.context)
  }
  const link = typeof id === "string" ? REALISTIC_DECLARATIONS[id] : undefined
  if (link === undefined || ast.checks !== undefined || ast.typeParameters.length > 0) return SchemaAST.toType(ast)
  return new SchemaAST.Declaration(
    [],
    ast.run,
    { ...ast.annotations, toCodecArbitrary: link },
    undefined,
    undefined,
    ast.context
  )
}

/**
 * A struct that also admits extra keys (a JSON Schema object without `additionalProperties:
 * false`): like a real API, it answers its declared fields only.
 */
const isOpenStruct = (ast: SchemaAST.Objects): boolean =>
  ast.propertySignatures.length > 0 && ast.indexSignatures.length > 0 && ast.checks === undefined

const jsonRoundTrip = (value: unknown): unknown => {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

/**
 * A filter for a node that has its own encoding (a transformation such as seconds on the wire →
 * `Duration` in the app): a generated value is kept only when it encodes to JSON and that JSON
 * decodes again under the node's codec. It discards, for instance, the infinite durations Effect
 * generates that `DurationFromMillis` cannot put on the wire.
 */
const roundTrip = (ast: SchemaAST.AST): SchemaAST.Filter<unknown> => {
  const codec = Schema.make<Schema.Codec<unknown, unknown>>(ast)
  const encode = Schema.encodeUnknownResult(codec)
  const decode = Schema.decodeUnknownResult(codec)
  return new SchemaAST.Filter(
    (input) => {
      try {
        const encoded = encode(input)
        if (Result.isSuccess(encoded) && Result.isSuccess(decode(jsonRoundTrip(encoded.success)))) return undefined
      } catch {
        // A value the codec cannot handle is discarded like any other rejected value.
      }
      return new SchemaIssue.InvalidValue({ message: "does not survive the wire" }, input)
    },
    { expected: "a value that survives the wire" }
  )
}

/**
 * Builds the realistic generation AST of a production schema (or of its narrowed schema): the
 * type side (encodings dropped) where strings get a word-like or `format`-shaped pattern hint,
 * record keys an identifier hint, unbounded numbers small integer hints, open JSON (`Unknown`,
 * `Any`, `object`, `Schema.Json`) a realistic JSON generator, structs open to extra keys only
 * their declared fields, and primitives with `examples` pick among them.
 * Durations, UTC date-times and dates are recent and whole-second. Every node that had an
 * encoding keeps only values that survive a JSON round trip through it. Other declarations and
 * template literals are kept as Effect generates them. The result validates
 * exactly what the input's type side validates, apart from the round-trip filters.
 */
export const realisticAst = (root: SchemaAST.AST): SchemaAST.AST => {
  const memo = new Map<SchemaAST.AST, SchemaAST.AST>()
  const go = (ast: SchemaAST.AST, forKey: boolean): SchemaAST.AST => {
    const cached = forKey ? undefined : memo.get(ast)
    if (cached !== undefined) return cached
    const typed = typeSide(ast, forKey)
    const out = ast.encoding === undefined || ast._tag === "Suspend"
      ? typed
      : new SchemaAST.Union([typed], undefined, undefined, [roundTrip(ast)], undefined, typed.context)
    if (!forKey) memo.set(ast, out)
    return out
  }
  const typeSide = (ast: SchemaAST.AST, forKey: boolean): SchemaAST.AST => {
    const examples = forKey ? undefined : fromExamples(ast)
    if (examples !== undefined && (ast._tag === "String" || ast._tag === "Number" || ast._tag === "Boolean")) {
      return examples
    }
    switch (ast._tag) {
      case "String":
        return realisticString(SchemaAST.toType(ast), forKey)
      case "Number":
        return realisticNumber(SchemaAST.toType(ast))
      case "Unknown":
      case "Any":
        return realisticJson(ast.context)
      case "ObjectKeyword":
        return realisticRecordJson(ast.context)
      case "Objects":
        return new SchemaAST.Objects(
          ast.propertySignatures.map((p) => new SchemaAST.PropertySignature(p.name, go(p.type, false))),
          isOpenStruct(ast)
            ? []
            : ast.indexSignatures.map((i) => new SchemaAST.IndexSignature(go(i.parameter, true), go(i.type, false))),
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Arrays":
        return new SchemaAST.Arrays(
          ast.isMutable,
          ast.elements.map((e) => go(e, false)),
          ast.rest.map((r) => go(r, false)),
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Union":
        return new SchemaAST.Union(
          ast.types.map((t) => go(t, forKey)),
          ast.options,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Suspend": {
        const thunk = ast.thunk
        return new SchemaAST.Suspend(() => go(thunk(), false), ast.annotations, undefined, undefined, ast.context)
      }
      case "Declaration":
        return realisticDeclaration(ast)
      default:
        return SchemaAST.toType(ast)
    }
  }
  return go(root, false)
}
