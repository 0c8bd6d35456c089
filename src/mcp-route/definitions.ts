/**
 * MCP server definitions: the tools, resources and prompts a simulated server offers, as users
 * write them (Effect Schemas in code, JSON Schemas in RouteSpec JSON), and their compiled form
 * (input decoder, JSON Schemas to list, the generator behind tools answered from their output
 * schema). Compiling is where a bad definition is refused, naming its path.
 */
import { type Effect, Result, Schema } from "effect"
import { InvalidRouteSpec } from "../SimnetError.ts"
import { foreignSchema } from "../routes/effectCopy.ts"
import { jsonSchemaOf } from "./copies.ts"
import { compileGenerator, type CompiledGenerator, fromJsonSchema, joinPath } from "./floor.ts"

/** One item of a tool result's or prompt message's `content`: `{ type: "text", text }` and the like. */
export type McpContent = { readonly type: string; readonly [key: string]: unknown }

/**
 * What a tool answers: a string (one text item) or a `CallToolResult`. With an output schema,
 * give `structuredContent`; its JSON is added as the text rendering when `content` is absent.
 */
export type McpToolAnswer =
  | string
  | {
      readonly content?: ReadonlyArray<McpContent> | undefined
      readonly structuredContent?: Readonly<Record<string, unknown>> | undefined
      readonly isError?: boolean | undefined
    }

/**
 * What a tool handler sees besides its arguments.
 * - `seed`: derived from the run seed, the route, the tool, the arguments and the occurrence of
 *   that call, for handlers that want seeded answers of their own.
 * - `progress`: reports progress to the client (the answer then streams as `text/event-stream`);
 *   a no-op when the call carries no progress token.
 */
export interface McpToolContext {
  readonly seed: number
  readonly occurrence: number
  readonly session: string | undefined
  readonly signal: AbortSignal
  readonly progress: (progress: number, total?: number, message?: string) => Promise<void>
}

/** A `logging` level, lowest first (RFC 5424's severities, as MCP names them). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const
export type McpLogLevel = (typeof LOG_LEVELS)[number]

/**
 * One step of a tool's scripted behaviour, run in order when the tool is called, before it
 * answers. Strings anywhere in a step (and in the tool's `result`) may hold `{{path}}`, replaced
 * by what the call has gathered: `arguments.x`, and the answers of earlier steps, `elicitation`
 * (`{{elicitation.action}}`, `{{elicitation.content.email}}`), `sampling`
 * (`{{sampling.content.text}}`), `roots` (`{{roots.roots}}`); an object or array is written as
 * JSON.
 * - `log`: a `notifications/message` at `level` (sent when the session's `logging/setLevel`
 *   allows it; all levels before one is set).
 * - `progress`: a `notifications/progress` (when the call carries a progress token).
 * - `elicit`: asks the client `elicitation/create` with `message` and `requestedSchema`.
 * - `sample`: asks the client `sampling/createMessage` with these params (`messages`,
 *   `maxTokens`, …).
 * - `roots`: asks the client `roots/list`.
 * - `waitMs`: pauses, on the network's clock.
 * - `closeStream`: closes the answer's event stream (the client resumes it with `GET` and
 *   `Last-Event-ID`, and gets the rest there), as a server polling with SSE does.
 * A tool with steps always answers as `text/event-stream`.
 */
export type McpStep =
  | { readonly log: { readonly level: McpLogLevel; readonly data: unknown; readonly logger?: string | undefined } }
  | {
      readonly progress: {
        readonly progress: number
        readonly total?: number | undefined
        readonly message?: string | undefined
      }
    }
  | { readonly elicit: { readonly message: string; readonly requestedSchema: Readonly<Record<string, unknown>> } }
  | { readonly sample: Readonly<Record<string, unknown>> }
  | { readonly roots: Readonly<Record<string, never>> }
  | { readonly waitMs: number }
  | { readonly closeStream: true }

/**
 * A tool. `input` is the Effect Schema its arguments decode under (or give `inputSchema`, a JSON
 * Schema); `output` (or `outputSchema`) the schema of its `structuredContent`. It is answered by
 * `handler`, else by the fixed `result`, else — when it has an output schema — by a value
 * generated from that schema with the network's seed. A tool with none of the three is refused.
 */
