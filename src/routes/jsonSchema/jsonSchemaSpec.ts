/**
 * The `jsonSchema` kind in RouteSpec JSON: a schema that simnet ships (`{ "ref": NAME }`, looked up
 * through the decoding context) or a JSON Schema document (`{ "jsonSchema": DOCUMENT }`), served as
 * `Route.json` serves it.
 */
import { Effect, Result, Schema } from "effect"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { type NamedSchema, routeKind } from "../spec.ts"
import { JSON_SCHEMA_FIELDS, json } from "./jsonSchema.ts"
import { fromJsonSchema } from "./jsonSchemaDocument.ts"

/** `{ kind: "jsonSchema", schema: { ref } | { jsonSchema }, status?, headers?, seedOffset?, template? }` (`template`: the headers only) */
export const JsonSchemaRespond = Schema.Struct({
  kind: Schema.Literal("jsonSchema"),
  schema: Schema.Union([Schema.Struct({ ref: Schema.String }), Schema.Struct({ jsonSchema: Schema.Unknown })]),
  ...JSON_SCHEMA_FIELDS
})

/**
 * The `jsonSchema` kind. An unknown `ref` lists the known names; a JSON Schema that does not
 * convert names its JSON pointer (`[0].respond.schema.jsonSchema#/properties/a`).
 */
export const jsonSchemaKind = routeKind(JsonSchemaRespond, (match, respond, options, path, context) =>
  Effect.suspend(() => {
    const at = (field: string) => (path === "" ? `respond.schema.${field}` : `${path}.respond.schema.${field}`)
    const resolved: Result.Result<NamedSchema, InvalidRouteSpec> =
      "ref" in respond.schema
        ? (context.schema?.(respond.schema.ref, at("ref")) ??
          Result.fail(
            new InvalidRouteSpec({
              path: at("ref"),
              message: `no named schemas here to find "${respond.schema.ref}" in`
            })
          ))
        : Result.map(fromJsonSchema(respond.schema.jsonSchema, { path: at("jsonSchema") }), (schema) => ({ schema }))
    if (Result.isFailure(resolved)) return Effect.fail(resolved.failure)
    return Effect.succeed(
      json(match, resolved.success.schema, {
        ...options,
        narrow: resolved.success.narrow,
        status: respond.status,
        headers: respond.headers,
        seedOffset: respond.seedOffset,
        template: respond.template
      })
    )
  })
)
