/**
 * The generation pipeline of a `jsonSchema` route, compiled once per route and run per request:
 * sample a value from `Arbitrary.schema(narrow ?? schema)` with a seed, encode it on the
 * production schema's wire (its own encoding when that is JSON, else Effect's JSON codec of it, as
 * the app's `schemaBodyJson` reads it: `wire.ts`), serialise it, and prove that the bytes decode
 * on that wire before anyone sees them. A value that fails any step is a `GeneratedValueRejected`,
 * never a body.
 *
 * Compilation also probes a handful of seeds, so a schema that cannot be generated (a
 * declaration without an arbitrary, an impossible refinement, a narrowed schema that does not fit
 * the production one, a value with no JSON form) fails when the route is registered, naming the
 * schema path and what to do, rather than at the first request.
 */
import { Arbitrary, Effect, Exit, Result, Schema, SchemaAST, SchemaIssue } from "effect"
import { GeneratedValueRejected, InvalidRouteSpec } from "../../SimnetError.ts"
import { boundedMemo, errorMessage } from "../../registry/util.ts"
import { checkFieldHints, type FieldHints, realisticAst } from "./realism.ts"
import { wireCodec } from "./wire.ts"

/**
 * The local size scale handed to Effect's `Arbitrary` (its default is 10): collections and
 * unconstrained strings stay short, so bodies read like an API's rather than a fuzzer's.
 */
export const GENERATION_SIZE = 6

/** Seeds sampled at compile time to prove the schema can be generated and decoded. */
const PROBE_SEEDS = [0, 1, 2, 3, 4, 5, 6, 7]

/** Discarded attempts allowed per generated value before giving up on a seed. */
const MAX_DISCARDS = 200

/**
 * What one generated body may cost: at most `bytes` of JSON (8 MiB) and `ms` of generation (2 s,
 * wall clock). Past either it is a `GeneratedValueRejected`, never a body. The schema bounds
 * checked at registration (`GENERATION_LIMITS`) keep every allowed schema far below both; the
 * budget is the guard behind them, for what the estimate cannot see (a union of large branches,
 * a recursive schema). The time budget is a guard, not part of the answer: within it the body is
 * a pure function of the seed.
 */
export const GENERATION_BUDGET = { bytes: 8 * 1024 * 1024, ms: 2_000 } as const

/**
 * A compiled generator: `generate(seed)` returns the JSON body for that seed, or the reason no
 * body can be served. Pure: the same seed always gives the same bytes.
 */
export interface CompiledGenerator {
  readonly generate: (seed: number) => Result.Result<string, GeneratedValueRejected>
  /** `true` when the realistic rewrite is in use, `false` when Effect's raw generator had to be used. */
  readonly realistic: boolean
}

/**
 * Options of `compileGenerator`: the schema values are generated from (`narrow`, defaulting to
 * the production schema), the route label errors name, and the generation size.
 */
export interface GeneratorOptions {
  readonly narrow?: Schema.Top | undefined
  readonly label: string
  readonly size?: number | undefined
  /** Realistic-value overrides by field name or dotted path (see `FieldHints`). */
  readonly fields?: FieldHints | undefined
  /** Generate every optional property (outside recursive schemas). */
  readonly allOptionals?: boolean | undefined
}

/**
 * What a route whose schema cannot be served can do, said in every registration error of
 * generation: what generates, or what puts a value on the wire, is the schema's to say.
 */
const REMEDY =
  "to serve it, generate from a narrower schema whose values decode under this one (`Route.json(match, schema, { narrow })`), " +
  "or annotate the node: `toCodecArbitrary` on a declaration, `arbitraryConstraint` on a filter, `toCodecJson` on a value with no JSON form"

const isIdentifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Formats a schema path as an accessor chain from the root `$`: `$.models["gpt-4o"].limit[0]`.
 */
export const formatSchemaPath = (path: ReadonlyArray<PropertyKey>): string =>
  "$" +
  path
    .map((key) =>
      typeof key === "number"
        ? `[${key}]`
        : typeof key === "string" && isIdentifier.test(key)
          ? `.${key}`
          : `[${JSON.stringify(String(key))}]`
    )
    .join("")

/** Effect's derivation errors end in `\n  at ["a"][0]`; recover the path from that suffix. */
const pathOfDerivationError = (message: string): ReadonlyArray<PropertyKey> => {
  const at = /\n\s+at ((?:\[[^\]]*\])+)\s*$/.exec(message)
  if (at === null) return []
  return [...at[1].matchAll(/\[([^\]]*)\]/g)].map(([, raw]) => {
    try {
      const parsed: unknown = JSON.parse(raw)
      return typeof parsed === "number" || typeof parsed === "string" ? parsed : raw
    } catch {
      return raw
    }
  })
}

const firstLine = (message: string): string => message.split("\n")[0]