export interface McpTool {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly input?: Schema.Top | undefined
  readonly inputSchema?: Readonly<Record<string, unknown>> | undefined
  readonly output?: Schema.Top | undefined
  readonly outputSchema?: Readonly<Record<string, unknown>> | undefined
  readonly handler?:
    | ((
        // biome-ignore lint/suspicious/noExplicitAny: the arguments are what `input` decodes; a definition is not generic over it, so a handler names their type itself.
        args: any,
        context: McpToolContext
      ) => McpToolAnswer | PromiseLike<McpToolAnswer> | Effect.Effect<McpToolAnswer, unknown>)
    | undefined
  readonly steps?: ReadonlyArray<McpStep> | undefined
  /** Answers for given arguments (compared as canonical JSON), before `result`: what record mode writes. */
  readonly results?:
    | ReadonlyArray<{ readonly arguments: Readonly<Record<string, unknown>>; readonly result: McpToolAnswer }>
    | undefined
  readonly result?: McpToolAnswer | undefined
}

/** A resource: text, or a blob (base64 or bytes). */
export interface McpResource {
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  readonly text?: string | undefined
  readonly blob?: string | Uint8Array | undefined
}

/**
 * A resource template: `uriTemplate` (RFC 6570 level 1, `test://items/{id}`) listed by
 * `resources/templates/list`; reading a URI it matches answers `text` (or `blob`) with each
 * `{variable}` replaced by the URI's value for it. `completions` offers values per variable.
 */
export interface McpResourceTemplate {
  readonly uriTemplate: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  readonly text?: string | undefined
  readonly blob?: string | undefined
  readonly completions?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
}

/** A prompt argument; `completions` are the values `completion/complete` offers for it. */
export interface McpPromptArgument {
  readonly name: string
  readonly description?: string | undefined
  readonly required?: boolean | undefined
  readonly completions?: ReadonlyArray<string> | undefined
}

/** A prompt message: text, or any content (`image`, `audio`, an embedded `resource`). */
export type McpPromptMessage =
  | { readonly role: "user" | "assistant"; readonly text: string }
  | { readonly role: "user" | "assistant"; readonly content: McpContent }

/**
 * A prompt. `messages` are templates: `{{name}}` is replaced by the argument of that name.
 */
export interface McpPrompt {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly arguments?: ReadonlyArray<McpPromptArgument> | undefined
  readonly messages: ReadonlyArray<McpPromptMessage>
}

/**
 * A simulated MCP server.
 * - `stateless`: no `initialize` needed and no session (hosted tool endpoints); default stateful.
 * - `sse`: `"always"` answers every request as `text/event-stream` (as hosted search endpoints
 *   do); by default answers are JSON, and a tool call streams only when its handler may report
 *   progress and the call carries a progress token.
 * - `allowedOrigins`: browser origins allowed besides the server's own (others get 403).
 * - `pageSize`: list entries per page before a `nextCursor` (default 50).
 */
export interface McpServerDefinition {
  readonly name: string
  readonly version: string
  readonly title?: string | undefined
  readonly instructions?: string | undefined
  readonly tools?: ReadonlyArray<McpTool> | undefined
  readonly resources?: ReadonlyArray<McpResource> | undefined
  readonly resourceTemplates?: ReadonlyArray<McpResourceTemplate> | undefined
  readonly prompts?: ReadonlyArray<McpPrompt> | undefined
  readonly stateless?: boolean | undefined
  readonly sse?: "progress" | "always" | undefined
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  readonly pageSize?: number | undefined
}

/** A tool ready to serve. */
export interface CompiledTool {
  readonly tool: McpTool
  /** The entry of `tools/list`. */
  readonly listing: Readonly<Record<string, unknown>>
  readonly decodeInput: (args: unknown) => Result.Result<unknown, string>
  readonly checkOutput: ((structured: unknown) => string | undefined) | undefined
  readonly generator: CompiledGenerator | undefined
}

