/**
 * The static kinds in RouteSpec JSON: `text`, `bytes` and `status`, each a `respond` Schema and its
 * builder (the table is `routes/kinds.ts`).
 */
import { Effect, Schema } from "effect"
import { InvalidRouteSpec } from "../../SimnetError.ts"
import { at, decodeBase64, RespondStatus, routeKind } from "../spec.ts"
import { BYTES_FIELDS, bytes, STATUS_FIELDS, status, TEXT_FIELDS, text } from "./static.ts"

/** `{ kind: "text", body, contentType?, status?, headers?, template? }` */
export const TextRespond = Schema.Struct({
  kind: Schema.Literal("text"),
  body: Schema.String,
  ...TEXT_FIELDS
})

/** `{ kind: "bytes", base64, contentType?, status?, headers? }` */
export const BytesRespond = Schema.Struct({
  kind: Schema.Literal("bytes"),
  base64: Schema.String,
  ...BYTES_FIELDS
})

/** `{ kind: "status", status, headers?, body?, template? }` */
export const StatusRespond = Schema.Struct({
  kind: Schema.Literal("status"),
  status: RespondStatus,
  ...STATUS_FIELDS
})

/** The `text` kind. */
export const textKind = routeKind(TextRespond, (match, r, options) =>
  Effect.succeed(
    text(match, r.body, {
      ...options,
      contentType: r.contentType,
      status: r.status,
      headers: r.headers,
      template: r.template
    })
  )
)

/** The `bytes` kind: base64 that does not decode is refused at `respond.base64`. */
export const bytesKind = routeKind(BytesRespond, (match, r, options, path) => {
  const body = decodeBase64(r.base64)
  return body === undefined
    ? Effect.fail(new InvalidRouteSpec({ path: at(path, "base64"), message: "not valid base64" }))
    : Effect.succeed(
        bytes(match, body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers })
      )
})

/** The `status` kind. */
export const statusKind = routeKind(StatusRespond, (match, r, options) =>
  Effect.succeed(status(match, r.status, { ...options, headers: r.headers, body: r.body, template: r.template }))
)
