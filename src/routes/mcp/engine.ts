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
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import { Effect, Result } from "effect"
import type { CompiledServer, CompiledTool, McpToolAnswer } from "./definitions.ts"
import { bufferedResponse, canonicalJson, deriveSeed, type SimRequest } from "./floor.ts"
import type { McpServerState, McpSession } from "./state.ts"

/** The protocol revisions served, newest first: 2025-11-25 negotiating back to 2025-03-26. */
export const PROTOCOL_VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26"]

/** JSON-RPC error code of an unknown resource (the MCP specification's). */
const RESOURCE_NOT_FOUND = -32002

/** What one request needs from the network. */
export interface McpEnv {
  readonly runSeed: number
  readonly identity: string
  /** Adds the JSON-RPC method (and tool) to the request's log record. */
  readonly annotate: (detail: Readonly<Record<string, unknown>>) => void
  /** Runs a handler's Effect with the network's services, until `signal` aborts. */
  readonly run: <A>(effect: Effect.Effect<A, unknown>, signal: AbortSignal) => Promise<A>
}

let validator: AjvJsonSchemaValidator | undefined

const JSON_INIT: ResponseInit = { status: 200, headers: { "content-type": "application/json" } }

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers }
  })

const isObject = (u: unknown): u is Record<string, any> => typeof u === "object" && u !== null && !Array.isArray(u)

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const toolError = (text: string) => ({ content: [{ type: "text", text }], isError: true })

const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url")

const decodeCursor = (cursor: string): number | undefined => {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString())
  return match === null ? undefined : Number(match[1])
}

/** One page of a list, and the cursor of the next when there is one. */
const page = <A>(items: ReadonlyArray<A>, cursor: string | undefined, size: number) => {
  const start = cursor === undefined ? 0 : decodeCursor(cursor)
  if (start === undefined || start > items.length) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`)
  const end = start + size
  return { items: items.slice(start, end), nextCursor: end < items.length ? encodeCursor(end) : undefined }
}

/** A tool's answer as a `CallToolResult`, its structured content checked against the output schema. */
const toResult = (answer: McpToolAnswer, tool: CompiledTool) => {
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] }
  const name = tool.tool.name
  const structured = answer.structuredContent
  if (tool.checkOutput !== undefined && answer.isError !== true) {
    if (structured === undefined) {
      return toolError(`MCP error -32602: Output validation error: Tool ${name} has an output schema but no structured content was provided`)
    }
    const issue = tool.checkOutput(structured)
    if (issue !== undefined) return toolError(`MCP error -32602: Output validation error: Invalid structured content for tool ${name}: ${issue}`)
  }
  return {
    content: answer.content ?? (structured === undefined ? [] : [{ type: "text", text: JSON.stringify(structured) }]),
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(answer.isError === true ? { isError: true } : {})
  }
}

const fillTemplate = (text: string, args: Readonly<Record<string, string>>) =>
  text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, key: string) => args[key] ?? "")

/**
 * Registers `handler` for the method of `schema`, answering params that do not fit the schema
 * with -32602 (the SDK's `Protocol` reports a request that fails its schema as an internal
 * error). `tools/call` is checked by the SDK's `Server` itself, which answers -32602, so its
 * handler sees the request as sent.
 */
const on = <S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: any, extra: any) => unknown
): void => {
  let lenient = lenientSchemas.get(schema)
  if (lenient === undefined) lenientSchemas.set(schema, lenient = schema.pick({ method: true }).passthrough())
  if (schema === CallToolRequestSchema) return server.setRequestHandler(lenient, handler as any)
  server.setRequestHandler(lenient, (request, extra) => {
    const parsed = schema.safeParse(request)
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`)
    return handler(parsed.data, extra) as any
  })
}

/** The method-only schemas `on` registers with, built once per request schema. */
const lenientSchemas = new Map<RequestSchema, any>()

type RequestSchema =
  | typeof CallToolRequestSchema
  | typeof GetPromptRequestSchema
  | typeof ListPromptsRequestSchema
  | typeof ListResourcesRequestSchema
  | typeof ListToolsRequestSchema
  | typeof ReadResourceRequestSchema

/** What a `tools/call` handler gets besides the request: the SDK's `extra`, or its stand-in on the fast path. */
interface CallExtra {
  readonly signal: AbortSignal
  readonly sendNotification: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>
}

/** A tool name as an error shows it: at most 200 characters. */
const boundedName = (name: string) => (name.length <= 200 ? name : `${name.slice(0, 200)}…(${name.length} chars)`)

/**
 * Answers a `tools/call` from `compiled`: counts it, decodes its arguments, and answers with the
 * tool's handler, fixed result or a generated value. The SDK `Server` of `sdkServer` calls it, and
 * so does the fast path (`fastCall`).
 */
