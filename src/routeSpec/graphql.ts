/**
 * The `graphql` kind of RouteSpec JSON: SDL given as text, or as `{ "file": PATH }` in a fixture
 * file, read relative to the fixture and refused when it resolves (symbolic links followed)
 * outside the fixture's folder, or when no fixture names it (the control endpoint and
 * `registerSpec` take the SDL as text).
 */
import type * as Fs from "node:fs"
import type * as Path from "node:path"
import { Effect } from "effect"
import * as R from "../kinds/kinds.ts"
import type { GraphqlRespond } from "../schemas/routeSpec.ts"
import { errorMessage } from "../core/util.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { type KindBuilder, KEPT_RESPOND } from "./kind.ts"
import { withFields } from "../core/route.ts"

/** The largest schema file read (as `Route.graphql` takes SDL text). */
const MAX_SCHEMA_FILE = 2_000_000

/** The text of a schema file under `baseDir`, or why it cannot be read (naming `at`). */
const readSchemaFile = (file: string, baseDir: string | undefined, at: string): Effect.Effect<string, InvalidRouteSpec> =>
  Effect.try({
    try: () => {
      if (baseDir === undefined) throw new Error("a schema file is named only in a fixture file, relative to it; give the SDL as text here")
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
      if (stat.size > MAX_SCHEMA_FILE) throw new Error(`${JSON.stringify(file)} is ${stat.size} bytes, over ${MAX_SCHEMA_FILE}`)
      return fs.readFileSync(real, "utf8")
    },
    catch: (error) => new InvalidRouteSpec({ path: at, message: errorMessage(error) })
  })

/**
 * The route of `{ "kind": "graphql", "schema": SDL | { "file" }, ... }` (its entry in
 * `routeSpec/kinds.ts`); an SDL that does not build is refused when the route is registered,
 * naming `respond.schema` with line and column.
 */
export const graphqlKind: KindBuilder<typeof GraphqlRespond.Type> = (match, respond, options, path, context) => {
  const at = path === "" ? "respond.schema.file" : `${path}.respond.schema.file`
  const sdl = typeof respond.schema === "string" ? Effect.succeed(respond.schema) : readSchemaFile(respond.schema.file, context.baseDir, at)
  return Effect.map(sdl, (schema) => {
    const route = R.graphql(match, {
      schema,
      resolvers: respond.resolvers,
      fields: respond.fields,
      listSize: respond.listSize,
      limits: respond.limits,
      seedOffset: respond.seedOffset
    }, options)
    // A schema read from a file is kept as text in the route's spec, so a snapshot restores it anywhere.
    return typeof respond.schema === "string" ? route : withFields(route, { describe: { ...route.describe, [KEPT_RESPOND]: { ...respond, schema } } })
  })
}
