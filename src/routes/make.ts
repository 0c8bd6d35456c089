/**
 * Building a route of any kind: the matcher compiled, the options shared by every kind checked,
 * and the kind's own parts. Nothing here throws; whatever is wrong is carried in the route's
 * `prepare` and refused, with the JSON path of the field, when the route is registered.
 */
import { Duration, Effect, Result, Schema } from "effect"
import { decodeAt, must } from "../registry/schemaPath.ts"
import { CompiledMatcher, compileMatcher, type MatcherInput } from "../registry/matcher.ts"
import type { RequestFault } from "../registry/requestLog.ts"
import { type Answerer, makeRoute, type Route } from "../registry/route.ts"
import { refused as refusal, type Whole } from "../registry/answer.ts"
import { scenarioProblem } from "../registry/scenarios.ts"
import { InvalidRouteSpec, type RegenerateError, type RegisterError } from "../SimnetError.ts"

/**
 * Options every route kind takes.
 * - `id`: a stable name (default: kind and matcher); ids are unique within a network.
 * - `times`: the route is exhausted after this many uses and requests fall through to the next.
 * - `priority`: higher first (default 0); within a priority the latest registration wins.
 * - `delay`: wait this long on Effect's `Clock` before answering (`TestClock` controls it).
 * - `source`: who registers the route (default "code"); families set their own name.
 * - `required`: a strict network (`strict: true`, `simnet run --strict`) fails when the route was
 *   never used, as nock's `done()` does for a pending interceptor.
 * - `scenario`, `requiredState`, `newState`: WireMock's scenarios (`registry/scenarios.ts`): the route
 *   matches only while its scenario is in `requiredState` (every scenario starts in `"Started"`),
 *   and moves it to `newState` when it takes a request.
 */
export interface RouteOptions {
  readonly id?: string | undefined
  readonly times?: number | undefined
  readonly priority?: number | undefined
  readonly delay?: Duration.Input | undefined
  readonly source?: string | undefined
  readonly required?: boolean | undefined
  readonly scenario?: string | undefined
  readonly requiredState?: string | undefined
  readonly newState?: string | undefined
}

/** A scenario's name or one of its states: 1 to 200 characters. */
export const StateName = Schema.String.check(
  must((name: string) => name !== "" && name.length <= 200, "must be a name of 1 to 200 characters")
)

/**
 * The options every route kind shares, as data (`delay` is a `Duration.Input`, read apart): a bad
 * one is carried in the route and refused, naming it, when the route registers.
 */
export const RouteOptionsData = Schema.Struct({
  id: Schema.optional(Schema.String.check(must((id: string) => id !== "", "id must not be empty"))),
  times: Schema.optional(
    Schema.Number.check(
      must((n: number) => Number.isInteger(n) && n >= 1, "times must be a whole number of at least 1")
    )
  ),
  priority: Schema.optional(
    Schema.Number.check(must((n: number) => Number.isFinite(n), "priority must be a finite number"))
  ),
  source: Schema.optional(Schema.String),
  required: Schema.optional(Schema.Boolean),
  scenario: Schema.optional(StateName),
  requiredState: Schema.optional(StateName),
  newState: Schema.optional(StateName)
})

/**
 * What a route kind contributes: how it answers, and what it checks or compiles at registration.
 */
export interface RouteParts {
  readonly answer: Answerer
  readonly prepare?: Effect.Effect<void, RegisterError> | undefined
  readonly seeded?: boolean | undefined
  readonly regenerate?: ((seed: number) => Effect.Effect<string, RegenerateError>) | undefined
  /** The whole answer again under a seed, for a route whose answer is a pure function of it (see `RouteFields.reproduce`). */
  readonly reproduce?: ((seed: number) => Effect.Effect<Whole, RegenerateError>) | undefined
  readonly describe?: Readonly<Record<string, unknown>> | undefined
  /** The route writes a `detail` into its log records through `RespondContext.annotate`. */
  readonly annotated?: boolean | undefined
  /** What the client sees, for a route that breaks (the `fault` kind). */
  readonly fault?: RequestFault | undefined
  /** What seeds derive from instead of the id (see `RouteFields.seedIdentity`). */
  readonly seedIdentity?: string | undefined
  /** Listing fields known once the route is prepared (see `RouteFields.describeLater`). */
  readonly describeLater?: (() => Readonly<Record<string, unknown>> | undefined) | undefined
}

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

