/**
 * The `jsonSchema` route kind: answers with a JSON body generated from the app's own production
 * schema, seeded by the registry (`RespondContext.seed`) and proven to decode under that schema
 * before it is served. `Route.json` builds on `jsonSchemaResponder`.
 */
import { Effect, Result, Schema } from "effect"
import { compileGenerator, type CompiledGenerator } from "./generate.ts"
import type { FieldHints } from "./realism.ts"
import { type Answer, refused, whole, type Whole } from "../../registry/answer.ts"
import { offsetSeed } from "../../registry/seed.ts"
import { checkResponseParts, routeTemplates, type TemplateOptions } from "../static/static.ts"
import { compileMatcher, type MatcherInput } from "../../registry/matcher.ts"
import type { Answerer, RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { type GeneratedValueRejected, InvalidRouteSpec, type RouteFailed } from "../../SimnetError.ts"
import { checked, codeOptions } from "../codeOptions.ts"
import { foreignSchema } from "../effectCopy.ts"
import { labelOf, make, type RouteOptions, usable } from "../make.ts"
import { RespondHeaders, RespondStatus, RespondTemplate } from "../spec.ts"

/** What generating a body can fail with: a schema that does not compile, a value its schema refuses. */
type GenerateError = InvalidRouteSpec | GeneratedValueRejected

/**
 * Options of a `jsonSchema` route.
 * - `narrow`: a schema to generate from instead of the production one, for production schemas too
 *   broad to generate well (open JSON fields, unbounded records). Its values must encode and
 *   decode under the production schema; registration fails if they do not.
 * - `status` (default 200) and `headers` of the response (`content-type` defaults to JSON).
 * - `seedOffset`: shifts every seed of the route, to get other values for the same requests.
 * - `fields`: realistic-value overrides by field name (`{ email: "email", nickname: "plain",
 *   tier: { values: ["free", "pro"] } }`) or dotted path (`"owner.email"`); kinds are those of
 *   the table in `realisticValues.ts`. Values must still decode under the schema.
 */
export interface JsonSchemaOptions {
  readonly narrow?: Schema.Top | undefined
  readonly fields?: FieldHints | undefined
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly seedOffset?: number | undefined
}

/**
 * The parts of a `jsonSchema` route: `answer` for the registry, `prepare` (compile once and prove
 * the schema generates; fails with `InvalidRouteSpec` naming the schema path, or
 * `GeneratedValueRejected`), `body(seed)` for the body alone, and `regenerate(seed)`, which
 * reproduces the body served under a logged seed.
 */
export interface JsonSchemaResponder {
  /** The generated body, whole, for the request's seed (generation is synchronous). */
  readonly answer: Answerer
  readonly prepare: Effect.Effect<void, InvalidRouteSpec | GeneratedValueRejected>
  readonly body: (seed: number) => Result.Result<string, GenerateError>
  readonly regenerate: (seed: number) => Effect.Effect<string, GenerateError>
  /** The whole answer served under a logged seed: status, headers and the body `regenerate` gives. */
  readonly reproduce: (seed: number) => Effect.Effect<Whole, GenerateError>
  readonly seeded: true
  readonly describe: Readonly<Record<string, unknown>>
}

/**
 * Builds the responder of a `jsonSchema` route for a production schema. The generator (the
 * arbitrary, the encoder and the decoder) is compiled once, by `prepare` or at the first request,
 * never per request. `label` names the route in errors.
 */
export const jsonSchemaResponder = (
  schema: Schema.Codec<unknown, unknown>,
  options: JsonSchemaOptions,
  label: string
): JsonSchemaResponder => {
  let compiled: Result.Result<CompiledGenerator, InvalidRouteSpec | GeneratedValueRejected> | undefined
  const compile = () =>
    (compiled ??= compileGenerator(schema, { narrow: options.narrow, label, fields: options.fields }))
  const status = options.status ?? 200
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers }

  const body = (seed: number): Result.Result<string, GenerateError> => {
    const generator = compile()
    return Result.isFailure(generator)
      ? Result.fail(generator.failure)
      : generator.success.generate(offsetSeed(seed, options.seedOffset))
  }

  const answer = (_request: SimRequest, context: RespondContext): Answer => {
    const generated = body(context.seed)
    return Result.isFailure(generated) ? refused(generated.failure) : whole(status, headers, generated.success)
  }

  const regenerate = (seed: number) =>
    Effect.suspend(() => Result.match(body(seed), { onFailure: Effect.fail, onSuccess: Effect.succeed }))

  return {
    prepare: Effect.suspend(() => {
      const invalid = checkResponseParts(status, headers, true)
      if (invalid !== undefined) return Effect.fail(invalid)
      return Result.match(compile(), { onFailure: Effect.fail, onSuccess: () => Effect.void })
    }),
    answer,
    body,
    regenerate,
    reproduce: (seed) => Effect.map(regenerate(seed), (generated) => whole(status, headers, generated)),
    seeded: true,
    describe: {
      status,
      ...(options.seedOffset === undefined ? {} : { seedOffset: options.seedOffset }),
      ...(options.narrow === undefined ? {} : { narrowed: true })
    }
  }
}

