/**
 * The engine behind an MCP route: Streamable HTTP answered by the official SDK's `Server`.
 *
 * Three ways in. The hot path — a POST of one JSON-RPC request (not `initialize`) in a session,
 * with the headers the transport requires and a JSON answer — goes to an SDK `Server` kept per
 * session (per route for a stateless server) and fed through a direct in-process transport, so a
 * request costs no `Request`, no transport and no handler registration. A plain `tools/call` on
 * that path (a name and arguments, no progress token) skips the SDK's `Protocol` round too: the
 * engine does what the SDK's `Server` does for it (`fastCall`: the same handler, the same result
 * check, the same reply and errors) without the zod type guards and parses that cost more than
 * the call itself. Everything else —
 * `initialize`, notifications, batches, event streams, anything malformed — goes to a fresh
 * `Server` behind the SDK's `WebStandardStreamableHTTPServerTransport`, which does the wire:
 * `Accept` (406), `Content-Type` (415), JSON and JSON-RPC checks (-32700, -32600),
 * notifications (202), SSE framing. Both ways the SDK answers `initialize`, `ping`, unknown
 * methods (-32601) and invalid params (-32602). This module adds what the SDK leaves to its host:
 * `Origin` (403), sessions with deterministic ids (400 without, 404 unknown or ended, DELETE
 * ends), the protocol revisions this server speaks, GET (405), and the tools, resources and
 * prompts themselves.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import { isJSONRPCRequest, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
import type { CompiledServer } from "./definitions.ts"
import { bufferedResponse, type SimRequest } from "./floor.ts"
import { isObject, plainCall, plainRequest, PROTOCOL_VERSIONS } from "./copies.ts"
import { DirectTransport, directServer, sdkServer } from "./servers.ts"
import type { McpServerState, McpSession } from "./state.ts"
import { fastCall, type McpEnv } from "./tools.ts"

export { PROTOCOL_VERSIONS } from "./copies.ts"
export type { McpEnv } from "./tools.ts"

const JSON_INIT: ResponseInit = { status: 200, headers: { "content-type": "application/json" } }

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers }
  })

/**
 * Whether the SDK transport would hand this message (not `initialize`, not a batch) straight to
 * its server and answer it as JSON: a request, with headers it accepts. Everything else takes the
 * SDK's way.
 */
const direct = (request: SimRequest, message: unknown): message is JSONRPCRequest => {
  const accept = request.headers.get("accept")
  return accept !== null && accept.includes("application/json") && accept.includes("text/event-stream") &&
    isJsonContentType(request.headers.get("content-type")) && (plainRequest(message) || isJSONRPCRequest(message))
}

/** The method (and tool) of one JSON-RPC message, for the log. */
const describe = (message: unknown): Record<string, unknown> => {
  if (!isObject(message)) return { method: "(invalid)" }
  const method = typeof message.method === "string" ? message.method : "id" in message ? "(response)" : "(invalid)"
  return method === "tools/call" && isObject(message.params) && typeof message.params.name === "string"
    ? { method, tool: message.params.name }
    : { method }
}

/** The initialize request with a revision this server speaks (the newest when it speaks none offered). */
const negotiate = (message: Record<string, any>) =>
  PROTOCOL_VERSIONS.includes(message.params?.protocolVersion)
    ? message
    : { ...message, params: { ...message.params, protocolVersion: PROTOCOL_VERSIONS[0] } }

/** The JSON-RPC reply in a response body: the body itself, or the last `data:` line of an event stream. */
const replyOf = (text: string, contentType: string | null): unknown => {
  const data = contentType?.startsWith("text/event-stream") ? text.split("\n").filter((line) => line.startsWith("data: ")).pop()?.slice(6) : text
  try {
    return data === undefined ? undefined : JSON.parse(data)
  } catch {
    return undefined
  }
}

/**
 * Answers one HTTP request to an MCP route.
 */