/** A server definition ready to serve. */
export interface CompiledServer {
  readonly definition: McpServerDefinition
  readonly tools: ReadonlyMap<string, CompiledTool>
  readonly toolList: ReadonlyArray<CompiledTool>
  readonly resources: ReadonlyMap<string, McpResource>
  readonly templates: ReadonlyArray<CompiledTemplate>
  readonly prompts: ReadonlyMap<string, McpPrompt>
}

/** A resource template ready to match: its variables, in order, and the expression that reads them. */
export interface CompiledTemplate {
  readonly template: McpResourceTemplate
  readonly variables: ReadonlyArray<string>
  readonly match: (uri: string) => Readonly<Record<string, string>> | undefined
}

const VARIABLE = /\{([A-Za-z0-9_.]+)\}/g

/**
 * A level-1 URI template as a matcher: each `{name}` takes the characters up to the literal text
 * that follows it (at least one, never `/`), found by a scan that is linear in the URI.
 */
const compileTemplate = (template: McpResourceTemplate): CompiledTemplate | string => {
  const parts: Array<{ readonly literal: string } | { readonly variable: string }> = []
  let last = 0
  for (const found of template.uriTemplate.matchAll(VARIABLE)) {
    if (found.index > last) parts.push({ literal: template.uriTemplate.slice(last, found.index) })
    else if (parts.length > 0) return "two variables need literal text between them"
    parts.push({ variable: found[1] })
    last = found.index + found[0].length
  }
  if (last < template.uriTemplate.length) parts.push({ literal: template.uriTemplate.slice(last) })
  if (/[{}]/.test(template.uriTemplate.replace(VARIABLE, "")))
    return `only {name} expressions are supported (RFC 6570 level 1), got ${JSON.stringify(template.uriTemplate)}`
  const variables = parts.flatMap((part) => ("variable" in part ? [part.variable] : []))
  if (new Set(variables).size !== variables.length) return "a variable appears twice"
  const match = (uri: string): Readonly<Record<string, string>> | undefined => {
    if (uri.length > 2048) return undefined
    const values: Record<string, string> = {}
    let at = 0
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]
      if ("literal" in part) {
        if (!uri.startsWith(part.literal, at)) return undefined
        at += part.literal.length
        continue
      }
      const next = parts[i + 1]
      const end = next === undefined ? uri.length : uri.indexOf((next as { readonly literal: string }).literal, at + 1)
      if (end < 0) return undefined
      const raw = uri.slice(at, end)
      if (raw === "" || raw.includes("/")) return undefined
      try {
        values[part.variable] = decodeURIComponent(raw)
      } catch {
        values[part.variable] = raw
      }
      at = end
    }
    return at === uri.length ? values : undefined
  }
  return { template, variables, match }
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

const invalid = (path: string, message: string) => new InvalidRouteSpec({ path, message })

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const schemaIssue = (error: { readonly message: string }) => error.message

/** The JSON Schema of an object schema, or why it is not one. */
const objectJsonSchema = (
  schema: Schema.Top | undefined,
  json: Readonly<Record<string, unknown>> | undefined,
  path: string
): Result.Result<Readonly<Record<string, unknown>> | undefined, InvalidRouteSpec> => {
  let document: Readonly<Record<string, unknown>> | undefined = json
  const foreign = foreignSchema(schema, path)
  if (foreign !== undefined) return Result.fail(foreign)
  if (document === undefined && schema !== undefined) {
    try {
      document = jsonSchemaOf(schema)
    } catch (error) {
      return Result.fail(invalid(path, `the schema has no JSON Schema form: ${messageOf(error)}`))
    }
  }
  if (document === undefined) return Result.succeed(undefined)
  if (document.type !== "object") {
    return Result.fail(
      invalid(path, `an MCP tool schema describes an object (type "object"), got ${JSON.stringify(document.type)}`)
    )
  }
  return Result.succeed(document)
}

/** The Effect Schema of a tool's side: the one given, else the JSON Schema converted. */
const effectSchema = (
  schema: Schema.Top | undefined,
  json: Readonly<Record<string, unknown>> | undefined,
  path: string,
  patterns: "apply" | "linear" = "apply"
): Result.Result<Schema.Codec<unknown, unknown> | undefined, InvalidRouteSpec> => {
  if (schema !== undefined) return Result.succeed(schema as Schema.Codec<unknown, unknown>)
  if (json === undefined) return Result.succeed(undefined)
  return fromJsonSchema(json, { path, patterns })
}

