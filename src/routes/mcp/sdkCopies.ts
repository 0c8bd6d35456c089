/**
 * Copies of the MCP SDK's behaviour, kept for speed. Each is a hand-written check or string that
 * must stay what the SDK does: the shapes its zod schemas accept unchanged (so a plain request or
 * result can skip the parse), the reply its `Protocol` builds from a thrown error, the messages its
 * `McpServer` gives a failed tool call, and the protocol revisions it speaks. Copies drift as the
 * SDK moves: `test/internal/mcp.copies.test.ts` checks each against the SDK itself (generated
 * inputs through its schemas; the same failures through its `McpServer`), so an SDK update that
 * changes one fails the suite.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"

/**
 * The protocol revisions served, newest first: 2025-11-25 negotiating back to 2025-03-26. A
 * prefix of the SDK's `SUPPORTED_PROTOCOL_VERSIONS` (the older two are not served).
 */
export const PROTOCOL_VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26"]

export const isObject = (u: unknown): u is Record<string, any> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Params of a `tools/call` the SDK's `CallToolRequestSchema` accepts as they are: a name and arguments, nothing else. */
export const plainCall = (params: unknown): params is { readonly name: string; readonly arguments?: Record<string, unknown> } => {
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
export const plainResult = (result: Record<string, unknown>): boolean => {
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
export const protocolFailure = (id: string | number, error: any): Record<string, unknown> => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: Number.isSafeInteger(error?.code) ? error.code : ErrorCode.InternalError,
    message: error?.message ?? "Internal error",
    ...(error?.data !== undefined ? { data: error.data } : {})
  }
})

/** A tool name as an error shows it: at most 200 characters (the SDK shows it whole). */
export const boundedName = (name: string) => (name.length <= 200 ? name : `${name.slice(0, 200)}…(${name.length} chars)`)

/**
 * The texts of the error results the SDK's `McpServer` gives a failed `tools/call` (each an
 * `McpError`'s message, so prefixed "MCP error -32602: ").
 */
export const toolFailures = {
  notFound: (name: string) => new McpError(ErrorCode.InvalidParams, `Tool ${boundedName(name)} not found`).message,
  invalidArguments: (name: string, issue: string) =>
    new McpError(ErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${name}: ${issue}`).message,
  noStructuredContent: (name: string) =>
    new McpError(ErrorCode.InvalidParams, `Output validation error: Tool ${name} has an output schema but no structured content was provided`).message,
  invalidStructuredContent: (name: string, issue: string) =>
    new McpError(ErrorCode.InvalidParams, `Output validation error: Invalid structured content for tool ${name}: ${issue}`).message
} as const