export const answer = (state: McpServerState, request: SimRequest, env: McpEnv): Response | Promise<Response> => {
  const compiled = state.current
  const definition = compiled.definition
  const stateful = definition.stateless !== true
  const origin = request.headers.get("origin")
  if (origin !== null && origin !== request.url.origin && !(definition.allowedOrigins ?? []).includes(origin)) {
    env.annotate({ method: request.method, denied: "origin" })
    return jsonRpcError(403, -32000, `Forbidden: Origin ${origin} is not allowed`)
  }
  const sessionId = request.headers.get("mcp-session-id")
  if (request.method === "DELETE" && stateful) {
    env.annotate({ method: "DELETE", session: sessionId ?? undefined })
    if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    if (!state.end(sessionId)) return jsonRpcError(404, -32001, "Session not found")
    return new Response(null, { status: 200 })
  }
  if (request.method !== "POST") {
    env.annotate({ method: request.method })
    return jsonRpcError(405, -32000, "Method not allowed.", { allow: stateful ? "POST, DELETE" : "POST" })
  }
  // Undefined when there is no body or it is not JSON (a string body is read without encoding it).
  const parsed = request.json()
  const messages: ReadonlyArray<unknown> = parsed === undefined ? [] : Array.isArray(parsed) ? parsed : [parsed]
  const calls = messages.map(describe)
  const initialize = messages.some((m) => isObject(m) && m.method === "initialize")
  const logged = calls.length === 1 ? calls[0] : { method: calls.length === 0 ? "(unparsed)" : "batch", calls }
  const version = request.headers.get("mcp-protocol-version")
  let session: McpSession | undefined
  if (stateful && parsed !== undefined && !initialize) {
    env.annotate({ ...logged, session: sessionId ?? undefined })
    if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    session = state.session(sessionId)
    if (session === undefined) return jsonRpcError(404, -32001, "Session not found")
  } else {
    env.annotate(logged)
  }
  if (!initialize && version !== null && !PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcError(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${PROTOCOL_VERSIONS.join(", ")})`
    )
  }
  const streams = definition.sse === "always" || messages.some((m) =>
    isObject(m) && m.method === "tools/call" && m.params?._meta?.progressToken !== undefined &&
    compiled.tools.get(m.params?.name)?.tool.handler !== undefined
  )
  if (!streams && !initialize && !Array.isArray(parsed) && direct(request, parsed)) {
    if (parsed.method === "tools/call" && plainCall(parsed.params)) {
      const reply = fastCall(compiled, state, env, session, parsed as any, request.signal)
      const respond = (value: Record<string, unknown>) => bufferedResponse(JSON.stringify(value), JSON_INIT, request.signal)
      return reply instanceof Promise ? reply.then(respond) : respond(reply)
    }
    return viaDirectServer({ compiled, state, request, env, session, parsed, initialize, streams })
  }
  return viaSdk({ compiled, state, request, env, session, parsed, initialize, streams })
}

/** One POST past the checks, on its way to an SDK server. */
interface Call {
  readonly compiled: CompiledServer
  readonly state: McpServerState
  readonly request: SimRequest
  readonly env: McpEnv
  readonly session: McpSession | undefined
  readonly parsed: unknown
  readonly initialize: boolean
  readonly streams: boolean
}

/** A request the SDK server of its session answers in process, unless that server is busy with its id. */
const viaDirectServer = async (call: Call & { readonly parsed: JSONRPCRequest }): Promise<Response> => {
  const found = directServer(call.state, call.env, call.session)
  const transport = found instanceof DirectTransport ? found : await found
  if (!transport.busy(call.parsed.id)) {
    const reply = await transport.request(call.parsed)
    return bufferedResponse(JSON.stringify(reply), JSON_INIT, call.request.signal)
  }
  return viaSdk(call)
}

/** A request answered by a fresh SDK server behind the SDK's web-standard transport. */
const viaSdk = async ({ compiled, state, request, env, session, parsed, initialize, streams }: Call): Promise<Response> => {
  const stateful = compiled.definition.stateless !== true
  const server = sdkServer(compiled, state, env, session)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: !streams, keepAliveMs: 0 })
  await server.connect(transport)
  const httpRequest = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    ...(parsed === undefined && request.body !== undefined ? { body: request.body as Uint8Array<ArrayBuffer> } : {})
  })
  const body = initialize && !Array.isArray(parsed) ? negotiate(parsed as Record<string, any>) : parsed
  const response = await transport.handleRequest(httpRequest, parsed === undefined ? undefined : { parsedBody: body })
  if (!initialize || !stateful || response.status !== 200) return response
  const text = await response.text()
  const reply = replyOf(text, response.headers.get("content-type"))
  if (!isObject(reply) || !isObject(reply.result)) return new Response(text, response)
  const clientInfo = (body as Record<string, any>).params?.clientInfo
  const { session: opened } = state.open(env.runSeed, env.identity, String(reply.result.protocolVersion), isObject(clientInfo) ? { name: String(clientInfo.name), version: String(clientInfo.version) } : undefined)
  const headers = new Headers(response.headers)
  headers.set("mcp-session-id", opened.id)
  return new Response(text, { status: response.status, headers })
}
