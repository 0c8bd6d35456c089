/**
 * `simnet mcp`: an MCP server (the official SDK's, over stdio) through which an agent observes and
 * drives a simulation — the app's terminal (`screen`, `type`, `press`, `resize`, `wait`, as the
 * driver socket's `ui.*`), the network (`network_log`, `register_routes`, `snapshot`, `reset`)
 * and the model (`llm_enqueue`, `llm_rules`, `llm_pending`, and `llm_respond`: a held call
 * answered with text in one step, the driver's chunk and finish). `files` answers that there is no
 * workspace until a sealed run has one. A tool's refusal is a result with `isError`, naming why.
 * `simnet serve` and `simnet run` serve the same tools over Streamable HTTP at `MCP_PATH`.
 */
import { Effect, Layer } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Server as McpServer } from "@modelcontextprotocol/sdk/server/index.js"
import { createRequire } from "node:module"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { behind, local } from "../control/access.ts"
import { CONTROL_BASE, controlRouter, type ControlOptions } from "../control/endpoint.ts"
import { readWorkspace } from "../core/workspace.ts"
import type { SimulationNetworkApi } from "../network/network.ts"
import { uiCall } from "../control/ui.ts"
import type { Terminal } from "../terminal/terminal.ts"
import { LineTransport } from "./mcpStdio.ts"

interface Tool {
  readonly name: string
  readonly description: string
  readonly inputSchema: { readonly type: "object"; readonly properties: Record<string, unknown>; readonly required?: ReadonlyArray<string> }
}

const object = (properties: Record<string, unknown> = {}, required: ReadonlyArray<string> = []): Tool["inputSchema"] => ({ type: "object", properties, ...(required.length === 0 ? {} : { required }) })
const str = { type: "string" }
const num = { type: "integer", minimum: 0 }

/** The tools, as `tools/list` gives them. */
export const MCP_TOOLS: ReadonlyArray<Tool> = [
  { name: "screen", description: "The app's terminal screen: { lines, cursor: { x, y }, cols, rows }.", inputSchema: object() },
  { name: "type", description: "Types text into the app's terminal; returns the screen after it.", inputSchema: object({ text: str }, ["text"]) },
  { name: "press", description: "Presses a key by name (enter, tab, escape, backspace, up, down, left, right, ctrl+c, ctrl+LETTER, ...); returns the screen after it.", inputSchema: object({ key: str }, ["key"]) },
  { name: "resize", description: "Resizes the app's terminal.", inputSchema: object({ cols: num, rows: num }, ["cols", "rows"]) },
  { name: "wait", description: "Waits until text is on screen, or the screen has been still for quietMs (with quiescent: true, the whole app at rest); returns the screen.", inputSchema: object({ text: str, quietMs: num, timeoutMs: num, quiescent: { type: "boolean" } }) },
  { name: "network_log", description: "The network's requests after seq `since` (at most 200).", inputSchema: object({ since: num }) },
  { name: "register_routes", description: "Registers RouteSpec JSON (one spec or an array); returns the route ids.", inputSchema: object({ specs: {} }, ["specs"]) },
  { name: "llm_enqueue", description: "Queues an LLM script ({ steps: [[actions]] }) for the next model call.", inputSchema: object({ script: { type: "object" } }, ["script"]) },
  { name: "llm_rules", description: "Adds LLM rules ([{ match, behaviour }]); returns their ids.", inputSchema: object({ rules: { type: "array" } }, ["rules"]) },
  { name: "llm_pending", description: "The model calls waiting for a driver (run with --drive).", inputSchema: object() },
  { name: "llm_respond", description: "Answers a pending model call with text (and finishes it).", inputSchema: object({ id: str, text: str }, ["id", "text"]) },
  { name: "files", description: "The app's workspace files under simnet run --isolate: { files: { PATH: { size, sha256, text? } } }.", inputSchema: object() },
  { name: "snapshot", description: "The network's restorable state.", inputSchema: object() },
  { name: "reset", description: "Resets the network to its start: routes, model queue and rules, logs.", inputSchema: object() }
]

type Result = { readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>; readonly isError?: boolean }

