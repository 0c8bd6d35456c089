/**
 * The engine behind an MCP route: Streamable HTTP answered by the official SDK's `Server`.
 *
 * Two ways in. The fast path — a POST of one JSON-RPC request (not `initialize`) in a session,
 * with the headers the transport requires and a JSON answer — goes to an SDK `Server` kept per
 * session (per route for a stateless server) and fed through a direct in-process transport, so a
 * request costs no `Request`, no transport and no handler registration. A plain `tools/call` on
 * that path (a name and arguments, no progress token, a tool that sends nothing on its way) skips
 * the SDK's `Protocol` round too: the engine does what the SDK's `Server` does for it
 * (`fastCall`: the same handler, the same result check, the same reply and errors).
 *
 * Everything else goes to the session's live connection (`session.ts`): one SDK `Server` behind
 * the SDK's `WebStandardStreamableHTTPServerTransport`, from `initialize` to `DELETE`, which does
 * the wire — `Accept` (406), `Content-Type` (415), JSON and JSON-RPC checks (-32700, -32600),
 * sessions (400 without, 404 unknown), protocol revisions (every one the SDK speaks, negotiated
 * as the SDK does), notifications (202), event streams with resumable ids, `GET` for the server's
 * own stream, and requests from server to client. It answers `initialize` as JSON and then, as
 * the SDK's transport does by default, as event streams: what reaches it after `initialize` is a
 * tool call that sends notifications or asks the client something, a batch, or the client's
 * answers (202); every plain request takes the fast path and is answered as JSON. A stateless
 * server answers each POST
 * with a fresh SDK server and transport, as the SDK's stateless mode does.
 *
 * Requests at the draft revision 2026-07-28 (no sessions) go to `modern.ts`, a facade over the
 * same SDK server. This module adds what the SDK leaves to its host: `Origin` (403 for a foreign one: see
 * `allowedOrigin`), deterministic session ids, and the tools, resources and prompts themselves.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import {
  isJSONRPCRequest,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import type { CompiledServer } from "./definitions.ts"
import { bufferedResponse, type SimRequest } from "./floor.ts"
import { isObject, plainCall, plainRequest } from "./copies.ts"
import { DirectTransport, directServer, sdkServer } from "./servers.ts"
import { answerModern, MODERN } from "./modern.ts"
import { runtimeOf } from "./session.ts"
import type { McpServerState, McpSession } from "./state.ts"
import { fastCall, type McpEnv } from "./tools.ts"

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
  return (
    accept?.includes("application/json") === true &&
    accept.includes("text/event-stream") &&
    isJsonContentType(request.headers.get("content-type")) &&
    (plainRequest(message) || isJSONRPCRequest(message))
  )
}

/** The method (and tool) of one JSON-RPC message, for the log. */
const describe = (message: unknown): Record<string, unknown> => {
  if (!isObject(message)) return { method: "(invalid)" }
  const method = typeof message.method === "string" ? message.method : "id" in message ? "(response)" : "(invalid)"
  return method === "tools/call" && isObject(message.params) && typeof message.params.name === "string"
    ? { method, tool: message.params.name }
    : { method }
}