const standardFormatter = SchemaIssue.makeFormatterStandardSchemaV1()
const defaultFormatter = SchemaIssue.makeFormatterDefault()

const issueOf = (issue: SchemaIssue.Issue): { readonly path: string; readonly message: string } => {
  const [first] = standardFormatter(issue).issues
  return first === undefined
    ? { path: "$", message: defaultFormatter(issue) }
    : {
        path: formatSchemaPath((first.path ?? []).map((p) => (typeof p === "object" ? p.key : p))),
        message: first.message
      }
}

/**
 * Whether `JSON.parse(JSON.stringify(value))` would give back a structurally identical value:
 * only null, booleans, strings, finite numbers other than -0, arrays and plain objects without
 * `undefined` members. For such values the decode check can run on the value itself and skip
 * re-parsing the body it has just serialised.
 */
const isPlainJson = (value: unknown): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0)
    case "object": {
      if (value === null) return true
      if (Array.isArray(value)) return value.every(isPlainJson)
      const proto: unknown = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) return false
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key])) return false
      }
      return true
    }
    default:
      return false
  }
}

const sampleOne = (arbitrary: Arbitrary.Arbitrary<unknown>, seed: number, size: number) =>
  Effect.runSyncExit(Arbitrary.sampleEffect(arbitrary, { count: 1, seed, size, maxDiscards: MAX_DISCARDS }))

const derive = (ast: SchemaAST.AST): Result.Result<Arbitrary.Arbitrary<unknown>, Error> => {
  try {
    return Result.succeed(Arbitrary.schema(Schema.make<Schema.Top>(ast)))
  } catch (error) {
    return Result.fail(error instanceof Error ? error : new Error(String(error)))
  }
}

const sampleable = (ast: SchemaAST.AST, size: number): boolean => {
  const arbitrary = derive(ast)
  return Result.isSuccess(arbitrary) && Exit.isSuccess(sampleOne(arbitrary.success, 0, size))
}

/**
 * Finds the deepest node of a type AST that cannot be sampled, descending through struct fields,
 * record values and tuple elements (not into unions or recursive references, where one failing
 * member does not make the whole unsatisfiable).
 */
const locateUnsampleable = (
  ast: SchemaAST.AST,
  path: ReadonlyArray<PropertyKey>,
  size: number
): ReadonlyArray<PropertyKey> => {
  const children: Array<readonly [PropertyKey, SchemaAST.AST]> = []
  if (ast._tag === "Objects") {
    for (const p of ast.propertySignatures) children.push([p.name, p.type])
    ast.indexSignatures.forEach((i, n) => {
      children.push([`<value ${n}>`, i.type])
    })
  } else if (ast._tag === "Arrays") {
    ast.elements.forEach((e, n) => {
      children.push([n, e])
    })
    ast.rest.forEach((r, n) => {
      children.push([ast.elements.length + n, r])
    })
  }
  for (const [key, child] of children) {
    if (!sampleable(child, size)) return locateUnsampleable(child, [...path, key], size)
  }
  return path
}

/**
 * Compiles the generation pipeline for a production schema. Fails with `InvalidRouteSpec` when no
 * value can be generated (its `path` names the schema path, e.g. `$.limit.context`), or with
 * `GeneratedValueRejected` when generated values do not encode and decode under the production
 * schema (a narrowed schema that does not fit, a type with no JSON form).
 *
 * The realistic rewrite (`realisticAst`) is tried first; if it cannot serve the probe seeds but
 * Effect's raw generator can, the raw generator is used.
 */
export const compileGenerator = (
  schema: Schema.Codec<unknown, unknown>,
  options: GeneratorOptions
): Result.Result<CompiledGenerator, InvalidRouteSpec | GeneratedValueRejected> => {
  // A compiled generator is a pure function of its schema and options: one compiled for a schema
  // (a family's, registered again in every fresh network of a property test) is compiled once.
  if (options.fields !== undefined) return compileGeneratorNow(schema, options)
  let byNarrow = compiledBySchema.get(schema)
  if (byNarrow === undefined) compiledBySchema.set(schema, (byNarrow = new WeakMap()))
  const narrow = options.narrow ?? schema
  let byOptions = byNarrow.get(narrow)
  // Bounded per schema: labels are few per route, but a caller could vary them endlessly.
  if (byOptions === undefined) byNarrow.set(narrow, (byOptions = boundedMemo(64)))
  return byOptions(`${options.label}\u0000${options.size ?? ""}\u0000${options.allOptionals === true}`, () =>
    compileGeneratorNow(schema, options)
  )
}

type Compiled = Result.Result<CompiledGenerator, InvalidRouteSpec | GeneratedValueRejected>
const compiledBySchema = new WeakMap<object, WeakMap<object, (key: string, make: () => Compiled) => Compiled>>()

