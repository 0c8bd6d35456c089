/**
 * The MCP route's RouteSpec JSON as Schemas: a server with its tools (their JSON Schemas, scripted
 * steps and fixed results), resources, resource templates and prompts, and the `respond` object of
 * the `mcp` kind. A file of their own, importing nothing of the MCP route: the route's state
 * decodes a snapshot's definitions under them, the kind's builder compiles what they decoded, and
 * `schemas/routeSpec.ts` puts them in RouteSpec and in the `mcpFromConfig` family's `servers`.
 */
import { Schema } from "effect"

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** One item of a tool result's `content`: its `type` and the fields that type has (`text`, `data`, ...), kept as given. */
export const McpContentSpec = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [JsonObject])

/** A `logging` level (RFC 5424's, as MCP names them). */
export const McpLogLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])

/**
 * One step of a tool's scripted behaviour, run in order before it answers (see `McpStep` in
 * `mcp-route/definitions.ts`): a log message, a progress report, a request to the client
 * (elicitation, sampling, roots) whose answer later steps and the result can use, a pause, or
 * closing the answer's event stream so the client resumes it.
 */
export const McpStepSpec = Schema.Union([
  Schema.Struct({
    log: Schema.Struct({ level: McpLogLevel, data: Schema.Unknown, logger: Schema.optional(Schema.String) })
  }),
  Schema.Struct({
    progress: Schema.Struct({
      progress: Schema.Finite,
      total: Schema.optional(Schema.Finite),
      message: Schema.optional(Schema.String)
    })
  }),
  Schema.Struct({ elicit: Schema.Struct({ message: Schema.String, requestedSchema: JsonObject }) }),
  Schema.Struct({ sample: JsonObject }),
  Schema.Struct({ roots: Schema.Struct({}) }),
  Schema.Struct({ waitMs: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(60_000)) }),
  Schema.Struct({ closeStream: Schema.Literal(true) })
])

/** What a tool answers: a string (one text item) or a `CallToolResult`. */
const McpToolResultSpec = Schema.Union([
  Schema.String,
  Schema.Struct({
    content: Schema.optional(Schema.Array(McpContentSpec)),
    structuredContent: Schema.optional(JsonObject),
    isError: Schema.optional(Schema.Boolean)
  })
])

/** A tool of an MCP server: JSON Schemas for its input and output, its scripted `steps`, and an optional fixed `result`. */
export const McpToolSpec = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: Schema.optional(JsonObject),
  outputSchema: Schema.optional(JsonObject),
  steps: Schema.optional(Schema.Array(McpStepSpec)),
  /** Answers for given arguments (exactly those, in any key order), before `result`: what record mode writes. */
  results: Schema.optional(Schema.Array(Schema.Struct({ arguments: JsonObject, result: McpToolResultSpec }))),
  result: Schema.optional(McpToolResultSpec)
})

/** A resource of an MCP server: `text`, or `blob` in base64. */
export const McpResourceSpec = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  blob: Schema.optional(Schema.String)
})

/**
 * A resource template (`test://items/{id}`): listed by `resources/templates/list`; a read of a URI
 * it matches answers `text` (or `blob`) with every `{variable}` replaced by what the URI holds
 * there; `completions` offers values per variable to `completion/complete`.
 */
export const McpResourceTemplateSpec = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  blob: Schema.optional(Schema.String),
  completions: Schema.optional(Schema.Record(Schema.String, Schema.Array(Schema.String)))
})

/**
 * A prompt of an MCP server: its arguments (with values `completion/complete` offers) and
 * messages, each `text` or any `content` (image, audio, an embedded resource), where
 * `{{argument}}` is replaced by the argument of that name.
 */
export const McpPromptSpec = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  arguments: Schema.optional(
    Schema.Array(
      Schema.Struct({
        name: Schema.String,
        description: Schema.optional(Schema.String),
        required: Schema.optional(Schema.Boolean),
        completions: Schema.optional(Schema.Array(Schema.String))
      })
    )
  ),
  messages: Schema.Array(
    Schema.Union([
      Schema.Struct({ role: Schema.Literals(["user", "assistant"]), text: Schema.String }),
      Schema.Struct({ role: Schema.Literals(["user", "assistant"]), content: McpContentSpec })
    ])
  )
})

/** An MCP server in JSON. */
export const McpServerSpec = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optional(Schema.String),
  instructions: Schema.optional(Schema.String),
  stateless: Schema.optional(Schema.Boolean),
  sse: Schema.optional(Schema.Literals(["progress", "always"])),
  allowedOrigins: Schema.optional(Schema.Array(Schema.String)),
  pageSize: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  tools: Schema.optional(Schema.Array(McpToolSpec)),
  resources: Schema.optional(Schema.Array(McpResourceSpec)),
  resourceTemplates: Schema.optional(Schema.Array(McpResourceTemplateSpec)),
  prompts: Schema.optional(Schema.Array(McpPromptSpec))
})

/** `{ kind: "mcp", server }` */
export const McpRespond = Schema.Struct({
  kind: Schema.Literal("mcp"),
  server: McpServerSpec
})