/** Options a responder can read: anything but an object reads as none (`make` refuses it at registration). */
export const usable = <O extends object>(options: O): O =>
  typeof options === "object" && options !== null ? options : ({} as O)

/** How a route is named in its answers' errors (a template's): its id, else its matcher. */
export const labelOf = (match: MatcherInput | undefined, options: RouteOptions): string =>
  usable(options).id ?? (typeof match === "string" ? match : "(matcher object)")

const toDuration = (input: Duration.Input | undefined): Duration.Duration | undefined | InvalidRouteSpec => {
  if (input === undefined) return undefined
  const refused = () => {
    let shown: string
    try {
      shown = JSON.stringify(String(input)).slice(0, 200)
    } catch {
      shown = `<${typeof input}>`
    }
    return invalid(
      "delay",
      `delay must be a finite, non-negative duration (such as "2 seconds" or a number of milliseconds), got ${shown}`
    )
  }
  if (typeof input === "number" && (!Number.isFinite(input) || input < 0)) return refused()
  try {
    const parsed = Duration.fromInput(input)
    if (parsed._tag === "None" || !Duration.isFinite(parsed.value) || Duration.isNegative(parsed.value))
      return refused()
    return Duration.isZero(parsed.value) ? undefined : parsed.value
  } catch {
    return refused()
  }
}

/**
 * The first problem with the options every kind shares, if any.
 */
const checkOptions = (
  options: RouteOptions,
  delay: Duration.Duration | undefined | InvalidRouteSpec
): InvalidRouteSpec | undefined => {
  const decoded = decodeAt(RouteOptionsData, options, "")
  if (Result.isFailure(decoded)) return invalid(decoded.failure.path, decoded.failure.message)
  return delay instanceof InvalidRouteSpec ? delay : scenarioProblem(options)
}

/**
 * Builds a route of any kind from a matcher and its parts. Used by the `Route` constructors and
 * by route families; most code wants a constructor instead.
 */
export const make = (
  kind: string,
  match: CompiledMatcher | MatcherInput,
  parts: RouteParts,
  options: RouteOptions = {}
): Route => {
  const matcher = match instanceof CompiledMatcher ? match : compileMatcher(match)
  const badOptions =
    typeof options !== "object" || options === null
      ? invalid("options", `options must be an object, got ${options === null ? "null" : typeof options}`)
      : undefined
  if (badOptions !== undefined) options = {}
  const delay = toDuration(options.delay)
  const problem = matcher.invalid ?? badOptions ?? checkOptions(options, delay)
  return makeRoute({
    id: options.id,
    kind,
    matcher,
    times: options.times,
    priority: options.priority ?? 0,
    delay: delay instanceof InvalidRouteSpec ? undefined : delay,
    source: options.source ?? "code",
    answer: problem === undefined ? parts.answer : () => refusal(problem),
    prepare: problem !== undefined ? Effect.fail(problem) : (parts.prepare ?? Effect.void),
    seeded: parts.seeded ?? false,
    regenerate: parts.regenerate,
    ...(parts.reproduce === undefined || problem !== undefined ? {} : { reproduce: parts.reproduce }),
    specPath: undefined,
    describe: options.scenario === undefined ? parts.describe : { ...parts.describe, ...scenarioOf(options) },
    annotated: parts.annotated ?? false,
    ...(parts.fault === undefined ? {} : { fault: parts.fault }),
    ...(parts.seedIdentity === undefined ? {} : { seedIdentity: parts.seedIdentity }),
    ...(parts.describeLater === undefined ? {} : { describeLater: parts.describeLater }),
    ...(options.required === true ? { required: true } : {}),
    ...(options.scenario === undefined
      ? {}
      : { scenario: { name: options.scenario, requiredState: options.requiredState, newState: options.newState } })
  })
}

/** A route's scenario options, as its listing shows them. */
const scenarioOf = (options: RouteOptions) => ({
  scenario: options.scenario,
  ...(options.requiredState === undefined ? {} : { requiredState: options.requiredState }),
  ...(options.newState === undefined ? {} : { newState: options.newState })
})

/**
 * A route that cannot be built (a family given a bad base URL, an OpenAPI document that does not
 * convert): registering it fails with `error`, and it never matches a request.
 */
export const refused = (kind: string, error: RegisterError, source = "code"): Route =>
  make(kind, { url: () => false }, { answer: () => refusal(error), prepare: Effect.fail(error) }, { source })
