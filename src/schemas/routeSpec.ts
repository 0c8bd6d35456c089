/**
 * The RouteSpec JSON format, as one Effect Schema shared by fixture files, `registerSpec` and
 * the control endpoint, so the three can never drift.
 */
import { Schema } from "effect"
import { ChaosData, FilesData, PromptsData, RouteOptionsData } from "./options.ts"

const Headers = Schema.Record(Schema.String, Schema.String)

/**
 * The object form of a JSON matcher. `url` is a path-to-regexp URL pattern, `regex` a regular
 * expression tested against the whole URL, `json` a partial match on the JSON body.
 */
export const MatchObject = Schema.Struct({
  method: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  regex: Schema.optional(Schema.String),
  query: Schema.optional(Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Literal(true)]))),
  headers: Schema.optional(Headers),
  json: Schema.optional(Schema.Unknown)
})

/**
 * A JSON matcher: `"GET https://host/path/:id"` or the object form.
 */
export const Match = Schema.Union([Schema.String, MatchObject])

const Status = Schema.Int.check(Schema.isBetween({ minimum: 200, maximum: 599 }))

/** `template: true`: the body and headers are Handlebars templates over the request (`kinds/template.ts`). */
const Template = Schema.optional(Schema.Boolean)

/** `{ kind: "text", body, contentType?, status?, headers?, template? }` */
export const TextRespond = Schema.Struct({
  kind: Schema.Literal("text"),
  body: Schema.String,
  contentType: Schema.optional(Schema.String),
  status: Schema.optional(Status),
  headers: Schema.optional(Headers),
  template: Template
})

/** `{ kind: "bytes", base64, contentType?, status?, headers? }` */
export const BytesRespond = Schema.Struct({
  kind: Schema.Literal("bytes"),
  base64: Schema.String,
  contentType: Schema.optional(Schema.String),
  status: Schema.optional(Status),
  headers: Schema.optional(Headers)
})

/** `{ kind: "status", status, headers?, body?, template? }` */
export const StatusRespond = Schema.Struct({
  kind: Schema.Literal("status"),
  status: Status,
  headers: Schema.optional(Headers),
  body: Schema.optional(Schema.String),
  template: Template
})

/** `{ kind: "handler", name }`: a handler registered in code under that name. */
export const HandlerRespond = Schema.Struct({
  kind: Schema.Literal("handler"),
  name: Schema.String
})

/** `{ kind: "fault", fault }` */
export const FaultRespond = Schema.Struct({
  kind: Schema.Literal("fault"),
  fault: Schema.Literals(["reset", "timeout", "malformed-body"])
})

/** `{ kind: "loopback" }` */
export const LoopbackRespond = Schema.Struct({
  kind: Schema.Literal("loopback")
})

/** `{ kind: "jsonSchema", schema: { ref } | { jsonSchema }, status?, headers?, seedOffset?, template? }` (`template`: the headers only) */
export const JsonSchemaRespond = Schema.Struct({
  kind: Schema.Literal("jsonSchema"),
  schema: Schema.Union([
    Schema.Struct({ ref: Schema.String }),
    Schema.Struct({ jsonSchema: Schema.Unknown })
  ]),
  status: Schema.optional(Status),
  headers: Schema.optional(Headers),
  seedOffset: Schema.optional(Schema.Int),
  template: Template
})

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** One item of a tool result's `content`: its `type` and the fields that type has (`text`, `data`, ...), kept as given. */
export const McpContentSpec = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [JsonObject])

/** A `logging` level (RFC 5424's, as MCP names them). */
export const McpLogLevel = Schema.Literals(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])

/**
 * One step of a tool's scripted behaviour, run in order before it answers (see `McpStep` in
 * `kinds/mcp/definitions.ts`): a log message, a progress report, a request to the client
 * (elicitation, sampling, roots) whose answer later steps and the result can use, a pause, or
 * closing the answer's event stream so the client resumes it.
 */