/** The revision `initialize` settles on, as the SDK's `Server` settles it: the one asked for when spoken, else the newest. */
const negotiated = (message: unknown): string => {
  const asked = isObject(message) && isObject(message.params) ? message.params.protocolVersion : undefined
  return typeof asked === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i

/**
 * Which browser origins a simulated server answers (others get 403, as the MCP transport
 * specification asks of every server, against DNS rebinding): the simulated host's own origin,
 * any origin on this machine's loopback (`http://127.0.0.1:PORT`, `http://localhost:5173`: a page
 * served by `simnet serve` or by the app under test, where the simulated server runs), and those
 * its definition lists in `allowedOrigins`. A request without `Origin` (not from a browser) is
 * answered.
 */
const allowedOrigin = (origin: string, request: SimRequest, listed: ReadonlyArray<string> | undefined): boolean =>
  origin === request.url.origin || LOOPBACK_ORIGIN.test(origin) || (listed ?? []).includes(origin)

/** A request for the SDK transport: the simulated one's method, URL and headers, its body when not already parsed. */
const webRequest = (request: SimRequest, parsed: unknown): Request =>
  new Request(request.url, {
    method: request.method,
    headers: request.headers,
    ...(parsed === undefined && request.body !== undefined && request.method === "POST"
      ? { body: request.body as Uint8Array<ArrayBuffer> }
      : {}),
    signal: request.signal
  })

/**
 * Answers one HTTP request to an MCP route.
 */
export const answer = (state: McpServerState, request: SimRequest, env: McpEnv): Response | Promise<Response> => {
  const compiled = state.current
  const definition = compiled.definition
  const stateful = definition.stateless !== true
  const origin = request.headers.get("origin")
  if (origin !== null && !allowedOrigin(origin, request, definition.allowedOrigins)) {
    env.annotate({ method: request.method, denied: "origin" })
    return jsonRpcError(403, -32000, `Forbidden: Origin ${origin} is not allowed`)
  }
  if (request.headers.get("mcp-protocol-version") === MODERN) return answerModern(state, request, env)
  const sessionId = request.headers.get("mcp-session-id")
  if (request.method !== "POST") {
    env.annotate({ method: request.method, ...(sessionId === null ? {} : { session: sessionId }) })
    if (!stateful || (request.method !== "GET" && request.method !== "DELETE")) {
      return jsonRpcError(405, -32000, "Method not allowed.", { allow: stateful ? "GET, POST, DELETE" : "POST" })
    }
    if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    const session = state.session(sessionId)
    if (session === undefined) return jsonRpcError(404, -32001, "Session not found")
    const answered = runtimeOf(state, env, session, false).handle(webRequest(request, undefined), undefined)
    if (request.method === "DELETE") {
      return answered.then((response) => {
        state.end(sessionId)
        return response
      })
    }
    return answered
  }
  // Undefined when there is no body or it is not JSON (a string body is read without encoding it).
  const parsed = request.json()
  const messages: ReadonlyArray<unknown> = parsed === undefined ? [] : Array.isArray(parsed) ? parsed : [parsed]
  const calls = messages.map(describe)
  const initialize = messages.some((m) => isObject(m) && m.method === "initialize")
  const logged = calls.length === 1 ? calls[0] : { method: calls.length === 0 ? "(unparsed)" : "batch", calls }
  const version = request.headers.get("mcp-protocol-version")
  // A revision neither the SDK nor `modern.ts` speaks is named as such, before any session is asked for.
  if (!initialize && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    env.annotate(logged)
    return jsonRpcError(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`
    )
  }
  let session: McpSession | undefined
  if (stateful && parsed !== undefined && !initialize) {
    env.annotate({ ...logged, session: sessionId ?? undefined })
    if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    session = state.session(sessionId)
    if (session === undefined) return jsonRpcError(404, -32001, "Session not found")
  } else {
    env.annotate(logged)
  }
  const streams =
    definition.sse === "always" ||
    messages.some((m) => {
      if (!isObject(m) || m.method !== "tools/call") return false
      const params = isObject(m.params) ? m.params : {}
      const tool = typeof params.name === "string" ? compiled.tools.get(params.name)?.tool : undefined
      return (
        tool?.steps !== undefined ||
        (isObject(params._meta) && params._meta.progressToken !== undefined && tool?.handler !== undefined)
      )
    })
  if (!streams && !initialize && !Array.isArray(parsed) && direct(request, parsed)) {
    const headers = session === undefined ? JSON_INIT : SESSION_INIT(session.id)
    if (parsed.method === "tools/call" && plainCall(parsed.params)) {
      const reply = fastCall(compiled, state, env, session, parsed.id, parsed.params, request.signal)
      const respond = (value: Record<string, unknown>) =>
        bufferedResponse(JSON.stringify(value), headers, request.signal)
      return reply instanceof Promise ? reply.then(respond) : respond(reply)
    }
    return viaDirectServer({ compiled, state, request, env, session, parsed, initialize, streams })
  }
  if (!stateful) return viaSdk({ compiled, state, request, env, session, parsed, initialize, streams })
  if (initialize) {
    if (Array.isArray(parsed))
      return jsonRpcError(400, -32600, "Invalid Request: Only one initialization request is allowed")
    const clientInfo = isObject(parsed) && isObject(parsed.params) ? parsed.params.clientInfo : undefined
    const { session: opened } = state.open(
      env.runSeed,
      env.identity,
      negotiated(parsed),
      isObject(clientInfo) ? { name: String(clientInfo.name), version: String(clientInfo.version) } : undefined
    )
    return runtimeOf(state, env, opened, true)
      .handle(webRequest(request, parsed), parsed)
      .then((response) => {
        // An initialize the transport refused opens no session.
        if (response.status !== 200) state.end(opened.id)
        return response
      })
  }
  // A body that is not JSON reaches here without a session looked up: the session's transport
  // answers it (-32700) when it names one, a fresh server otherwise.
  const known = session ?? (sessionId === null ? undefined : state.session(sessionId))
  if (known === undefined) return viaSdk({ compiled, state, request, env, session, parsed, initialize, streams })
  return runtimeOf(state, env, known, false).handle(webRequest(request, parsed), parsed)
}

/** The head of a JSON answer in a session: its id on every response, as the SDK's transport sends it. */
const SESSION_INIT = (id: string): ResponseInit => ({
  status: 200,
  headers: { "content-type": "application/json", "mcp-session-id": id }
})

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
    return bufferedResponse(
      JSON.stringify(reply),
      call.session === undefined ? JSON_INIT : SESSION_INIT(call.session.id),
      call.request.signal
    )
  }
  if (call.session !== undefined)
    return runtimeOf(call.state, call.env, call.session, false).handle(
      webRequest(call.request, call.parsed),
      call.parsed
    )
  return viaSdk(call)
}

/** A request to a stateless server, answered by a fresh SDK server behind the SDK's web-standard transport. */
const viaSdk = async ({ compiled, state, request, env, session, parsed, streams }: Call): Promise<Response> => {
  const server = sdkServer(() => compiled, state, env, session)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: !streams, keepAliveMs: 0 })
  await server.connect(transport)
  return transport.handleRequest(webRequest(request, parsed), parsed === undefined ? undefined : { parsedBody: parsed })
}
