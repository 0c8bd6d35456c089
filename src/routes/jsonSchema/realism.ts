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
import { DateTime, Duration, Order, Schema, SchemaAST, SchemaTransformation } from "effect"
import { FORMAT_KINDS, REALISTIC_KINDS, type RealisticKind, type StringValues } from "./realisticValues.ts"
import { type FieldHints, fromValues, hintOf, isValuesHint, type Hint } from "./fieldHints.ts"
import { survivesWire } from "./wire.ts"

export { checkFieldHints, type FieldHint, type FieldHints } from "./fieldHints.ts"

type FilterConstraint = Schema.Annotations.ToArbitrary.FilterConstraint<unknown>

/**
 * The words plain strings are drawn from. A union of literals samples several
 * times faster than a pattern (and 64 members is where the union's cost stays small); strings
 * with length bounds draw from the words that fit, and fall back to a pattern when none does.
 * Record keys keep a pattern: an index signature's key must stay a string schema.
 */
const WORDS: ReadonlyArray<string> = [
  "alpha",
  "amber",
  "apex",
  "atlas",
  "beacon",
  "birch",
  "blaze",
  "breeze",
  "cedar",
  "cobalt",
  "comet",
  "coral",
  "crest",
  "delta",
  "drift",
  "ember",
  "falcon",
  "fern",
  "flint",
  "forge",
  "frost",
  "glade",
  "granite",
  "harbor",
  "hazel",
  "horizon",
  "indigo",
  "iris",
  "jade",
  "juniper",
  "kestrel",
  "lagoon",
  "lark",
  "lumen",
  "maple",
  "meadow",
  "mesa",
  "nebula",
  "nimbus",
  "north",
  "oak",
  "onyx",
  "orbit",
  "pebble",
  "pine",
  "prism",
  "quartz",
  "raven",
  "ridge",
  "river",
  "sable",
  "sage",
  "sierra",
  "slate",
  "spruce",
  "summit",
  "tidal",
  "timber",
  "topaz",
  "umber",
  "vale",
  "willow",
  "zenith",
  "zephyr"
]
/** Lower-case tokens, for strings whose length bounds no word fits. */
const TEXT_PATTERN = "^[a-z][a-z0-9]*$"

/**
 * The longest `minLength` that gets realistic text. Generating from a pattern costs time that
 * grows faster than the length: registering an object of 60 strings of `minLength: 1000` takes
 * about 3.3 s from `textPattern` and 90 ms from Effect's own generator, which a string required
 * to be longer keeps (as realistic as such a string can be).
 */
const REALISTIC_TEXT_MAX = 64

/**
 * `TEXT_PATTERN` with the length bounds in its quantifier, so that every string it generates
 * already fits them: with only `*`, strings came out at random lengths and the length check
 * discarded the short ones, many attempts a value.
 */
const textPattern = (seen: Seen): string => {
  const min = Math.max(1, seen.minLength ?? 1)
  const max = seen.maxLength
  if (min <= 1 && max === undefined) return TEXT_PATTERN
  // Without an upper bound, realistic text runs a little past the lower one.
  return `^[a-z][a-z0-9]{${min - 1},${Math.max(min, max ?? min + 16) - 1}}$`
}
/** Identifier-like record keys, likewise. */
const KEY_PATTERN = "^[a-z][a-z0-9_-]*$"
/** Bounds for numbers whose schema states none. */
const NUMBER_RANGE = 1000

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
  const seen: Seen = {
    opaque: false,
    patterns: false,
    minimum: false,
    maximum: false,
    minLength: undefined,
    maxLength: undefined
  }
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
  value === null ||
  typeof value === "string" ||
  typeof value === "boolean" ||
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

/** Literal members, grouped by 8 as `wordGroups` explains. */
const literalGroups = (values: ReadonlyArray<string>): Array<SchemaAST.AST> => wordGroups(values)

/**
 * The strings of a realistic kind that fit the schema's length bounds, as an AST, or `undefined`
 * when none can (the caller falls back to plain words).
 */
const kindString = (ast: SchemaAST.String, generated: StringValues, seen: Seen): SchemaAST.AST | undefined => {
  const min = seen.minLength ?? 0
  const max = seen.maxLength ?? Infinity
  if (generated._tag === "values") {
    const fitting = generated.values.filter((v) => v.length >= min && v.length <= max)
    return fitting.length === 0
      ? undefined
      : new SchemaAST.Union(literalGroups(fitting), undefined, ast.annotations, ast.checks, undefined, ast.context)
  }
  if (generated.minLength < min || generated.maxLength > max) return undefined
  return new SchemaAST.String(ast.annotations, withChecks(ast, pattern(generated.pattern)), undefined, ast.context)
}

