/**
 * The `jsonSchema` kind of RouteSpec JSON: a schema that simnet ships (`{ "ref": NAME }`) or a
 * JSON Schema document (`{ "jsonSchema": DOCUMENT }`), served as `Route.json` serves it.
 */
import { Effect, Result } from "effect"
import * as R from "../kinds/kinds.ts"
import type { KindBuilder } from "./kind.ts"
import type { JsonSchemaRespond } from "../schemas/routeSpec.ts"
import { fromJsonSchema } from "../schemas/jsonSchemaDocument.ts"
import { lookupSchema, type NamedSchema } from "../schemas/registry.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"

/**
 * The route of `{ "kind": "jsonSchema", "schema": { "ref" } | { "jsonSchema" } }` (its entry in
 * `routeSpec/kinds.ts`). An unknown `ref` lists the known names; a JSON Schema that does not convert
 * names its JSON pointer (`[0].respond.schema.jsonSchema#/properties/a`).
 */
export const jsonSchemaKind: KindBuilder<typeof JsonSchemaRespond.Type> = (match, respond, options, path) =>
  Effect.suspend(() => {
    const at = (field: string) => (path === "" ? `respond.schema.${field}` : `${path}.respond.schema.${field}`)
    const resolved: Result.Result<NamedSchema, InvalidRouteSpec> = "ref" in respond.schema
      ? lookupSchema(respond.schema.ref, at("ref"))
      : Result.map(fromJsonSchema(respond.schema.jsonSchema, { path: at("jsonSchema") }), (schema) => ({ schema }))
    if (Result.isFailure(resolved)) return Effect.fail(resolved.failure)
    return Effect.succeed(
      R.json(match, resolved.success.schema, {
        ...options,
        narrow: resolved.success.narrow,
        status: respond.status,
        headers: respond.headers,
        seedOffset: respond.seedOffset,
        template: respond.template
      })
    )
  })
