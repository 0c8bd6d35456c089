/**
 * A driven invocation: a model request whose answer a driver feeds item by item. The response
 * opens at the first driver command (so `fail` before any chunk is still an HTTP status), streams
 * what follows, and ends at `finish`, `fail` or `disconnect` — or when the client goes away. The
 * invocation speaks in parts; the model route it came through writes them in its wire format.
 */
import type { LlmDriverItem, LlmFinish } from "../../schemas/llmScript.ts"
import type { FinishReason, TokenUsage } from "./parts.ts"
import { connectionReset } from "../../registry/transport.ts"
import { Mailbox } from "./body.ts"
import type { LlmRequest } from "./conversation.ts"
import type { Finish, Part } from "./parts.ts"
import { naturalFinish, splitArguments, wireFinish } from "./parts.ts"

/**
 * How a driven response starts: a stream (its items, written by the route), a whole answer
 * (non-streamed requests), an HTTP error, or a dropped connection.
 */
export type Opening =
  | { readonly _tag: "Stream"; readonly mailbox: Mailbox }
  | {
      readonly _tag: "Answer"
      readonly parts: ReadonlyArray<Part>
      readonly finish: Finish
      readonly usage: TokenUsage | undefined
    }
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
    // The script's vocabulary, for drivers that write what scripts write.
    case "text":
      return { kind: "text", text: item.content }
    case "thinking":
      return { kind: "reasoning", text: item.content }
    case "tool_call":
      return { kind: "toolCall", id: callId(), name: item.name, fragments: splitArguments(JSON.stringify(item.input)) }
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
  /** Opened because a driver was attached (not by a `drive` rule): closed when the last driver leaves. */
  readonly viaAttach: boolean
  readonly #parts: Array<Part> = []
  readonly #onClose: () => void
  #mailbox: Mailbox | undefined
  #closed = false
  #calls = 0
  #calledTools = false
  #opening: Opening | undefined
  #onOpen: ((opening: Opening) => void) | undefined
  #onClosed: Array<() => void> = []

  constructor(seq: number, request: LlmRequest, viaAttach: boolean, onClose: () => void) {
    this.id = `inv_${seq}`
    this.seq = seq
    this.request = request
    this.viaAttach = viaAttach
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
      this.#open({ _tag: "Stream", mailbox })
    }
    return this.#mailbox
  }

  /** Sends items: each text or reasoning delta is one fragment. */
  chunk(items: ReadonlyArray<LlmDriverItem>): void {
    const parts = items.map((item) => toPart(item, () => `call_${this.seq}_${this.#calls++}`))
    if (parts.some((part) => part.kind === "toolCall")) this.#calledTools = true
    if (!this.request.stream) {
      for (const part of parts) this.#parts.push(part)
      return
    }
    this.#stream().push(parts)
  }

  /** Ends the answer: the closing events of the stream, or the whole answer. */
  finish(reason: DriverFinish | undefined, usage: TokenUsage | undefined): void {
    if (reason === "error") {
      this.fail(500, "The model stopped with an error.")
      return
    }
    const finish: Finish =
      reason === undefined
        ? this.request.stream
          ? this.#calledTools
            ? "tool_calls"
            : "stop"
          : naturalFinish(this.#parts)
        : reason === "tool-calls" || reason === "unknown"
          ? wireFinish(reason)
          : reason
    if (this.request.stream) {
      const mailbox = this.#stream()
      mailbox.push([{ kind: "finish", finish, usage }])
      mailbox.close()
    } else {
      this.#open({ _tag: "Answer", parts: this.#parts, finish, usage })
    }
    this.#close()
  }

  /** Fails the call: an HTTP error before the response started, else an error event that ends the stream. */
  fail(status: number, message: string): void {
    const mailbox = this.#mailbox
    if (mailbox === undefined) {
      this.#open({ _tag: "HttpError", status, message })
    } else {
      mailbox.push([{ kind: "error", message }])
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
