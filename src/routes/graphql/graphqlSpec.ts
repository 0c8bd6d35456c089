/**
 * The `graphql` kind of RouteSpec JSON: SDL given as text, or as `{ "file": PATH }` in a fixture
 * file, read relative to the fixture and refused when it resolves (symbolic links followed)
 * outside the fixture's folder, or when no fixture names it (the control endpoint and
 * `registerSpec` take the SDL as text).
 */
import type * as Fs from "node:fs"
import type * as Path from "node:path"
import { Effect, Schema } from "effect"
import { withFields } from "../../registry/route.ts"
import { errorMessage } from "../../registry/util.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { KEPT_RESPOND, routeKind } from "../spec.ts"
import { graphql } from "./graphql.ts"

/**
 * `{ kind: "graphql", schema, resolvers?, fields?, listSize?, limits?, seedOffset? }`: a GraphQL
 * endpoint answered from `schema`, SDL text or `{ "file": PATH }` (in a fixture file, relative to
 * it); `resolvers` fix fields to JSON values (`{ "Query": { "viewer": { "login": "ada" } } }`);
 * `fields` override realistic values by field name; `listSize` (`{ min, max }`, default 1 to 3)
 * sizes generated lists; `limits` bound queries (`depth`, `aliases`, `documentBytes`, `values`).
 * See `Route.graphql`.
 */
export const GraphqlRespond = Schema.Struct({
  kind: Schema.Literal("graphql"),
  schema: Schema.Union([Schema.String, Schema.Struct({ file: Schema.String })]),
  resolvers: Schema.optional(Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))),
  fields: Schema.optional(
    Schema.Record(
      Schema.String,
      Schema.Union([
        Schema.String,
        Schema.Struct({ values: Schema.Array(Schema.Union([Schema.String, Schema.Finite, Schema.Boolean])) })
      ])
    )
  ),
  listSize: Schema.optional(Schema.Struct({ min: Schema.optional(Schema.Int), max: Schema.optional(Schema.Int) })),
  limits: Schema.optional(
    Schema.Struct({
      depth: Schema.optional(Schema.Int),
      aliases: Schema.optional(Schema.Int),
      documentBytes: Schema.optional(Schema.Int),
      values: Schema.optional(Schema.Int)
    })
  ),
  seedOffset: Schema.optional(Schema.Int)
})

/** The largest schema file read (as `Route.graphql` takes SDL text). */
const MAX_SCHEMA_FILE = 2_000_000

/** The text of a schema file under `baseDir`, or why it cannot be read (naming `at`). */
const readSchemaFile = (
  file: string,
  baseDir: string | undefined,
  at: string
): Effect.Effect<string, InvalidRouteSpec> =>
  Effect.try({
    try: () => {
      if (baseDir === undefined)
        throw new Error("a schema file is named only in a fixture file, relative to it; give the SDL as text here")
      const fs = process.getBuiltinModule("node:fs") as typeof Fs
      const path = process.getBuiltinModule("node:path") as typeof Path
      const root = fs.realpathSync(baseDir)
      let real: string
      try {
        real = fs.realpathSync(path.resolve(baseDir, file))
      } catch {
        throw new Error(`no file ${JSON.stringify(file)} beside the fixture`)
      }
      if (!real.startsWith(root + path.sep)) throw new Error(`${JSON.stringify(file)} is outside the fixture's folder`)
      const stat = fs.statSync(real)
      if (!stat.isFile()) throw new Error(`${JSON.stringify(file)} is not a file`)
      if (stat.size > MAX_SCHEMA_FILE)
        throw new Error(`${JSON.stringify(file)} is ${stat.size} bytes, over ${MAX_SCHEMA_FILE}`)
      return fs.readFileSync(real, "utf8")
    },
    catch: (error) => new InvalidRouteSpec({ path: at, message: errorMessage(error) })
  })

/**
 * The `graphql` kind: the route of `{ "kind": "graphql", "schema": SDL | { "file" }, ... }`; an
 * SDL that does not build is refused when the route is registered, naming `respond.schema` with
 * line and column.
 */
export const graphqlKind = routeKind(GraphqlRespond, (match, respond, options, path, context) => {
  const at = path === "" ? "respond.schema.file" : `${path}.respond.schema.file`
  const sdl =
    typeof respond.schema === "string"
      ? Effect.succeed(respond.schema)
      : readSchemaFile(respond.schema.file, context.baseDir, at)
  return Effect.map(sdl, (schema) => {
    const route = graphql(
      match,
      {
        schema,
        resolvers: respond.resolvers,
        fields: respond.fields,
        listSize: respond.listSize,
        limits: respond.limits,
        seedOffset: respond.seedOffset
      },
      options
    )
    // A schema read from a file is kept as text in the route's spec, so a snapshot restores it anywhere.
    return typeof respond.schema === "string"
      ? route
      : withFields(route, { describe: { ...route.describe, [KEPT_RESPOND]: { ...respond, schema } } })
  })
})