const compileTool = (tool: McpTool, path: string): Result.Result<CompiledTool, InvalidRouteSpec> =>
  Result.gen(function* () {
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      return yield* Result.fail(
        invalid(
          joinPath(path, "name"),
          `a tool name is 1 to 128 letters, digits, "_", "-" or ".", got ${JSON.stringify(tool.name)}`
        )
      )
    }
    const inputPath = joinPath(path, tool.input === undefined ? "inputSchema" : "input")
    const outputPath = joinPath(path, tool.output === undefined ? "outputSchema" : "output")
    const inputJson = (yield* objectJsonSchema(tool.input, tool.inputSchema, inputPath)) ?? { type: "object" }
    const outputJson = yield* objectJsonSchema(tool.output, tool.outputSchema, outputPath)
    // Arguments come from outside: a JSON input schema's patterns run on RE2 (`"linear"`), not
    // on a native `RegExp` (a hostile `^(a+)+$` and a near miss would block the process).
    const input = yield* effectSchema(tool.input, tool.inputSchema, inputPath, "linear")
    const output = yield* effectSchema(tool.output, tool.outputSchema, outputPath)
    const decode = input === undefined ? undefined : Schema.decodeUnknownResult(input)
    const decodeInput = (args: unknown): Result.Result<unknown, string> => {
      if (decode === undefined) {
        return typeof args === "object" && args !== null && !Array.isArray(args)
          ? Result.succeed(args)
          : Result.fail("arguments must be an object")
      }
      return Result.mapError(decode(args ?? {}), schemaIssue)
    }
    const decodeOutput = output === undefined ? undefined : Schema.decodeUnknownResult(output)
    const checkOutput =
      decodeOutput === undefined
        ? undefined
        : (structured: unknown) => {
            const decoded = decodeOutput(structured)
            return Result.isFailure(decoded) ? schemaIssue(decoded.failure) : undefined
          }
    if (tool.results !== undefined && (!Array.isArray(tool.results) || tool.results.length > 10_000)) {
      return yield* Result.fail(
        invalid(joinPath(path, "results"), "results are a list of at most 10000 { arguments, result }")
      )
    }
    if (tool.steps !== undefined) {
      if (!Array.isArray(tool.steps) || tool.steps.length > MAX_STEPS) {
        return yield* Result.fail(invalid(joinPath(path, "steps"), `steps are a list of at most ${MAX_STEPS}`))
      }
      if (tool.handler !== undefined)
        return yield* Result.fail(
          invalid(joinPath(path, "steps"), "a tool has a handler (code) or steps (a script), not both")
        )
    }
    let generator: CompiledGenerator | undefined
    if (
      tool.handler === undefined &&
      tool.result === undefined &&
      (tool.results === undefined || tool.results.length === 0)
    ) {
      if (output === undefined) {
        return yield* Result.fail(
          invalid(
            path,
            `tool "${tool.name}" needs a handler, a result, or an output schema to generate its answer from`
          )
        )
      }
      generator = yield* Result.mapError(compileGenerator(output, { label: `mcp tool ${tool.name}` }), (error) =>
        invalid(outputPath, error.message)
      )
    }
    if (
      tool.result !== undefined &&
      typeof tool.result !== "string" &&
      checkOutput !== undefined &&
      tool.result.isError !== true
    ) {
      const issue =
        tool.result.structuredContent === undefined
          ? "a tool with an output schema answers structuredContent"
          : checkOutput(tool.result.structuredContent)
      if (issue !== undefined) return yield* Result.fail(invalid(joinPath(path, "result"), issue))
    }
    const listing: Record<string, unknown> = { name: tool.name }
    if (tool.title !== undefined) listing.title = tool.title
    if (tool.description !== undefined) listing.description = tool.description
    listing.inputSchema = inputJson
    if (outputJson !== undefined) listing.outputSchema = outputJson
    return { tool, listing, decodeInput, checkOutput, generator }
  })

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The most steps one tool's script has. */
const MAX_STEPS = 256

/**
 * Compiles a server definition: every tool's schemas and generator, unique names and URIs. A
 * problem is an `InvalidRouteSpec` whose path starts at `base` (such as `server.tools[1].name`).
 */
