/**
 * The SDK `Server`s behind an MCP route: one built from the route's definitions (tools, resources,
 * prompts, paging), and the direct servers kept per session and fed in process through
 * `DirectTransport`, so a request on the hot path costs no `Request`, no web transport and no
 * handler registration.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { AnyObjectSchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { CompiledServer, McpContent, McpPromptMessage } from "./definitions.ts"
import { MAX_SUBSCRIPTIONS, type McpServerState, type McpSession, type SessionEngine } from "./state.ts"
import { callTool, type McpEnv, render } from "./tools.ts"

/** JSON-RPC error code of an unknown resource (the MCP specification's). */
const RESOURCE_NOT_FOUND = -32002

let validator: AjvJsonSchemaValidator | undefined

const encodeCursor = (offset: number) => Buffer.from(`offset:${offset}`).toString("base64url")

const decodeCursor = (cursor: string): number | undefined => {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString())
  return match === null ? undefined : Number(match[1])
}

/** One page of a list, and the cursor of the next when there is one. */
const page = <A>(items: ReadonlyArray<A>, cursor: string | undefined, size: number) => {
  const start = cursor === undefined ? 0 : decodeCursor(cursor)
  if (start === undefined || start > items.length)
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`)
  const end = start + size
  return { items: items.slice(start, end), nextCursor: end < items.length ? encodeCursor(end) : undefined }
}

const fillTemplate = (text: string, args: Readonly<Record<string, string>>) =>
  text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, key: string) => args[key] ?? "")

/** A prompt message with its arguments filled in: in its text, or in every string of its content. */
const promptMessage = (message: McpPromptMessage, args: Readonly<Record<string, string>>) =>
  "text" in message
    ? { role: message.role, content: { type: "text" as const, text: fillTemplate(message.text, args) } }
    : { role: message.role, content: render(message.content, (key) => args[key]) as McpContent }

/** The values offered for an argument, those that start with what was typed first, at most 100 (the protocol's page). */
const completion = (values: ReadonlyArray<string>, typed: string) => {
  const matching = values.filter((v) => v.startsWith(typed))
  return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 } }
}

/** The contents of a resource or of a URI a template matched. */
const contentsOf = (
  uri: string,
  mimeType: string | undefined,
  text: string | undefined,
  blob: string | Uint8Array | undefined
) =>
  text !== undefined
    ? { uri, ...(mimeType === undefined ? {} : { mimeType }), text }
    : {
        uri,
        ...(mimeType === undefined ? {} : { mimeType }),
        blob: typeof blob === "string" ? blob : Buffer.from(blob!).toString("base64")
      }

/**
 * Registers `handler` for the method of `schema`, answering params that do not fit the schema
 * with -32602 (the SDK's `Protocol` reports a request that fails its schema as an internal
 * error). `tools/call` is checked by the SDK's `Server` itself, which answers -32602, so its
 * handler sees the request as sent.
 */
const on = <S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: SchemaOutput<S>, extra: Extra) => unknown
): void => {
  let lenient = lenientSchemas.get(schema)
  if (lenient === undefined) lenientSchemas.set(schema, (lenient = schema.pick({ method: true }).passthrough()))
  // The answers are ours, built to the SDK's result shapes, which its types do not follow.
  if (schema === CallToolRequestSchema) {
    server.setRequestHandler(lenient, handler as (request: SchemaOutput<AnyObjectSchema>, extra: Extra) => never)
    return
  }
  server.setRequestHandler(lenient, (request, extra) => {
    const parsed = schema.safeParse(request)
    if (!parsed.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`
      )
    return handler(parsed.data as SchemaOutput<S>, extra) as never
  })
}

/** What the SDK's `Server` gives a request handler beside the request. */
type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1]

/** The method-only schemas `on` registers with, built once per request schema. */
const lenientSchemas = new Map<RequestSchema, AnyObjectSchema>()

type RequestSchema =
  | typeof CallToolRequestSchema
  | typeof CompleteRequestSchema
  | typeof GetPromptRequestSchema
  | typeof ListPromptsRequestSchema
  | typeof ListResourcesRequestSchema
  | typeof ListResourceTemplatesRequestSchema
  | typeof ListToolsRequestSchema
  | typeof ReadResourceRequestSchema
  | typeof SetLevelRequestSchema
  | typeof SubscribeRequestSchema
  | typeof UnsubscribeRequestSchema

/**
 * An SDK server answering from the route's definitions as `current` gives them (for a session's
 * live server, always the newest; for a direct server, the revision it was built at). It speaks
 * every capability a definition can use: tools, resources (templates, subscriptions), prompts,
 * completions and logging, each list announcing `listChanged`.
 */
