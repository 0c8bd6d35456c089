/**
 * Answering a `tools/call`: the tool's handler, fixed result or a value generated from its output
 * schema, as a `CallToolResult` (checked against the output schema), and the fast path that
 * answers a plain call without the SDK's `Protocol` round.
 */
import {
  CallToolResultSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  type JSONRPCRequest,
  ListRootsResultSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import type { AnySchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js"
import { Duration, Effect, Result } from "effect"
import { type CompiledServer, type CompiledTool, LOG_LEVELS, type McpStep, type McpToolAnswer } from "./definitions.ts"
import { canonicalJson, deriveSeed, MAX_JSON_DEPTH, REDACTED } from "./floor.ts"
import { plainResult, protocolFailure, toolFailures } from "./copies.ts"
import type { McpServerState, McpSession } from "./state.ts"

/**
 * Whether a call's arguments are those a result was recorded for: the same JSON in any key
 * order, where a recorded `"<redacted>"` (a credential record mode did not write) stands for any
 * value. Bounded by `MAX_JSON_DEPTH`.
 */
const sameArguments = (recorded: unknown, actual: unknown, depth: number): boolean => {
  if (recorded === REDACTED) return true
  if (depth > MAX_JSON_DEPTH) return false
  if (Array.isArray(recorded))
    return (
      Array.isArray(actual) &&
      actual.length === recorded.length &&
      recorded.every((item, i) => sameArguments(item, actual[i], depth + 1))
    )
  if (typeof recorded !== "object" || recorded === null) return recorded === actual
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false
  const names = Object.keys(recorded)
  if (names.length !== Object.keys(actual).length) return false
  return names.every(
    (name) =>
      Object.hasOwn(actual, name) &&
      sameArguments((recorded as Record<string, unknown>)[name], (actual as Record<string, unknown>)[name], depth + 1)
  )
}

/** What one request needs from the network. */
export interface McpEnv {
  readonly runSeed: number
  readonly identity: string
  /** Adds the JSON-RPC method (and tool) to the request's log record. */
  readonly annotate: (detail: Readonly<Record<string, unknown>>) => void
  /** Runs a handler's Effect with the network's services, until `signal` aborts. */
  readonly run: <A>(effect: Effect.Effect<A, unknown>, signal: AbortSignal) => Promise<A>
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const toolError = (text: string) => ({ content: [{ type: "text", text }], isError: true })

/** A tool's answer as a `CallToolResult`, its structured content checked against the output schema. */
export const toResult = (answer: McpToolAnswer, tool: CompiledTool) => {
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] }
  const name = tool.tool.name
  const structured = answer.structuredContent
  if (tool.checkOutput !== undefined && answer.isError !== true) {
    if (structured === undefined) {
      return toolError(toolFailures.noStructuredContent(name))
    }
    const issue = tool.checkOutput(structured)
    if (issue !== undefined) return toolError(toolFailures.invalidStructuredContent(name, issue))
  }
  return {
    content: answer.content ?? (structured === undefined ? [] : [{ type: "text", text: JSON.stringify(structured) }]),
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(answer.isError === true ? { isError: true } : {})
  }
}

/** What a `tools/call` answers: a `CallToolResult` (its content, structured content, `isError`). */
export type ToolReply = Readonly<Record<string, unknown>>

/** The params of a `tools/call`, as the SDK's `Server` or the fast path hands them over. */
export interface CallParams {
  readonly name: string
  readonly arguments?: unknown
  readonly _meta?: { readonly progressToken?: unknown } | undefined
}

/**
 * What a `tools/call` handler gets besides the request: the SDK's `extra`, or its stand-in on the
 * fast path (which never serves a tool with steps, so it has no way to ask the client anything).
 */
export interface CallExtra {
  readonly signal: AbortSignal
  readonly sendNotification: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>
  readonly sendRequest?:
    | (<S extends AnySchema>(
        request: { method: string; params: Record<string, unknown> },
        schema: S
      ) => Promise<SchemaOutput<S>>)
    | undefined
  readonly closeSSEStream?: (() => void) | undefined
}

/** The deepest a definition's value is walked when its `{{…}}` are filled in. */
const RENDER_DEPTH = 64

/**
 * A definition's value with every `{{path}}` in its strings replaced by `lookup(path)`: a string
 * as it is, anything else as JSON, nothing as "".
 */
export const render = (value: unknown, lookup: (path: string) => unknown, depth = 0): unknown => {
  if (typeof value === "string") {
    return value.replace(/\{\{\s*([A-Za-z0-9_.$-]+)\s*\}\}/g, (_, path: string) => {
      const found = lookup(path)
      return found === undefined ? "" : typeof found === "string" ? found : JSON.stringify(found)
    })
  }
  if (depth >= RENDER_DEPTH || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map((item) => render(item, lookup, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = render(item, lookup, depth + 1)
  return out
}

/** The value at a dotted path (`elicitation.content.email`) of what a call gathered. */
const at = (scope: Readonly<Record<string, unknown>>, path: string): unknown => {
  let node: unknown = scope
  for (const key of path.split(".")) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/**
 * Runs a tool's steps in order (see `McpStep`), gathering what the client answered, then answers
 * with its `result` (or generated value) filled in from what was gathered.
 */
const runSteps = async (
  tool: CompiledTool,
  steps: ReadonlyArray<McpStep>,
  scope: Record<string, unknown>,
  token: unknown,
  level: () => string | undefined,
  env: McpEnv,
  extra: CallExtra,
  answer: () => ToolReply
): Promise<ToolReply> => {
  const fill = (value: unknown) => render(value, (path) => at(scope, path))
  const ask = <S extends AnySchema>(method: string, params: unknown, schema: S) => {
    if (extra.sendRequest === undefined)
      throw new McpError(ErrorCode.InternalError, `${method} needs the session's event stream`)
    return extra.sendRequest({ method, params: params as Record<string, unknown> }, schema)
  }
  for (const step of steps) {
    if (extra.signal.aborted) throw new McpError(ErrorCode.InternalError, "the call was cancelled")
    if ("log" in step) {
      const wanted = level()
      if (wanted !== undefined && LOG_LEVELS.indexOf(step.log.level) < LOG_LEVELS.indexOf(wanted as never)) continue
      await extra.sendNotification({
        method: "notifications/message",
        params: {
          level: step.log.level,
          data: fill(step.log.data),
          ...(step.log.logger === undefined ? {} : { logger: step.log.logger })
        }
      })
    } else if ("progress" in step) {
      if (token === undefined) continue
      const { progress, total, message } = step.progress
      await extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message: fill(message) })
        }
      })
    } else if ("elicit" in step) {
      scope.elicitation = await ask("elicitation/create", fill(step.elicit), ElicitResultSchema)
    } else if ("sample" in step) {
      scope.sampling = await ask("sampling/createMessage", fill(step.sample), CreateMessageResultSchema)
    } else if ("roots" in step) {
      scope.roots = await ask("roots/list", {}, ListRootsResultSchema)
    } else if ("waitMs" in step) {
      await env.run(Effect.sleep(Duration.millis(step.waitMs)), extra.signal)
    } else if ("closeStream" in step) {
      extra.closeSSEStream?.()
    }
  }
  const result = tool.tool.result
  return result === undefined ? answer() : toResult(fill(result) as McpToolAnswer, tool)
}

