/**
 * The `graphql` route kind: a GraphQL endpoint answered from the app's own SDL, with seeded values
 * shaped by each query's selection set (`generate.ts`) and the errors and media types the
 * GraphQL-over-HTTP specification asks for (`engine.ts`). graphql-js loads with the engine, when a
 * `graphql` route is first registered; compiling the SDL is the route's `prepare`, so a schema
 * that does not build, or a resolver of a field it lacks, fails the registration naming the
 * place, and the network is left as it was.
 */
import { Effect } from "effect"
import { refused } from "../../registry/answer.ts"
import { compileMatcher, type MatcherInput } from "../../registry/matcher.ts"
import type { RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { errorMessage } from "../../registry/util.ts"
import { InvalidRouteSpec, RouteFailed } from "../../SimnetError.ts"
import { checked, ROUTE_OPTIONS_ONLY } from "../codeOptions.ts"
import { make, type RouteOptions, type RouteParts, usable } from "../make.ts"
import type * as Engine from "./engine.ts"

export type { GraphqlOptions } from "./engine.ts"
export type { GraphqlResolver, GraphqlResolverContext, GraphqlResolvers, GraphqlScalarGenerators } from "./generate.ts"
export type { GraphqlLimits } from "./limits.ts"

let engine: typeof Engine | undefined
let loading: Promise<typeof Engine> | undefined
const loadEngine = (): Promise<typeof Engine> => (loading ??= import("./engine.ts").then((module) => (engine = module)))

/**
 * The parts of a `graphql` route. `prepare` loads the engine and compiles the options once (a
 * route registered in several networks compiles once); the answer is had at once unless a
 * resolver returns a promise.
 */
export const graphqlResponder = (options: Engine.GraphqlOptions, label: string): RouteParts => {
  let compiled: Engine.CompiledGraphql | undefined
  const prepare = Effect.suspend(() => {
    if (compiled !== undefined) return Effect.void
    return Effect.flatMap(
      Effect.tryPromise({
        try: loadEngine,
        catch: (cause) =>
          new InvalidRouteSpec({ path: "respond.schema", message: `graphql-js did not load: ${errorMessage(cause)}` })
      }),
      (loaded) => {
        const made = loaded.compileGraphql(options)
        if (made instanceof InvalidRouteSpec) return Effect.fail(made)
        compiled = made
        return Effect.void
      }
    )
  })
  return {
    prepare,
    answer: (request: SimRequest, context: RespondContext) =>
      compiled === undefined || engine === undefined
        ? refused(
            new RouteFailed({
              route: label,
              reason: "handler",
              message: "simnet: the graphql route was not prepared (register it in a network)"
            })
          )
        : engine.answerGraphql(compiled, request, context),
    seeded: true,
    annotated: true,
    describeLater: () => (compiled === undefined ? undefined : { operations: compiled.operations })
  }
}

/**
 * A GraphQL endpoint answered from SDL (kind `graphql`): queries and mutations, over `GET` and
 * `POST` as the GraphQL-over-HTTP specification says, get seeded values shaped by their selection
 * set (aliases, fragments, variables, lists, enums, interfaces and unions, custom scalars), the
 * same for the same seed, request and occurrence; introspection works; a query that does not
 * parse or validate gets `{ errors: [{ message, locations }] }`. `resolvers` fix the fields a
 * test cares about (`{ Query: { viewer: { login: "ada" } } }`; a function gets the arguments),
 * `scalars` generate custom scalars, `fields` override realistic values by field name as
 * `Route.json`'s do, `listSize` and `limits` bound the answers and the queries. graphql-js loads
 * when the first such route is registered; an SDL that does not build fails the registration,
 * naming line and column. A matcher without a method takes both `GET` and `POST`. Everything of
 * the route's own is in `schema`: `options` are the route's alone.
 *
 * @example Route.graphql("https://api.example.com/graphql", { schema: "type Query { viewer: User } type User { login: String, email: String }" })
 */
export const graphql = (match: MatcherInput, schema: Engine.GraphqlOptions, options: RouteOptions = {}): Route =>
  checked("graphql", ROUTE_OPTIONS_ONLY, options, () => {
    const matcher = compileMatcher(match)
    return make(
      "graphql",
      matcher,
      graphqlResponder(usable(schema), usable(options).id ?? `graphql ${matcher.source}`),
      options
    )
  })
