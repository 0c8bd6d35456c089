/**
 * The agents' MCP tools (`simnet mcp`, and beside a served network at `MCP_PATH`): an MCP server
 * (the official SDK's) through which an agent observes and drives a simulation — the app's
 * terminal (`screen`, `interactables`, `type`, `press`, `click`, `paste`, `submit`, `resize`,
 * `wait`, as the driver socket's `ui.*`), the network (`network_log`, `register_routes`,
 * `snapshot`, `reset`) and the model (`llm_enqueue`, `llm_rules`, `llm_pending`, and
 * `llm_respond`: a held call answered with text in one step, the driver's chunk and finish).
 * `files` answers that there is no workspace until a sealed run has one. Each tool's arguments
 * are decoded by its Schema (the screen tools' by the `ui.*` methods'), which `tools/list` gives
 * as JSON Schema: bad arguments — a missing, mistyped or unknown field — are refused naming the
 * field and what it must be. A tool's refusal is a result with `isError`, naming why. Each call
 * that changes something — a screen tool that acts, a route registered, a script or rule added, a
 * held call answered, a reset — is told as the control endpoint's would be (`tell`: the trace's
 * `control.*` lines), so a session an agent drove replays from its trace.
 * `simnet serve` and `simnet run` serve the same tools over Streamable HTTP at `MCP_PATH`.
 */
import { Effect, Layer, Schema } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Server as McpServer } from "@modelcontextprotocol/sdk/server/index.js"
import { createRequire } from "node:module"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { behind, HOST_FORWARDING, hostForwarding, local, type RoomAccess, roomAccess } from "./access.ts"
import { CONTROL_BASE, type ControlEvent, controlRouter, type ControlOptions } from "./endpoint.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import { readWorkspace } from "../fileSystem/workspace.ts"
import { jsonSchemaOf } from "../mcp-route/copies.ts"
import { SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import type { SimulationNetworkApi } from "../network/network.ts"
import { NoParams, UI_PARAMS, uiCall } from "./ui.ts"
import { batchOf } from "../models/provider/validate.ts"
import type { Terminal } from "../terminal/terminal.ts"
import { LineTransport } from "./agentToolsStdio.ts"

/** The tools' arguments, each decoded by its Schema (unknown keys refused); the screen tools take the `ui.*` methods' own. */
const TOOL_INPUTS = {
  screen: UI_PARAMS["ui.screen"],
  interactables: UI_PARAMS["ui.interactables"],
  type: UI_PARAMS["ui.type"],
  press: UI_PARAMS["ui.press"],
  click: UI_PARAMS["ui.click"],
  paste: UI_PARAMS["ui.paste"],
  submit: UI_PARAMS["ui.submit"],
  resize: UI_PARAMS["ui.resize"],
  wait: UI_PARAMS["ui.wait"],
  network_log: Schema.Struct({
    since: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: "the last seq already seen (default 0)"
      })
    )
  }),
  register_routes: Schema.Struct({
    specs: Schema.Unknown.annotate({ description: "one RouteSpec or an array of them" })
  }),
  llm_enqueue: Schema.Struct({
    script: Schema.Unknown.annotate({ description: "an LLM script ({ steps: [[actions]] }) or an array of them" })
  }),
  llm_rules: Schema.Struct({
    rules: Schema.Unknown.annotate({ description: "an LLM rule ({ match, behaviour }) or an array of them" })
  }),
  llm_pending: NoParams,
  llm_respond: Schema.Struct({ id: Schema.String, text: Schema.String }),
  files: NoParams,
  snapshot: NoParams,
  reset: NoParams
} as const

type ToolName = keyof typeof TOOL_INPUTS

/** What each tool does, as `tools/list` says it. */
const DESCRIPTIONS: Readonly<Record<ToolName, string>> = {
  screen: "The app's terminal screen: { lines, cursor: { x, y }, cols, rows, styles }.",
  interactables:
    "What a person would act on, on the screen: { items: [{ kind (button, menu-item, link, input, key-hint), text, x, y, width, selected?, href?, key? }] }.",
  type: "Types text into the app's terminal; returns the screen after it.",
  press:
    "Presses a key by name (enter, tab, escape, backspace, delete, up, down, left, right, home, end, pageup, pagedown, f1-f12, one character; with ctrl+, alt+, shift+: ctrl+c, shift+tab, ctrl+up); returns the screen after it.",
  click:
    "Clicks (left press and release) at a cell { x, y } (0-based) or at the middle of a text on screen { text }, in the mouse encoding the app enabled; an error when it enabled none. Returns the screen after it.",
  paste: "Pastes text (bracketed paste when the app enabled it, else typed); returns the screen after it.",
  submit:
    "Submits a line: types it, waits until the app has taken it (its echo, or the screen at rest) and a short pause (gapMs, default 150), then presses Enter, so an app that treats a fast Enter as part of a paste still submits. Returns the screen after it.",
  resize: "Resizes the app's terminal.",
  wait: "Waits until text is on screen (a trailing space also matches the end of a line), or the screen has been still for quietMs (with quiescent: true, the whole app at rest); returns the screen.",
  network_log: "The network's requests after seq `since` (at most 200).",
  register_routes: "Registers RouteSpec JSON (one spec or an array); returns the route ids.",
  llm_enqueue: "Queues an LLM script ({ steps: [[actions]] }), or an array of them, for the next model calls.",
  llm_rules: "Adds LLM rules ([{ match, behaviour }]); returns their ids.",
  llm_pending: "The model calls waiting for a driver (run with --drive).",
  llm_respond: "Answers a pending model call with text (and finishes it).",
  files: "The app's workspace files under simnet run --isolate: { files: { PATH: { size, sha256, text? } } }.",
  snapshot: "The network's restorable state.",
  reset: "Resets the network to its start: routes, model queue and rules, logs."
}

