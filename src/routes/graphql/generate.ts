/**
 * Seeded values shaped by a GraphQL selection set: the default field resolver and type resolver
 * graphql-js's `execute` runs a `graphql` route's operation with. Every generated object carries
 * its seed; a field's seed mixes its parent's with its response key (its alias, when it has one),
 * a list item's with its index, so an answer is a pure function of (request seed, path) whatever
 * order graphql-js resolves in. Leaves draw from the same realistic values as `jsonSchema` routes
 * (`realism.ts`: the field's name, or a `fields` override, picks the kind: `email`, `url`,
 * `createdAt`, ...), sampled once per kind into a pool and picked per field by seed. A user's
 * `resolvers` answer first; what they return is walked like anything else, the fields it lacks
 * generated.
 */
import { Arbitrary, Effect, Schema } from "effect"
import {
  type GraphQLFieldResolver,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLTypeResolver,
  isEnumType,
  isListType,
  isNonNullType,
  isScalarType
} from "graphql"
import { avalanche, hashString } from "../../registry/seed.ts"
import type { SimRequest } from "../../registry/route.ts"
import { GENERATION_SIZE } from "../jsonSchema/generate.ts"
import type { FieldHint, FieldHints } from "../jsonSchema/fieldHints.ts"
import { realisticAst } from "../jsonSchema/realism.ts"
import { kindOfName } from "../jsonSchema/realisticValues.ts"

/** What a resolver of a `graphql` route sees besides its arguments. */
export interface GraphqlResolverContext {
  /** The request being answered. */
  readonly request: SimRequest
  /** The object the field belongs to (what its parent's resolver returned, or a generated one). */
  readonly parent: unknown
  /** The field's seed: what a generated value there would be drawn from. */
  readonly seed: number
}

/**
 * A fixed answer for one field: a value (an object's missing fields are generated), or a function
 * of the field's arguments that returns one (or a promise of one). A throw is a field error in the
 * answer's `errors`, with the field's path, as from a real server.
 */
export type GraphqlResolver = unknown

/** Resolvers by type and field: `{ Query: { viewer: { login: "ada" } }, User: { email: (args) => ... } }`. */
export type GraphqlResolvers = Readonly<Record<string, Readonly<Record<string, GraphqlResolver>>>>

/**
 * The generator of a custom scalar's values, by seed: `{ DateTime: (seed) => new Date(...).toISOString() }`.
 * A scalar without one gets a realistic string of the kind its name suggests (`DateTime`, `URL`,
 * `Email`, `UUID`), else of the kind its field's name suggests; one named like JSON (`JSON`,
 * `JSONObject`) a small object.
 */
export type GraphqlScalarGenerators = Readonly<Record<string, (seed: number) => unknown>>

/** How many items a generated list holds: from `min` to `max`, drawn per list. */
export interface ListSize {
  readonly min: number
  readonly max: number
}

/** What generation needs for one request: the bounds and hints of the route, and the count of values so far. */
export interface Generation {
  readonly request: SimRequest
  readonly resolvers: GraphqlResolvers
  readonly scalars: GraphqlScalarGenerators
  readonly fields: FieldHints | undefined
  /** Whether `fields` has dotted keys: only then does an object carry the path of field names to it. */
  readonly dotted: boolean
  readonly listSize: ListSize
  /** The most values one answer may generate (`limits.values`). */
  readonly maxValues: number
  /** Each leaf field's draw, kept by the route across requests (see `drawOf`). */
  readonly draws: Map<object | string, (seed: number) => unknown>
  values: number
}

/** The seed a generated object (or the root) carries. */
const SEED: unique symbol = Symbol("simnet/graphql/seed")
/** The dotted path of field names to a generated object, when hints name dotted paths. */
const PATH: unique symbol = Symbol("simnet/graphql/path")

interface Generated {
  readonly [SEED]: number
  readonly [PATH]?: string | undefined
}

/** The root value of an operation: the request's seed. */
export const rootValue = (seed: number): Generated => ({ [SEED]: seed })

/**
 * A child's seed from its parent's and its key (a response key, or an index): the key hashed on
 * its own and folded in through the avalanche step, with no string made per value.
 */
const mix = (seed: number, key: string | number): number =>
  avalanche(seed ^ (typeof key === "number" ? Math.imul(key + 1, 0x9e3779b1) : hashString(key)))