const realisticString = (
  ast: SchemaAST.String,
  forKey: boolean,
  kind: (RealisticKind & { readonly explicit?: true }) | undefined
): SchemaAST.AST => {
  const seen = inspectChecks(ast.checks)
  if (seen.opaque || seen.patterns || seen.maxLength === 0 || (seen.minLength ?? 0) > REALISTIC_TEXT_MAX) return ast
  if (forKey)
    return new SchemaAST.String(ast.annotations, withChecks(ast, pattern(KEY_PATTERN)), undefined, ast.context)
  const format = ast.annotations?.format
  const formatKind =
    typeof format === "string" && format in FORMAT_KINDS ? REALISTIC_KINDS[FORMAT_KINDS[format]] : undefined
  // A declared format outranks what the name suggests; an explicit override outranks both.
  for (const candidate of kind?.explicit === true ? [kind, formatKind] : [formatKind, kind]) {
    if (candidate?.string === undefined) continue
    const out = kindString(ast, candidate.string, seen)
    if (out !== undefined) return out
  }
  const words = WORDS.filter((w) => w.length >= (seen.minLength ?? 0) && w.length <= (seen.maxLength ?? Infinity))
  if (words.length > 0)
    return new SchemaAST.Union(wordGroups(words), undefined, ast.annotations, ast.checks, undefined, ast.context)
  return new SchemaAST.String(ast.annotations, withChecks(ast, pattern(textPattern(seen))), undefined, ast.context)
}

/**
 * Numbers with both bounds keep Effect's generator. Otherwise they are generated as integers
 * (valid for any number schema): near the one stated bound, or within the range of the field's
 * realistic kind (an `age`, a `year`, a `port`), else within [0, NUMBER_RANGE].
 */
const realisticNumber = (ast: SchemaAST.Number, kind: RealisticKind | undefined): SchemaAST.AST => {
  const seen = inspectChecks(ast.checks)
  if (seen.opaque || (seen.minimum && seen.maximum)) return ast
  const range = kind?.number ?? { minimum: 0, maximum: NUMBER_RANGE }
  const constraint: FilterConstraint =
    seen.minimum || seen.maximum
      ? { number: "integer" }
      : {
          order: Order.Number as Order.Order<unknown>,
          minimum: range.minimum,
          maximum: range.maximum,
          number: "integer"
        }
  return new SchemaAST.Number(ast.annotations, withChecks(ast, constraint), undefined, ast.context)
}

/** Realistic open JSON: short records with identifier keys, words, small finite numbers. */
const realisticJson = (context: SchemaAST.Context | undefined): SchemaAST.AST => {
  let json: SchemaAST.AST | undefined
  const self = new SchemaAST.Suspend(() => json!)
  json = new SchemaAST.Union(
    [
      SchemaAST.null,
      realisticNumber(SchemaAST.number, undefined),
      SchemaAST.boolean,
      realisticString(SchemaAST.string, false, undefined),
      new SchemaAST.Arrays(false, [], [self]),
      new SchemaAST.Objects(
        [],
        [new SchemaAST.IndexSignature(realisticString(SchemaAST.string, true, undefined), self)]
      )
    ],
    undefined,
    undefined,
    undefined,
    undefined,
    context
  )
  return json
}