export const McpStepSpec = Schema.Union([
  Schema.Struct({ log: Schema.Struct({ level: McpLogLevel, data: Schema.Unknown, logger: Schema.optional(Schema.String) }) }),
  Schema.Struct({ progress: Schema.Struct({ progress: Schema.Finite, total: Schema.optional(Schema.Finite), message: Schema.optional(Schema.String) }) }),
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
  arguments: Schema.optional(Schema.Array(Schema.Struct({
    name: Schema.String,
    description: Schema.optional(Schema.String),
    required: Schema.optional(Schema.Boolean),
    completions: Schema.optional(Schema.Array(Schema.String))
  }))),
  messages: Schema.Array(Schema.Union([
    Schema.Struct({ role: Schema.Literals(["user", "assistant"]), text: Schema.String }),
    Schema.Struct({ role: Schema.Literals(["user", "assistant"]), content: McpContentSpec })
  ]))
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

/** One frame of a scripted WebSocket: text, or `{ base64 }` for a binary frame. */
const WebSocketFrame = Schema.Union([Schema.String, Schema.Struct({ base64: Schema.String })])

/** A close code a server may send: 1000–1003, 1007–1014, or an application's 3000–4999. */
const CloseCode = Schema.Union([
  Schema.Literals([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014]),
  Schema.Int.check(Schema.isBetween({ minimum: 3000, maximum: 4999 }))
])

/**
 * `{ kind: "webSocket", open?, replies?, echo? }`: frames sent when the socket opens; replies to
 * incoming frames (`when: { equals?, contains? }`, first match first: `send` frames, then
 * `close` if given); `echo` sends back a frame no reply matches.
 */
export const WebSocketRespond = Schema.Struct({
  kind: Schema.Literal("webSocket"),
  open: Schema.optional(Schema.Array(WebSocketFrame)),
  replies: Schema.optional(Schema.Array(Schema.Struct({
    when: Schema.optional(Schema.Struct({ equals: Schema.optional(Schema.String), contains: Schema.optional(Schema.String) })),
    send: Schema.optional(Schema.Array(WebSocketFrame)),
    close: Schema.optional(Schema.Struct({
      code: Schema.optional(CloseCode),
      reason: Schema.optional(Schema.String.check(Schema.isMaxLength(123)))
    }))
  }))),
  echo: Schema.optional(Schema.Boolean)
})

/** A wait in milliseconds: finite, not negative. */
const Millis = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * `{ kind: "sse", events, retryMs?, intervalMs?, status?, headers? }`: server-sent events, each
 * `{ data, event?, id?, delayMs? }` (`data` a string, or any JSON value sent as its JSON);
 * `retryMs` is sent first as the client's reconnection time; `intervalMs` waits before each
 * event after the first (an event's `delayMs` instead). See `Route.sse`.
 */
export const SseRespond = Schema.Struct({
  kind: Schema.Literal("sse"),
  events: Schema.Array(Schema.Struct({
    data: Schema.Unknown,
    event: Schema.optional(Schema.String),
    id: Schema.optional(Schema.String),
    delayMs: Schema.optional(Millis)
  })),
  retryMs: Schema.optional(Millis),
  intervalMs: Schema.optional(Millis),
  status: Schema.optional(Status),
  headers: Schema.optional(Headers)
})

/**
 * `{ kind: "graphql", schema, resolvers?, fields?, listSize?, limits?, seedOffset? }`: a GraphQL
 * endpoint answered from `schema`, SDL text or `{ "file": PATH }` (in a fixture file, relative to
 * it); `resolvers` fix fields to JSON values (`{ "Query": { "viewer": { "login": "ada" } } }`);
 * `fields` override realistic values by field name; `listSize` (`{ min, max }`, default 1 to 3)
 * sizes generated lists; `limits` bound queries (`depth`, `aliases`, `documentBytes`, `values`).
 * See `Route.graphql`.
 */
export const GraphqlRespond = Schema.Struct({
  kind: Schema.Literal("graphql"),
  schema: Schema.Union([Schema.String, Schema.Struct({ file: Schema.String })]),
  resolvers: Schema.optional(Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))),
  fields: Schema.optional(Schema.Record(Schema.String, Schema.Union([
    Schema.String,
    Schema.Struct({ values: Schema.Array(Schema.Union([Schema.String, Schema.Finite, Schema.Boolean])) })
  ]))),
  listSize: Schema.optional(Schema.Struct({ min: Schema.optional(Schema.Int), max: Schema.optional(Schema.Int) })),
  limits: Schema.optional(Schema.Struct({
    depth: Schema.optional(Schema.Int),
    aliases: Schema.optional(Schema.Int),
    documentBytes: Schema.optional(Schema.Int),
    values: Schema.optional(Schema.Int)
  })),
  seedOffset: Schema.optional(Schema.Int)
})

/** `{ kind: "mcp", server }` */
export const McpRespond = Schema.Struct({
  kind: Schema.Literal("mcp"),
  server: McpServerSpec
})

/**
 * Every kind's `respond` Schema, by its kind: the one list the `Respond` union, the kinds named in
 * errors (`RESPOND_KINDS`) and the table of builders (`routeSpec/kinds.ts`, typed by it) derive from.
 * A new kind is a Schema here and a builder there.
 */
export const RESPONDS = {
  jsonSchema: JsonSchemaRespond,
  text: TextRespond,
  bytes: BytesRespond,
  status: StatusRespond,
  handler: HandlerRespond,
  mcp: McpRespond,
  loopback: LoopbackRespond,
  fault: FaultRespond,
  webSocket: WebSocketRespond,
  sse: SseRespond,
  graphql: GraphqlRespond
} as const

/** Every `respond.kind`, for error messages and the reference. */
export const RESPOND_KINDS = Object.keys(RESPONDS) as ReadonlyArray<keyof typeof RESPONDS>

/**
 * The head of a route spec: an object whose `respond` names a known kind. Decoded before the
 * whole spec, so an unknown kind is reported at `respond.kind` with the kinds there are.
 */
export const RouteSpecHead = Schema.Struct({
  respond: Schema.Struct({ kind: Schema.Literals(RESPOND_KINDS) })
})

/**
 * What a route answers with.
 */
export const Respond = Schema.Union(Object.values(RESPONDS))
export type Respond = typeof Respond.Type

/**
 * A scenario's options, as every kind takes them in code (`RouteOptionsData`); the other options'
 * values are checked when the route registers, as in code. `kinds/codeOptions.ts` derives the
 * options a constructor takes in code from `RouteSpec`'s fields and the kind's `respond` fields,
 * so code and JSON know the same keys.
 */
const { scenario, requiredState, newState } = RouteOptionsData.fields

/**
 * One route in JSON.
 */
export const RouteSpec = Schema.Struct({
  id: Schema.optional(Schema.String),
  match: Match,
  respond: Respond,
  times: Schema.optional(Schema.Number),
  priority: Schema.optional(Schema.Number),
  delayMs: Schema.optional(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  /** A strict network fails when the route was never used. */
  required: Schema.optional(Schema.Boolean),
  scenario,
  requiredState,
  newState
})
export type RouteSpec = typeof RouteSpec.Type

/** One entry of an opencode-style `mcp` configuration: a remote server at a URL, or a local (stdio) one. */
export const McpConfigEntrySpec = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("remote"),
    url: Schema.String,
    headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
    enabled: Schema.optional(Schema.Boolean)
  }),
  Schema.Struct({
    type: Schema.Literal("local"),
    command: Schema.Array(Schema.String),
    environment: Schema.optional(Schema.Record(Schema.String, Schema.String)),
    enabled: Schema.optional(Schema.Boolean)
  })
])

