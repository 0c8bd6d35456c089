/**
 * A session's live connection: one SDK `Server` behind one SDK
 * `WebStandardStreamableHTTPServerTransport`, kept from `initialize` until the session ends. It
 * answers everything the fast path leaves: `initialize`, batches, notifications, the client's
 * answers to the server's own requests (elicitation, sampling, roots), `GET` (the server's stream
 * for pushes: `listChanged`, `resources/updated`), `DELETE`, and tool calls that stream. Events
 * are kept (a bounded store) so a client resumes a closed stream with `Last-Event-ID`, and the
 * session is told when the definitions change, so the client is too.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { adoptSession, streamFromNowOn } from "./copies.ts"
import type { CompiledServer } from "./definitions.ts"
import { sdkServer } from "./servers.ts"
import type { McpServerState, McpSession, SessionRuntime } from "./state.ts"
import type { McpEnv } from "./tools.ts"

/** The most events a session keeps for clients that resume a stream. */
const KEPT_EVENTS = 1_000

/** How long a client waits before it resumes a stream the server closed (the SSE `retry` field). */
export const RETRY_MS = 250

/**
 * The events of one session, the newest `KEPT_EVENTS`, under ids that count up from 1: the same
 * run writes the same ids (the transport's own stream ids are random, and never shown).
 */
class SessionEvents implements EventStore {
  private next = 1
  private readonly events = new Map<string, { readonly stream: string; readonly message: JSONRPCMessage }>()

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(this.next++)
    this.events.set(id, { stream: streamId, message })
    if (this.events.size > KEPT_EVENTS) this.events.delete(this.events.keys().next().value!)
    return id
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.stream
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }
  ): Promise<string> {
    const last = this.events.get(lastEventId)
    if (last === undefined) throw new Error(`Event ${lastEventId} is no longer kept`)
    let after = false
    for (const [id, event] of this.events) {
      if (id === lastEventId) after = true
      // The priming event of a stream carries no message: nothing to replay.
      else if (after && event.stream === last.stream && Object.keys(event.message).length > 0)
        await send(id, event.message)
    }
    return last.stream
  }
}

/** A session's live connection. */
export interface Runtime extends SessionRuntime {
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  /**
   * Hands one HTTP request to the transport: `initialize` is answered as JSON, every later
   * request as an event stream (the fast path answers the plain ones as JSON before they get here).
   */
  readonly handle: (request: Request, parsedBody: unknown) => Promise<Response>
}

/** What changed between two revisions of the definitions, as the notifications a client is owed. */
const announce =
  (runtime: Runtime, state: McpServerState, session: string | undefined) =>
  (previous: CompiledServer, next: CompiledServer) => {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
    const sends: Array<Promise<void>> = []
    if (
      !same(
        previous.toolList.map((t) => t.listing),
        next.toolList.map((t) => t.listing)
      )
    )
      sends.push(runtime.server.sendToolListChanged())
    const resources = (c: CompiledServer) =>
      [...c.resources.values()].map(({ uri, name, title, description, mimeType }) => ({
        uri,
        name,
        title,
        description,
        mimeType
      }))
    const templates = (c: CompiledServer) => c.templates.map((t) => t.template)
    if (!same(resources(previous), resources(next)) || !same(templates(previous), templates(next)))
      sends.push(runtime.server.sendResourceListChanged())
    if (!same([...previous.prompts.values()], [...next.prompts.values()]))
      sends.push(runtime.server.sendPromptListChanged())
    for (const uri of state.wishesOf(session ?? "").subscriptions) {
      const before = previous.resources.get(uri)
      const after = next.resources.get(uri)
      if (!same(before, after)) sends.push(runtime.server.sendResourceUpdated({ uri }))
    }
    // A client without an open stream misses them, as it would from a real server.
    for (const send of sends) send.catch(() => {})
  }

/**
 * The live connection of a session, made when it is first needed: at `initialize` (where the
 * transport gives the session `session.id`), or for a session opened before (restored from a
 * snapshot), adopted as already initialized.
 */
export const runtimeOf = (state: McpServerState, env: McpEnv, session: McpSession, initializing: boolean): Runtime => {
  const found = state.runtimes.get(session.id) as Runtime | undefined
  if (found !== undefined) return found
  const server = sdkServer(() => state.current, state, env, session)
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => session.id,
    eventStore: new SessionEvents(),
    retryInterval: RETRY_MS,
    keepAliveMs: 0,
    enableJsonResponse: initializing
  })
  if (!initializing) adoptSession(transport, session.id)
  const ready = server.connect(transport)
  let first = initializing
  const runtime: Runtime = {
    server,
    transport,
    handle: (request, parsedBody) =>
      ready
        .then(() => transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody }))
        .then((response) => {
          if (first) {
            first = false
            streamFromNowOn(transport)
          }
          return response
        }),
    close: () => {
      state.watchers.delete(watcher)
      transport.close().catch(() => {})
    }
  }
  const watcher = announce(runtime, state, session.id)
  state.watchers.add(watcher)
  state.runtimes.set(session.id, runtime)
  return runtime
}