const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOL_INPUTS, name)

/** A tool's input as JSON Schema: its Schema's (an object with no keys for one that takes none), no other keys taken. */
const inputJson = (schema: (typeof TOOL_INPUTS)[ToolName]): Record<string, unknown> =>
  Object.keys(schema.fields).length === 0
    ? { type: "object", properties: {}, additionalProperties: false }
    : { ...jsonSchemaOf(schema), additionalProperties: false }

/** The tools, as `tools/list` gives them. */
export const AGENT_TOOLS: ReadonlyArray<{
  readonly name: ToolName
  readonly description: string
  readonly inputSchema: Record<string, unknown>
}> = (Object.keys(TOOL_INPUTS) as Array<ToolName>).map((name) => ({
  name,
  description: DESCRIPTIONS[name],
  inputSchema: inputJson(TOOL_INPUTS[name])
}))

type Result = {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly isError?: boolean
}

const ok = (value: unknown): Result => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }] })
const refused = (message: string): Result => ({ content: [{ type: "text", text: message }], isError: true })

/** An error's message for the agent; a typed error's names its tag and the JSON path it concerns. */
const messageOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const { _tag: tag, path, message } = error as { _tag?: unknown; path?: unknown; message?: unknown }
  const text = typeof message === "string" ? message : String(error)
  if (text.startsWith("simnet: ") || typeof tag !== "string") return text
  return `simnet: ${tag}${typeof path === "string" && path !== "" ? ` at ${path}` : ""}: ${text}`
}

/**
 * Who calls a tool and what it may reach: the workspace of a sealed run (`files`), where the
 * changes it makes are told (for `--trace`), and the caller's access when a sealed command is the
 * caller (see `RoomAccess`: a `room` caller registers no route that forwards to the host).
 */
interface ToolContext {
  readonly workspace?: (() => string | undefined) | undefined
  readonly tell?: ((event: ControlEvent) => void) | undefined
  readonly access?: RoomAccess | undefined
}

/**
 * Runs one tool call against the network and the terminal; arguments that do not decode are
 * refused, naming the field and what it must be. A call that changed something is told to
 * `context.tell` as the control endpoint's change would be.
 */
export const callTool = (
  network: SimulationNetworkApi,
  terminal: () => Terminal | undefined,
  name: string,
  args: unknown,
  context: ToolContext = {}
): Promise<Result> => {
  const { workspace = () => undefined, tell = () => {}, access } = context
  const run = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.runPromise(Effect.match(effect, { onFailure: (error) => refused(messageOf(error)), onSuccess: ok }))
  if (!isToolName(name))
    return Promise.resolve(
      refused(
        `simnet: no tool named ${JSON.stringify(name).slice(0, 60)}; tools: ${AGENT_TOOLS.map((tool) => tool.name).join(", ")}`
      )
    )
  const decoded = decodeAt(TOOL_INPUTS[name], args, "", { onExcessProperty: "error" })
  if (decoded._tag === "Failure") {
    const { path, message } = decoded.failure
    return Promise.resolve(refused(`simnet: bad arguments to ${name}: ${path === "" ? "" : `${path}: `}${message}`))
  }
  const input = decoded.success as Record<string, unknown>
  switch (name) {
    case "screen":
    case "interactables":
    case "type":
    case "press":
    case "click":
    case "paste":
    case "submit":
    case "resize":
    case "wait":
      return run(uiCall(terminal(), `ui.${name}`, input, network.quiescent, (call) => tell({ type: "ui", ...call })))
    case "network_log":
      return run(
        Effect.map(network.logSince((input["since"] as number | undefined) ?? 0, 200), (records) => ({ records }))
      )
    case "register_routes":
      if (access === "room" && hostForwarding(input["specs"]) !== undefined)
        return Promise.resolve(refused(`simnet: ${HOST_FORWARDING}`))
      return run(
        Effect.map(network.registerSpec(input["specs"], { source: "control" }), (ids) => {
          tell({ type: "register", specs: input["specs"], ids })
          return { ids }
        })
      )
    case "llm_enqueue":
      return run(
        Effect.map(SimulatedProviderApi.enqueueAll(network.llm, input["script"]), () => {
          tell({ type: "enqueue", scripts: batchOf(input["script"]).list })
          return { queued: network.llm.queued }
        })
      )
    case "llm_rules":
      return run(
        Effect.map(SimulatedProviderApi.addRules(network.llm, input["rules"]), (ids) => {
          tell({ type: "rules", specs: input["rules"], ids })
          return { ids }
        })
      )
    case "llm_pending":
      return Promise.resolve(ok({ pending: network.llm.pending }))
    case "llm_respond": {
      const { id, text } = input as { readonly id: string; readonly text: string }
      // The call's URL, read before the finish ends it: a replay answers that call again.
      const url = network.llm.pending.find((invocation) => invocation.id === id)?.url
      const chunk = { id, items: [{ type: "text", content: text }] }
      return run(
        Effect.as(
          Effect.andThen(
            network.llm.command("llm.chunk", chunk),
            Effect.andThen(
              network.llm.command("llm.finish", { id }),
              Effect.sync(() => {
                tell({ type: "drive", method: "llm.chunk", params: chunk, url: undefined })
                tell({ type: "drive", method: "llm.finish", params: { id }, url })
              })
            )
          ),
          { answered: id }
        )
      )
    }
    case "files": {
      const dir = workspace()
      return Promise.resolve(
        dir === undefined
          ? refused(
              "simnet: no workspace: this run's files are the host's (a sealed run, simnet run --isolate, has one)"
            )
          : ok(readWorkspace(dir))
      )
    }
    case "snapshot":
      return run(network.state)
    case "reset":
      return run(
        Effect.as(
          Effect.tap(network.reset, () => Effect.sync(() => tell({ type: "reset" }))),
          { reset: true }
        )
      )
  }
}