const callTool = (
  compiled: CompiledServer,
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined,
  params: Record<string, any>,
  extra: CallExtra
): any => {
  const name: string = params.name
  const args = params.arguments ?? {}
  const tool = compiled.tools.get(name)
  if (tool === undefined) {
    // A made-up name is counted (bounded by name), never given an occurrence: its calls hold no
    // memory per distinct argument.
    state.countName(name)
    return toolError(new McpError(ErrorCode.InvalidParams, `Tool ${boundedName(name)} not found`).message)
  }
  const key = `${name}\u0000${canonicalJson(args)}`
  const occurrence = state.count(name, key)
  const decoded = tool.decodeInput(args)
  if (Result.isFailure(decoded)) {
    return toolError(`MCP error -32602: Input validation error: Invalid arguments for tool ${name}: ${decoded.failure}`)
  }
  const seed = deriveSeed(env.runSeed, env.identity, `tools/call\u0000${key}`, occurrence)
  const { handler, result } = tool.tool
  if (handler !== undefined) {
    const token = params._meta?.progressToken
    const context = {
      seed,
      occurrence,
      session: session?.id,
      signal: extra.signal,
      progress: async (progress: number, total?: number, message?: string) => {
        if (token === undefined) return
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }
        })
      }
    }
    // A handler that answers at once is answered at once; a promise or an Effect is waited for.
    const failed = (error: unknown) => toolError(messageOf(error))
    try {
      const answer = handler(decoded.success, context)
      if (Effect.isEffect(answer)) return env.run(answer, extra.signal).then((value) => toResult(value, tool)).catch(failed)
      if (isThenable(answer)) return Promise.resolve(answer).then((value) => toResult(value, tool)).catch(failed)
      return toResult(answer, tool)
    } catch (error) {
      return failed(error)
    }
  }
  if (result !== undefined) return toResult(result, tool)
  const generated = tool.generator!.generate(seed)
  if (Result.isFailure(generated)) throw new McpError(ErrorCode.InternalError, generated.failure.message)
  return { content: [{ type: "text", text: generated.success }], structuredContent: JSON.parse(generated.success) }
}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

/** Params of a `tools/call` the SDK's `CallToolRequestSchema` accepts as they are: a name and arguments, nothing else. */
const plainCall = (params: unknown): params is { readonly name: string; readonly arguments?: Record<string, unknown> } => {
  if (!isObject(params) || typeof params.name !== "string") return false
  let keys = 1
  if (params.arguments !== undefined) {
    if (!isObject(params.arguments)) return false
    keys++
  }
  for (const _ in params) if (--keys < 0) return false
  return keys === 0
}

/** A text content item exactly as `TextContentSchema` outputs it. */
const plainText = (item: unknown): boolean => {
  if (!isObject(item) || item.type !== "text" || typeof item.text !== "string") return false
  let keys = 2
  for (const _ in item) if (--keys < 0) return false
  return true
}

/**
 * A tool result `CallToolResultSchema` accepts and outputs unchanged: text content, an object of
 * structured content, an `isError` flag. The results this engine builds itself are of this shape;
 * a handler's own `content` of another shape is checked by the schema.
 */
const plainResult = (result: Record<string, unknown>): boolean => {
  const content = result.content
  if (!Array.isArray(content) || !content.every(plainText)) return false
  let keys = 1
  if (result.structuredContent !== undefined) {
    if (!isObject(result.structuredContent)) return false
    keys++
  }
  if (result.isError !== undefined) {
    if (typeof result.isError !== "boolean") return false
    keys++
  }
  for (const _ in result) if (--keys < 0) return false
  return true
}

const NEVER_ABORTED = new AbortController().signal
const noNotifications = async () => {}

/**
 * The fast path of a plain `tools/call` (see `plainCall`; no progress token, no task): what the
 * SDK `Server` answers for it — its request and result checks and its reply, an error thrown
 * becoming a JSON-RPC error as the SDK's `Protocol` makes it — without a round through the
 * `Protocol`, whose type guards and parses cost more than the call.
 */