/**
 * A reference to a route family: `{ "family": "models", "baseUrl": "https://models.dev" }`.
 * The `openapi` family also takes the OpenAPI `document`, and `examples` / `validate` (both
 * default true) to generate every body or to serve requests that break their operation, and
 * `idPrefix` (what the operations' ids start with; see `Routes.openapi`);
 * `mcpFromConfig` takes the app's `mcp` `config` and the `servers` to answer with, by entry name.
 */
export const FamilySpec = Schema.Struct({
  family: Schema.String,
  baseUrl: Schema.optional(Schema.String),
  document: Schema.optional(Schema.Unknown),
  config: Schema.optional(Schema.Record(Schema.String, McpConfigEntrySpec)),
  servers: Schema.optional(Schema.Record(Schema.String, McpServerSpec)),
  examples: Schema.optional(Schema.Boolean),
  validate: Schema.optional(Schema.Boolean),
  idPrefix: Schema.optional(Schema.String),
  /** `models`: a catalog generated with the seed instead of the real models. */
  generated: Schema.optional(Schema.Boolean)
})
export type FamilySpec = typeof FamilySpec.Type

/**
 * A file of fixtures: `{ seed, routes, llm, chaos }`.
 */
export const FixtureFile = Schema.Struct({
  seed: Schema.optional(Schema.Union([Schema.Number, Schema.String])),
  /** Seeded chaos for the network (see `core/chaos.ts`). */
  chaos: Schema.optional(ChaosData),
  routes: Schema.optional(Schema.Array(Schema.Unknown)),
  /** The files of a sealed run's workspace (`simnet run --isolate`): each path's text, or its bytes in base64. */
  files: Schema.optional(FilesData),
  /** What a person might type into the app: `simnet explore` types these among its generated text. */
  prompts: Schema.optional(PromptsData),
  llm: Schema.optional(Schema.Union([
    Schema.Array(Schema.Unknown),
    Schema.Struct({ queue: Schema.optional(Schema.Array(Schema.Unknown)), rules: Schema.optional(Schema.Array(Schema.Unknown)) })
  ]))
})
export type FixtureFile = typeof FixtureFile.Type
