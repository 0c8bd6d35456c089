/**
 * Copies of dependencies' behaviour, kept for speed: the MCP route's every copy is here, so none
 * hides elsewhere. From the MCP SDK: the shapes its zod schemas accept unchanged (so a plain
 * request or result can skip the parse), the reply its `Protocol` builds from a thrown error, the
 * messages of its `McpError` and of its `McpServer` for a failed tool call, its error codes, and
 * two settings of its web transport it has no option for (`streamFromNowOn`, `adoptSession`). From Effect: `effect/ai/Tool`'s JSON Schema of an Effect
 * Schema (its module and `AiError` cost a cold start 2.5 ms for three lines). This module imports
 * neither at run time, so the route's definitions load without them.
 *
 * Copies drift as their sources move: `test/internal/mcp.copies.test.ts` checks each against the
 * dependency itself (generated inputs through the SDK's schemas; the same failures through its
 * `McpServer`; schemas through `Tool.getJsonSchemaFromSchema`), so an update that changes one
 * fails the suite.
 */
import { Schema } from "effect"

/** The JSON-RPC error codes the engine answers with (the SDK's `ErrorCode`). */
export const ErrorCode = { InvalidParams: -32602, InternalError: -32603 } as const

/** The message of the SDK's `new McpError(code, message)`. */
export const mcpErrorMessage = (code: number, message: string): string => `MCP error ${code}: ${message}`

/** `Tool.getJsonSchemaFromSchema` of `effect/ai` (without a transformer): the document's schema, its definitions as `$defs`. */
export const jsonSchemaOf = (schema: Schema.Top): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(schema)
  const out = document.schema as Record<string, unknown>
  if (Object.keys(document.definitions).length > 0) out.$defs = document.definitions
  return out
}

/**
 * Two settings of the SDK's `WebStandardStreamableHTTPServerTransport` it has no option for, set
 * on its fields (checked against the SDK by `test/internal/mcp.copies.test.ts`):
 *
 * - `streamFromNowOn`: a session's transport answers `initialize` as JSON (as this engine always
 *   has), then every request as an event stream, as the SDK's transport does by default. The
 *   transport reads the flag per request and again when it sends, so it is flipped once, after
 *   `initialize` is answered and before the client knows the session: no request is in flight.
 * - `adoptSession`: a transport for a session opened before it existed (restored from a
 *   snapshot): already initialized, under that session's id.
 */
export const streamFromNowOn = (transport: unknown): void => {
  ;(transport as { _enableJsonResponse: boolean })._enableJsonResponse = false
}

export const adoptSession = (transport: unknown, sessionId: string): void => {
  const fields = transport as { sessionId: string | undefined; _initialized: boolean }
  fields.sessionId = sessionId
  fields._initialized = true
}

export const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Params of a `tools/call` the SDK's `CallToolRequestSchema` accepts as they are: a name and arguments, nothing else. */
export const plainCall = (
  params: unknown
): params is { readonly name: string; readonly arguments?: Record<string, unknown> } => {
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
export const plainResult = (result: Readonly<Record<string, unknown>>): boolean => {
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

/**
 * A JSON-RPC request of the plainest shape, which the SDK's `JSONRPCRequestSchema` accepts: only
 * `jsonrpc`, `id` (a string or an integer), `method` and `params` (an object without `_meta`).
 * Checked by hand because the schema's parse costs more than the rest of a call; anything else is
 * left to the schema.
 */
export const plainRequest = (message: unknown): boolean => {
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

/**
 * The JSON-RPC error reply the SDK's `Protocol` sends when a request handler throws: the error's
 * `code` when it is a safe integer (else -32603), its `message` (else "Internal error"), its `data`.
 */
export const protocolFailure = (id: string | number, error: unknown): Record<string, unknown> => {
  const { code, message, data } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown
    message?: unknown
    data?: unknown
  }
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
      message: message ?? "Internal error",
      ...(data !== undefined ? { data } : {})
    }
  }
}

/** A tool name as an error shows it: at most 200 characters (the SDK shows it whole). */
export const boundedName = (name: string) =>
  name.length <= 200 ? name : `${name.slice(0, 200)}…(${name.length} chars)`

/**
 * The texts of the error results the SDK's `McpServer` gives a failed `tools/call` (each an
 * `McpError`'s message, so prefixed "MCP error -32602: ").
 */
export const toolFailures = {
  notFound: (name: string) => mcpErrorMessage(ErrorCode.InvalidParams, `Tool ${boundedName(name)} not found`),
  invalidArguments: (name: string, issue: string) =>
    mcpErrorMessage(ErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${name}: ${issue}`),
  noStructuredContent: (name: string) =>
    mcpErrorMessage(
      ErrorCode.InvalidParams,
      `Output validation error: Tool ${name} has an output schema but no structured content was provided`
    ),
  invalidStructuredContent: (name: string, issue: string) =>
    mcpErrorMessage(
      ErrorCode.InvalidParams,
      `Output validation error: Invalid structured content for tool ${name}: ${issue}`
    )
} as const