/**
 * Answers a `tools/call` from `compiled`: counts it, decodes its arguments, and answers with the
 * tool's handler, fixed result or a generated value. The SDK `Server` of `sdkServer` calls it, and
 * so does the fast path (`fastCall`).
 */
export const callTool = (
  compiled: CompiledServer,
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined,
  params: CallParams,
  extra: CallExtra
): ToolReply | Promise<ToolReply> => {
  const name = params.name
  const args = params.arguments ?? {}
  const tool = compiled.tools.get(name)
  if (tool === undefined) {
    // A made-up name is counted (bounded by name), never given an occurrence: its calls hold no
    // memory per distinct argument.
    state.countName(name)
    return toolError(toolFailures.notFound(name))
  }
  const key = `${name}\u0000${canonicalJson(args)}`
  const occurrence = state.count(name, key)
  const decoded = tool.decodeInput(args)
  if (Result.isFailure(decoded)) {
    return toolError(toolFailures.invalidArguments(name, decoded.failure))
  }
  const seed = deriveSeed(env.runSeed, env.identity, `tools/call\u0000${key}`, occurrence)
  const { handler, result, steps, results } = tool.tool
  if (results !== undefined) {
    const found = results.find((entry) => sameArguments(entry.arguments, decoded.success, 0))
    if (found !== undefined) return toResult(found.result, tool)
    if (handler === undefined && result === undefined && steps === undefined && tool.generator === undefined) {
      return toolError(`no result was recorded for ${name} with these arguments`)
    }
  }
  if (steps !== undefined) {
    const scope: Record<string, unknown> = { arguments: decoded.success }
    const wishes = () => state.wishesOf(session?.id ?? "").level
    // A step the client refuses (no such capability, a failed answer) fails the tool, as a
    // result the model reads, not the request.
    return runSteps(tool, steps, scope, params._meta?.progressToken, wishes, env, extra, () =>
      generated(tool, seed)
    ).catch((error) => toolError(messageOf(error)))
  }
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
          params: {
            progressToken: token,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message })
          }
        })
      }
    }
    // A handler that answers at once is answered at once; a promise or an Effect is waited for.
    const failed = (error: unknown) => toolError(messageOf(error))
    try {
      const answer = handler(decoded.success, context)
      if (Effect.isEffect(answer))
        return env
          .run(answer, extra.signal)
          .then((value) => toResult(value, tool))
          .catch(failed)
      if (isThenable(answer))
        return Promise.resolve(answer)
          .then((value) => toResult(value, tool))
          .catch(failed)
      return toResult(answer, tool)
    } catch (error) {
      return failed(error)
    }
  }
  if (result !== undefined) return toResult(result, tool)
  return generated(tool, seed)
}