const realisticRecordJson = (context: SchemaAST.Context | undefined): SchemaAST.AST =>
  new SchemaAST.Objects(
    [],
    [new SchemaAST.IndexSignature(realisticString(SchemaAST.string, true, undefined), realisticJson(undefined))],
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

/**
 * A declaration generated realistically: a time one from `REALISTIC_DECLARATIONS`, open JSON from
 * `realisticJson`, and one with type parameters (a class's fields, an `Option`'s or a `Map`'s
 * members) with each parameter made realistic by `recur`, so a class's `email` field reads as an
 * email and its `Date` as a recent date. Effect derives the declaration's values from its
 * parameters, and decodes them with its own parser, which checks them against those parameters.
 */
const realisticDeclaration = (
  ast: SchemaAST.Declaration,
  recur: (parameter: SchemaAST.AST) => SchemaAST.AST
): SchemaAST.AST => {
  const representation: unknown = ast.annotations?.representation
  const id =
    typeof representation === "object" && representation !== null
      ? (representation as { readonly id?: unknown }).id
      : undefined
  if ((id === "effect/schema/Json" || id === "effect/schema/MutableJson") && ast.checks === undefined) {
    return realisticJson(ast.context)
  }
  if (ast.typeParameters.length > 0) {
    return new SchemaAST.Declaration(
      ast.typeParameters.map(recur),
      ast.run,
      ast.annotations,
      ast.checks,
      undefined,
      ast.context
    )
  }
  const link = typeof id === "string" ? REALISTIC_DECLARATIONS[id] : undefined
  if (link === undefined || ast.checks !== undefined) return SchemaAST.toType(ast)
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

/**
 * Options of `realisticAst`: per-field overrides, and `allOptionals` to generate every optional
 * property of a struct (outside recursive schemas, where that would never end), as a mock of an
 * API description answers with whole objects.
 */
export interface RealismOptions {
  readonly fields?: FieldHints | undefined
  readonly allOptionals?: boolean | undefined
}

/**
 * Builds the realistic generation AST of a production schema (or of its narrowed schema): the
 * type side (encodings dropped) where strings get values that follow the field's name or
 * `format` from the table in `realisticValues.ts` (`email`, `homepage`, `createdAt`, `country`,
 * ...; `fields` overrides them per field) and otherwise a word, record keys an identifier hint,
 * unbounded numbers small integers (or the range their name suggests: `age`, `year`), open JSON
 * (`Unknown`, `Any`, `object`, `Schema.Json`) a realistic JSON generator, structs open to extra
 * keys only their declared fields, and primitives with `examples` pick among them.
 * Durations, UTC date-times and dates are recent and whole-second; a declaration with type
 * parameters (a class, an `Option`, a `Map`) has each made realistic. Every node that had an
 * encoding keeps only values that survive a JSON round trip over its wire (`wire.ts`). Other
 * declarations and template literals are kept as Effect generates them. The result validates
 * exactly what the input's type side validates, apart from the round-trip filters.
 */
export const realisticAst = (root: SchemaAST.AST, options: RealismOptions = {}): SchemaAST.AST => {
  const fields = options.fields
  const memo = new Map<SchemaAST.AST, Map<Hint | string, SchemaAST.AST>>()
  const dotted = Object.keys(fields ?? {}).some((key) => key.includes("."))
  /** `path` is the dotted path of field names, or `undefined` inside a recursive schema. */
  const go = (ast: SchemaAST.AST, forKey: boolean, hint: Hint, path: string | undefined): SchemaAST.AST => {
    const key: Hint | string = dotted && path !== undefined ? `${path}` : hint
    const cached = forKey ? undefined : memo.get(ast)?.get(key)
    if (cached !== undefined) return cached
    const typed = typeSide(ast, forKey, hint, path)
    const out =
      ast.encoding === undefined || ast._tag === "Suspend"
        ? typed
        : new SchemaAST.Union([typed], undefined, undefined, [survivesWire(ast)], undefined, typed.context)
    if (!forKey) {
      let byHint = memo.get(ast)
      if (byHint === undefined) memo.set(ast, (byHint = new Map()))
      byHint.set(key, out)
    }
    return out
  }
  const typeSide = (ast: SchemaAST.AST, forKey: boolean, hint: Hint, path: string | undefined): SchemaAST.AST => {
    const examples = forKey ? undefined : fromExamples(ast)
    if (examples !== undefined && (ast._tag === "String" || ast._tag === "Number" || ast._tag === "Boolean")) {
      return examples
    }
    if (isValuesHint(hint) && !forKey) {
      const fixed = fromValues(ast, hint.values)
      if (fixed !== undefined) return fixed
    }
    const kind = isValuesHint(hint) ? undefined : hint
    switch (ast._tag) {
      case "String":
        return realisticString(SchemaAST.toType(ast), forKey, kind)
      case "Number":
        return realisticNumber(SchemaAST.toType(ast), kind)
      case "Unknown":
      case "Any":
        return realisticJson(ast.context)
      case "ObjectKeyword":
        return realisticRecordJson(ast.context)
      case "Objects":
        return new SchemaAST.Objects(
          ast.propertySignatures.map((p) => {
            const name = String(p.name)
            const childPath = path === undefined ? undefined : path === "" ? name : `${path}.${name}`
            const type = go(p.type, false, hintOf(name, childPath ?? name, fields), childPath)
            // A one-member union without the optional context: the key is always generated.
            const present =
              options.allOptionals === true && path !== undefined && SchemaAST.isOptional(p.type)
                ? new SchemaAST.Union([type])
                : type
            return new SchemaAST.PropertySignature(p.name, present)
          }),
          isOpenStruct(ast)
            ? []
            : ast.indexSignatures.map(
                (i) =>
                  new SchemaAST.IndexSignature(
                    go(i.parameter, true, undefined, undefined),
                    go(i.type, false, undefined, path)
                  )
              ),
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Arrays":
        return new SchemaAST.Arrays(
          ast.isMutable,
          ast.elements.map((e) => go(e, false, hint, path)),
          ast.rest.map((r) => go(r, false, hint, path)),
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Union":
        return new SchemaAST.Union(
          ast.types.map((t) => go(t, forKey, hint, path)),
          ast.options,
          ast.annotations,
          ast.checks,
          undefined,
          ast.context
        )
      case "Suspend": {
        const thunk = ast.thunk
        return new SchemaAST.Suspend(
          () => go(thunk(), false, hint, undefined),
          ast.annotations,
          undefined,
          undefined,
          ast.context
        )
      }
      case "Declaration":
        return realisticDeclaration(ast, (parameter) => go(parameter, false, undefined, path))
      default:
        return SchemaAST.toType(ast)
    }
  }
  return go(root, false, undefined, "")
}