export const compileServer = (
  definition: McpServerDefinition,
  base = "server"
): Result.Result<CompiledServer, InvalidRouteSpec> =>
  Result.gen(function* () {
    if (typeof definition.name !== "string" || definition.name === "")
      return yield* Result.fail(invalid(joinPath(base, "name"), "a server needs a name"))
    if (typeof definition.version !== "string" || definition.version === "")
      return yield* Result.fail(invalid(joinPath(base, "version"), "a server needs a version"))
    const pageSize = definition.pageSize ?? 50
    if (!Number.isInteger(pageSize) || pageSize < 1)
      return yield* Result.fail(
        invalid(joinPath(base, "pageSize"), `pageSize is a whole number of at least 1, got ${pageSize}`)
      )
    const tools = new Map<string, CompiledTool>()
    const toolList: Array<CompiledTool> = []
    for (const [i, tool] of (definition.tools ?? []).entries()) {
      const path = `${joinPath(base, "tools")}[${i}]`
      const compiled = yield* compileTool(tool, path)
      if (tools.has(tool.name))
        return yield* Result.fail(invalid(joinPath(path, "name"), `a second tool named "${tool.name}"`))
      tools.set(tool.name, compiled)
      toolList.push(compiled)
    }
    const resources = new Map<string, McpResource>()
    for (const [i, resource] of (definition.resources ?? []).entries()) {
      const path = `${joinPath(base, "resources")}[${i}]`
      if (typeof resource.uri !== "string" || !URL.canParse(resource.uri))
        return yield* Result.fail(invalid(joinPath(path, "uri"), `not a URI: ${JSON.stringify(resource.uri)}`))
      if (resources.has(resource.uri))
        return yield* Result.fail(invalid(joinPath(path, "uri"), `a second resource at ${resource.uri}`))
      if ((resource.text === undefined) === (resource.blob === undefined))
        return yield* Result.fail(invalid(path, "a resource has either text or blob"))
      if (typeof resource.blob === "string" && !BASE64.test(resource.blob))
        return yield* Result.fail(invalid(joinPath(path, "blob"), "not valid base64"))
      resources.set(resource.uri, resource)
    }
    const templates: Array<CompiledTemplate> = []
    for (const [i, template] of (definition.resourceTemplates ?? []).entries()) {
      const path = `${joinPath(base, "resourceTemplates")}[${i}]`
      if (typeof template.uriTemplate !== "string" || template.uriTemplate.length > 2048)
        return yield* Result.fail(
          invalid(joinPath(path, "uriTemplate"), "a URI template is a string of at most 2048 characters")
        )
      if (typeof template.name !== "string" || template.name === "")
        return yield* Result.fail(invalid(joinPath(path, "name"), "a resource template needs a name"))
      if ((template.text === undefined) === (template.blob === undefined))
        return yield* Result.fail(invalid(path, "a resource template has either text or blob"))
      if (typeof template.blob === "string" && !BASE64.test(template.blob))
        return yield* Result.fail(invalid(joinPath(path, "blob"), "not valid base64"))
      const compiled = compileTemplate(template)
      if (typeof compiled === "string") return yield* Result.fail(invalid(joinPath(path, "uriTemplate"), compiled))
      for (const name of Object.keys(template.completions ?? {})) {
        if (!compiled.variables.includes(name))
          return yield* Result.fail(
            invalid(joinPath(joinPath(path, "completions"), name), `the template has no variable {${name}}`)
          )
      }
      templates.push(compiled)
    }
    const prompts = new Map<string, McpPrompt>()
    for (const [i, prompt] of (definition.prompts ?? []).entries()) {
      const path = `${joinPath(base, "prompts")}[${i}]`
      if (typeof prompt.name !== "string" || prompt.name === "")
        return yield* Result.fail(invalid(joinPath(path, "name"), "a prompt needs a name"))
      if (prompts.has(prompt.name))
        return yield* Result.fail(invalid(joinPath(path, "name"), `a second prompt named "${prompt.name}"`))
      prompts.set(prompt.name, prompt)
    }
    return { definition, tools, toolList, resources, templates, prompts }
  })