const compileGeneratorNow = (
  schema: Schema.Codec<unknown, unknown>,
  options: GeneratorOptions
): Result.Result<CompiledGenerator, InvalidRouteSpec | GeneratedValueRejected> => {
  const label = options.label
  const size = options.size ?? GENERATION_SIZE
  const badField = checkFieldHints(options.fields)
  if (badField !== undefined) {
    return Result.fail(
      new InvalidRouteSpec({ path: `fields.${badField[0]}`, message: `route ${label}: ${badField[1]}` })
    )
  }
  // The codec the value travels by (`wire.ts`): the schema's own when its encoded side is JSON,
  // else Effect's JSON codec of it, which is how the app's `schemaBodyJson` reads it.
  const wire = wireCodec(schema)
  // A schema with no encodings anywhere encodes every value to itself: skip that pass (the
  // decode-check below still proves the value).
  const encode: (value: unknown) => Result.Result<unknown, { readonly issue: SchemaIssue.Issue }> =
    SchemaAST.toEncoded(wire.ast) === wire.ast ? Result.succeed : Schema.encodeUnknownResult(wire)
  const decode = Schema.decodeUnknownResult(wire)
  const reject = (path: string, issue: string) => Result.fail(new GeneratedValueRejected({ route: label, path, issue }))

  const pipeline =
    (arbitrary: Arbitrary.Arbitrary<unknown>) =>
    (seed: number): Result.Result<string, GeneratedValueRejected> => {
      const started = performance.now()
      const sampled = sampleOne(arbitrary, seed, size)
      if (Exit.isFailure(sampled)) {
        return reject("$", `no value could be generated for seed ${seed} (every attempt was discarded by a refinement)`)
      }
      try {
        const encoded = encode(sampled.value[0])
        if (Result.isFailure(encoded)) {
          const issue = issueOf(encoded.failure.issue)
          return reject(issue.path, `encoding failed: ${issue.message}`)
        }
        const body = JSON.stringify(encoded.success)
        if (body === undefined) return reject("$", "the encoded value has no JSON form")
        if (body.length > GENERATION_BUDGET.bytes) {
          return reject(
            "$",
            `the generated body is ${body.length} characters, over the budget of ${GENERATION_BUDGET.bytes} (GENERATION_BUDGET.bytes)`
          )
        }
        const took = performance.now() - started
        if (took > GENERATION_BUDGET.ms) {
          return reject(
            "$",
            `generating the body took ${Math.round(took)} ms, over the budget of ${GENERATION_BUDGET.ms} ms (GENERATION_BUDGET.ms)`
          )
        }
        const decoded = decode(isPlainJson(encoded.success) ? encoded.success : JSON.parse(body))
        if (Result.isFailure(decoded)) {
          const issue = issueOf(decoded.failure.issue)
          return reject(issue.path, issue.message)
        }
        return Result.succeed(body)
      } catch (error) {
        return reject("$", errorMessage(error))
      }
    }

  const probe = (arbitrary: Arbitrary.Arbitrary<unknown>) => {
    const generate = pipeline(arbitrary)
    for (const seed of PROBE_SEEDS) {
      const result = generate(seed)
      if (Result.isFailure(result)) {
        const { route, path, issue } = result.failure
        return Result.fail(new GeneratedValueRejected({ route, path, issue: `${issue}; ${REMEDY}` }))
      }
    }
    return Result.succeed(generate)
  }

  const source = (options.narrow ?? schema).ast
  const typeAst = SchemaAST.toType(source)
  const realistic = derive(realisticAst(source, { fields: options.fields, allOptionals: options.allOptionals }))
  if (Result.isSuccess(realistic)) {
    const probed = probe(realistic.success)
    if (Result.isSuccess(probed)) return Result.succeed({ generate: probed.success, realistic: true })
  }
  const raw = derive(typeAst)
  if (Result.isFailure(raw)) {
    // Effect names the path of most derivation errors; one it does not (a field with no finite
    // value, such as `Schema.Never`) is found by deriving the nodes one by one.
    const named = pathOfDerivationError(raw.failure.message)
    const path = formatSchemaPath(named.length > 0 ? named : locateUnsampleable(typeAst, [], size))
    return Result.fail(
      new InvalidRouteSpec({
        path,
        message: `route ${label}: no value can be generated for the schema at ${path}: ${firstLine(raw.failure.message)}; ${REMEDY}`
      })
    )
  }
  if (!sampleable(typeAst, size)) {
    const path = formatSchemaPath(locateUnsampleable(typeAst, [], size))
    return Result.fail(
      new InvalidRouteSpec({
        path,
        message: `route ${label}: no value can be generated for the schema at ${path}: every attempt was discarded by a refinement; ${REMEDY}`
      })
    )
  }
  const probed = probe(raw.success)
  return Result.isSuccess(probed)
    ? Result.succeed({ generate: probed.success, realistic: false })
    : Result.fail(probed.failure)
}
