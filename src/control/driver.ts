/**
 * The driver socket: a WebSocket at `/experimental/simulation/drive` speaking JSON-RPC 2.0, so
 * that a driver in another process feeds the model's answers the way `SimulatedProvider.layerDrive`
 * does in process.
 *
 * Methods: `llm.attach` (subscribe to `llm.request {id, api, url, body}` notifications; the invocations
 * already pending are announced first; the last attach wins and the replaced socket is sent
 * `llm.replaced`), `llm.chunk {id, items}`, `llm.finish {id, reason?, usage?}`,
 * `llm.fail {id, status, message?}`, `llm.disconnect {id}`, `llm.pending`, `network.log {since?, limit?}`
 * (the oldest records after `since`: at most `limit`, 1 000 by default and at most, and at most
 * `MAX_REPLY` bytes; page with `since`), and the `ui.*` methods of `simnet run --tty`'s terminal
 * (`ui.ts`). When that terminal's program exits, every socket open then or later is sent the
 * notification `ui.exit {code, signal?, screen}` (the last screen), once, after the replies to the
 * calls it had made (each answered at once by the exit); `ExitNotices` tells the run when every
 * open socket has been told, so that it does not close them first.
 *
 * Every command is decoded with the protocol's Schemas; a bad one gets a JSON-RPC error naming
 * the problem (`-32700` not JSON, `-32600` not a request or too large, `-32601` unknown method,
 * `-32602` bad params with the JSON path in `data.path`, `-32001` an invocation not pending,
 * `-32002` a command from a socket that is not the attached driver: only the socket whose
 * `llm.attach` is the latest commands invocations), the
 * socket stays up and nothing else changes. A batch holds at most `MAX_BATCH` calls, and its
 * replies at most `MAX_REPLY` bytes: the calls past that are not run and answer `-32000`. Messages are handled one at a time, in order, through
 * a bounded queue (reading stops while it is full). When the socket closes, its attach ends and
 * the invocations it was feeding are released as disconnected.
 */
