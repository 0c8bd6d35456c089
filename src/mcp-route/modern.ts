/**
 * MCP's 2026-07-28 revision (a draft the official SDK does not speak yet; Effect's `McpClient`
 * uses it by default): no `initialize` and no sessions. Each request carries the client's
 * identity in `params._meta` and its revision in `MCP-Protocol-Version`; `server/discover`
 * answers what `initialize` answered; results say `resultType: "complete"`, and lists and reads
 * say how long they may be cached. A thin facade: the request, its metadata set aside, goes to
 * the route's SDK server as any other, and its result is dressed for the revision. What needs a
 * session (server-to-client requests, pushed notifications) is not offered at this revision.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js"
import { isObject } from "./copies.ts"
import { bufferedResponse, type SimRequest } from "./floor.ts"
import { DirectTransport, directServer } from "./servers.ts"
import type { McpServerState } from "./state.ts"
import type { McpEnv } from "./tools.ts"

/** The revision this module speaks. */
export const MODERN = "2026-07-28"

/** Results the revision marks as cacheable (`ttlMs`, `cacheScope`). */
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list"
])

const META = "io.modelcontextprotocol/"

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const error = (id: unknown, code: number, message: string, status = 200) =>
  json({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }, status)

/** `params` without the revision's request metadata (`_meta` keys under `io.modelcontextprotocol/`). */
const withoutMetadata = (params: unknown): Record<string, unknown> | undefined => {
  if (!isObject(params)) return undefined
  const { _meta, ...rest } = params
  if (!isObject(_meta)) return rest
  const kept = Object.fromEntries(Object.entries(_meta).filter(([key]) => !key.startsWith(META)))
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept }
}

/** A result dressed for the revision. */
const dressed = (method: string, result: Record<string, unknown>) => ({
  ...result,
  resultType: "complete",
  ...(CACHEABLE.has(method) ? { ttlMs: 0, cacheScope: "private" } : {})
})

/**
 * Answers one request at revision 2026-07-28 (`MCP-Protocol-Version: 2026-07-28`).
 */
export const answerModern = async (state: McpServerState, request: SimRequest, env: McpEnv): Promise<Response> => {
  if (request.method !== "POST")
    return json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed." } }, 405)
  const message = request.json()
  if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
    env.annotate({ method: "(invalid)", revision: MODERN })
    return error(isObject(message) ? message.id : null, -32600, "Invalid Request", 400)
  }
  const method = message.method
  env.annotate({
    method,
    revision: MODERN,
    ...(method === "tools/call" && isObject(message.params) && typeof message.params.name === "string"
      ? { tool: message.params.name }
      : {})
  })
  // A notification (`notifications/cancelled`) is taken and needs no answer.
  if (message.id === undefined) return new Response(null, { status: 202 })
  const definition = state.current.definition
  if (method === "server/discover") {
    return json({
      jsonrpc: "2.0",
      id: message.id,
      result: dressed(method, {
        supportedVersions: [MODERN, ...SUPPORTED_PROTOCOL_VERSIONS],
        capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
        ...(definition.instructions === undefined ? {} : { instructions: definition.instructions }),
        _meta: {
          [`${META}serverInfo`]: {
            name: definition.name,
            version: definition.version,
            ...(definition.title === undefined ? {} : { title: definition.title })
          }
        }
      })
    })
  }
  const params = withoutMetadata(message.params)
  const forwarded = {
    jsonrpc: "2.0" as const,
    id: message.id as string | number,
    method,
    ...(params === undefined ? {} : { params })
  }
  const found = directServer(state, env, undefined)
  const transport = found instanceof DirectTransport ? found : await found
  if (transport.busy(forwarded.id))
    return error(
      message.id,
      -32600,
      `Invalid Request: request id ${JSON.stringify(message.id)} is already being answered`,
      409
    )
  const reply = await transport.request(forwarded)
  const body = "result" in reply && isObject(reply.result) ? { ...reply, result: dressed(method, reply.result) } : reply
  return bufferedResponse(
    JSON.stringify(body),
    { status: 200, headers: { "content-type": "application/json" } },
    request.signal
  )
}