/** The seed of a field: from its parent's, when generated, else from the whole response path. */
const seedOf = (parent: unknown, info: GraphQLResolveInfo, root: number): number => {
  const carried = typeof parent === "object" && parent !== null ? (parent as Generated)[SEED] : undefined
  if (carried !== undefined) return mix(carried, info.path.key)
  const keys: Array<string | number> = []
  for (let at: GraphQLResolveInfo["path"] | undefined = info.path; at !== undefined; at = at.prev) keys.push(at.key)
  return mix(root, keys.reverse().join("."))
}

/** A number in [0, n) from a seed. */
const pick = (seed: number, n: number): number => seed % n

// ---- realistic leaves --------------------------------------------------------------------

type Base = "string" | "int" | "float"

/** How many values of one kind are sampled once and picked from by seed. */
const POOL = 64
const pools = new Map<string, ReadonlyArray<unknown>>()
const BASES = { string: Schema.String, int: Schema.Int, float: Schema.Number } as const

/**
 * The values a field of `base` with `hint` draws from: sampled once from `realisticAst`, the
 * realism `jsonSchema` routes use, for a one-field struct whose field has that hint; kept by
 * (base, hint) for every route.
 */
const poolOf = (base: Base, hint: FieldHint): ReadonlyArray<unknown> => {
  const key = `${base}\u0000${typeof hint === "string" ? hint : JSON.stringify(hint.values)}`
  let pool = pools.get(key)
  if (pool === undefined) {
    const ast = realisticAst(Schema.Struct({ value: BASES[base] }).ast, { fields: { value: hint } })
    const samples = Effect.runSync(
      Arbitrary.sampleEffect(Arbitrary.schema(Schema.make<Schema.Top>(ast)), {
        count: POOL,
        seed: 1,
        size: GENERATION_SIZE
      })
    )
    pool = samples.map((sample) => (sample as { readonly value: unknown }).value)
    // Hints given as values are few per route, but a caller could vary them endlessly.
    if (pools.size > 4096) pools.clear()
    pools.set(key, pool)
  }
  return pool
}

/**
 * The override `realisticAst` is given for a field: the route's `fields` override (by dotted
 * path, then name), else the kind the field's name suggests, else `fallback`.
 */
const overrideOf = (name: string, path: string | undefined, generation: Generation, fallback: string): FieldHint => {
  const given = (path === undefined ? undefined : generation.fields?.[path]) ?? generation.fields?.[name]
  return given ?? kindOfName(name) ?? fallback
}

const JSON_LIKE = /^(json|jsonobject|object|map|any)$/i

/** How a leaf's value is drawn from its seed: made once per field, used for every value of it. */
type Draw = (seed: number) => unknown

const fromPool =
  (values: ReadonlyArray<unknown>): Draw =>
  (seed) =>
    values[pick(seed, values.length)]

/** The draw of a scalar: the built-ins by their type, a custom scalar by its generator or name. */
const scalarDraw = (type: GraphQLNamedType, name: string, path: string | undefined, generation: Generation): Draw => {
  switch (type.name) {
    case "Boolean":
      return (seed) => (seed & 1) === 1
    case "Int":
      return fromPool(poolOf("int", overrideOf(name, path, generation, "plain")))
    case "Float":
      return fromPool(poolOf("float", overrideOf(name, path, generation, "plain")))
    case "String":
      return fromPool(poolOf("string", overrideOf(name, path, generation, "plain")))
    case "ID":
      return fromPool(poolOf("string", overrideOf(name, path, generation, "uuid")))
  }
  const own = generation.scalars[type.name]
  if (own !== undefined) return own
  if (JSON_LIKE.test(type.name)) {
    const words = poolOf("string", "plain")
    return (seed) => ({ [String(words[pick(seed, words.length)])]: words[pick(mix(seed, 1), words.length)] })
  }
  return fromPool(poolOf("string", kindOfName(type.name) ?? overrideOf(name, path, generation, "plain")))
}

/**
 * The draw of a leaf field, made on its first value and kept by the route for every request (by
 * the field's definition, or by its dotted path when `fields` names dotted paths).
 */
