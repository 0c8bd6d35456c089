/**
 * The RouteSpec JSON format, as one Effect Schema shared by fixture files, `registerSpec` and
 * the control endpoint, so the three can never drift. Each kind's `respond` Schema lives beside
 * its kind (`routes/KIND/KINDSpec.ts`, `mcp-route/mcpServerSpec.ts`) and is named here too.
 */
import { Schema } from "effect"
import { McpServerSpec } from "../mcp-route/mcpServerSpec.ts"
import { ROUTE_SPEC_OPTIONS } from "../routes/codeOptions.ts"
import { RespondHeaders } from "../routes/spec.ts"
import { KINDS } from "./kinds.ts"
import { ChaosData, FilesData, PromptsData } from "./options.ts"

export {
  McpContentSpec,
  McpLogLevel,
  McpPromptSpec,
  McpResourceSpec,
  McpResourceTemplateSpec,
  McpRespond,
  McpServerSpec,
  McpStepSpec,
  McpToolSpec
} from "../mcp-route/mcpServerSpec.ts"
export { FaultRespond } from "../routes/fault/faultSpec.ts"
export { GraphqlRespond } from "../routes/graphql/graphqlSpec.ts"
export { HandlerRespond } from "../routes/handler/handlerSpec.ts"
export { JsonSchemaRespond } from "../routes/jsonSchema/jsonSchemaSpec.ts"
export { LoopbackRespond } from "../routes/loopback/loopbackSpec.ts"
export { SseRespond } from "../routes/sse/sseSpec.ts"
export { BytesRespond, StatusRespond, TextRespond } from "../routes/static/staticSpec.ts"
export { WebSocketRespond } from "../routes/webSocket/webSocketSpec.ts"

/**
 * The object form of a JSON matcher. `url` is a path-to-regexp URL pattern, `regex` a regular
 * expression tested against the whole URL, `json` a partial match on the JSON body.
 */
export const MatchObject = Schema.Struct({
  method: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  regex: Schema.optional(Schema.String),
  query: Schema.optional(Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Literal(true)]))),
  headers: Schema.optional(RespondHeaders),
  json: Schema.optional(Schema.Unknown)
})

/**
 * A JSON matcher: `"GET https://host/path/:id"` or the object form.
 */
export const Match = Schema.Union([Schema.String, MatchObject])

/**
 * Every kind's `respond` Schema, by its kind (`KINDS`): the one list the `Respond` union and the
 * kinds named in errors (`RESPOND_KINDS`) derive from.
 */
export const RESPONDS = Object.fromEntries(Object.entries(KINDS).map(([kind, { respond }]) => [kind, respond])) as {
  readonly [K in keyof typeof KINDS]: (typeof KINDS)[K]["respond"]
}

/** Every `respond.kind`, for error messages and the reference. */
export const RESPOND_KINDS = Object.keys(RESPONDS) as ReadonlyArray<keyof typeof RESPONDS>

/**
 * The head of a route spec: an object whose `respond` names a known kind. Decoded before the
 * whole spec, so an unknown kind is reported at `respond.kind` with the kinds there are.
 */
export const RouteSpecHead = Schema.Struct({
  respond: Schema.Struct({ kind: Schema.Literals(RESPOND_KINDS) })
})

/**
 * What a route answers with.
 */
export const Respond = Schema.Union(Object.values(RESPONDS))
export type Respond = typeof Respond.Type

/** The route-level fields but `id`, which a RouteSpec writes first. */
const { id, ...routeLevel } = ROUTE_SPEC_OPTIONS

/**
 * One route in JSON: `match`, `respond`, and the route-level fields every constructor takes in
 * code too (`ROUTE_SPEC_OPTIONS`: `id`, `times`, `priority`, `delayMs`, `required`, and
 * WireMock's `scenario`, `requiredState`, `newState`), so code and JSON know the same keys.
 */
export const RouteSpec = Schema.Struct({
  id,
  match: Match,
  respond: Respond,
  ...routeLevel
})
export type RouteSpec = typeof RouteSpec.Type

/** One entry of an opencode-style `mcp` configuration: a remote server at a URL, or a local (stdio) one. */
export const McpConfigEntrySpec = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("remote"),
    url: Schema.String,
    headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
    enabled: Schema.optional(Schema.Boolean)
  }),
  Schema.Struct({
    type: Schema.Literal("local"),
    command: Schema.Array(Schema.String),
    environment: Schema.optional(Schema.Record(Schema.String, Schema.String)),
    enabled: Schema.optional(Schema.Boolean)
  })
])

/**
 * A reference to a route family: `{ "family": "models", "baseUrl": "https://models.dev" }`.
 * The `openapi` family also takes the OpenAPI `document`, and `examples` / `validate` (both
 * default true) to generate every body or to serve requests that break their operation, and
 * `idPrefix` (what the operations' ids start with; see `Routes.openapi`);
 * `mcpFromConfig` takes the app's `mcp` `config` and the `servers` to answer with, by entry name.
 */
export const FamilySpec = Schema.Struct({
  family: Schema.String,
  baseUrl: Schema.optional(Schema.String),
  document: Schema.optional(Schema.Unknown),
  config: Schema.optional(Schema.Record(Schema.String, McpConfigEntrySpec)),
  servers: Schema.optional(Schema.Record(Schema.String, McpServerSpec)),
  examples: Schema.optional(Schema.Boolean),
  validate: Schema.optional(Schema.Boolean),
  idPrefix: Schema.optional(Schema.String),
  /** `models`: a catalog generated with the seed instead of the real models. */
  generated: Schema.optional(Schema.Boolean)
})
export type FamilySpec = typeof FamilySpec.Type

/**
 * A file of fixtures: `{ seed, routes, llm, chaos }`.
 */
export const FixtureFile = Schema.Struct({
  seed: Schema.optional(Schema.Union([Schema.Number, Schema.String])),
  /** Seeded chaos for the network (see `registry/chaos.ts`). */
  chaos: Schema.optional(ChaosData),
  routes: Schema.optional(Schema.Array(Schema.Unknown)),
  /** The files of a sealed run's workspace (`simnet run --isolate`): each path's text, or its bytes in base64. */
  files: Schema.optional(FilesData),
  /** What a person might type into the app: `simnet explore` types these among its generated text. */
  prompts: Schema.optional(PromptsData),
  llm: Schema.optional(
    Schema.Union([
      Schema.Array(Schema.Unknown),
      Schema.Struct({
        queue: Schema.optional(Schema.Array(Schema.Unknown)),
        rules: Schema.optional(Schema.Array(Schema.Unknown))
      })
    ])
  )
})
export type FixtureFile = typeof FixtureFile.Type