const fastCall = (
  compiled: CompiledServer,
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined,
  message: JSONRPCRequest & { readonly params: { readonly name: string } },
  signal: AbortSignal | undefined
): Record<string, unknown> | Promise<Record<string, unknown>> => {
  const reply = (result: any): Record<string, unknown> => {
    if (!plainResult(result)) {
      const checked = CallToolResultSchema.safeParse(result)
      if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`)
      result = checked.data
    }
    return { result, jsonrpc: "2.0", id: message.id }
  }
  const failure = (error: any): Record<string, unknown> => ({
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: Number.isSafeInteger(error?.code) ? error.code : ErrorCode.InternalError,
      message: error?.message ?? "Internal error",
      ...(error?.data !== undefined ? { data: error.data } : {})
    }
  })
  try {
    const result = callTool(compiled, state, env, session, message.params, { signal: signal ?? NEVER_ABORTED, sendNotification: noNotifications })
    return result instanceof Promise ? result.then(reply).catch(failure) : reply(result)
  } catch (error) {
    return failure(error)
  }
}

/** An SDK server answering from `compiled`, the route's definitions at one revision. */
const sdkServer = (compiled: CompiledServer, state: McpServerState, env: McpEnv, session: McpSession | undefined): Server => {
  const definition = compiled.definition
  const size = definition.pageSize ?? 50
  const server = new Server(
    { name: definition.name, version: definition.version, ...(definition.title === undefined ? {} : { title: definition.title }) },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: definition.instructions,
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator())
    }
  )
  on(server, ListToolsRequestSchema, (request) => {
    const { items, nextCursor } = page(compiled.toolList, request.params?.cursor, size)
    return { tools: items.map((tool) => tool.listing) as any, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, CallToolRequestSchema, (request, extra) => callTool(compiled, state, env, session, request.params, extra))
  on(server, ListResourcesRequestSchema, (request) => {
    const { items, nextCursor } = page(Array.from(compiled.resources.values()), request.params?.cursor, size)
    const resources = items.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType }))
    return { resources, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, ReadResourceRequestSchema, (request) => {
    const resource = compiled.resources.get(request.params.uri)
    if (resource === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource ${request.params.uri} not found`)
    const { uri, mimeType, text, blob } = resource
    return {
      contents: [
        text !== undefined
          ? { uri, mimeType, text }
          : { uri, mimeType, blob: typeof blob === "string" ? blob : Buffer.from(blob!).toString("base64") }
      ]
    }
  })
  on(server, ListPromptsRequestSchema, (request) => {
    const { items, nextCursor } = page(Array.from(compiled.prompts.values()), request.params?.cursor, size)
    const prompts = items.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args?.map((a) => ({ ...a })) }))
    return { prompts, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, GetPromptRequestSchema, (request) => {
    const prompt = compiled.prompts.get(request.params.name)
    if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `Prompt ${request.params.name} not found`)
    const args = request.params.arguments ?? {}
    for (const argument of prompt.arguments ?? []) {
      if (argument.required === true && args[argument.name] === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `Missing required argument "${argument.name}" for prompt ${prompt.name}`)
      }
    }
    return {
      ...(prompt.description === undefined ? {} : { description: prompt.description }),
      messages: prompt.messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: fillTemplate(m.text, args) } }))
    }
  })
  return server
}

/**
 * A transport that hands one JSON-RPC request to a connected SDK `Server` and resolves with its
 * reply: what `InMemoryTransport` does for a client, done for an HTTP request already checked.
 */
class DirectTransport implements Transport {
  onmessage?: Transport["onmessage"]
  onclose?: Transport["onclose"]
  onerror?: Transport["onerror"]
  private readonly pending = new Map<string | number, (reply: JSONRPCMessage) => void>()

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // The server sends replies it built itself (and, on this path, nothing else that needs one).
    if (!("result" in message || "error" in message) || message.id === undefined) return
    const resolve = this.pending.get(message.id)
    this.pending.delete(message.id)
    resolve?.(message)
  }

  /** Whether a request with this id is still being answered (ids must not collide). */
  busy(id: string | number): boolean {
    return this.pending.has(id)
  }

  request(message: JSONRPCRequest): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.pending.set(message.id, resolve)
      this.onmessage?.(message)
    })
  }
}

/** An SDK server fed directly, for one session at one revision of the definitions. */
interface DirectServer {
  readonly revision: number
  readonly transport: DirectTransport
}

/** The direct servers of each route state, by session id ("" for a stateless server). */
const directServers = new WeakMap<McpServerState, Map<string, DirectServer>>()

/** The direct server of a session, made (and connected) when it has none for the current revision. */
const directServer = (state: McpServerState, env: McpEnv, session: McpSession | undefined): DirectTransport | Promise<DirectTransport> => {
  let servers = directServers.get(state)
  if (servers === undefined) directServers.set(state, servers = new Map())
  const key = session?.id ?? ""
  const found = servers.get(key)
  if (found !== undefined && found.revision === state.revision) return found.transport
  const transport = new DirectTransport()
  servers.set(key, { revision: state.revision, transport })
  return sdkServer(state.current, state, env, session).connect(transport).then(() => transport)
}

const forgetSession = (state: McpServerState, id: string): void => {
  directServers.get(state)?.delete(id)
}

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

/**
 * A JSON-RPC request of the plainest shape, which the SDK's `JSONRPCRequestSchema` accepts: only
 * `jsonrpc`, `id` (a string or an integer), `method` and `params` (an object without `_meta`).
 * Checked by hand because the schema's parse costs more than the rest of a call; anything else is
 * left to the schema.
 */
const plainRequest = (message: unknown): boolean => {
  if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") return false
  const id = message.id
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false
  let keys = 3
  const params = message.params
  if (params !== undefined) {
    if (!isObject(params) || params._meta !== undefined) return false
    keys++
  }
  for (const _ in message) if (--keys < 0) return false
  return keys === 0
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
    forgetSession(state, sessionId)
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
  const { session: opened, ended } = state.open(env.runSeed, env.identity, String(reply.result.protocolVersion), isObject(clientInfo) ? { name: String(clientInfo.name), version: String(clientInfo.version) } : undefined)
  if (ended !== undefined) forgetSession(state, ended)
  const headers = new Headers(response.headers)
  headers.set("mcp-session-id", opened.id)
  return new Response(text, { status: response.status, headers })
}