import { Cause, Effect, Exit, Queue, Scope } from "effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { SimnetError } from "../SimnetError.ts"
import type { DriverNotices, SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import { isJsonObject } from "../registry/util.ts"
import type { Terminal, TerminalExit } from "../terminal/terminal.ts"
import { UI_METHODS, uiCall } from "./ui.ts"

/**
 * What the driver socket needs of a network.
 */
export interface DrivenNetwork {
  readonly logSince: (seq: number, limit?: number) => Effect.Effect<ReadonlyArray<{ readonly seq: number }>>
  readonly llm: SimulatedProviderApi
  /** Completes when no request is in flight (`ui.wait`'s `quiescent: true`). */
  readonly quiescent?: Effect.Effect<void> | undefined
}

/** The largest message the socket takes, in UTF-8 bytes or characters. */
export const MAX_MESSAGE = 1024 * 1024

/** How many received messages wait to be handled before reading pauses. */
const INBOX = 64

/** The most calls one batch may hold. */
export const MAX_BATCH = 100

/**
 * The most one reply may hold, in UTF-8 bytes of JSON: a batch's replies together, or one
 * `network.log`'s records (a driver pages through a long log with `since`). Without it a 7 KB
 * batch of `network.log` calls asked the server for gigabytes.
 */
export const MAX_REPLY = 4 * 1024 * 1024

/** The most records one `network.log` call returns (fewer when `MAX_REPLY` is reached first). */
export const MAX_LOG_RECORDS = 1000

type Id = string | number | null

interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** A result already written as JSON (a page of the log), put into its reply as it is. */
class Json {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

/** Replies and notifications, each serialized once, as the socket sends them. */
const failure = (id: Id, error: RpcError): string => JSON.stringify({ jsonrpc: "2.0", id, error })
const success = (id: Id, result: unknown): string =>
  result instanceof Json
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result.text}}`
    : JSON.stringify({ jsonrpc: "2.0", id, result })
const notification = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: "2.0", method, params })

const isId = (u: unknown): u is Id =>
  u === null || typeof u === "string" || (typeof u === "number" && Number.isFinite(u))

const fromSimnet = (error: SimnetError): RpcError => {
  if (error._tag === "InvocationNotPending")
    return { code: -32001, message: error.message, data: { tag: error._tag, id: error.id } }
  return {
    code: -32602,
    message: `Invalid params: ${error.message}`,
    data: { tag: error._tag, ...("path" in error && typeof error.path === "string" ? { path: error.path } : {}) }
  }
}

const decoder = new TextDecoder()

/**
 * What a driver is told of a defect: its first line, bounded, with no stack trace and no file
 * path of this machine.
 */
const internalMessage = (cause: Cause.Cause<unknown>): string => {
  const defect = Cause.squash(cause)
  const text = defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)
  const line = text.split("\n")[0].replace(/(?:file:\/\/)?\/[^\s:)]+/g, "<path>")
  return `Internal error: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`
}

/**
 * A page of the log as JSON: the records in order while they fit in `MAX_REPLY` bytes (at least
 * one, so a driver paging with `since` always moves on), each serialized once.
 */
const page = (records: ReadonlyArray<unknown>): Json => {
  const parts: Array<string> = []
  let bytes = 2
  for (const record of records) {
    const part = JSON.stringify(record)
    const size = Buffer.byteLength(part) + 1
    if (parts.length > 0 && bytes + size > MAX_REPLY) break
    bytes += size
    parts.push(part)
  }
  return new Json(`[${parts.join(",")}]`)
}

const COMMANDS = new Set(["llm.chunk", "llm.finish", "llm.fail", "llm.disconnect"])

/**
 * A driver command that was carried out, as a trace records it: the method, its params, and for
 * the command that ends an invocation, the URL of the request it answered (how a replay finds
 * that request again).
 */
export interface DriverCommand {
  readonly method: string
  readonly params: unknown
  readonly url: string | undefined
}

/**
 * The driver sockets that watch a terminal, counted until each has been told of its program's
 * exit (or has closed): `simnet run --tty` waits for `told` before it closes them, so a driver
 * whose `ui.wait` was under way when the program died reads the answer and the notification.
 */
export class ExitNotices {
  #untold = 0
  readonly #waiting = new Set<() => void>()

  /** One socket more to tell; the function given back marks it told (or gone), once. */
  open(): () => void {
    this.#untold++
    let done = false
    return () => {
      if (done) return
      done = true
      if (--this.#untold > 0) return
      for (const wake of this.#waiting) wake()
      this.#waiting.clear()
    }
  }

  /** Completes once every socket watching has been told or has closed. */
  readonly told: Effect.Effect<void> = Effect.callback<void>((resume) => {
    if (this.#untold === 0) return resume(Effect.void)
    const wake = () => resume(Effect.void)
    this.#waiting.add(wake)
    return Effect.sync(() => void this.#waiting.delete(wake))
  })
}

/** A `ui.*` call the driver made, and the screen after it (what the trace records). */
export interface UiCommand {
  readonly method: string
  readonly params: unknown
  readonly screen: unknown
}

/**
 * One driver connection: its attach (if any) and the replies it writes.
 */
class Connection {
  readonly #network: DrivenNetwork
  readonly #scope: Scope.Scope
  readonly #send: (text: string) => Effect.Effect<void>
  readonly #told: ((command: DriverCommand | UiCommand) => void) | undefined
  readonly #terminal: (() => Terminal | undefined) | undefined
  readonly #exits: ExitNotices | undefined
  /** Runs an effect in order with the frames received (after the one being handled). */
  readonly #inOrder: (job: Effect.Effect<void>) => Effect.Effect<void>
  #attach: Scope.Closeable | undefined
  #notices: DriverNotices | undefined
  #watching = false

  constructor(
    network: DrivenNetwork,
    scope: Scope.Scope,
    send: (text: string) => Effect.Effect<void>,
    told: ((command: DriverCommand | UiCommand) => void) | undefined,
    terminal: (() => Terminal | undefined) | undefined,
    exits: ExitNotices | undefined,
    inOrder: (job: Effect.Effect<void>) => Effect.Effect<void>
  ) {
    this.#network = network
    this.#scope = scope
    this.#send = send
    this.#told = told
    this.#terminal = terminal
    this.#exits = exits
    this.#inOrder = inOrder
  }

  /**
   * Tells this socket, once, when the terminal's program exits (`ui.exit`, with the last screen),
   * in order after the frames already received: watched from the first moment a terminal is
   * seen, at once when it has already exited.
   */
  watchExit(): Effect.Effect<void> {
    const terminal = this.#terminal?.()
    if (terminal === undefined || this.#watching) return Effect.void
    this.#watching = true
    const done = this.#exits?.open() ?? (() => {})
    const tell = (exit: TerminalExit) =>
      Effect.ensuring(this.#send(notification("ui.exit", { ...exit, screen: terminal.screen() })), Effect.sync(done))
    return Effect.andThen(
      Scope.addFinalizer(this.#scope, Effect.sync(done)),
      Effect.forkIn(
        Effect.flatMap(terminal.exited, (exit) => this.#inOrder(tell(exit))),
        this.#scope
      )
    )
  }

  /** The reply to one received frame, as JSON (undefined for notifications), then what to do once it is sent. */
  frame(
    frame: string | Uint8Array
  ): Effect.Effect<{ readonly reply: string | undefined; readonly after: Effect.Effect<void> }> {
    const size = typeof frame === "string" ? frame.length : frame.byteLength
    const none = { reply: undefined, after: Effect.void }
    if (size > MAX_MESSAGE) {
      return Effect.succeed({
        reply: failure(null, {
          code: -32600,
          message: `Invalid Request: the message is ${size} bytes; the limit is ${MAX_MESSAGE}`
        }),
        after: Effect.void
      })
    }
    let message: unknown
    try {
      message = JSON.parse(typeof frame === "string" ? frame : decoder.decode(frame))
    } catch (error) {
      return Effect.succeed({
        reply: failure(null, {
          code: -32700,
          message: `Parse error: ${error instanceof Error ? error.message : String(error)}`
        }),
        after: Effect.void
      })
    }
    if (!Array.isArray(message)) return Effect.map(this.#request(message), (r) => (r === undefined ? none : r))
    if (message.length === 0)
      return Effect.succeed({
        reply: failure(null, { code: -32600, message: "Invalid Request: an empty batch" }),
        after: Effect.void
      })
    if (message.length > MAX_BATCH) {
      return Effect.succeed({
        reply: failure(null, {
          code: -32600,
          message: `Invalid Request: a batch of ${message.length} calls; the limit is ${MAX_BATCH}`
        }),
        after: Effect.void
      })
    }
    // The calls run in order while their replies fit in `MAX_REPLY`; past it, the rest are not
    // run and each is told why.
    const self = this
    return Effect.gen(function* () {
      const replies: Array<string> = []
      const afters: Array<Effect.Effect<void>> = []
      let bytes = 2
      for (const m of message) {
        if (bytes > MAX_REPLY) {
          const id = isJsonObject(m) && isId(m["id"]) ? m["id"] : null
          replies.push(
            failure(id, {
              code: -32000,
              message: `Reply too large: this batch's replies passed ${MAX_REPLY} bytes, so this call was not run; send fewer calls per batch`
            })
          )
          continue
        }
        const result = yield* self.#request(m)
        if (result === undefined) continue
        afters.push(result.after)
        // A notification has no entry in the batch's reply (JSON-RPC 2.0 §6).
        if (result.reply === undefined) continue
        bytes += Buffer.byteLength(result.reply) + 1
        replies.push(result.reply)
      }
      const after = Effect.all(afters, { discard: true })
      return replies.length === 0 ? { reply: undefined, after } : { reply: `[${replies.join(",")}]`, after }
    })
  }

  #request(
    message: unknown
  ): Effect.Effect<
    | { readonly reply: string; readonly after: Effect.Effect<void> }
    | { readonly reply: undefined; readonly after: Effect.Effect<void> }
    | undefined
  > {
    if (
      !isJsonObject(message) ||
      message["jsonrpc"] !== "2.0" ||
      typeof message["method"] !== "string" ||
      ("id" in message && !isId(message["id"]))
    ) {
      const id = isJsonObject(message) && isId(message["id"]) ? message["id"] : null
      return Effect.succeed({
        reply: failure(id, {
          code: -32600,
          message: 'Invalid Request: expected {"jsonrpc": "2.0", "method": string, "id"?, "params"?}'
        }),
        after: Effect.void
      })
    }
    const notify = !("id" in message)
    const id = notify ? null : (message["id"] as Id)
    const method = message["method"]
    const params = message["params"] ?? {}
    return Effect.map(Effect.exit(this.#call(method, params)), (exit) => {
      if (notify) return Exit.isSuccess(exit) ? { reply: undefined, after: exit.value.after } : undefined
      if (Exit.isSuccess(exit)) return { reply: success(id, exit.value.result), after: exit.value.after }
      const error = Cause.findErrorOption(exit.cause)
      return {
        reply: failure(
          id,
          error._tag === "Some" ? error.value : { code: -32603, message: internalMessage(exit.cause) }
        ),
        after: Effect.void
      }
    })
  }

  #call(
    method: string,
    params: unknown
  ): Effect.Effect<{ readonly result: unknown; readonly after: Effect.Effect<void> }, RpcError> {
    const llm = this.#network.llm
    const plain = (result: unknown) => ({ result, after: Effect.void })
    if (COMMANDS.has(method)) {
      if (this.#notices === undefined || !llm.isAttachedDriver(this.#notices)) {
        return Effect.fail({
          code: -32002,
          message:
            this.#notices === undefined
              ? `Not the attached driver: send llm.attach before ${method}`
              : `Not the attached driver: another driver attached since; this socket no longer commands invocations`
        })
      }
      const told = this.#told
      if (told === undefined)
        return Effect.mapError(Effect.as(llm.command(method as "llm.chunk", params), plain(true)), fromSimnet)
      // The URL of the invocation an ending command answers, read before the command ends it;
      // a chunk needs none, so the many chunks of a stream cost no lookup.
      const id = method !== "llm.chunk" && isJsonObject(params) ? params["id"] : undefined
      const url = id === undefined ? undefined : llm.pending.find((invocation) => invocation.id === id)?.url
      return Effect.mapError(
        Effect.map(llm.command(method as "llm.chunk", params), () => {
          told({ method, params, url })
          return plain(true)
        }),
        fromSimnet
      )
    }
    if (method.startsWith("ui.")) {
      return Effect.andThen(
        this.watchExit(),
        Effect.map(uiCall(this.#terminal?.(), method, params, this.#network.quiescent, this.#told), plain)
      )
    }
    switch (method) {
      case "llm.attach":
        return this.#attachDriver()
      case "llm.pending":
        return Effect.sync(() => plain(llm.pending))
      case "network.log": {
        const since = isJsonObject(params) ? (params["since"] ?? 0) : undefined
        if (typeof since !== "number" || !Number.isInteger(since) || since < 0) {
          return Effect.fail({
            code: -32602,
            message: "Invalid params: since must be a whole number of at least 0",
            data: { path: "since" }
          })
        }
        const limit = isJsonObject(params) ? (params["limit"] ?? MAX_LOG_RECORDS) : undefined
        if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_RECORDS) {
          return Effect.fail({
            code: -32602,
            message: `Invalid params: limit must be a whole number from 1 to ${MAX_LOG_RECORDS}`,
            data: { path: "limit" }
          })
        }
        return Effect.map(this.#network.logSince(since, limit), (records) => plain(page(records)))
      }
      default:
        return Effect.fail({
          code: -32601,
          message: `Method not found: ${JSON.stringify(method)}; methods: llm.attach, llm.chunk, llm.finish, llm.fail, llm.disconnect, llm.pending, network.log, ${UI_METHODS.join(", ")}`
        })
    }
  }

  /**
   * Attaches this socket as the driver. Its notices are forwarded once the reply has been sent,
   * so the driver reads the attach's answer before the replayed `llm.request`s.
   */
  #attachDriver(): Effect.Effect<{ readonly result: unknown; readonly after: Effect.Effect<void> }> {
    const self = this
    return Effect.gen(function* () {
      const scope = yield* Scope.fork(self.#scope, "sequential")
      const notices = yield* Scope.provide(scope)(self.#network.llm.attach)
      const previous = self.#attach
      self.#attach = scope
      self.#notices = notices
      if (previous !== undefined) yield* Scope.close(previous, Exit.void)
      const forward = Effect.forever(
        Effect.flatMap(Queue.take(notices), (notice) => self.#send(notification("llm.request", notice)))
      ).pipe(
        Effect.catchTag("Done", () =>
          self.#send(
            notification("llm.replaced", {
              message: "another driver attached; this socket no longer receives llm.request"
            })
          )
        )
      )
      return {
        result: { attached: true, pending: self.#network.llm.pending.length },
        after: Effect.asVoid(Effect.forkIn(forward, scope))
      }
    })
  }
}

/**
 * Serves one driver socket for as long as it is open: upgrades the request, then reads frames
 * into a bounded inbox that one fiber handles in order.
 */
export const driverSocket = (
  network: DrivenNetwork,
  request: HttpServerRequest.HttpServerRequest,
  told?: (command: DriverCommand | UiCommand) => void,
  terminal?: () => Terminal | undefined,
  exits?: ExitNotices
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const socket = yield* request.upgrade
      const writer = yield* socket.writer
      const reader = yield* socket.reader
      const scope = yield* Effect.scope
      const send = (text: string) => Effect.ignore(writer.write(text))
      // Frames, and the jobs that must follow the frames before them (the exit's notice).
      const inbox = yield* Queue.bounded<string | Uint8Array | Effect.Effect<void>>(INBOX)
      const connection = new Connection(network, scope, send, told, terminal, exits, (job) =>
        Effect.asVoid(Queue.offer(inbox, job))
      )
      yield* connection.watchExit()
      const handle = (frame: string | Uint8Array | Effect.Effect<void>) =>
        typeof frame !== "string" && !(frame instanceof Uint8Array)
          ? frame
          : Effect.flatMap(connection.frame(frame), ({ reply, after }) =>
              reply === undefined ? after : Effect.andThen(send(reply), after)
            )
      // Every frame already received is handled before the fiber yields, so the deltas of a burst
      // reach the model's stream together and the server relays them in one write.
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.flatMap(Queue.takeAll(inbox), (frames) => Effect.forEach(frames, handle, { discard: true }))
        )
      )
      yield* Effect.ignore(Effect.forever(Effect.flatMap(reader.pull, (frames) => Queue.offerAll(inbox, frames))))
      return HttpServerResponse.empty()
    })
  ).pipe(
    Effect.catch(() =>
      Effect.succeed(
        HttpServerResponse.jsonUnsafe(
          { error: { tag: "UpgradeRequired", message: "the driver socket speaks WebSocket" } },
          { status: 426 }
        )
      )
    )
  )
