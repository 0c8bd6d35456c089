/**
 * Every route kind of RouteSpec JSON, in one table: the kind's name, and how its decoded
 * `respond` object becomes a route. The table is typed by the `Respond` Schema's kinds, so a kind
 * given a Schema in `schemas/routeSpec.ts` (`RESPONDS`) and no builder here does not compile, and
 * the decoder (`routeSpec/decode.ts`) looks kinds up here rather than in a `switch`.
 */
import { Effect } from "effect"
import { joinPath as join } from "../core/schemaPath.ts"
import * as R from "../kinds/kinds.ts"
import type { Respond } from "../schemas/routeSpec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { jsonSchemaKind } from "./jsonSchema.ts"
import { graphqlKind } from "./graphql.ts"
import type { KindBuilder } from "./kind.ts"
import { mcpKind } from "./mcp.ts"

const at = (path: string, field: string) => join(join(path, "respond"), field)

const decodeBase64 = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s+/g, ""))) return undefined
  return new Uint8Array(Buffer.from(text, "base64"))
}

/** The builder of each kind, by its `respond.kind`. */
export const KINDS: { readonly [K in Respond["kind"]]: KindBuilder<Extract<Respond, { readonly kind: K }>> } = {
  text: (match, r, options) => Effect.succeed(R.text(match, r.body, { ...options, contentType: r.contentType, status: r.status, headers: r.headers, template: r.template })),
  bytes: (match, r, options, path) => {
    const bytes = decodeBase64(r.base64)
    return bytes === undefined
      ? Effect.fail(new InvalidRouteSpec({ path: at(path, "base64"), message: "not valid base64" }))
      : Effect.succeed(R.bytes(match, bytes, { ...options, contentType: r.contentType, status: r.status, headers: r.headers }))
  },
  status: (match, r, options) => Effect.succeed(R.status(match, r.status, { ...options, headers: r.headers, body: r.body, template: r.template })),
  handler: (match, r, options, path, context) => {
    const handler = context.handlers?.get(r.name)
    if (handler !== undefined) return Effect.succeed(R.handler(match, handler, options))
    const known = [...(context.handlers?.keys() ?? [])].sort()
    return Effect.fail(new InvalidRouteSpec({ path: at(path, "name"), message: `no handler named "${r.name}"; registered handlers: ${known.join(", ") || "(none)"}` }))
  },
  fault: (match, r, options) => Effect.succeed(R.fault(match, r.fault, options)),
  loopback: (match, _r, options) => Effect.succeed(R.loopback(match, options)),
  jsonSchema: jsonSchemaKind,
  mcp: mcpKind,
  webSocket: (match, r, options, path) => {
    const frames = [...(r.open ?? []).map((frame, i) => [`open[${i}]`, frame] as const), ...(r.replies ?? []).flatMap((reply, i) => (reply.send ?? []).map((frame, j) => [`replies[${i}].send[${j}]`, frame] as const))]
    const bad = frames.find(([, frame]) => typeof frame !== "string" && decodeBase64(frame.base64) === undefined)
    return bad !== undefined
      ? Effect.fail(new InvalidRouteSpec({ path: at(path, `${bad[0]}.base64`), message: "not valid base64" }))
      : Effect.succeed(R.webSocket(match, { open: r.open, replies: r.replies, echo: r.echo }, options))
  },
  sse: (match, r, options) =>
    Effect.succeed(R.sse(match, r.events.map((e) => ({ data: e.data, event: e.event, id: e.id, delay: e.delayMs })), {
      ...options, retry: r.retryMs, interval: r.intervalMs, status: r.status, headers: r.headers
    })),
  graphql: graphqlKind
}

/** The route of a decoded `respond`, built by its kind's entry in `KINDS`. */
export const buildKind: KindBuilder = (match, respond, options, path, context) =>
  (KINDS[respond.kind] as KindBuilder)(match, respond, options, path, context)