const drawOf = (
  type: GraphQLNamedType,
  name: string,
  path: string | undefined,
  key: object | string,
  generation: Generation
): Draw => {
  let draw = generation.draws.get(key)
  if (draw === undefined) {
    if (isEnumType(type)) {
      const values = type.getValues().map((value) => value.value as unknown)
      draw = fromPool(values)
    } else {
      draw = scalarDraw(type, name, path, generation)
    }
    generation.draws.set(key, draw)
  }
  return draw
}

// ---- the resolvers ------------------------------------------------------------------------

const limitError = (generation: Generation) =>
  new GraphQLError(`simnet: the answer would hold more than ${generation.maxValues} values (limits.values)`, {
    extensions: { code: "SIMNET_LIMIT", limit: "values", bound: generation.maxValues }
  })

const count = (generation: Generation, n: number): void => {
  generation.values += n
  if (generation.values > generation.maxValues) throw limitError(generation)
}

/** Whether an answer went over its values bound (the route answers one request error for it). */
export const overLimit = (generation: Generation): boolean => generation.values > generation.maxValues

/** The value of a field of `type` at `seed`: a leaf, an object (its seed carried), or a list of them; `key` keeps its leaves' draw. */
const generate = (
  type: GraphQLOutputType,
  name: string,
  path: string | undefined,
  key: object | string,
  seed: number,
  generation: Generation
): unknown => {
  const inner = isNonNullType(type) ? type.ofType : type
  if (isListType(inner)) {
    const { min, max } = generation.listSize
    const length = min + pick(mix(seed, "length"), max - min + 1)
    count(generation, length)
    const items: Array<unknown> = []
    for (let i = 0; i < length; i++) items.push(generate(inner.ofType, name, path, key, mix(seed, i), generation))
    return items
  }
  if (isScalarType(inner) || isEnumType(inner)) return drawOf(inner, name, path, key, generation)(seed)
  // An object, interface or union: its fields (and an abstract type's concrete type) follow from the seed.
  return path === undefined ? { [SEED]: seed } : { [SEED]: seed, [PATH]: path }
}

/** What a user's resolver for this field is, if any. */
const userResolver = (
  generation: Generation,
  info: GraphQLResolveInfo
): { readonly value: GraphqlResolver } | undefined => {
  const byField = generation.resolvers[info.parentType.name]
  return byField !== undefined && Object.hasOwn(byField, info.fieldName)
    ? { value: byField[info.fieldName] }
    : undefined
}

/**
 * The default field resolver: a user's resolver when it names the field, else the parent's own
 * property of that name (a value a resolver returned), else a generated value.
 */
export const fieldResolver =
  (root: number): GraphQLFieldResolver<unknown, Generation> =>
  (parent, args, generation, info) => {
    count(generation, 1)
    const seed = seedOf(parent, info, root)
    const fixed = userResolver(generation, info)
    if (fixed !== undefined) {
      const value = fixed.value
      return typeof value === "function"
        ? (value as (args: unknown, context: GraphqlResolverContext) => unknown)(args, {
            request: generation.request,
            parent,
            seed
          })
        : value
    }
    if (typeof parent === "object" && parent !== null && !(SEED in parent) && Object.hasOwn(parent, info.fieldName)) {
      return (parent as Record<string, unknown>)[info.fieldName]
    }
    const parentPath = typeof parent === "object" && parent !== null ? (parent as Generated)[PATH] : undefined
    const path = generation.dotted
      ? parentPath === undefined || parentPath === ""
        ? info.fieldName
        : `${parentPath}.${info.fieldName}`
      : undefined
    return generate(
      info.returnType,
      info.fieldName,
      path,
      path ?? info.parentType.getFields()[info.fieldName],
      seed,
      generation
    )
  }

/**
 * The concrete type of an interface or union value: its own `__typename` (a resolver's value),
 * else one of the possible types drawn from the value's seed.
 */
export const typeResolver: GraphQLTypeResolver<unknown, Generation> = (value, _generation, info, abstractType) => {
  if (typeof value === "object" && value !== null) {
    const named = (value as { readonly __typename?: unknown }).__typename
    if (typeof named === "string") return named
  }
  const possible = info.schema.getPossibleTypes(abstractType)
  if (possible.length === 0) return undefined
  const seed = typeof value === "object" && value !== null ? ((value as Generated)[SEED] ?? 0) : 0
  return possible[pick(mix(seed, "__typename"), possible.length)].name
}