export const sdkServer = (
  current: () => CompiledServer,
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined
): Server => {
  const definition = current().definition
  const wishes = () => state.wishesOf(session?.id ?? "")
  const server = new Server(
    {
      name: definition.name,
      version: definition.version,
      ...(definition.title === undefined ? {} : { title: definition.title })
    },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {}
      },
      instructions: definition.instructions,
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator())
    }
  )
  const size = () => current().definition.pageSize ?? 50
  on(server, ListToolsRequestSchema, (request) => {
    const { items, nextCursor } = page(current().toolList, request.params?.cursor, size())
    return { tools: items.map((tool) => tool.listing), ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, CallToolRequestSchema, (request, extra) => callTool(current(), state, env, session, request.params, extra))
  on(server, ListResourcesRequestSchema, (request) => {
    const { items, nextCursor } = page(Array.from(current().resources.values()), request.params?.cursor, size())
    const resources = items.map(({ uri, name, title, description, mimeType }) => ({
      uri,
      name,
      title,
      description,
      mimeType
    }))
    return { resources, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, ListResourceTemplatesRequestSchema, (request) => {
    const { items, nextCursor } = page(current().templates, request.params?.cursor, size())
    const resourceTemplates = items.map(({ template: { uriTemplate, name, title, description, mimeType } }) => ({
      uriTemplate,
      name,
      title,
      description,
      mimeType
    }))
    return { resourceTemplates, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, ReadResourceRequestSchema, (request) => {
    const uri: string = request.params.uri
    const resource = current().resources.get(uri)
    if (resource !== undefined) return { contents: [contentsOf(uri, resource.mimeType, resource.text, resource.blob)] }
    for (const { match, template } of current().templates) {
      const values = match(uri)
      if (values === undefined) continue
      const fill = (text: string) =>
        text.replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, name: string) => values[name] ?? whole)
      return {
        contents: [
          contentsOf(
            uri,
            template.mimeType,
            template.text === undefined ? undefined : fill(template.text),
            template.blob
          )
        ]
      }
    }
    throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri} not found`)
  })
  on(server, SubscribeRequestSchema, (request) => {
    const subscriptions = wishes().subscriptions
    if (!subscriptions.has(request.params.uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(ErrorCode.InvalidParams, `A session subscribes to at most ${MAX_SUBSCRIPTIONS} resources`)
    }
    subscriptions.add(request.params.uri)
    return {}
  })
  on(server, UnsubscribeRequestSchema, (request) => {
    wishes().subscriptions.delete(request.params.uri)
    return {}
  })
  on(server, SetLevelRequestSchema, (request) => {
    wishes().level = request.params.level
    return {}
  })
  on(server, CompleteRequestSchema, (request) => {
    const { ref, argument } = request.params
    if (ref.type === "ref/prompt") {
      const prompt = current().prompts.get(ref.name)
      if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `Prompt ${ref.name} not found`)
      return completion(prompt.arguments?.find((a) => a.name === argument.name)?.completions ?? [], argument.value)
    }
    const template = current().templates.find((t) => t.template.uriTemplate === ref.uri)
    if (template === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource template ${ref.uri} not found`)
    return completion(template.template.completions?.[argument.name] ?? [], argument.value)
  })
  on(server, ListPromptsRequestSchema, (request) => {
    const { items, nextCursor } = page(Array.from(current().prompts.values()), request.params?.cursor, size())
    const prompts = items.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args?.map(({ name, description, required }) => ({ name, description, required }))
    }))
    return { prompts, ...(nextCursor === undefined ? {} : { nextCursor }) }
  })
  on(server, GetPromptRequestSchema, (request) => {
    const prompt = current().prompts.get(request.params.name)
    if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `Prompt ${request.params.name} not found`)
    const args = request.params.arguments ?? {}
    for (const argument of prompt.arguments ?? []) {
      if (argument.required === true && args[argument.name] === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Missing required argument "${argument.name}" for prompt ${prompt.name}`
        )
      }
    }
    return {
      ...(prompt.description === undefined ? {} : { description: prompt.description }),
      messages: prompt.messages.map((m) => promptMessage(m, args))
    }
  })
  return server
}

/**
 * A transport that hands one JSON-RPC request to a connected SDK `Server` and resolves with its
 * reply: what `InMemoryTransport` does for a client, done for an HTTP request already checked.
 */
export class DirectTransport implements Transport {
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
interface DirectServer extends SessionEngine {
  readonly transport: DirectTransport
}

/** The direct server of a session, made (and connected) when it has none for the current revision. */
export const directServer = (
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined
): DirectTransport | Promise<DirectTransport> => {
  const key = session?.id ?? ""
  // The state keeps what this module puts there: direct servers only.
  const found = state.engines.get(key) as DirectServer | undefined
  if (found !== undefined && found.revision === state.revision) return found.transport
  const transport = new DirectTransport()
  const made: DirectServer = { revision: state.revision, transport }
  state.engines.set(key, made)
  const compiled = state.current
  return sdkServer(() => compiled, state, env, session)
    .connect(transport)
    .then(() => transport)
}
