/**
 * Every route kind of RouteSpec JSON, in one table: the kind's name, and how its decoded
 * `respond` object becomes a route. The table is typed by the `Respond` Schema's kinds, so a kind
 * given a Schema in `schemas/routeSpec.ts` (`RESPONDS`) and no builder here does not compile, and
 * the decoder (`routeSpec/decode.ts`) looks kinds up here rather than in a `switch`.
 */
import { Effect } from "effect"
import { joinPath as join } from "../registry/schemaPath.ts"
import { fault } from "../routes/fault/fault.ts"
import { handler } from "../routes/handler/handler.ts"
import { loopback } from "../routes/loopback/loopback.ts"
import { bytes, status, text } from "../routes/static/static.ts"
import { webSocket } from "../routes/webSocket/webSocket.ts"
import type { Respond } from "../schemas/routeSpec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { jsonSchemaKind } from "./jsonSchema.ts"
import type { KindBuilder } from "./kind.ts"
import { mcpKind } from "./mcp.ts"

const at = (path: string, field: string) => join(join(path, "respond"), field)

const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, ""))) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

/** The builder of each kind, by its `respond.kind`. */
export const KINDS: { readonly [K in Respond["kind"]]: KindBuilder<Extract<Respond, { readonly kind: K }>> } = {
  text: (match, r, options) => Effect.succeed(text(match, r.body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers })),
  bytes: (match, r, options, path) => {
    const body = decodeBase64(r.base64)
    return body === undefined
      ? Effect.fail(new InvalidRouteSpec({ path: at(path, "base64"), message: "not valid base64" }))
      : Effect.succeed(bytes(match, body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers }))
  },
  status: (match, r, options) => Effect.succeed(status(match, r.status, { ...options, headers: r.headers, body: r.body })),
  handler: (match, r, options, path, context) => {
    const named = context.handlers?.get(r.name)
    if (named !== undefined) return Effect.succeed(handler(match, named, options))
    const known = [...(context.handlers?.keys() ?? [])].sort()
    return Effect.fail(new InvalidRouteSpec({ path: at(path, "name"), message: `no handler named "${r.name}"; registered handlers: ${known.join(", ") || "(none)"}` }))
  },
  fault: (match, r, options) => Effect.succeed(fault(match, r.fault, options)),
  loopback: (match, _r, options) => Effect.succeed(loopback(match, options)),
  jsonSchema: jsonSchemaKind,
  mcp: mcpKind,
  webSocket: (match, r, options, path) => {
    const frames = [...(r.open ?? []).map((frame, i) => [`open[${i}]`, frame] as const), ...(r.replies ?? []).flatMap((reply, i) => (reply.send ?? []).map((frame, j) => [`replies[${i}].send[${j}]`, frame] as const))]
    const bad = frames.find(([, frame]) => typeof frame !== "string" && decodeBase64(frame.base64) === undefined)
    return bad !== undefined
      ? Effect.fail(new InvalidRouteSpec({ path: at(path, `${bad[0]}.base64`), message: "not valid base64" }))
      : Effect.succeed(webSocket(match, { open: r.open, replies: r.replies, echo: r.echo }, options))
  }
}

/** The route of a decoded `respond`, built by its kind's entry in `KINDS`. */
export const buildKind: KindBuilder = (match, respond, options, path, context) =>
  (KINDS[respond.kind] as KindBuilder)(match, respond, options, path, context)
