/**
 * A driven invocation: a model request whose answer a driver feeds item by item. The response
 * opens at the first driver command (so `fail` before any chunk is still an HTTP status), streams
 * what follows, and ends at `finish`, `fail` or `disconnect` — or when the client goes away.
 */
import type { LlmDriverItem, LlmFinish } from "../schemas/llmScript.ts"
import type { ChatCompletion, CompletionUsage, FinishReason } from "../schemas/openai.ts"
import { connectionReset } from "../registry/transport.ts"
import { Mailbox } from "./body.ts"
import type { LlmRequest } from "./conversation.ts"
import type { ChunkHead, Part } from "./wire.ts"
import { ChunkWriter, completion, countOutputTokens, naturalFinish, splitArguments, usageOf, wireFinish } from "./wire.ts"

/**
 * How a driven response starts: a stream, a whole completion (non-streamed requests), an HTTP
 * error, or a dropped connection.
 */
export type Opening =
  | { readonly _tag: "Stream"; readonly body: ReadableStream<Uint8Array> }
  | { readonly _tag: "Completion"; readonly completion: ChatCompletion }
  | { readonly _tag: "HttpError"; readonly status: number; readonly message: string }
  | { readonly _tag: "Disconnected" }

/**
 * The finish reasons a driver may give, in the script's spelling or the API's.
 */
export type DriverFinish = LlmFinish | FinishReason

const toPart = (item: LlmDriverItem, callId: () => string): Part => {
  switch (item.type) {
    case "textDelta":
      return { kind: "text", text: item.text }
    case "reasoningDelta":
      return { kind: "reasoning", text: item.text }
    case "toolCall":
      return {
        kind: "toolCall",
        id: item.id ?? callId(),
        name: item.name,
        fragments: item.arguments !== undefined ? [item.arguments] : splitArguments(JSON.stringify(item.input ?? {}))
      }
    case "raw":
      return "chunk" in item ? { kind: "rawChunk", chunk: item.chunk } : { kind: "raw", data: item.data }
  }
}

/**
 * One driven invocation. Commands after it closed are refused by the provider before they reach
 * it; the methods here assume an open invocation.
 */
export class DrivenInvocation {
  readonly id: string
  readonly seq: number
  readonly request: LlmRequest
  readonly head: ChunkHead
  /** Opened because a driver was attached (not by a `drive` rule): closed when the last driver leaves. */
  readonly viaAttach: boolean
  readonly #writer: ChunkWriter
  readonly #parts: Array<Part> = []
  readonly #onClose: () => void
  #mailbox: Mailbox | undefined
  #closed = false
  #calls = 0
  #opening: Opening | undefined
  #onOpen: ((opening: Opening) => void) | undefined
  #onClosed: Array<() => void> = []

  constructor(seq: number, request: LlmRequest, head: ChunkHead, viaAttach: boolean, onClose: () => void) {
    this.id = `inv_${seq}`
    this.seq = seq
    this.request = request
    this.head = head
    this.viaAttach = viaAttach
    this.#writer = new ChunkWriter(head, request.includeUsage)
    this.#onClose = onClose
  }

  /** Whether the response has started (headers sent). */
  get started(): boolean {
    return this.#opening !== undefined
  }

  /** Whether the invocation has ended. */
  get closed(): boolean {
    return this.#closed
  }

  /** Calls `f` once the response opens (at once when it already has). */
  whenOpen(f: (opening: Opening) => void): void {
    if (this.#opening !== undefined) f(this.#opening)
    else this.#onOpen = f
  }

  #open(opening: Opening): void {
    this.#opening = opening
    const f = this.#onOpen
    this.#onOpen = undefined
    f?.(opening)
  }

  /** Calls `f` once the invocation ends (at once when it already has). */
  whenClosed(f: () => void): void {
    if (this.#closed) f()
    else this.#onClosed.push(f)
  }

  #close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#onClose()
    const callbacks = this.#onClosed
    this.#onClosed = []
    for (const f of callbacks) f()
  }

  #stream(): Mailbox {
    if (this.#mailbox === undefined) {
      const mailbox = new Mailbox(() => this.#close())
      this.#mailbox = mailbox
      mailbox.push([this.#writer.role()])
      this.#open({ _tag: "Stream", body: mailbox.body() })
    }
    return this.#mailbox
  }

  /** Sends items: each text or reasoning delta is one chunk. */
  chunk(items: ReadonlyArray<LlmDriverItem>): void {
    const parts = items.map((item) => toPart(item, () => `call_${this.seq}_${this.#calls++}`))
    if (!this.request.stream) {
      for (const part of parts) this.#parts.push(part)
      return
    }
    const mailbox = this.#stream()
    for (const part of parts) mailbox.push(this.#writer.part(part))
  }

  /** Ends the answer: finish chunk, usage chunk when asked for, `[DONE]`; or the whole completion. */
  finish(reason: DriverFinish | undefined, usage: CompletionUsage | undefined): void {
    if (reason === "error") return this.fail(500, "The model stopped with an error.")
    const finish: FinishReason | null =
      reason === undefined
        ? this.request.stream
          ? this.#writer.calledTools ? "tool_calls" : "stop"
          : naturalFinish(this.#parts)
        : reason === "tool-calls" || reason === "unknown"
          ? wireFinish(reason)
          : reason
    if (this.request.stream) {
      const mailbox = this.#stream()
      mailbox.push(this.#writer.finish(finish, usageOf(usage, this.request.material, this.#writer.outputTokens)))
      mailbox.close()
    } else {
      const total = usageOf(usage, this.request.material, countOutputTokens(this.#parts))
      this.#open({ _tag: "Completion", completion: completion(this.head, this.#parts, finish, total) })
    }
    this.#close()
  }

  /** Fails the call: an HTTP error before the response started, else an error event that ends the stream. */
  fail(status: number, message: string): void {
    const mailbox = this.#mailbox
    if (mailbox === undefined) {
      this.#open({ _tag: "HttpError", status, message })
    } else {
      mailbox.push([this.#writer.error(message)])
      mailbox.close()
    }
    this.#close()
  }

  /** Drops the connection: the request fails before the response started, else the body is reset. */
  disconnect(): void {
    const mailbox = this.#mailbox
    if (mailbox === undefined) this.#open({ _tag: "Disconnected" })
    else mailbox.fail(connectionReset())
    this.#close()
  }

  /** The client went away: the invocation closes without answering. */
  abandon(reason: unknown): void {
    this.#onOpen = undefined
    this.#mailbox?.fail(reason)
    this.#close()
  }
}