type Sdk = {
  readonly Server: typeof McpServer
  readonly types: typeof import("@modelcontextprotocol/sdk/types.js")
}

/** The MCP SDK's server, loaded on first use. */
const sdk = (): Sdk => {
  const require = createRequire(import.meta.url)
  return {
    Server: (require("@modelcontextprotocol/sdk/server/index.js") as { readonly Server: typeof McpServer }).Server,
    types: require("@modelcontextprotocol/sdk/types.js") as Sdk["types"]
  }
}

/** An MCP server (the SDK's) with the tools, for one transport. */
const toolServer = (
  network: SimulationNetworkApi,
  terminal: () => Terminal | undefined,
  version: string,
  context: ToolContext = {}
): McpServer => {
  const { Server, types } = sdk()
  const server = new Server({ name: "simnet", version }, { capabilities: { tools: {} } })
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: AGENT_TOOLS.map((tool) => ({ ...tool, inputSchema: tool.inputSchema as never }))
  }))
  server.setRequestHandler(
    types.CallToolRequestSchema,
    (request) => callTool(network, terminal, request.params.name, request.params.arguments ?? {}, context) as never
  )
  return server
}

/**
 * Serves the tools over stdio until the client goes away (its stdin ends). Standard output is the
 * protocol's: nothing else may write there. A line that is not a message (over `MAX_MCP_LINE`
 * bytes, not JSON, not JSON-RPC) is answered with its JSON-RPC error and the server goes on
 * (`agentToolsStdio.ts`). `tell` is told of each change (for `--trace`).
 */
export const serveAgentTools = (
  network: SimulationNetworkApi,
  terminal: () => Terminal | undefined,
  version: string,
  tell?: (event: ControlEvent) => void
): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const server = toolServer(network, terminal, version, { tell })
    const transport = new LineTransport()
    transport.onclose = () => resume(Effect.void)
    void server.connect(transport)
    return Effect.promise(() => server.close())
  })

/** Where `simnet serve` (and `simnet run`) serve the same tools over MCP's Streamable HTTP. */
export const MCP_PATH = `${CONTROL_BASE}/mcp`

/**
 * The tools over MCP's Streamable HTTP at `MCP_PATH`, behind the control endpoint's checks (this
 * machine only, its token): stateless, a server and transport of the SDK's for each request, as
 * the SDK serves a stateless endpoint. Mount it beside the control endpoint.
 */
export const agentToolRoutes = (
  network: SimulationNetworkApi,
  terminal: () => Terminal | undefined,
  version: string,
  options: ControlOptions = {},
  workspace?: () => string | undefined
): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const handle = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.promise(async () => {
      const require = createRequire(import.meta.url)
      const { StreamableHTTPServerTransport } =
        require("@modelcontextprotocol/sdk/server/streamableHttp.js") as typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")
      const req = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage
      const res = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
      const server = toolServer(network, terminal, version, {
        workspace,
        tell: options.onChange,
        access: roomAccess(request)
      })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      const done = new Promise<void>((resolve) => {
        res.once("close", resolve)
        res.once("finish", resolve)
      })
      await server.connect(transport as never)
      await transport.handleRequest(req, res)
      await done
      await server.close()
      // The transport has answered on the socket; this response is not written.
      return HttpServerResponse.empty()
    })
  const control = controlRouter(options)
  return Layer.mergeAll(
    control.add("POST", "mcp", behind(local, handle)),
    control.add("GET", "mcp", behind(local, handle)),
    control.add("DELETE", "mcp", behind(local, handle))
  )
}