/** A tool's answer generated from its output schema under `seed`. */
const generated = (tool: CompiledTool, seed: number) => {
  const value = tool.generator!.generate(seed)
  if (Result.isFailure(value)) throw new McpError(ErrorCode.InternalError, value.failure.message)
  return { content: [{ type: "text", text: value.success }], structuredContent: JSON.parse(value.success) }
}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const NEVER_ABORTED = new AbortController().signal
const noNotifications = async () => {}

/**
 * The fast path of a plain `tools/call` (see `plainCall`; no progress token, no task): what the
 * SDK `Server` answers for it — its request and result checks and its reply, an error thrown
 * becoming a JSON-RPC error as the SDK's `Protocol` makes it — without a round through the
 * `Protocol`, whose type guards and parses cost more than the call.
 */
export const fastCall = (
  compiled: CompiledServer,
  state: McpServerState,
  env: McpEnv,
  session: McpSession | undefined,
  id: JSONRPCRequest["id"],
  params: CallParams,
  signal: AbortSignal | undefined
): Record<string, unknown> | Promise<Record<string, unknown>> => {
  const reply = (result: ToolReply): Record<string, unknown> => {
    if (plainResult(result)) return { result, jsonrpc: "2.0", id }
    const checked = CallToolResultSchema.safeParse(result)
    if (!checked.success)
      throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`)
    return { result: checked.data, jsonrpc: "2.0", id }
  }
  const failure = (error: unknown) => protocolFailure(id, error)
  try {
    const result = callTool(compiled, state, env, session, params, {
      signal: signal ?? NEVER_ABORTED,
      sendNotification: noNotifications
    })
    return result instanceof Promise ? result.then(reply).catch(failure) : reply(result)
  } catch (error) {
    return failure(error)
  }
}