const ok = (value: unknown): Result => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }] })
const refused = (message: string): Result => ({ content: [{ type: "text", text: message }], isError: true })
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error ? String((error as { message: unknown }).message) : String(error))

/** Runs one tool call against the network and the terminal. */
export const callTool = (network: SimulationNetworkApi, terminal: () => Terminal | undefined, name: string, args: Record<string, unknown>, workspace: () => string | undefined = () => undefined): Promise<Result> => {
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.match(effect, { onFailure: (error) => refused(messageOf(error)), onSuccess: ok }))
  switch (name) {
    case "screen":
    case "type":
    case "press":
    case "resize":
    case "wait":
      return run(uiCall(terminal(), `ui.${name}`, args, network.quiescent))
    case "network_log": {
      const since = typeof args["since"] === "number" ? args["since"] : 0
      return run(Effect.map(network.logSince(since, 200), (records) => ({ records })))
    }
    case "register_routes":
      return run(Effect.map(network.registerSpec(args["specs"]), (ids) => ({ ids })))
    case "llm_enqueue":
      return run(Effect.map(Effect.try(() => network.llm.enqueue(args["script"] as never)), () => ({ queued: network.llm.queued })))
    case "llm_rules":
      return run(Effect.map(Effect.try(() => network.llm.addRules(args["rules"] as never)), (ids) => ({ ids })))
    case "llm_pending":
      return Promise.resolve(ok({ pending: network.llm.pending }))
    case "llm_respond": {
      const id = args["id"]
      const text = args["text"]
      if (typeof id !== "string" || typeof text !== "string") return Promise.resolve(refused("llm_respond needs an id and a text"))
      return run(Effect.as(Effect.andThen(network.llm.command("llm.chunk", { id, items: [{ type: "text", content: text }] }), network.llm.command("llm.finish", { id })), { answered: id }))
    }
    case "files": {
      const dir = workspace()
      return Promise.resolve(dir === undefined ? refused("simnet: no workspace: this run's files are the host's (a sealed run, simnet run --isolate, has one)") : ok(readWorkspace(dir)))
    }
    case "snapshot":
      return run(network.state)
    case "reset":
      return run(Effect.as(network.reset, { reset: true }))
    default:
      return Promise.resolve(refused(`simnet: no tool named ${JSON.stringify(name).slice(0, 60)}; tools: ${MCP_TOOLS.map((tool) => tool.name).join(", ")}`))
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
const toolServer = (network: SimulationNetworkApi, terminal: () => Terminal | undefined, version: string, workspace?: () => string | undefined): McpServer => {
  const { Server, types } = sdk()
  const server = new Server({ name: "simnet", version }, { capabilities: { tools: {} } })
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({ tools: MCP_TOOLS.map((tool) => ({ ...tool, inputSchema: tool.inputSchema as never })) }))
  server.setRequestHandler(types.CallToolRequestSchema, (request) => callTool(network, terminal, request.params.name, request.params.arguments ?? {}, workspace) as never)
  return server
}

/**
 * Serves the tools over stdio until the client goes away (its stdin ends). Standard output is the
 * protocol's: nothing else may write there. A line that is not a message (over `MAX_MCP_LINE`
 * bytes, not JSON, not JSON-RPC) is answered with its JSON-RPC error and the server goes on
 * (`mcpStdio.ts`).
 */
export const serveMcp = (network: SimulationNetworkApi, terminal: () => Terminal | undefined, version: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const server = toolServer(network, terminal, version)
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
export const mcpRoutes = (network: SimulationNetworkApi, terminal: () => Terminal | undefined, version: string, options: ControlOptions = {}, workspace?: () => string | undefined): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const handle = (request: HttpServerRequest.HttpServerRequest) =>
    Effect.promise(async () => {
      const require = createRequire(import.meta.url)
      const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js") as typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")
      const req = NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage
      const res = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
      const server = toolServer(network, terminal, version, workspace)
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
  return Layer.mergeAll(control.add("POST", "mcp", behind(local, handle)), control.add("GET", "mcp", behind(local, handle)), control.add("DELETE", "mcp", behind(local, handle)))
}