/**
 * `jsonSchema`'s `respond` fields beside its `schema`: its options in code too (`jsonSchemaSpec.ts`
 * spreads them into `JsonSchemaRespond`). `template` makes the headers templates, the body being
 * generated.
 */
export const JSON_SCHEMA_FIELDS = {
  status: Schema.optional(RespondStatus),
  headers: Schema.optional(RespondHeaders),
  seedOffset: Schema.optional(Schema.Int),
  template: RespondTemplate
}

/** `Route.json`'s options: the fields of JSON and what only code gives (`narrow` and `fields`, checked by the kind). */
const JSON_OPTIONS = codeOptions(JSON_SCHEMA_FIELDS, {
  narrow: Schema.optional(Schema.Unknown),
  fields: Schema.optional(Schema.Unknown)
})

/**
 * A generated JSON route whose headers are templates (`template: true`): the body is generated
 * from the schema as ever (a template has no place in generated values), and the header values
 * with `{{` are written for each request. No `reproduce`: the headers depend on the request.
 */
const withHeaderTemplates = (parts: JsonSchemaResponder, headers: Readonly<Record<string, string>>, label: string) => {
  const templates = routeTemplates(headers, undefined, label)
  const answer: Answerer = (request, context) => {
    const answered = parts.answer(request, context)
    if (answered._tag !== "Whole") return answered
    try {
      const own = answered.headers instanceof Headers ? Object.fromEntries(answered.headers) : answered.headers
      return { ...answered, headers: templates.headers(answered.status, own, request, context) }
    } catch (error) {
      return refused(error as RouteFailed)
    }
  }
  return { ...parts, answer, prepare: Effect.andThen(parts.prepare, templates.prepare), reproduce: undefined }
}

/**
 * Answers with JSON generated from the app's own production schema (kind `jsonSchema`). Values
 * come from `narrow ?? schema`, are encoded with `schema` (so wire transformations such as
 * seconds → `Duration` hold) and are proven to decode under it before they are served. The body
 * is a pure function of the run seed, the route's identity, the canonical request and its
 * occurrence. A schema that cannot be generated fails the registration, naming the schema path;
 * so does a Schema built by another copy of effect than simnet's, naming both copies.
 *
 * @example Route.json("GET https://api.example.com/users/:id", User)
 */
export const json = <S extends Schema.Top>(
  match: MatcherInput,
  schema: S,
  options: RouteOptions & JsonSchemaOptions & TemplateOptions = {}
): Route => checked("jsonSchema", JSON_OPTIONS, options, () => jsonRoute(match, schema, options))

const jsonRoute = <S extends Schema.Top>(
  match: MatcherInput,
  schema: S,
  options: RouteOptions & JsonSchemaOptions & TemplateOptions
): Route => {
  const matcher = compileMatcher(match)
  const error = !Schema.isSchema(schema)
    ? new InvalidRouteSpec({
        path: "schema",
        message: `Route.json needs an Effect Schema, got ${schema === null ? "null" : typeof schema}`
      })
    : (foreignSchema(schema, "schema") ?? foreignSchema(usable(options).narrow, "narrow"))
  if (error !== undefined)
    return make("jsonSchema", matcher, { answer: () => refused(error), prepare: Effect.fail(error) }, options)
  const parts = jsonSchemaResponder(
    schema as unknown as Schema.Codec<unknown, unknown>,
    usable(options),
    usable(options).id ?? `jsonSchema ${matcher.source}`
  )
  return make(
    "jsonSchema",
    matcher,
    usable(options).template === true
      ? withHeaderTemplates(parts, usable(options).headers ?? {}, labelOf(match, options))
      : parts,
    options
  )
}
