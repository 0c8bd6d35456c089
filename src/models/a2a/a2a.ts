/**
 * An A2A agent (the Agent2Agent protocol, version 0.3 over JSON-RPC) answered by the network's
 * `SimulatedProvider`: one script, rule or driver answers it as it answers every model API. The
 * agent card at the origin's `/.well-known/agent-card.json` declares `protocolVersion: "0.3.0"`
 * and JSON-RPC at the base URL, where `message/send` answers a `Task` and `message/stream` the
 * same task as events (`task`, `status-update`, `artifact-update` chunks of the text, the final
 * `status-update`); `tasks/get` and `tasks/cancel` read and end the tasks the agent made.
 *
 * What maps: a message's text parts are the user's words; a script's text is the agent's message
 * and the task's `answer` artifact; a script's tool call is a data part `{ type: "tool_call", id,
 * name, input }` of the agent's message, and the task waits in `input-required` for the client to
 * answer it, in the same task, with a data part `{ type: "tool_result", id, output }` (a tool
 * result round: step N of a script answers after N of them). A task's history is kept by the
 * network (the last 1 000 tasks), so a task continued is a conversation continued.
 */
import { type Context, Effect, Result } from "effect"
import { type Answer, refused, whole } from "../../registry/answer.ts"
import type { RespondContext, Route, SimRequest } from "../../registry/route.ts"
import { isJsonObject } from "../../registry/util.ts"
import type { LlmTurn } from "../provider/conversation.ts"
import { requestKeyOf, textOf } from "../provider/conversation.ts"
import type { ContentPart, Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import { gather, parseArguments } from "../provider/parts.ts"
import { dataFrame, rawChunkFrame, truncatedFrame } from "../wire/sse.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import { RouteFailed } from "../../SimnetError.ts"
import type { Answerer } from "../../registry/route.ts"
import { modelAnswerer } from "../wire/call.ts"
import { modelApi } from "../wire/modelApi.ts"
import type { ModelWire } from "../wire/wire.ts"

/** The base URL `Routes.a2a` serves when none is given. */
export const DEFAULT_A2A_URL = "https://agent.example.com"

/**
 * Options of the A2A agent: `baseUrl` (its JSON-RPC endpoint; the card is at its origin's
 * `/.well-known/agent-card.json`), and what its card says: `name`, `description`, `skills`.
 */
export interface A2aRoutesOptions {
  readonly baseUrl?: string | undefined
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly skills?:
    | ReadonlyArray<{
        readonly id: string
        readonly name: string
        readonly description: string
        readonly tags?: ReadonlyArray<string> | undefined
      }>
    | undefined
}

type Json = Record<string, unknown>

/** A2A 0.3's task states that end a task. */
const TERMINAL = new Set(["completed", "failed", "canceled", "rejected"])

/** The tasks one network's agents made, by id, the oldest dropped past the bound. */
class Tasks {
  static readonly LIMIT = 1_000
  readonly #byId = new Map<string, Json>()
  get(id: unknown): Json | undefined {
    return typeof id === "string" ? this.#byId.get(id) : undefined
  }
  save(task: Json): void {
    this.#byId.delete(task.id as string)
    this.#byId.set(task.id as string, task)
    if (this.#byId.size > Tasks.LIMIT) this.#byId.delete(this.#byId.keys().next().value!)
  }
}

/** Each network's tasks, found by the services it answers with (one context a network). */
const tasksOf = new WeakMap<object, Tasks>()

interface Call {
  readonly id: unknown
  readonly method: string
  readonly message: Json
}

const callOf = (raw: unknown): Call => {
  const body = raw as { id?: unknown; method: string; params: { message: Json } }
  return { id: body.id ?? null, method: body.method, message: body.params.message }
}

const partsOf = (message: Json): ReadonlyArray<Json> =>
  Array.isArray(message.parts) ? message.parts.filter(isJsonObject) : []

/** A message of the task's history as conversation turns: tool results first, then the words. */
const turnsOf = (message: Json): ReadonlyArray<LlmTurn> => {
  const parts = partsOf(message)
  const text = parts
    .filter((part) => part.kind === "text")
    .map((part) => String(part.text ?? ""))
    .join("")
  const data = parts.filter((part) => part.kind === "data" && isJsonObject(part.data)).map((part) => part.data as Json)
  if (message.role === "agent") {
    const calls = data
      .filter((d) => d.type === "tool_call")
      .map((d) => ({ name: String(d.name ?? ""), arguments: JSON.stringify(d.input ?? {}) }))
    return [{ role: "assistant", text, calls }]
  }
  const results = data
    .filter((d) => d.type === "tool_result")
    .map((d): LlmTurn => ({ role: "tool", text: textOf(d.output) }))
  const other = data.filter((d) => d.type !== "tool_result").map((d) => JSON.stringify(d))
  const words = [text, ...other].filter((t) => t !== "").join("\n")
  return words === "" && results.length > 0 ? results : [...results, { role: "user", text: words }]
}

/** The parts of the agent's message: its text, then a data part per tool call. */
const agentParts = (parts: ReadonlyArray<Part>): Array<Json> => {
  const gathered = gather(parts)
  return [
    ...(gathered.text === undefined ? [] : [{ kind: "text", text: gathered.text }]),
    ...gathered.toolCalls.map((call) => ({
      kind: "data",
      data: { type: "tool_call", id: call.id, name: call.name, input: parseArguments(call.arguments) }
    }))
  ]
}

/** The task a call made or continued, before and after its answer. */
const taskOf = (tasks: Tasks | undefined, invocation: LlmInvocation) => {
  const call = callOf(invocation.request.raw)
  const existing = tasks?.get(call.message.taskId)
  const seq = invocation.seq
  const id = (existing?.id as string | undefined) ?? `task-sim-${seq}`
  const contextId =
    (existing?.contextId as string | undefined) ??
    (typeof call.message.contextId === "string" ? call.message.contextId : `ctx-sim-${seq}`)
  const user = { ...call.message, kind: "message", taskId: id, contextId }
  const history = [...((existing?.history as Array<Json> | undefined) ?? []), user]
  const artifacts = (existing?.artifacts as Array<Json> | undefined) ?? []
  return {
    call,
    id,
    contextId,
    artifactId: `artifact-sim-${seq}`,
    opened: { kind: "task", id, contextId, status: { state: "submitted" }, history, artifacts },
    /** The task once answered with `parts`, saved for `tasks/get`. */
    answered: (parts: ReadonlyArray<Part>): Json => {
      const agent = {
        kind: "message",
        role: "agent",
        messageId: `msg-sim-${seq}`,
        taskId: id,
        contextId,
        parts: agentParts(parts)
      }
      const gathered = gather(parts)
      const state =
        gathered.error !== undefined ? "failed" : gathered.toolCalls.length > 0 ? "input-required" : "completed"
      const message =
        gathered.error !== undefined ? { ...agent, parts: [{ kind: "text", text: gathered.error }] } : agent
      const answer =
        gathered.text === undefined
          ? []
          : [{ artifactId: `artifact-sim-${seq}`, name: "answer", parts: [{ kind: "text", text: gathered.text }] }]
      const task = {
        kind: "task",
        id,
        contextId,
        status: { state, message },
        history: [...history, message],
        artifacts: [...artifacts, ...answer]
      }
      tasks?.save(task)
      return task
    }
  }
}

const rpcFrame = (id: unknown, result: unknown): string => dataFrame({ jsonrpc: "2.0", id, result })

/** Writes `message/stream`: the task opened, the text as artifact chunks, the final status. */
class A2aWriter implements StreamWriter {
  readonly #task: ReturnType<typeof taskOf>
  readonly #parts: Array<Part> = []
  #chunks = 0

  constructor(tasks: Tasks | undefined, invocation: LlmInvocation) {
    this.#task = taskOf(tasks, invocation)
  }

  #event(result: Json): string {
    return rpcFrame(this.#task.call.id, result)
  }

  #status(state: string, final: boolean, message?: Json): string {
    return this.#event({
      kind: "status-update",
      taskId: this.#task.id,
      contextId: this.#task.contextId,
      status: message === undefined ? { state } : { state, message },
      final
    })
  }

  #chunk(text: string, lastChunk: boolean): string {
    return this.#event({
      kind: "artifact-update",
      taskId: this.#task.id,
      contextId: this.#task.contextId,
      artifact: { artifactId: this.#task.artifactId, name: "answer", parts: [{ kind: "text", text }] },
      append: this.#chunks++ > 0,
      lastChunk
    })
  }

  open(): ReadonlyArray<string> {
    return [this.#event(this.#task.opened), this.#status("working", false)]
  }

  content(part: ContentPart): ReadonlyArray<string> {
    this.#parts.push(part)
    // Thinking has no A2A part; a tool call goes in the final message, as a data part.
    return part.kind === "text" ? [this.#chunk(part.text, false)] : []
  }

  chunk(value: unknown): string {
    return rawChunkFrame(value, false)
  }

  error(message: string): ReadonlyArray<string> {
    const task = this.#task.answered([
      ...this.#parts.filter((part) => part.kind !== "error"),
      { kind: "error", message }
    ])
    return [this.#status("failed", true, (task.status as Json).message as Json)]
  }

  finish(_finish: Finish, _usage: TokenUsage | undefined): ReadonlyArray<string> {
    const task = this.#task.answered(this.#parts)
    const status = task.status as Json
    return [
      ...(this.#chunks > 0 ? [this.#chunk("", true)] : []),
      this.#status(status.state as string, true, status.message as Json)
    ]
  }

  malformed(): string {
    return truncatedFrame({
      jsonrpc: "2.0",
      id: this.#task.call.id,
      result: { kind: "artifact-update", taskId: this.#task.id }
    })
  }
}

/** The A2A wire over one network's tasks (none for the table's wire: no history, nothing kept). */
const wireOver = (tasks: Tasks | undefined): ModelWire => ({
  api: "a2a",
  name: "a2a",
  defaultBaseUrl: DEFAULT_A2A_URL,
  calls: () => false,
  baseUrlAt: () => undefined,
  requestIdHeader: "x-request-id",
  read: (request, raw) => {
    const call = callOf(raw)
    const history = (tasks?.get(call.message.taskId)?.history as Array<Json> | undefined) ?? []
    const turns = [...history, call.message].flatMap(turnsOf)
    const metadata = isJsonObject(call.message.metadata) ? call.message.metadata : {}
    return Result.succeed({
      api: "a2a",
      url: request.url.href,
      raw,
      model: typeof metadata.model === "string" ? metadata.model : "a2a",
      stream: call.method === "message/stream",
      turns,
      tools: [],
      key: requestKeyOf({ turns }, ["turns"])
    })
  },
  writer: (invocation) => new A2aWriter(tasks, invocation),
  answer: (invocation, parts) => ({
    jsonrpc: "2.0",
    id: callOf(invocation.request.raw).id,
    result: taskOf(tasks, invocation).answered(parts)
  }),
  errorBody: (status, message, reason) => ({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32603, message, data: { status, ...(reason === undefined ? {} : { reason }) } }
  }),
  readBack: () => undefined
})

/**
 * The A2A wire as the model table names it. Its calls are told by their JSON-RPC method, not
 * their URL, so record mode records an A2A upstream as plain routes.
 */
export const a2aWire: ModelWire = wireOver(undefined)

const rpc = (
  id: unknown,
  body: { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }
) => whole(200, { "content-type": "application/json" }, JSON.stringify({ jsonrpc: "2.0", id, ...body }))

const rpcError = (id: unknown, code: number, message: string) => rpc(id, { error: { code, message } })

/** A task as `tasks/get` shows it: its history cut to the last `historyLength` messages when asked. */
const shown = (task: Json, historyLength: unknown): Json =>
  typeof historyLength === "number" && Number.isInteger(historyLength) && historyLength >= 0
    ? {
        ...task,
        history: (task.history as Array<Json>).slice(
          historyLength === 0 ? (task.history as Array<Json>).length : -historyLength
        )
      }
    : task

/** One network's answerer of the JSON-RPC endpoint: the model's calls through its wire, the task methods here. */
const endpointOf = (tasks: Tasks): Answerer => {
  const model = modelAnswerer(wireOver(tasks))
  return (request: SimRequest, context: RespondContext): Answer => {
    const body = request.json()
    if (body === undefined) return rpcError(null, -32700, "Parse error: the body is not JSON")
    if (!isJsonObject(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string")
      return rpcError(
        isJsonObject(body) ? (body.id ?? null) : null,
        -32600,
        "Invalid Request: not a JSON-RPC 2.0 request"
      )
    const id = body.id ?? null
    const params = isJsonObject(body.params) ? body.params : undefined
    switch (body.method) {
      case "message/send":
      case "message/stream": {
        const message = params?.message
        if (
          !isJsonObject(message) ||
          message.role !== "user" ||
          !Array.isArray(message.parts) ||
          typeof message.messageId !== "string"
        ) {
          return rpcError(id, -32602, "Invalid params: params.message is a user message { role, parts, messageId }")
        }
        if (message.taskId !== undefined) {
          const task = tasks.get(message.taskId)
          if (task === undefined) return rpcError(id, -32001, `Task not found: ${String(message.taskId)}`)
          const state = (task.status as Json).state as string
          if (TERMINAL.has(state))
            return rpcError(
              id,
              -32602,
              `Invalid params: task ${String(message.taskId)} is ${state}; a new message starts a new task`
            )
        }
        return model(request, context)
      }
      case "tasks/get": {
        const task = tasks.get(params?.id)
        return task === undefined
          ? rpcError(id, -32001, `Task not found: ${String(params?.id)}`)
          : rpc(id, { result: shown(task, params?.historyLength) })
      }
      case "tasks/cancel": {
        const task = tasks.get(params?.id)
        if (task === undefined) return rpcError(id, -32001, `Task not found: ${String(params?.id)}`)
        const state = (task.status as Json).state as string
        if (TERMINAL.has(state)) return rpcError(id, -32002, `Task cannot be canceled: it is ${state}`)
        const canceled = { ...task, status: { state: "canceled" } }
        tasks.save(canceled)
        return rpc(id, { result: canceled })
      }
      default:
        return rpcError(id, -32601, `Method not found: ${body.method}`)
    }
  }
}

const endpoints = new WeakMap<object, Answerer>()

/** The JSON-RPC endpoint's answer: each network's tasks and answerer, made on its first call. */
const endpoint: Answerer = (request, context) => {
  const services = context.services as Context.Context<never>
  let answer = endpoints.get(services)
  if (answer === undefined) {
    let tasks = tasksOf.get(services)
    if (tasks === undefined) tasksOf.set(services, (tasks = new Tasks()))
    endpoints.set(services, (answer = endpointOf(tasks)))
  }
  try {
    return answer(request, context)
  } catch (cause) {
    return refused(
      new RouteFailed({
        route: context.identity,
        reason: "handler",
        message: `the A2A agent failed: ${String(cause)}`,
        cause
      })
    )
  }
}

/** The agent card: A2A 0.3, JSON-RPC at `base`, streaming, the options' name, description and skills. */
const cardOf = (base: string, options: A2aRoutesOptions): Json => ({
  protocolVersion: "0.3.0",
  name: options.name ?? "simnet agent",
  description: options.description ?? "An A2A agent answered by simnet's simulated model.",
  url: base,
  preferredTransport: "JSONRPC",
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
  defaultInputModes: ["text/plain", "application/json"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: (
    options.skills ?? [{ id: "chat", name: "Chat", description: "Answers from the simulated model's script." }]
  ).map((skill) => ({ ...skill, tags: skill.tags ?? ["simnet"] }))
})

/**
 * The A2A agent's routes at `baseUrl` (default `https://agent.example.com`): `a2a.card` (`GET`
 * the agent card at the origin's `/.well-known/agent-card.json`) and `a2a.rpc` (`POST` JSON-RPC
 * at the base URL), source `a2a`.
 */
export const a2aRoutes = (options: A2aRoutesOptions = {}): ReadonlyArray<Route> => {
  const base = (options.baseUrl ?? DEFAULT_A2A_URL).replace(/\/+$/, "")
  const origin = new URL(base).origin
  const card = whole(200, { "content-type": "application/json" }, JSON.stringify(cardOf(base, options)))
  return [
    ...modelApi("a2a", origin, origin === base ? undefined : origin, [
      {
        name: "card",
        method: "GET",
        path: "/.well-known/agent-card.json",
        endpoint: ".well-known/agent-card.json",
        parts: { answer: () => card, reproduce: () => Effect.succeed(card) }
      }
    ]),
    ...modelApi("a2a", DEFAULT_A2A_URL, options.baseUrl, [
      {
        name: "rpc",
        method: "POST",
        path: base === origin ? "/" : "",
        endpoint: "JSON-RPC",
        parts: { answer: endpoint }
      }
    ])
  ]
}
